package dashboard

import (
	"strconv"

	"github.com/takapay/payments/shared/foundation/page"
)

// plural is n things in l's words: the catalogue's key+".one" for exactly one, key+".other"
// for any other count, {n} written in l's digits ("1 key", "3 keys"; "১টি কি", "৩টি কি").
// English changes the noun after one; Bangla does not (its counted noun takes a classifier,
// the same for every count), so its .one and .other are the same words. Both forms are in
// both catalogues, so TestCatalogues holds them to the same placeholders.
func plural(l page.Lang, key string, n int) string {
	form := ".other"
	if n == 1 {
		form = ".one"
	}
	return t(l, key+form, "n", l.Digits(strconv.Itoa(n)))
}
