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
		if _, fe := ParseEmail(in); fe == nil || fe.Field != "email" || fe.Rule != rule {
			t.Errorf("ParseEmail(%q) = %v; want field email, rule %s", in, fe, rule)
		}
	}
}
