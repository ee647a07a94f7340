package money

import "strings"

// Rule phrases of ParseTakaText (a form's amount, typed by a person).
const (
	ruleTextEmpty     = "must not be empty"
	ruleTextInvalid   = "must be an amount of taka such as 1,250.50"
	ruleTextNegative  = "must not be negative"
	ruleTextGrouping  = "has its thousands separators in the wrong places"
	ruleTextPrecision = "must have at most two decimal places"
	ruleTextMax       = "must be at most 1,000,000,000 taka"
)

// ParseTakaText parses an amount of taka as a person types it into a form, exactly (never via
// float64), into whole paisa: "1250.5", "1,250.50", "৳ 1,00,000" (lakh grouping), Bangla
// digits ("১২৫০.৫০"), surrounding spaces. Zero is allowed (a line item's price may be 0; the
// API's own bounds decide what a field accepts). Refused with a *RuleError: empty text, a
// sign, anything but digits, one decimal point and grouping commas, commas that are not
// Western (1,234,567) or South Asian (12,34,567) grouping of the whole part, more than two
// decimal places (by value: "1.230" is fine), and more than MaxPaisa.
func ParseTakaText(s string) (Paisa, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	s = strings.TrimSpace(strings.TrimPrefix(s, "৳"))
	if s == "" {
		return 0, ruleErr(ruleTextEmpty)
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= '০' && c <= '৯':
			b.WriteByte(byte('0' + (c - '০')))
		case c >= '0' && c <= '9', c == ',', c == '.':
			b.WriteRune(c)
		case c == '-' || c == '−':
			return 0, ruleErr(ruleTextNegative)
		default:
			return 0, ruleErr(ruleTextInvalid)
		}
	}
	text := b.String()
	whole, frac, _ := strings.Cut(text, ".")
	if strings.ContainsAny(frac, ".,") || whole == "" && frac == "" {
		return 0, ruleErr(ruleTextInvalid)
	}
	if strings.Contains(whole, ",") {
		if !grouped(whole) {
			return 0, ruleErr(ruleTextGrouping)
		}
		whole = strings.ReplaceAll(whole, ",", "")
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 2 {
		return 0, ruleErr(ruleTextPrecision)
	}
	// MaxPaisa is 10 whole digits of taka; anything longer is over it.
	if len(whole) > maxPaisaDigits-2 {
		return 0, ruleErr(ruleTextMax)
	}
	var v Paisa
	for i := 0; i < len(whole); i++ {
		v = v*10 + Paisa(whole[i]-'0')
	}
	frac += "00"[len(frac):]
	v = v*100 + Paisa(frac[0]-'0')*10 + Paisa(frac[1]-'0')
	if v > MaxPaisa {
		return 0, ruleErr(ruleTextMax)
	}
	return v, nil
}

// grouped reports whether a whole part with commas is grouped the Western way (groups of
// three) or the South Asian way (the last group three digits, the ones before it two), with
// a first group of one to three (Western) or one or two (South Asian) digits.
func grouped(whole string) bool {
	groups := strings.Split(whole, ",")
	first, rest := groups[0], groups[1:]
	if first == "" || len(first) > 3 {
		return false
	}
	for _, g := range groups {
		for i := 0; i < len(g); i++ {
			if g[i] < '0' || g[i] > '9' {
				return false
			}
		}
	}
	western := true
	for _, g := range rest {
		western = western && len(g) == 3
	}
	if western {
		return true
	}
	if len(first) > 2 || len(rest[len(rest)-1]) != 3 {
		return false
	}
	for _, g := range rest[:len(rest)-1] {
		if len(g) != 2 {
			return false
		}
	}
	return true
}
