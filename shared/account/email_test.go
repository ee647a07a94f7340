package account

import (
	"strings"
	"testing"
)

// ParseEmail is the one rule for a dashboard user's email (sign up, sign in, reset, invitations,
// the operator's CLI, the dashboard's forms): one bare address, trimmed, at most MaxEmailLen bytes.
func TestParseEmail(t *testing.T) {
	for in, want := range map[string]string{
		"name@example.com":           "name@example.com",
		"  Name@Example.COM\t":       "Name@Example.COM",
		"a.b+tag@pay.example.com.bd": "a.b+tag@pay.example.com.bd",
	} {
		got, fe := ParseEmail(in)
		if fe != nil || got != want {
			t.Errorf("ParseEmail(%q) = %q, %v; want %q", in, got, fe, want)
		}
	}
	long := strings.Repeat("a", MaxEmailLen-len("@example.com")+1) + "@example.com"
	for in, rule := range map[string]string{
		"":                                 RuleRequired,
		"   ":                              RuleRequired,
		long:                               RuleMaxLength,
		"name":                             RuleFormat,
		"Name <name@example.com>":          RuleFormat,
		"a@example.com, b@example.com":     RuleFormat,
		`"a b"@example.com`:                RuleFormat,
		"a@example.com\r\nBcc: x@evil.com": RuleFormat,
		"<a@example.com>":                  RuleFormat,
	} {
		if _, fe := ParseEmail(in); fe == nil || fe.Violations[0].Path != "email" || fe.Violations[0].Rule != rule {
			t.Errorf("ParseEmail(%q) = %v; want field email, rule %s", in, fe, rule)
		}
	}
}

// A look-alike address is refused, never folded into another: Cyrillic а (U+0430) in the
// part before @ is not alice@example.com; a Unicode domain is refused too (its xn-- form is
// accepted as typed).
func TestParseEmailRefusesLookAlikes(t *testing.T) {
	for _, in := range []string{"\u0430lice@example.com", "ALİCE@example.com", "alice\u200b@example.com", "ａlice@example.com",
		"alice@ex\u0430mple.com", "alice@bücher.example", "alice@\u09AC\u09BE\u0982\u09B2\u09BE.bd"} {
		if got, fe := ParseEmail(in); fe == nil || fe.Violations[0].Path != "email" || fe.Violations[0].Rule != RuleASCII {
			t.Errorf("ParseEmail(%q) = %q, %v; want field email, rule %s", in, got, fe, RuleASCII)
		}
	}
	if got, fe := ParseEmail("alice@xn--bcher-kva.example"); fe != nil || got != "alice@xn--bcher-kva.example" {
		t.Errorf("an A-label domain: %q, %v", got, fe)
	}
}
