package payment

import (
	"regexp"
	"strings"
)

var bdMobile = regexp.MustCompile(`^(?:\+?880|0)?(1[3-9][0-9]{8})$`)

// bnDigits reads Bangla digits (a Bangla keyboard types ০১৭…: the same number) and drops the
// spaces and dashes people type inside a number.
var bnDigits = strings.NewReplacer(" ", "", "-", "", "০", "0", "১", "1", "২", "2", "৩", "3", "৪", "4",
	"৫", "5", "৬", "6", "৭", "7", "৮", "8", "৯", "9")

// MobileRule is the rule a number NormaliseMobile refuses breaks.
const MobileRule = "must be a Bangladeshi mobile number such as 01712345678"

// NormaliseMobile is the one rule of a Bangladeshi mobile number (a bKash or Nagad account, a
// payer's contact): 01XXXXXXXXX, +8801XXXXXXXXX or 8801XXXXXXXXX, in Latin or Bangla digits,
// with spaces or dashes, is stored as 01XXXXXXXXX; ok false when s is not one.
func NormaliseMobile(s string) (string, bool) {
	m := bdMobile.FindStringSubmatch(bnDigits.Replace(strings.TrimSpace(s)))
	if m == nil {
		return "", false
	}
	return "0" + m[1], true
}
