package takapay

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseAmount(t *testing.T) {
	for in, paisa := range map[string]int64{
		"150.50": 15050, "150.5": 15050, "150": 15000, "0.01": 1, "0.1": 10, "007.07": 707,
		"1000000000": 100_000_000_000, "1000000000.00": 100_000_000_000, "19.99": 1999,
	} {
		a, err := ParseAmount(in)
		if err != nil || a.Paisa() != paisa {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, a.Paisa(), err, paisa)
		}
	}
	for _, in := range []string{"", "0", "0.00", "-1", "+1", "1.", ".5", "1.234", "150.505", "1e3", " 1", "1 ", "1,00",
		"1000000000.01", "99999999999999999999", "١٢", "NaN"} {
		if a, err := ParseAmount(in); err == nil {
			t.Errorf("ParseAmount(%q) = %d paisa; want an error", in, a.Paisa())
		}
	}
}

func TestAmountFromPaisa(t *testing.T) {
	for paisa, s := range map[int64]string{15050: "150.50", 1: "0.01", 10: "0.10", 100: "1.00", 100_000_000_000: "1000000000.00", 1999: "19.99"} {
		a, err := AmountFromPaisa(paisa)
		if err != nil || a.String() != s {
			t.Errorf("AmountFromPaisa(%d) = %q, %v; want %q", paisa, a.String(), err, s)
		}
		// Round trip through the text.
		if b, err := ParseAmount(s); err != nil || b != a {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v", s, b, err, a)
		}
	}
	for _, paisa := range []int64{0, -1, 100_000_000_001} {
		if _, err := AmountFromPaisa(paisa); err == nil {
			t.Errorf("AmountFromPaisa(%d): want an error", paisa)
		}
	}
}

// The create's body carries the amount as the exact number literal, never through a float.
func TestCreatePaymentInputJSON(t *testing.T) {
	ref := "order-1"
	for text, want := range map[string]string{"150.50": `"amount":150.50`, "0.07": `"amount":0.07`, "999999999.99": `"amount":999999999.99`, "19.9": `"amount":19.90`} {
		b, err := json.Marshal(CreatePaymentInput{Amount: MustParseAmount(text), PaymentCreateRequest: PaymentCreateRequest{Amount: 3.25, Reference: &ref}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), `"reference":"order-1"`) || strings.Contains(string(b), "3.25") {
			t.Errorf("%s: body %s; want %s", text, b, want)
		}
	}
	if _, err := json.Marshal(CreatePaymentInput{}); err == nil {
		t.Error("a create without an amount marshalled")
	}
}
