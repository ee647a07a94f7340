package webhook

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	takapay "github.com/takapay/payments/clients/go"
)

var (
	keyA    = []byte("0123456789abcdef0123456789abcdef")
	keyB    = []byte("fedcba9876543210fedcba9876543210")
	secretA = "whsec_" + base64.StdEncoding.EncodeToString(keyA)
	secretB = "whsec_" + base64.StdEncoding.EncodeToString(keyB)
	now     = time.Unix(1_795_000_000, 0)
	body    = []byte(`{"id":"01a21f1c-69ad-712c-9755-db228abf03a6","type":"payment.completed","timestamp":"2026-11-16T08:26:40Z","data":{"invoice_id":"0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11","intent_id":"0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11","status":"COMPLETED","amount_minor":15050,"currency":"BDT","reference":"order-1","environment":"sandbox","source":{"kind":"standalone"}}}`)
)

const id = "01a21f1c-69ad-712c-9755-db228abf03a6"

func headers(ts time.Time, sigs ...string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	s := ""
	for i, sig := range sigs {
		if i > 0 {
			s += " "
		}
		s += sig
	}
	h.Set("webhook-signature", s)
	return h
}

func sig(key []byte, ts time.Time, b []byte) string {
	return "v1," + Sign(key, id, strconv.FormatInt(ts.Unix(), 10), b)
}

func opts() Options { return Options{Now: func() time.Time { return now }} }

func code(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestVerify(t *testing.T) {
	ev, err := Verify(secretA, headers(now, sig(keyA, now, body)), body, opts())
	if err != nil {
		t.Fatal(err)
	}
	if ev.Id != id || ev.Type != "payment.completed" || ev.Data.AmountMinor != 15050 || ev.Data.Reference != "order-1" || ev.Data.Status != "COMPLETED" {
		t.Errorf("event %+v", ev)
	}
}

// A known vector: the Standard Webhooks specification's example.
func TestSignKnownVector(t *testing.T) {
	key, err := DecodeSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if got != "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("Sign = %s", got)
	}
}

// While a secret is rolled the header carries one signature per active secret: any match is enough.
func TestVerifyRotation(t *testing.T) {
	h := headers(now, sig(keyB, now, body), sig(keyA, now, body))
	if _, err := Verify(secretA, h, body, opts()); err != nil {
		t.Errorf("the old secret: %v", err)
	}
	if _, err := Verify(secretB, h, body, opts()); err != nil {
		t.Errorf("the new secret: %v", err)
	}
	// Unknown versions and junk next to a good signature are skipped.
	h = headers(now, "v2,abc", "junk", sig(keyA, now, body))
	if _, err := Verify(secretA, h, body, opts()); err != nil {
		t.Errorf("with other entries: %v", err)
	}
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("another key entirely, 32 bytes!!"))
	if _, err := Verify(other, headers(now, sig(keyB, now, body), sig(keyA, now, body)), body, opts()); code(err) != NoMatchingSig {
		t.Errorf("neither secret: %v", err)
	}
}

func TestVerifyTolerance(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want Code
	}{
		{now.Add(-5 * time.Minute), ""}, {now.Add(5 * time.Minute), ""},
		{now.Add(-5*time.Minute - time.Second), TimestampTooOld}, {now.Add(5*time.Minute + time.Second), TimestampTooNew},
		{now.Add(-24 * time.Hour), TimestampTooOld},
	} {
		_, err := Verify(secretA, headers(c.at, sig(keyA, c.at, body)), body, opts())
		if code(err) != c.want {
			t.Errorf("timestamp %s from now: %v; want %q", c.at.Sub(now), err, c.want)
		}
	}
	// A wider tolerance.
	at := now.Add(-20 * time.Minute)
	if _, err := Verify(secretA, headers(at, sig(keyA, at, body)), body, Options{Now: opts().Now, Tolerance: 30 * time.Minute}); err != nil {
		t.Error(err)
	}
}

