package refundapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/refund"
)

const pay = "01a22547-c8b3-7c52-9ea1-d0e1d1d487cf"

// refusal asserts err is code naming path.
func refusal(t *testing.T, what string, err error, code apierr.Code, path string) {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
		return
	}
	if path == "" {
		return
	}
	for _, v := range ae.Violations {
		if v.Path == path {
			return
		}
	}
	t.Errorf("%s: violations %+v do not name %s", what, ae.Violations, path)
}

func TestParseCreateRefusesBadInput(t *testing.T) {
	p := `"payment_id":"` + pay + `"`
	for _, c := range []struct {
		name, body string
		code       apierr.Code
		path       string
	}{
		{"negative", `{` + p + `,"amount_minor":-1,"reason":"other"}`, apierr.ValidationFailed, "body.amount_minor"},
		{"zero", `{` + p + `,"amount_minor":0,"reason":"other"}`, apierr.ValidationFailed, "body.amount_minor"},
		{"fractional", `{` + p + `,"amount_minor":1.5,"reason":"other"}`, apierr.ValidationFailed, "body.amount_minor"},
		{"exponent", `{` + p + `,"amount_minor":1e3,"reason":"other"}`, apierr.ValidationFailed, "body.amount_minor"},
		{"string amount", `{` + p + `,"amount_minor":"100","reason":"other"}`, apierr.ValidationFailed, "body.amount_minor"},
		{"unknown reason", `{` + p + `,"reason":"changed_mind"}`, apierr.ValidationFailed, "body.reason"},
		{"no reason", `{` + p + `}`, apierr.ValidationFailed, "body.reason"},
		{"256-character note", `{` + p + `,"reason":"other","note":"` + strings.Repeat("ন", 256) + `"}`, apierr.ValidationFailed, "body.note"},
		{"129-character reference", `{` + p + `,"reason":"other","reference":"` + strings.Repeat("r", 129) + `"}`, apierr.ValidationFailed, "body.reference"},
		{"not a payment id", `{"payment_id":"inv_1","reason":"other"}`, apierr.ValidationFailed, "body.payment_id"},
		{"unknown member", `{` + p + `,"reason":"other","requested_by":"payer"}`, apierr.ValidationFailed, "body.requested_by"},
		{"metadata number", `{` + p + `,"reason":"other","metadata":{"n":1}}`, apierr.ValidationFailed, "body.metadata.n"},
		{"metadata long key", `{` + p + `,"reason":"other","metadata":{"` + strings.Repeat("k", 41) + `":"v"}}`, apierr.ValidationFailed, "body.metadata"},
		{"metadata too big", `{` + p + `,"reason":"other","metadata":{"a":"` + strings.Repeat("v", 4100) + `"}}`, apierr.ValidationFailed, "body.metadata"},
		{"metadata duplicate", `{` + p + `,"reason":"other","metadata":{"a":"1","a":"2"}}`, apierr.ValidationFailed, "body.metadata.a"},
		{"malformed JSON", `{` + p + `,"reason":`, apierr.MalformedRequest, ""},
		{"not an object", `[1]`, apierr.ValidationFailed, "body"},
	} {
		_, err := ParseCreate([]byte(c.body))
		refusal(t, c.name, err, c.code, c.path)
	}
}

func TestParseCreateKeepsTextAndHashesContent(t *testing.T) {
	in, err := ParseCreate([]byte(`{"payment_id":"` + strings.ToUpper(pay) + `","reason":"goods_returned","note":"<script>x</script>\n২ টি","metadata":{"b":"2","a":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.PaymentID != pay || in.Note != "<script>x</script>\n২ টি" || in.AmountMinor != 0 || in.RequestedBy != refund.ByMerchant {
		t.Fatalf("parsed %+v", in)
	}
	same, _ := ParseCreate([]byte(`{"metadata":{"a":"1","b":"2"},"note":"<script>x</script>\n২ টি","reason":"goods_returned","payment_id":"` + pay + `"}`))
	other, _ := ParseCreate([]byte(`{"payment_id":"` + pay + `","reason":"goods_returned","note":"<script>x</script>\n২ টি","metadata":{"a":"1","b":"3"}}`))
	if in.RequestHash == "" || same.RequestHash != in.RequestHash || other.RequestHash == in.RequestHash {
		t.Errorf("hashes: %q, reordered %q, other metadata %q", in.RequestHash, same.RequestHash, other.RequestHash)
	}
	// The encoder keeps HTML verbatim (JSON is not HTML; pages escape).
	v := Encode(&refund.Refund{ID: "r", Note: in.Note, History: []refund.Entry{}}, time.Now())
	if v.Note != in.Note {
		t.Errorf("encoded note %q", v.Note)
	}
}

func TestParseTransition(t *testing.T) {
	for _, c := range []struct {
		action refund.Action
		body   string
		path   string
	}{
		{refund.Reject, `{}`, "body.reason"},
		{refund.ReportReturned, ``, "body.provider_reference"},
		{refund.ReportReturned, `{"provider_reference":"T1","returned_at":"yesterday"}`, "body.returned_at"},
		{refund.Approve, `{"reason":"x"}`, "body.reason"},
		{refund.Review, `{"expected_version":0}`, "body.expected_version"},
		{refund.Cancel, `{"expected_version":"2"}`, "body.expected_version"},
	} {
		_, err := ParseTransition(c.action, []byte(c.body))
		refusal(t, string(c.action)+" "+c.body, err, apierr.ValidationFailed, c.path)
	}
	_, err := ParseTransition(refund.Review, []byte(`{"note":`))
	refusal(t, "malformed", err, apierr.MalformedRequest, "")
	in, err := ParseTransition(refund.ReportReturned, []byte(`{"provider_reference":"BKA9XK2Q1Z","returned_at":"2026-11-29T10:00:00+06:00","expected_version":4}`))
	if err != nil || in.ProviderReference != "BKA9XK2Q1Z" || in.ReturnedAt == nil || !in.ReturnedAt.Equal(time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)) || in.ExpectedVersion != 4 {
		t.Fatalf("%+v %v", in, err)
	}
	if in, err := ParseTransition(refund.Approve, nil); err != nil || in != (refund.TransitionInput{}) {
		t.Errorf("empty approve: %+v %v", in, err)
	}
}

func TestParseListQuery(t *testing.T) {
	for q, path := range map[string]string{"status": "query.status", "payment_id": "query.payment_id", "overdue": "query.overdue", "limit": "query.limit", "cursor": "query.cursor"} {
		_, err := ParseListQuery(map[string]string{q: "nope"})
		refusal(t, q, err, apierr.ValidationFailed, path)
	}
	got, err := ParseListQuery(map[string]string{"status": "approved", "overdue": "true", "limit": "5", "payment_id": pay})
	if err != nil || got.Status != refund.Approved || !got.Overdue || got.Limit != 5 || got.PaymentID != pay {
		t.Fatalf("%+v %v", got, err)
	}
}
