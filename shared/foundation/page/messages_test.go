package page

import (
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"testing"
)

// The kit's catalogue (with the families this test binary links: none) passes the checks
// every family's catalogue passes (pagetest.CheckCatalogue).
func TestCatalogues(t *testing.T) {
	pagetest.CheckCatalogue(t, messagesEN, messagesBN)
}

// A family's words join the catalogue as checkout and publicdoc join theirs; this test
// binary links neither, so it registers a family of its own.
func init() {
	Register(map[string]string{
		"test.title":   "Pay {amount} to {merchant}",
		"test.expires": "Pay until {time} (Dhaka time)",
		"test.range":   "From {min} to {max}, at {amount} each",
	}, map[string]string{
		"test.title":   "{merchant}-কে {amount} পেমেন্ট করুন",
		"test.expires": "{time} পর্যন্ত পেমেন্ট করা যাবে (ঢাকার সময়)",
		"test.range":   "{min} থেকে {max}, প্রতিটি {amount}",
	})
}

func TestRegisterRefusesAWordTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second registration of a key did not panic")
		}
	}()
	Register(map[string]string{"test.title": "again"}, nil)
}

func TestT(t *testing.T) {
	if got := EN.T("test.title", "amount", "৳10.00", "merchant", "Shop"); got != "Pay ৳10.00 to Shop" {
		t.Errorf("T = %q", got)
	}
	if got := BN.T("test.title", "amount", "৳১০.০০", "merchant", "Shop"); got != "Shop-কে ৳১০.০০ পেমেন্ট করুন" {
		t.Errorf("T = %q", got)
	}
	// One pass: a value that looks like a placeholder stays text.
	if got := EN.T("test.title", "merchant", "{amount}", "amount", "৳1.00"); got != "Pay ৳1.00 to {amount}" {
		t.Errorf("T filled a value's braces: %q", got)
	}
	// A missing argument leaves its placeholder; an unknown key is itself; an unknown
	// language falls back to English.
	if got := EN.T("test.title", "amount", "৳1.00"); got != "Pay ৳1.00 to {merchant}" {
		t.Errorf("T = %q", got)
	}
	if got := BN.T("no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key gave %q", got)
	}
	if got := Lang("fr").T("page.error"); got != "Error" {
		t.Errorf("unknown language gave %q", got)
	}
	before, after := BN.Split("test.expires", "time")
	if before != "" || after != " পর্যন্ত পেমেন্ট করা যাবে (ঢাকার সময়)" {
		t.Errorf("Split = %q, %q", before, after)
	}
	before, after = EN.Split("test.range", "max", "min", "1", "amount", "{max}")
	if before != "From 1 to " || after != ", at {max} each" {
		t.Errorf("Split = %q, %q", before, after)
	}
}