func TestVerifyRejects(t *testing.T) {
	good := headers(now, sig(keyA, now, body))
	tampered := append([]byte{}, body...)
	tampered[len(tampered)-3] = 'X'
	if _, err := Verify(secretA, good, tampered, opts()); code(err) != NoMatchingSig {
		t.Errorf("tampered body: %v", err)
	}
	// The signature of another id or timestamp does not carry over.
	h := good.Clone()
	h.Set("webhook-id", "another-id")
	if _, err := Verify(secretA, h, body, opts()); code(err) != NoMatchingSig {
		t.Errorf("another id: %v", err)
	}
	h = good.Clone()
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix()+1, 10))
	if _, err := Verify(secretA, h, body, opts()); code(err) != NoMatchingSig {
		t.Errorf("another timestamp: %v", err)
	}
	h = good.Clone()
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
	if _, err := Verify(secretA, h, body, opts()); code(err) != NoMatchingSig {
		t.Errorf("tampered signature: %v", err)
	}
	for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		h := good.Clone()
		h.Del(name)
		if _, err := Verify(secretA, h, body, opts()); code(err) != MissingHeader {
			t.Errorf("no %s: %v", name, err)
		}
	}
	h = good.Clone()
	h.Set("webhook-timestamp", "yesterday")
	if _, err := Verify(secretA, h, body, opts()); code(err) != InvalidTimestamp {
		t.Errorf("timestamp not a number: %v", err)
	}
	for _, s := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_!!!"} {
		if _, err := Verify(s, good, body, opts()); code(err) != InvalidSecret {
			t.Errorf("secret %q: %v", s, err)
		}
	}
	notJSON := []byte("not json")
	if _, err := Verify(secretA, headers(now, sig(keyA, now, notJSON)), notJSON, opts()); code(err) != InvalidPayload {
		t.Errorf("a signed body that is no event: %v", err)
	}
}

// VerifyEvent tells a refund event from a payment event and decodes each typed; the signature
// is checked exactly as by Verify.
func TestVerifyEventRefund(t *testing.T) {
	refund := []byte(`{"id":"` + id + `","type":"refund.approved","timestamp":"2026-11-29T03:00:00Z","data":{"id":"22222222-2222-4222-8222-222222222222",` +
		`"object":"refund","workspace_id":"11111111-1111-4111-8111-111111111111","environment":"sandbox","payment_id":"0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11",` +
		`"amount_minor":20000,"currency":"BDT","status":"APPROVED","reason":"goods_returned","requested_by":"payer","due_by":"2026-12-02T03:00:00Z",` +
		`"history":[{"status":"REQUESTED","at":"2026-11-29T02:00:00Z","by":"payer"},{"status":"APPROVED","at":"2026-11-29T03:00:00Z","by":"key_1"}],` +
		`"version":2,"created_at":"2026-11-29T02:00:00Z","updated_at":"2026-11-29T03:00:00Z"}}`)
	ev, err := VerifyEvent(secretA, headers(now, sig(keyA, now, refund)), refund, opts())
	if err != nil {
		t.Fatal(err)
	}
	if !ev.IsRefund() || ev.IsPayment() || ev.Id != id || ev.Type != "refund.approved" {
		t.Errorf("event %+v", ev)
	}
	r, err := ev.Refund()
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != takapay.RefundWebhookPayloadTypeRefundApproved || r.Data.AmountMinor != 20000 || r.Data.PaymentId.String() != "0f0c6a1e-8a8e-4d52-9a51-6a3f4d0f1a11" ||
		r.Data.DueBy == nil || len(r.Data.History) != 2 || r.Data.History[0].By != "payer" {
		t.Errorf("refund event %+v", r)
	}
	if _, err := ev.Payment(); err == nil {
		t.Error("a refund event decoded as a payment event")
	}

	pay, err := VerifyEvent(secretA, headers(now, sig(keyA, now, body)), body, opts())
	if err != nil {
		t.Fatal(err)
	}
	p, err := pay.Payment()
	if err != nil || !pay.IsPayment() || p.Data.AmountMinor != 15050 || p.Data.Reference != "order-1" {
		t.Errorf("payment event %+v %v", p, err)
	}
	if _, err := pay.Refund(); err == nil {
		t.Error("a payment event decoded as a refund event")
	}

	tampered := []byte(strings.Replace(string(refund), "20000", "90000", 1))
	if _, err := VerifyEvent(secretA, headers(now, sig(keyA, now, refund)), tampered, opts()); code(err) != NoMatchingSig {
		t.Errorf("a tampered refund event: %v", err)
	}
	if _, err := VerifyEvent(secretA, headers(now.Add(-6*time.Minute), sig(keyA, now.Add(-6*time.Minute), refund)), refund, opts()); code(err) != TimestampTooOld {
		t.Errorf("a stale refund event: %v", err)
	}
}
