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
	// A counted message as a catalogue writes one: its other form, and its ".one" form in every
	// language (the Bangla the same words).
	msgs := map[Lang][2]string{
		EN: {"{n} payments are waiting", "{n} payment is waiting"},
		BN: {"{n}টি পেমেন্ট অপেক্ষায় আছে", "{n}টি পেমেন্ট অপেক্ষায় আছে"},
	}
	for l, m := range msgs {
		catalogues[l]["test.waiting"], catalogues[l]["test.waiting.one"] = m[0], m[1]
	}
	t.Cleanup(func() {
		for l := range msgs {
			delete(catalogues[l], "test.waiting")
			delete(catalogues[l], "test.waiting.one")
		}
	})
	for _, c := range []struct {
		l    Lang
		n    int64
		want string
	}{
		{EN, 1, "1 payment is waiting"},
		{EN, 2, "2 payments are waiting"},
		{EN, 0, "0 payments are waiting"},
		{BN, 1, "১টি পেমেন্ট অপেক্ষায় আছে"},
		{BN, 200, "২০০টি পেমেন্ট অপেক্ষায় আছে"},
	} {
		if got := c.l.Plural("test.waiting", c.n, "n", c.l.Number(c.n)); got != c.want {
			t.Errorf("%s.Plural(test.waiting, %d) = %q, want %q", c.l, c.n, got, c.want)
		}
	}
	// A message without a ".one" form is T's.
	if got, want := EN.Plural("checkout.title", 1, "amount", "৳1.00", "merchant", "Shop"), EN.T("checkout.title", "amount", "৳1.00", "merchant", "Shop"); got != want {
		t.Errorf("Plural without .one = %q, want %q", got, want)
	}
}

// Every ".one" form in the catalogues has its other form.
func TestPluralFormsArePaired(t *testing.T) {
	for l, cat := range catalogues {
		for k := range cat {
			if base, ok := strings.CutSuffix(k, ".one"); ok {
				if _, has := cat[base]; !has {
					t.Errorf("%s: %s has no other form %s", l, k, base)
				}
			}
		}
	}
}
