package paymentapi

import (
	"errors"
	"github.com/takapay/payments/shared/payment"
	"net/http"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// FuzzParseCreateRequest checks that no body makes the create parser panic or answer with
// anything but a 400 or 422 *apierr.Error, and that every accepted amount is in range.
func FuzzParseCreateRequest(f *testing.F) {
	seeds := []string{
		`{"amount":150.5}`,
		`{"amount":1000000000,"reference":"INV-1","redirect_url":"https://shop.com.bd/ok","webhook_url":"https://shop.com.bd/h"}`,
		`{"amount":0.01,"customer_name":"রহিম","customer_email":"a@b.co","customer_phone":"+880 1712-345678","metadata":{"b":[1,2.50],"a":{"x":null}}}`,
		`{"amount":15050e-2,"cancel_url":"https://shop.com.bd/c#x","metadata":null,"reference":null}`,
		`{"amount":"150"}`,
		`{"amount":1.234,"ammount":1}`,
		`{"amount":1e999999999999}`,
		`{"amount":-0.0,"metadata":[]}`,
		`{"amount":1,"amount":2}`,
		`{"amount":1,"metadata":{"a":1,"a":2}}`,
		`{"amount":1,"redirect_url":"http://169.254.169.254/"}`,
		`[{"amount":1}]`,
		`{"amount":1} {}`,
		`{"amount":`,
		``,
		"{\"amount\":1,\"reference\":\"\xff\"}",
		`{"amount":1,"reference":"\ud800"}`,
		`{"amount":1,"metadata":{"":1}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4096 {
			t.Skip()
		}
		for _, policy := range []urlcheck.Policy{{}, {AllowLocalhost: true}} {
			req, err := ParseCreateRequest(body, policy)
			if err != nil {
				if req != nil {
					t.Fatalf("request %+v returned with error %v", req, err)
				}
				var e *apierr.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
				}
				if s := e.Status(); s != http.StatusBadRequest && s != http.StatusUnprocessableEntity {
					t.Fatalf("status %d (%s: %q), want 400 or 422", s, e.Code, e.Message)
				}
				if e.Message == "" {
					t.Fatalf("%s with an empty message", e.Code)
				}
				continue
			}
			if req == nil {
				t.Fatal("nil request with nil error")
			}
			if req.Amount < 1 || req.Amount > money.MaxPaisa {
				t.Fatalf("accepted amount %d outside [1, %d]", req.Amount, money.MaxPaisa)
			}
			if len(req.Metadata) > payment.MaxMetadataBytes {
				t.Fatalf("accepted metadata of %d bytes", len(req.Metadata))
			}
			if len(req.Hash()) != 32 {
				t.Fatalf("Hash() = %q", req.Hash())
			}
		}
	})
}
