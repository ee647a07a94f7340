package page

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/money"
)

// maxAmount is the largest amount a page shows (the contract's bound on every *_minor).
const maxAmount = 100_000_000_000

func TestAmount(t *testing.T) {
	for _, c := range []struct {
		paisa  money.Paisa
		en, bn string
	}{
		{0, "৳0.00", "৳০.০০"},
		{1, "৳0.01", "৳০.০১"}, // one paisa
		{99, "৳0.99", "৳০.৯৯"},
		{100, "৳1.00", "৳১.০০"},
		{15050, "৳150.50", "৳১৫০.৫০"},
		{99999, "৳999.99", "৳৯৯৯.৯৯"},
		{100000, "৳1,000.00", "৳১,০০০.০০"},
		{150000, "৳1,500.00", "৳১,৫০০.০০"},
		{1000000, "৳10,000.00", "৳১০,০০০.০০"},
		{9999999, "৳99,999.99", "৳৯৯,৯৯৯.৯৯"},
		{10000000, "৳1,00,000.00", "৳১,০০,০০০.০০"}, // one lakh taka
		{15000000, "৳1,50,000.00", "৳১,৫০,০০০.০০"}, // the example
		{123456789, "৳12,34,567.89", "৳১২,৩৪,৫৬৭.৮৯"},
		{1000000000, "৳1,00,00,000.00", "৳১,০০,০০,০০০.০০"}, // one crore taka
		{maxAmount - 1, "৳99,99,99,999.99", "৳৯৯,৯৯,৯৯,৯৯৯.৯৯"},
		{maxAmount, "৳1,00,00,00,000.00", "৳১,০০,০০,০০,০০০.০০"},
		{-5000, "-৳50.00", "-৳৫০.০০"}, // a discount row
		{-15000000, "-৳1,50,000.00", "-৳১,৫০,০০০.০০"},
		{math.MinInt64, "-৳92,23,37,20,36,85,47,758.08", "-৳৯২,২৩,৩৭,২০,৩৬,৮৫,৪৭,৭৫৮.০৮"},
	} {
		if got := EN.Amount(c.paisa); got != c.en {
			t.Errorf("EN.Amount(%d) = %q, want %q", c.paisa, got, c.en)
		}
		if got := BN.Amount(c.paisa); got != c.bn {
			t.Errorf("BN.Amount(%d) = %q, want %q", c.paisa, got, c.bn)
		}
	}
}

// Every bound of the range a page shows (0 to 100,000,000,000 paisa): each power of ten and
// its neighbours, in both languages, checked by checkAmount.
func TestAmountBounds(t *testing.T) {
	for p := int64(1); p <= maxAmount; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1, 2*p - 1, 5 * p} {
			if v >= 0 && v <= maxAmount {
				checkAmount(t, money.Paisa(v))
			}
		}
	}
}

func FuzzAmount(f *testing.F) {
	for _, v := range []int64{0, 1, 99, 100, 100000, 10000000, maxAmount} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		if v < 0 || v > maxAmount {
			v = (v%(maxAmount+1) + maxAmount + 1) % (maxAmount + 1)
		}
		checkAmount(t, money.Paisa(v))
	})
}

var (
	// enAmountRE is Display's form: ASCII digits, the last group of three, the others of two.
	enAmountRE = regexp.MustCompile(`^৳([0-9]{1,2}(,[0-9]{2})*,[0-9]{3}|[0-9]{1,3})\.[0-9]{2}$`)
	// bnAmountRE is Bangla's: Bangla digits, the last group of three, the others of two.
	bnAmountRE = regexp.MustCompile(`^৳([০-৯]{1,2}(,[০-৯]{2})*,[০-৯]{3}|[০-৯]{1,3})\.[০-৯]{2}$`)
)

// checkAmount checks that both languages write the same number of paisa, each in its form.
func checkAmount(t *testing.T, p money.Paisa) {
	t.Helper()
	en, bn := EN.Amount(p), BN.Amount(p)
	if en != p.Display() || !enAmountRE.MatchString(en) {
		t.Fatalf("EN.Amount(%d) = %q", p, en)
	}
	if !bnAmountRE.MatchString(bn) {
		t.Fatalf("BN.Amount(%d) = %q", p, bn)
	}
	back := strings.NewReplacer("০", "0", "১", "1", "২", "2", "৩", "3", "৪", "4", "৫", "5", "৬", "6", "৭", "7", "৮", "8", "৯", "9", ",", "").Replace(bn)
	if want := "৳" + fmt.Sprintf("%d.%02d", int64(p)/100, int64(p)%100); back != want || strings.ReplaceAll(en, ",", "") != want {
		t.Fatalf("%d: Bangla %q reads %q, English %q; want %q", p, bn, back, en, want)
	}
}

func TestDigitsAndNumber(t *testing.T) {
	if got := BN.Digits("a0123456789-"); got != "a০১২৩৪৫৬৭৮৯-" {
		t.Errorf("Digits %q", got)
	}
	if got := EN.Digits("0123"); got != "0123" {
		t.Errorf("EN Digits %q", got)
	}
	if BN.Number(9999) != "৯৯৯৯" || EN.Number(10) != "10" {
		t.Errorf("Number")
	}
}

func TestDateTime(t *testing.T) {
	months := []string{"জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর", "অক্টোবর", "নভেম্বর", "ডিসেম্বর"}
	for m := time.January; m <= time.December; m++ {
		// 20:30 UTC on the last day of the previous month is 02:30 in Dhaka on the 1st.
		at := time.Date(2026, m, 1, 2, 30, 0, 0, Dhaka).UTC()
		if got, want := BN.DateTime(at), "১ "+months[m-1]+" ২০২৬, ০২:৩০"; got != want {
			t.Errorf("BN.DateTime(%v) = %q, want %q", at, got, want)
		}
		if got, want := EN.DateTime(at), "1 "+m.String()+" 2026, 02:30"; got != want {
			t.Errorf("EN.DateTime(%v) = %q, want %q", at, got, want)
		}
	}
	at := time.Date(2026, 12, 31, 20, 30, 0, 0, time.FixedZone("x", -4*3600)) // 06:30 on 1 January in Dhaka
	if got := BN.DateTime(at); got != "১ জানুয়ারি ২০২৭, ০৬:৩০" {
		t.Errorf("BN.DateTime = %q", got)
	}
	if got := BN.Clock(at); got != "০৬:৩০" {
		t.Errorf("BN.Clock = %q", got)
	}
	if got := EN.Clock(time.Date(2026, 3, 1, 18, 5, 59, 0, time.UTC)); got != "00:05" {
		t.Errorf("EN.Clock = %q", got)
	}
	if _, off := time.Date(2026, 7, 1, 0, 0, 0, 0, Dhaka).Zone(); off != 6*3600 {
		t.Errorf("Dhaka offset %d", off)
	}
}
