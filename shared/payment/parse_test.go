package payment

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

// ptAPIErr asserts err is an *apierr.Error with code and returns it.
func ptAPIErr(t *testing.T, err error, code apierr.Code) *apierr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want %s", code)
	}
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%q), want %s", e.Code, e.Message, code)
	}
	return e
}

// ptJSON renders s as a JSON string literal.
func ptJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var ptUUIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func TestInvoiceIDForKey(t *testing.T) {
	const key = "order-2025-000001"
	id := InvoiceIDForKey("ws_1", auth.Sandbox, key)
	if !ptUUIDRE.MatchString(id) {
		t.Fatalf("InvoiceIDForKey = %q, want a lower-case UUID", id)
	}
	if id[14] != '8' {
		t.Errorf("version character = %c, want 8 in %s", id[14], id)
	}
	if !strings.ContainsRune("89ab", rune(id[19])) {
		t.Errorf("variant character = %c, want one of 89ab in %s", id[19], id)
	}
	if got := InvoiceIDForKey("ws_1", auth.Sandbox, key); got != id {
		t.Errorf("not deterministic: %s then %s", id, got)
	}
	if parsed, ok := ParseInvoiceID(id); !ok || parsed != id {
		t.Errorf("ParseInvoiceID(%s) = %q, %v", id, parsed, ok)
	}
	variants := []struct {
		name     string
		ws       string
		env      auth.Environment
		key      string
		wantSame bool
	}{
		{"other workspace", "ws_2", auth.Sandbox, key, false},
		{"other environment", "ws_1", auth.Live, key, false},
		{"other key", "ws_1", auth.Sandbox, key + "x", false},
		{"key case", "ws_1", auth.Sandbox, strings.ToUpper(key), false},
		{"boundary shift ws/env", "ws_1s", auth.Environment("andbox"), key, false},
		{"boundary shift env/key", "ws_1", auth.Environment("sandboxo"), key[1:], false},
	}
	for _, v := range variants {
		got := InvoiceIDForKey(v.ws, v.env, v.key)
		if (got == id) != v.wantSame {
			t.Errorf("%s: InvoiceIDForKey = %s, base %s", v.name, got, id)
		}
	}
	// Over many keys the version and variant bits are always set.
	seen := map[string]bool{}
	for i := range 1000 {
		id := InvoiceIDForKey("ws", auth.Sandbox, fmt.Sprintf("key-%016d", i))
		if id[14] != '8' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("bad or repeated id %s", id)
		}
		seen[id] = true
	}
}

func TestNewInvoiceID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id, err := NewInvoiceID()
		if err != nil {
			t.Fatal(err)
		}
		if !ptUUIDRE.MatchString(id) || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("NewInvoiceID() = %q: want a fresh version 7 UUID", id)
		}
		seen[id] = true
	}
}

