package page

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

var placeholderRE = regexp.MustCompile(`\{[a-z]+\}`)

func placeholders(msg string) []string {
	p := placeholderRE.FindAllString(msg, -1)
	sort.Strings(p)
	return p
}

func hasBengali(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Bengali, r) }) >= 0
}

// Both catalogues have exactly the same keys and, per key, the same placeholders; no message
// is empty; every Bangla message is written in Bangla (but for the few that are names or
// pure punctuation) and no English one holds Bangla.
func TestCatalogues(t *testing.T) {
	notBangla := map[string]bool{
		"checkout.route.bkash": true, // provider names stay as the providers write them
		"checkout.route.nagad": true,
		"doc.problem":          true, // "{label}: {problem}"
	}
	for key, en := range messagesEN {
		bn, ok := messagesBN[key]
		if !ok {
			t.Errorf("%s: no Bangla", key)
			continue
		}
		if en == "" || bn == "" {
			t.Errorf("%s: empty message", key)
		}
		if !slices.Equal(placeholders(en), placeholders(bn)) {
			t.Errorf("%s: placeholders %v in English, %v in Bangla", key, placeholders(en), placeholders(bn))
		}
		if hasBengali(en) {
			t.Errorf("%s: Bangla in the English catalogue: %q", key, en)
		}
		if !hasBengali(bn) && !notBangla[key] {
			t.Errorf("%s: the Bangla message %q has no Bangla", key, bn)
		}
		if notBangla[key] && bn != en {
			t.Errorf("%s: a name changed: %q, %q", key, en, bn)
		}
		if strings.ContainsAny(bn, "0123456789") {
			t.Errorf("%s: Western digits in Bangla: %q", key, bn)
		}
	}
	for key := range messagesBN {
		if _, ok := messagesEN[key]; !ok {
			t.Errorf("%s: Bangla only", key)
		}
	}
}

func TestT(t *testing.T) {
	if got := EN.T("checkout.title", "amount", "৳10.00", "merchant", "Shop"); got != "Pay ৳10.00 to Shop" {
		t.Errorf("T = %q", got)
	}
	if got := BN.T("checkout.title", "amount", "৳১০.০০", "merchant", "Shop"); got != "Shop-কে ৳১০.০০ পেমেন্ট করুন" {
		t.Errorf("T = %q", got)
	}
	// One pass: a value that looks like a placeholder stays text.
	if got := EN.T("checkout.title", "merchant", "{amount}", "amount", "৳1.00"); got != "Pay ৳1.00 to {amount}" {
		t.Errorf("T filled a value's braces: %q", got)
	}
	// A missing argument leaves its placeholder; an unknown key is itself; an unknown
	// language falls back to English.
	if got := EN.T("checkout.title", "amount", "৳1.00"); got != "Pay ৳1.00 to {merchant}" {
		t.Errorf("T = %q", got)
	}
	if got := BN.T("no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key gave %q", got)
	}
	if got := Lang("fr").T("page.error"); got != "Error" {
		t.Errorf("unknown language gave %q", got)
	}
	before, after := BN.Split("checkout.expires", "time")
	if before != "" || after != " পর্যন্ত পেমেন্ট করা যাবে (ঢাকার সময়)" {
		t.Errorf("Split = %q, %q", before, after)
	}
	before, after = EN.Split("doc.quantity_hint", "max", "min", "1", "amount", "{max}")
	if before != "From 1 to " || after != ", at {max} each" {
		t.Errorf("Split = %q, %q", before, after)
	}
}
