// Package money holds the exact integer representation of Bangladeshi taka
// amounts and the strict parser that turns JSON request amounts into it.
package money

import "strconv"

// Paisa is an amount of Bangladeshi taka in integer minor units (1 taka = 100 paisa).
type Paisa int64

// MaxPaisa is the largest amount ParseTaka accepts, 1,000,000,000 taka.
const MaxPaisa Paisa = 100_000_000_000

// maxPaisaDigits is the number of decimal digits in MaxPaisa.
const maxPaisaDigits = 12

// Rule phrases returned in RuleError.Rule; they never mention a field name
// because callers prefix the field path themselves.
const (
	ruleMissing   = "must be a JSON number (taka)"
	ruleString    = "must be a JSON number (taka), not a string"
	ruleNull      = "must be a JSON number (taka), not null"
	ruleBool      = "must be a JSON number (taka), not a boolean"
	ruleObject    = "must be a JSON number (taka), not an object"
	ruleArray     = "must be a JSON number (taka), not an array"
	ruleInvalid   = "is not a valid JSON number"
	rulePositive  = "must be greater than 0"
	rulePrecision = "must have at most two decimal places"
	ruleMax       = "must be at most 1000000000 taka"
)

// RuleError reports which amount rule a value broke, without naming the field.
type RuleError struct {
	// Rule is a short human phrase naming the broken rule, e.g. "must be greater than 0".
	Rule string
}

// Error returns the broken rule phrase.
func (e *RuleError) Error() string { return e.Rule }

func ruleErr(rule string) error { return &RuleError{Rule: rule} }

// ParseTaka parses the raw text of one JSON value, which must be a JSON number
// of taka, exactly (never via float64) into a positive whole-paisa amount of at
// most MaxPaisa.
//
// Surrounding JSON whitespace is allowed. Any other JSON value, any text that
// is not a valid JSON number, zero or negative amounts, amounts with a
// non-zero third decimal place (by value: "1.230" is fine, "1.234" is not) and
// amounts above MaxPaisa are rejected with a *RuleError. Work is linear in the
// input length and the call does not allocate on success, whatever the
// exponent.
func ParseTaka(raw []byte) (Paisa, error) {
	b := trimJSONSpace(raw)
	if err := notANumber(b); err != nil {
		return 0, err
	}
	n, ok := scanNumber(b)
	if !ok {
		return 0, ruleErr(ruleInvalid)
	}
	if n.neg {
		return 0, ruleErr(rulePositive)
	}
	return n.paisa()
}

// notANumber names the JSON value b is when it is not a number (a string, null, a boolean,
// an object, an array, nothing), or says it is invalid JSON; nil when b may be a number.
func notANumber(b []byte) error {
	if len(b) == 0 {
		return ruleErr(ruleMissing)
	}
	switch b[0] {
	case '"':
		return ruleErr(ruleString)
	case 'n':
		if string(b) == "null" {
			return ruleErr(ruleNull)
		}
		return ruleErr(ruleInvalid)
	case 't', 'f':
		if string(b) == "true" || string(b) == "false" {
			return ruleErr(ruleBool)
		}
		return ruleErr(ruleInvalid)
	case '{':
		return ruleErr(ruleObject)
	case '[':
		return ruleErr(ruleArray)
	}
	return nil
}

// number is a JSON number as written: its value is ±intDigits.fracDigits × 10^exp, the
// digits slices of the input (no copy).
type number struct {
	neg                   bool
	intDigits, fracDigits []byte
	exp                   int64
}

// scanNumber scans the JSON number grammar over the whole of b (not empty):
//
//	number = [ "-" ] int [ frac ] [ exp ]
//	int    = "0" / ( digit1-9 *DIGIT )
//	frac   = "." 1*DIGIT
//	exp    = ( "e" / "E" ) [ "-" / "+" ] 1*DIGIT
func scanNumber(b []byte) (n number, ok bool) {
	i := 0
	if b[i] == '-' {
		n.neg = true
		i++
	}
	if n.intDigits, i, ok = scanInt(b, i); !ok {
		return n, false
	}
	if n.fracDigits, i, ok = scanFrac(b, i); !ok {
		return n, false
	}
	if n.exp, i, ok = scanExp(b, i); !ok {
		return n, false
	}
	return n, i == len(b)
}

// scanInt scans int at b[i:]: "0", or a digit 1-9 and more digits.
func scanInt(b []byte, i int) (digits []byte, next int, ok bool) {
	start := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return nil, i, false
	}
	return b[start:i], i, true
}