func TestParseInvoiceID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", true},
		{"0190A3C4-5B6D-7E8F-9A0B-1C2D3E4F5A6B", "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", true},
		{"0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6", "", false},
		{"0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6g", "", false},
		{"0190a3c4x5b6d-7e8f-9a0b-1c2d3e4f5a6b", "", false},
		{"0190a3c45b6d7e8f9a0b1c2d3e4f5a6b", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := ParseInvoiceID(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseInvoiceID(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckoutToken(t *testing.T) {
	tokenRE := regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
	key := TokenKey("0123456789abcdef0123456789abcdef")
	other := TokenKey("fedcba9876543210fedcba9876543210")
	seen := map[string]bool{}
	for range 1000 {
		id, err := NewInvoiceID()
		if err != nil {
			t.Fatal(err)
		}
		tok, hash, err := key.CheckoutToken(id)
		if err != nil {
			t.Fatal(err)
		}
		if !tokenRE.MatchString(tok) || seen[tok] {
			t.Fatalf("token %q is not 43 base64url characters, or repeated", tok)
		}
		seen[tok] = true
		// Derived: the same id and key give the same token (an idempotent replay's
		// payment_url); another key gives another.
		again, hash2, _ := key.CheckoutToken(id)
		if again != tok || !bytes.Equal(hash, hash2) {
			t.Fatal("the token is not deterministic")
		}
		if elsewhere, _, _ := other.CheckoutToken(id); elsewhere == tok {
			t.Fatal("two keys derive the same token")
		}
		gotID, gotHash, ok := ParseCheckoutToken(tok)
		if !ok || gotID != id || !bytes.Equal(gotHash[:], hash) {
			t.Fatalf("ParseCheckoutToken(%q) = %q, %x, %v; want %q, %x", tok, gotID, gotHash, ok, id, hash)
		}
		// The stored hash is of the secret only; the token never appears in it.
		if bytes.Contains([]byte(tok), hash) || strings.Contains(tok, hex.EncodeToString(hash)) {
			t.Fatal("hash leaks the token")
		}
	}
	// Tampering with the secret half keeps the id but changes the hash: the page refuses it.
	tok, hash, _ := key.CheckoutToken("0190a8d2-0000-7000-8000-00000000aaaa")
	c := byte('A')
	if tok[30] == 'A' {
		c = 'B'
	}
	flipped := tok[:30] + string(c) + tok[31:]
	if id, h, ok := ParseCheckoutToken(flipped); !ok || id != "0190a8d2-0000-7000-8000-00000000aaaa" || bytes.Equal(h[:], hash) {
		t.Fatalf("a token with a changed secret parsed to %q, %v, same hash %v", id, ok, bytes.Equal(h[:], hash))
	}
	for _, bad := range []string{"", strings.Repeat("A", 42), strings.Repeat("A", 44), strings.Repeat("=", 43), tok[:42] + "*"} {
		if _, _, ok := ParseCheckoutToken(bad); ok {
			t.Errorf("ParseCheckoutToken(%q) accepted", bad)
		}
	}
	if _, _, err := TokenKey("short").CheckoutToken("0190a8d2-0000-7000-8000-00000000aaaa"); err == nil {
		t.Error("a short key derived a token")
	}
}

func TestParseIdempotencyKey(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string]string
		want    string
		bad     bool
	}{
		{name: "absent", headers: nil, want: ""},
		{name: "other headers only", headers: map[string]string{"authorization": "Bearer x"}, want: ""},
		{name: "16 chars", headers: map[string]string{"idempotency-key": strings.Repeat("a", 16)}, want: strings.Repeat("a", 16)},
		{name: "128 chars", headers: map[string]string{"idempotency-key": strings.Repeat("Z", 128)}, want: strings.Repeat("Z", 128)},
		{name: "all allowed characters", headers: map[string]string{"idempotency-key": "aZ09_.:-aZ09_.:-"}, want: "aZ09_.:-aZ09_.:-"},
		{name: "uuid", headers: map[string]string{"idempotency-key": "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"}, want: "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"},
		{name: "header name case", headers: map[string]string{"Idempotency-Key": "order-0000000001"}, want: "order-0000000001"},
		{name: "15 chars", headers: map[string]string{"idempotency-key": strings.Repeat("a", 15)}, bad: true},
		{name: "129 chars", headers: map[string]string{"idempotency-key": strings.Repeat("a", 129)}, bad: true},
		{name: "non-ASCII", headers: map[string]string{"idempotency-key": "order-00000000é1"}, bad: true},
		{name: "space", headers: map[string]string{"idempotency-key": "order 0000000001"}, bad: true},
		{name: "slash", headers: map[string]string{"idempotency-key": "order/0000000001"}, bad: true},
		{name: "trailing newline", headers: map[string]string{"idempotency-key": "order-0000000001\n"}, bad: true},
		{name: "present but empty", headers: map[string]string{"idempotency-key": ""}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &web.Request{Headers: tt.headers}
			got, err := ParseIdempotencyKey(r)
			if tt.bad {
				e := ptAPIErr(t, err, apierr.MalformedRequest)
				if e.Status() != 400 || !strings.Contains(e.Message, "Idempotency-Key") {
					t.Errorf("error = %d %q", e.Status(), e.Message)
				}
				if got != "" {
					t.Errorf("key %q returned with an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseIdempotencyKey = %q, %v; want %q, nil", got, err, tt.want)
			}
		})
	}
}

func TestCompareEveryCombination(t *testing.T) {
	want := Expected{AmountMinor: 15050, Currency: "BDT", Reference: "INV-1"}
	fields := []string{"status", "amount_minor", "currency", "reference"}
	for mask := range 1 << len(fields) {
		p := &Payment{Status: Completed, AmountMinor: 15050, Currency: "BDT", Reference: "INV-1"}
		var wantOut []string
		if mask&1 != 0 {
			p.Status = Pending
			wantOut = append(wantOut, "status")
		}
		if mask&2 != 0 {
			p.AmountMinor = 15051
			wantOut = append(wantOut, "amount_minor")
		}
		if mask&4 != 0 {
			p.Currency = "USD"
			wantOut = append(wantOut, "currency")
		}
		if mask&8 != 0 {
			p.Reference = "INV-2"
			wantOut = append(wantOut, "reference")
		}
		got := Compare(p.Status, p, want)
		if got == nil {
			t.Errorf("mask %04b: Compare returned nil; want a non-nil slice (JSON [])", mask)
		}
		if wantOut == nil {
			wantOut = []string{}
		}
		if !reflect.DeepEqual(got, wantOut) {
			t.Errorf("mask %04b: Compare = %v, want %v", mask, got, wantOut)
		}
	}
}

func TestCompareIsExact(t *testing.T) {
	p := &Payment{Status: Completed, AmountMinor: 100, Currency: "BDT", Reference: "INV-1"}
	tests := []struct {
		name string
		want Expected
		out  []string
	}{
		{"match", Expected{100, "BDT", "INV-1"}, []string{}},
		{"currency case", Expected{100, "bdt", "INV-1"}, []string{"currency"}},
		{"reference case", Expected{100, "BDT", "inv-1"}, []string{"reference"}},
		{"reference trailing space", Expected{100, "BDT", "INV-1 "}, []string{"reference"}},
		{"amount off by one paisa", Expected{99, "BDT", "INV-1"}, []string{"amount_minor"}},
		{"zero value expected", Expected{}, []string{"amount_minor", "currency", "reference"}},
	}
	for _, tt := range tests {
		if got := Compare(p.Status, p, tt.want); !reflect.DeepEqual(got, tt.out) {
			t.Errorf("%s: Compare = %v, want %v", tt.name, got, tt.out)
		}
	}
	// A status other than COMPLETED (including an unknown one) is never deliverable.
	for _, s := range []Status{Pending, "FAILED", "", "completed"} {
		p := &Payment{Status: s, AmountMinor: 100, Currency: "BDT", Reference: "INV-1"}
		if got := Compare(p.Status, p, Expected{100, "BDT", "INV-1"}); !reflect.DeepEqual(got, []string{"status"}) {
			t.Errorf("status %q: Compare = %v, want [status]", s, got)
		}
	}
}
