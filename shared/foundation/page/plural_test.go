package page

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n      int64
		en, bn string
	}{
		{0, "0 minutes", "০ মিনিট"},
		{1, "1 minute", "১ মিনিট"},
		{2, "2 minutes", "২ মিনিট"},
		{11, "11 minutes", "১১ মিনিট"},
		{21, "21 minutes", "২১ মিনিট"}, // English "one" is 1 alone, not every number ending in 1
		{-1, "-1 minutes", "-১ মিনিট"},
	} {
		if got := EN.Count(c.n, "minute", "minutes"); got != c.en {
			t.Errorf("EN.Count(%d) = %q, want %q", c.n, got, c.en)
		}
		if got := BN.Count(c.n, "মিনিট", "মিনিট"); got != c.bn {
			t.Errorf("BN.Count(%d) = %q, want %q", c.n, got, c.bn)
		}
	}
	// Bangla has one form: given two, it writes the other.
	if got := BN.Count(1, "one", "other"); got != "১ other" {
		t.Errorf("BN.Count(1) = %q", got)
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		n    int64
		want string
	}{
		{EN, 1, "at most 1 character"},
		{EN, 2, "at most 2 characters"},
		{EN, 0, "at most 0 characters"},
		{BN, 1, "সর্বোচ্চ ১টি অক্ষর লেখা যাবে"},
		{BN, 200, "সর্বোচ্চ ২০০টি অক্ষর লেখা যাবে"},
	} {
		if got := c.l.Plural("doc.problem.too_long", c.n, "max", c.l.Number(c.n)); got != c.want {
			t.Errorf("%s.Plural(too_long, %d) = %q, want %q", c.l, c.n, got, c.want)
		}
	}
	// A message without a ".one" form is T's.
	if got, want := EN.Plural("checkout.title", 1, "amount", "৳1.00", "merchant", "Shop"), EN.T("checkout.title", "amount", "৳1.00", "merchant", "Shop"); got != want {
		t.Errorf("Plural without .one = %q, want %q", got, want)
	}
	// Every ".one" form has its other form.
	for _, cat := range catalogues {
		for k := range cat {
			if base, ok := strings.CutSuffix(k, ".one"); ok {
				if _, has := cat[base]; !has {
					t.Errorf("%s has no other form %s", k, base)
				}
			}
		}
	}
}
