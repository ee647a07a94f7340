package payment

import (
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/jsonbody"
)

// TestCheckEmailIsJSONBodys holds the payer email rule equal to the request format "email"
// (decision 63): the same answer for every address, valid or not.
func TestCheckEmailIsJSONBodys(t *testing.T) {
	for _, s := range []string{"a@b.co", "rahim@shop.com.bd", "A.B+c@x-y.example", "", "a", "a@b", "@b.co",
		"a@b..co", "a@-b.co", "a b@c.co", "a@b.co ", strings.Repeat("a", 65) + "@b.co",
		strings.Repeat("a", 64) + "@b.co", "a@" + strings.Repeat("b", 250) + ".co", "রহিম@b.co"} {
		if got, want := CheckEmail(s), jsonbody.CheckEmail(s); got != want {
			t.Errorf("CheckEmail(%q) = %q, jsonbody.CheckEmail = %q", s, got, want)
		}
	}
}
