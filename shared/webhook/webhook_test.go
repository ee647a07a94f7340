package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func mustSecret(t *testing.T) (string, []byte) {
	t.Helper()
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	key, err := ParseSecret(s)
	if err != nil {
		t.Fatalf("ParseSecret(NewSecret()): %v", err)
	}
	return s, key
}

func httpHeader(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func TestNewSecret(t *testing.T) {
	s1, k1 := mustSecret(t)
	s2, _ := mustSecret(t)
	if !strings.HasPrefix(s1, "whsec_") || len(k1) != 32 || s1 == s2 {
		t.Fatalf("NewSecret = %q (%d bytes), second %q", s1, len(k1), s2)
	}
	if got := base64.StdEncoding.EncodeToString(k1); "whsec_"+got != s1 {
		t.Errorf("secret text %q is not whsec_ + std base64 of its key", s1)
	}
}

func TestParseSecret(t *testing.T) {
	enc := func(n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, n)) }
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"whsec_" + enc(24), true},
		{"whsec_" + enc(32), true},
		{"whsec_" + enc(64), true},
		{"whsec_" + enc(23), false},
		{"whsec_" + enc(65), false},
		{enc(32), false},                 // no prefix
		{"WHSEC_" + enc(32), false},      // prefix is case-sensitive
		{"whsec_" + enc(32)[:43], false}, // padding missing
		{"whsec_!" + enc(32)[1:], false}, // not base64
		{"whsec_" + strings.NewReplacer("+", "-", "/", "_").Replace(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff}, 16))), false}, // url alphabet
		{"", false},
	} {
		key, err := ParseSecret(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseSecret(%q) = %d bytes, %v; want ok=%v", tt.in, len(key), err, tt.ok)
		}
		if err != nil && len(tt.in) > 10 && strings.Contains(err.Error(), tt.in[6:]) {
			t.Errorf("ParseSecret error echoes the secret: %v", err)
		}
	}
}

// TestSignKnownAnswer checks Sign against an HMAC computed here independently, and against
// the specification's published test vector.
func TestSignKnownAnswer(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	ts := time.Date(2026, 5, 1, 12, 0, 0, 999_000_000, time.UTC) // fraction ignored
	body := []byte(`{"type":"invoice.paid","data":{"id":"inv_1"}}`)
	h := hmac.New(sha256.New, key)
	h.Write([]byte("msg_2abc." + strconv.FormatInt(ts.Unix(), 10) + "."))
	h.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(h.Sum(nil))
	if got := Sign(key, "msg_2abc", ts, body); got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}

	// The Standard Webhooks specification's example (also in the official libraries' tests).
	specKey, err := ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(specKey, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("spec vector: Sign = %q", got)
	}
}

func TestHeadersVerifyWithOfficialLibrary(t *testing.T) {
	secret, key := mustSecret(t)
	body := []byte(`{"type":"payment.succeeded","amount":125050}`)
	h := httpHeader(Headers([][]byte{key}, "msg_01J", time.Now(), body))
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, h); err != nil {
		t.Fatalf("official library rejects our message: %v (headers %v)", err, h)
	}
	// And our Sign agrees byte for byte with the library's.
	ts := time.Unix(1700000000, 0)
	libSig, err := wh.Sign("msg_01J", ts, body)
	if err != nil || libSig != Sign(key, "msg_01J", ts, body) {
		t.Errorf("library Sign = %q, %v; ours %q", libSig, err, Sign(key, "msg_01J", ts, body))
	}
	// The library rejects tampering with our message too.
	if err := wh.Verify(append(body, ' '), h); err == nil {
		t.Error("official library accepted a tampered body")
	}
}

func TestRotationBothSecretsSign(t *testing.T) {
	oldText, oldKey := mustSecret(t)
	newText, newKey := mustSecret(t)
	otherText, _ := mustSecret(t)
	now := time.Now()
	body := []byte(`{"a":1}`)
	m := Headers([][]byte{newKey, oldKey}, "msg_rot", now, body)
	sigs := strings.Split(m[HeaderSignature], " ")
	if len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") || !strings.HasPrefix(sigs[1], "v1,") {
		t.Fatalf("webhook-signature = %q, want two v1 signatures separated by one space", m[HeaderSignature])
	}
	if m[HeaderID] != "msg_rot" || m[HeaderTimestamp] != strconv.FormatInt(now.Unix(), 10) {
		t.Errorf("headers = %v", m)
	}
	h := httpHeader(m)
	for _, s := range []string{oldText, newText} {
		if err := official(t, s).Verify(body, h); err != nil {
			t.Errorf("official library with one of the two secrets: %v", err)
		}
	}
	if err := official(t, otherText).Verify(body, h); !errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
		t.Errorf("official library with an unrelated secret = %v", err)
	}
}

// official is a receiver's verifier: the Standard Webhooks Go library, not our code.
func official(t *testing.T, secret string) *standardwebhooks.Webhook {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh
}

// Whatever a receiver checks, a tampered message fails it: the signature covers the id, the
// timestamp and the body exactly.
func TestTamperingFailsVerification(t *testing.T) {
	secret, key := mustSecret(t)
	wh := official(t, secret)
	now := time.Now()
	body := []byte(`{"amount":100}`)
	good := Headers([][]byte{key}, "msg_1", now, body)
	if err := wh.Verify(body, httpHeader(good)); err != nil {
		t.Fatalf("Verify(untampered) = %v", err)
	}
	with := func(k, v string) http.Header {
		h := httpHeader(good)
		h.Set(k, v)
		return h
	}
	for name, tc := range map[string]struct {
		h    http.Header
		body []byte
		want error
	}{
		"body":          {httpHeader(good), []byte(`{"amount":10000}`), standardwebhooks.ErrNoMatchingSignature},
		"timestamp":     {with(HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10)), body, standardwebhooks.ErrNoMatchingSignature},
		"id":            {with(HeaderID, "msg_2"), body, standardwebhooks.ErrNoMatchingSignature},
		"version":       {with(HeaderSignature, "v2"+good[HeaderSignature][2:]), body, standardwebhooks.ErrNoMatchingSignature},
		"truncated sig": {with(HeaderSignature, good[HeaderSignature][:20]), body, standardwebhooks.ErrNoMatchingSignature},
		"no id":         {with(HeaderID, ""), body, standardwebhooks.ErrRequiredHeaders},
		"no signature":  {with(HeaderSignature, ""), body, standardwebhooks.ErrRequiredHeaders},
	} {
		if err := wh.Verify(tc.body, tc.h); !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", name, err, tc.want)
		}
	}
	// A message signed 10 minutes ago is outside the 5-minute tolerance receivers apply.
	old := httpHeader(Headers([][]byte{key}, "msg_old", now.Add(-10*time.Minute), body))
	if err := wh.Verify(body, old); !errors.Is(err, standardwebhooks.ErrMessageTooOld) {
		t.Errorf("official library with a 10-minute-old message = %v", err)
	}
}
