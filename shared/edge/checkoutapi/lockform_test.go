package checkoutapi

import (
	"maps"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// The lock's form reads the chosen method's own field; the form's old single field and the
// JSON door ("route", "payer") still work; a form without a route but one filled field chooses
// that field's method; and every typed value comes back to refill a refused form.
func TestLockFields(t *testing.T) {
	p := &payment.Payment{Environment: auth.Sandbox}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for _, c := range []struct {
		name, body, ctype string
		route, payer      string
		typed             map[string]string
	}{
		{"own field", "route=nagad&payer_bkash=017&payer_nagad=+01812345678+", "form", "nagad", "01812345678", map[string]string{"bkash": "017", "nagad": "01812345678"}},
		{"old single field", "route=bkash&payer=01712345678", "form", "bkash", "01712345678", map[string]string{"bkash": "01712345678"}},
		{"own field before the old one", "route=card&payer=x&payer_card=a%40b.com", "form", "card", "a@b.com", map[string]string{"card": "a@b.com"}},
		{"no route, one field", "payer_card=a%40b.com&payer_bkash=", "form", "card", "a@b.com", map[string]string{"card": "a@b.com"}},
		{"no route, two fields", "payer_card=a%40b.com&payer_bkash=017", "form", "", "", map[string]string{"card": "a@b.com", "bkash": "017"}},
		{"unknown route's field", "route=bkash&payer_paypal=x", "form", "bkash", "", map[string]string{}},
		{"json", `{"route":"bkash","payer":" 01712345678 "}`, "json", "bkash", "01712345678", nil},
	} {
		r := &web.Request{Body: []byte(c.body), Headers: map[string]string{}}
		if c.ctype == "form" {
			r.Headers = form
		}
		route, payer, typed, err := lockFields(r, modeOf(r), p)
		if err != nil || route != c.route || payer != c.payer || !maps.Equal(typed, c.typed) {
			t.Errorf("%s: %q %q %v %v, want %q %q %v", c.name, route, payer, typed, err, c.route, c.payer, c.typed)
		}
	}
	r := &web.Request{Body: []byte(`{"route":"bkash","payer_bkash":"017"}`), Headers: map[string]string{}}
	if _, _, _, err := lockFields(r, modeOf(r), p); err == nil {
		t.Errorf("the JSON door took a form field name")
	}
}