// scanFrac scans an optional frac at b[i:]: a '.' and at least one digit.
func scanFrac(b []byte, i int) (digits []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '.' {
		return nil, i, true
	}
	i++
	start := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	if i == start {
		return nil, i, false
	}
	return b[start:i], i, true
}

// expLimit is where the exponent saturates (±): anything that large is far outside the
// accepted range in either direction, so the exact value no longer matters and no arithmetic
// can overflow.
const expLimit = 1 << 40

// scanExp scans an optional exp at b[i:]: 'e' or 'E', an optional sign, at least one digit.
func scanExp(b []byte, i int) (exp int64, next int, ok bool) {
	if i >= len(b) || b[i] != 'e' && b[i] != 'E' {
		return 0, i, true
	}
	i++
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	for i < len(b) && isDigit(b[i]) {
		if exp < expLimit {
			exp = exp*10 + int64(b[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		exp = -exp
	}
	return exp, i, true
}

// paisa is the number's value in whole paisa: positive, at most two decimals by value, at
// most MaxPaisa.
func (n number) paisa() (Paisa, error) {
	// View the digits as one sequence D = intDigits ++ fracDigits, so that
	// value = D × 10^(exp - len(fracDigits)). Trim leading and trailing zeros
	// to get the significant digits D[first..last] and their exponent.
	count := len(n.intDigits) + len(n.fracDigits)
	digit := func(k int) byte {
		if k < len(n.intDigits) {
			return n.intDigits[k] - '0'
		}
		return n.fracDigits[k-len(n.intDigits)] - '0'
	}
	first := 0
	for first < count && digit(first) == 0 {
		first++
	}
	if first == count {
		return 0, ruleErr(rulePositive)
	}
	last := count - 1
	for digit(last) == 0 {
		last--
	}
	// value in paisa = D[first..last] × 10^paisaExp.
	paisaExp := n.exp - int64(len(n.fracDigits)) + int64(count-1-last) + 2
	if paisaExp < 0 {
		return 0, ruleErr(rulePrecision)
	}
	if int64(last-first+1)+paisaExp > maxPaisaDigits {
		return 0, ruleErr(ruleMax)
	}
	var v Paisa
	for k := first; k <= last; k++ {
		v = v*10 + Paisa(digit(k))
	}
	for ; paisaExp > 0; paisaExp-- {
		v *= 10
	}
	if v > MaxPaisa {
		return 0, ruleErr(ruleMax)
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// trimJSONSpace removes the four JSON whitespace characters (and only those)
// from both ends of b.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// TakaString formats p as taka with exactly two decimals and no grouping,
// e.g. "150.50", "0.05" or "-3.00", which ParseTaka accepts back for positive p.
func (p Paisa) TakaString() string {
	var buf [32]byte
	return string(p.appendTaka(buf[:0], "", false))
}

// AppendTaka appends p formatted as TakaString does to dst and returns the extended slice,
// without allocating when dst has room (for streaming writers such as the CSV export).
func (p Paisa) AppendTaka(dst []byte) []byte { return p.appendTaka(dst, "", false) }

// Display formats p for people as Bangladeshi banks print taka: "৳1,500.00",
// "৳1,50,000.00" (one lakh and a half), "৳1,00,00,000.00" (one crore): the last three
// digits of the whole taka, then groups of two (AppendLakhGrouped), and a leading '-' before the
// sign for negative amounts. The JSON views' amount_display; page.Lang.Amount writes the
// same in Bangla digits.
func (p Paisa) Display() string {
	var buf [48]byte
	return string(p.appendTaka(buf[:0], "৳", true))
}

// AppendLakhGrouped appends the ASCII digits to dst grouped as South Asia writes numbers
// (CLDR's #,##,##0 for bn and en-IN): a comma before the last three digits and then before
// every second digit further left, so 1,000, 1,00,000 (a lakh), 1,00,00,000 (a crore).
func AppendLakhGrouped(dst, digits []byte) []byte {
	for k, c := range digits {
		// left is how many digits remain from this one on.
		if left := len(digits) - k; k > 0 && (left == 3 || left > 3 && (left-3)%2 == 0) {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}

func (p Paisa) appendTaka(dst []byte, symbol string, group bool) []byte {
	u := uint64(p)
	if p < 0 {
		dst = append(dst, '-')
		u = -u // two's complement magnitude; correct for math.MinInt64 too
	}
	dst = append(dst, symbol...)
	whole, frac := u/100, u%100
	var digits [20]byte
	w := strconv.AppendUint(digits[:0], whole, 10)
	if group {
		dst = AppendLakhGrouped(dst, w)
	} else {
		dst = append(dst, w...)
	}
	return append(dst, '.', byte('0'+frac/10), byte('0'+frac%10))
}
