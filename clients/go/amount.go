package takapay

import (
	"fmt"
	"regexp"
	"strconv"
)

// MaxAmountPaisa is the largest amount a payment may have (1,000,000,000 taka).
const MaxAmountPaisa int64 = 100_000_000_000

var amountText = regexp.MustCompile(`^\d+(\.\d{1,2})?$`)

// Amount is an amount of taka held exactly, as integer paisa. It never passes through a
// float: a create's JSON body carries it as the number literal String returns.
type Amount struct{ paisa int64 }

// ParseAmount reads a decimal string of taka ("150.50", "150.5", "150"): digits, then at most
// two decimals; more than 0 and at most 1,000,000,000 taka.
func ParseAmount(s string) (Amount, error) {
	if !amountText.MatchString(s) {
		return Amount{}, fmt.Errorf("takapay: amount %q: want taka as digits with at most two decimals (e.g. \"150.50\")", s)
	}
	whole, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			whole, frac = s[:i], s[i+1:]
			break
		}
	}
	for len(whole) > 1 && whole[0] == '0' {
		whole = whole[1:]
	}
	if len(whole) > 10 { // more than 9,999,999,999 taka: over the maximum, and no overflow below
		return Amount{}, fmt.Errorf("takapay: amount %q is over the maximum of 1000000000 taka", s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	for len(frac) < 2 {
		frac += "0"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	return AmountFromPaisa(w*100 + f)
}

// MustParseAmount is ParseAmount for constants; it panics on an invalid amount.
func MustParseAmount(s string) Amount {
	a, err := ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// AmountFromPaisa is an amount of integer paisa (15050 is 150.50 taka): 1 to MaxAmountPaisa.
func AmountFromPaisa(paisa int64) (Amount, error) {
	if paisa <= 0 || paisa > MaxAmountPaisa {
		return Amount{}, fmt.Errorf("takapay: amount of %d paisa: want 1 to %d", paisa, MaxAmountPaisa)
	}
	return Amount{paisa: paisa}, nil
}

// Paisa is the amount in paisa (amount_minor in the API's answers).
func (a Amount) Paisa() int64 { return a.paisa }

// IsZero reports whether a is the zero Amount (not set).
func (a Amount) IsZero() bool { return a.paisa == 0 }

// String is the amount in taka with two decimals ("150.50"), by integer division.
func (a Amount) String() string {
	return fmt.Sprintf("%d.%02d", a.paisa/100, a.paisa%100)
}

// MarshalJSON writes the amount as a JSON number literal of taka (150.50), exactly.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.paisa <= 0 {
		return nil, fmt.Errorf("takapay: amount not set")
	}
	return []byte(a.String()), nil
}
