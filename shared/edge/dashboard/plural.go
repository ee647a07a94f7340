package dashboard

import (
	"strconv"

	"github.com/takapay/payments/shared/foundation/page"
)

// tn is t for a counted message, the page kit's convention (page.Lang.Plural): key+".one" for
// exactly one in English when the catalogue has that form, else key. Bangla has one form (its
// counted noun takes a classifier, the same for every count); both catalogues hold the .one
// key, so TestCatalogues holds it to the same placeholders.
func tn(l page.Lang, key string, n int, args ...string) string {
	if l != page.BN && n == 1 {
		if _, ok := catalogue(l)[key+".one"]; ok {
			return t(l, key+".one", args...)
		}
	}
	return t(l, key, args...)
}

// plural is n things in l's words with {n} in l's digits ("1 key", "3 keys"; "১টি কি").
func plural(l page.Lang, key string, n int) string {
	return tn(l, key, n, "n", l.Digits(strconv.Itoa(n)))
}
