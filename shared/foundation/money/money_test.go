package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestParseTaka(t *testing.T) {
	tests := []struct {
		in   string
		want Paisa
		rule string // empty means success
	}{
		// Plain and fractional forms.
		{in: `150`, want: 15000},
		{in: `150.5`, want: 15050},
		{in: `150.50`, want: 15050},
		{in: `150.500`, want: 15050},
		{in: `1.230`, want: 123},
		{in: `1.2300000000000000000000`, want: 123},
		{in: `0.01`, want: 1},
		{in: `0.10`, want: 10},
		{in: `0.5`, want: 50},
		{in: `1`, want: 100},
		{in: `999999999.99`, want: 99_999_999_999},
		{in: `1000000000`, want: MaxPaisa},
		{in: `1000000000.00`, want: MaxPaisa},
		{in: `1000000000.000000`, want: MaxPaisa},

		// Exponent forms.
		{in: `1.5e2`, want: 15000},
		{in: `1.5E2`, want: 15000},
		{in: `1.5e+2`, want: 15000},
		{in: `15050e-2`, want: 15050},
		{in: `15050E-2`, want: 15050},
		{in: `1e-2`, want: 1},
		{in: `1e0`, want: 100},
		{in: `0e5`, rule: rulePositive},
		{in: `1e9`, want: MaxPaisa},
		{in: `0.000001e6`, want: 100},
		{in: `100000000000e-2`, want: MaxPaisa},
		{in: `1e-0000000000000000000002`, want: 1},
		{in: `1e00000000000000000000009`, want: MaxPaisa},
		{in: `10000000000000000000000e-20`, want: 10000},
		{in: `1e-3`, rule: rulePrecision},
		{in: `1e10`, rule: ruleMax},
		{in: `1e999999999`, rule: ruleMax},
		{in: `1e-999999999`, rule: rulePrecision},
		{in: `1e99999999999999999999999999999999`, rule: ruleMax},
		{in: `1e-99999999999999999999999999999999`, rule: rulePrecision},
		{in: `0.0000000000000000000000000000000000000001e40`, want: 100},

		// Whitespace around the value (JSON whitespace only).
		{in: " 150.5 ", want: 15050},
		{in: "\t\r\n150.5\n", want: 15050},
		{in: "\v150", rule: ruleInvalid},
		{in: "150\f", rule: ruleInvalid},
		{in: "\u00a0150", rule: ruleInvalid},
		{in: "1 50", rule: ruleInvalid},

		// Not positive.
		{in: `0`, rule: rulePositive},
		{in: `0.00`, rule: rulePositive},
		{in: `-0`, rule: rulePositive},
		{in: `-0.0`, rule: rulePositive},
		{in: `-5`, rule: rulePositive},
		{in: `-0.01`, rule: rulePositive},
		{in: `-1e999999999`, rule: rulePositive},

		// Too precise.
		{in: `1.234`, rule: rulePrecision},
		{in: `1.2340`, rule: rulePrecision},
		{in: `0.001`, rule: rulePrecision},
		{in: `0.005`, rule: rulePrecision},
		{in: `999999999.999`, rule: rulePrecision},
		{in: `12345e-3`, rule: rulePrecision},

		// Too large.
		{in: `1000000000.01`, rule: ruleMax},
		{in: `1000000001`, rule: ruleMax},
		{in: `9999999999.99`, rule: ruleMax},
		{in: `99999999999999999999999`, rule: ruleMax},
		{in: `1.000000000001e9`, rule: rulePrecision},

		// Not numbers.
		{in: `"150"`, rule: ruleString},
		{in: `"150.50"`, rule: ruleString},
		{in: `null`, rule: ruleNull},
		{in: `true`, rule: ruleBool},
		{in: `false`, rule: ruleBool},
		{in: `{"amount":150}`, rule: ruleObject},
		{in: `[150]`, rule: ruleArray},
		{in: ``, rule: ruleMissing},
		{in: "  \n", rule: ruleMissing},

		// Invalid number text.
		{in: `01`, rule: ruleInvalid},
		{in: `-01`, rule: ruleInvalid},
		{in: `00.5`, rule: ruleInvalid},
		{in: `1.`, rule: ruleInvalid},
		{in: `.5`, rule: ruleInvalid},
		{in: `+1`, rule: ruleInvalid},
		{in: `-`, rule: ruleInvalid},
		{in: `1e`, rule: ruleInvalid},
		{in: `1e+`, rule: ruleInvalid},
		{in: `1e-`, rule: ruleInvalid},
		{in: `1.e2`, rule: ruleInvalid},
		{in: `1.5e2.5`, rule: ruleInvalid},
		{in: `1ee2`, rule: ruleInvalid},
		{in: `0x10`, rule: ruleInvalid},
		{in: `NaN`, rule: ruleInvalid},
		{in: `nan`, rule: ruleInvalid},
		{in: `nul`, rule: ruleInvalid},
		{in: `Infinity`, rule: ruleInvalid},
		{in: `-Infinity`, rule: ruleInvalid},
		{in: `tru`, rule: ruleInvalid},
		{in: `1_000`, rule: ruleInvalid},
		{in: `1,000`, rule: ruleInvalid},
		{in: `১৫০`, rule: ruleInvalid}, // Bengali digits
		{in: `150 150`, rule: ruleInvalid},
		{in: `150,`, rule: ruleInvalid},
		{in: "150\x00", rule: ruleInvalid},
	}
	for _, tc := range tests {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			got, err := ParseTaka([]byte(tc.in))
			if tc.rule == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ParseTaka(%q) = %d, %v; want %d, nil", tc.in, got, err, tc.want)
				}
				return
			}
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("ParseTaka(%q) = %d, %v; want *RuleError %q", tc.in, got, err, tc.rule)
			}
			if re.Rule != tc.rule || err.Error() != tc.rule {
				t.Fatalf("ParseTaka(%q) rule = %q; want %q", tc.in, re.Rule, tc.rule)
			}
			if got != 0 {
				t.Fatalf("ParseTaka(%q) returned %d alongside an error", tc.in, got)
			}
		})
	}
}

func TestRuleMaxMatchesMaxPaisa(t *testing.T) {
	want := "must be at most " + strconv.FormatInt(int64(MaxPaisa/100), 10) + " taka"
	if ruleMax != want || MaxPaisa%100 != 0 {
		t.Fatalf("ruleMax = %q; want %q", ruleMax, want)
	}
	if _, err := ParseTaka([]byte(strconv.FormatInt(int64(MaxPaisa/100), 10))); err != nil {
		t.Fatalf("MaxPaisa rejected: %v", err)
	}
}

func TestRuleErrorsDoNotNameField(t *testing.T) {
	for _, r := range []string{ruleMissing, ruleString, ruleNull, ruleBool, ruleObject, ruleArray, ruleInvalid, rulePositive, rulePrecision, ruleMax} {
		if strings.Contains(strings.ToLower(r), "amount") {
			t.Errorf("rule %q mentions a field name", r)
		}
	}
}

func TestParseTakaFromRawMessage(t *testing.T) {
	var req struct {
		Amount json.RawMessage `json:"amount"`
	}
	if err := json.Unmarshal([]byte(`{"amount": 1.5e2 }`), &req); err != nil {
		t.Fatal(err)
	}
	got, err := ParseTaka(req.Amount)
	if err != nil || got != 15000 {
		t.Fatalf("ParseTaka(%q) = %d, %v; want 15000", req.Amount, got, err)
	}
}

func TestParseTakaHugeInputsAreCheap(t *testing.T) {
	// A long run of exponent or fraction digits must be handled in one
	// linear pass without allocation.
	inputs := [][]byte{
		[]byte("1e" + strings.Repeat("9", 1<<20)),
		[]byte("1e-" + strings.Repeat("9", 1<<20)),
		[]byte("1." + strings.Repeat("0", 1<<20)),
		[]byte("0." + strings.Repeat("0", 1<<20) + "1e" + strconv.Itoa(1<<20+1)),
		[]byte(strings.Repeat("9", 1<<20)),
	}
	wants := []string{ruleMax, rulePrecision, "", "", ruleMax}
	for i, in := range inputs {
		var got Paisa
		var err error
		allocs := testing.AllocsPerRun(5, func() { got, err = ParseTaka(in) })
		if wants[i] == "" {
			if err != nil || got != 100 {
				t.Errorf("input %d: got %d, %v; want 100", i, got, err)
			}
			if allocs != 0 {
				t.Errorf("input %d: %v allocations on success; want 0", i, allocs)
			}
		} else if err == nil || err.Error() != wants[i] {
			t.Errorf("input %d: got %d, %v; want %q", i, got, err, wants[i])
		}
	}
}

func TestTakaString(t *testing.T) {
	tests := []struct {
		p    Paisa
		want string
	}{
		{0, "0.00"},
		{1, "0.01"},
		{5, "0.05"},
		{10, "0.10"},
		{99, "0.99"},
		{100, "1.00"},
		{15050, "150.50"},
		{150000, "1500.00"},
		{MaxPaisa, "1000000000.00"},
		{-1, "-0.01"},
		{-15050, "-150.50"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tc := range tests {
		if got := tc.p.TakaString(); got != tc.want {
			t.Errorf("Paisa(%d).TakaString() = %q; want %q", int64(tc.p), got, tc.want)
		}
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		p    Paisa
		want string
	}{
		{0, "৳0.00"},
		{5, "৳0.05"},
		{15050, "৳150.50"},
		{99999, "৳999.99"},
		{100000, "৳1,000.00"},
		{150000, "৳1,500.00"},
		{9999999, "৳99,999.99"},
		{10000000, "৳1,00,000.00"}, // one lakh taka
		{12345678, "৳1,23,456.78"},
		{15000000, "৳1,50,000.00"},
		{123456789, "৳12,34,567.89"},
		{1000000000, "৳1,00,00,000.00"}, // one crore taka
		{MaxPaisa, "৳1,00,00,00,000.00"},
		{-150000, "-৳1,500.00"},
		{-5, "-৳0.05"},
		{-15000000, "-৳1,50,000.00"},
		{math.MinInt64, "-৳92,23,37,20,36,85,47,758.08"},
	}
	for _, tc := range tests {
		if got := tc.p.Display(); got != tc.want {
			t.Errorf("Paisa(%d).Display() = %q; want %q", int64(tc.p), got, tc.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(20240601, 1))
	check := func(p Paisa) {
		t.Helper()
		s := p.TakaString()
		got, err := ParseTaka([]byte(s))
		if err != nil || got != p {
			t.Fatalf("ParseTaka(%q) = %d, %v; want %d", s, got, err, p)
		}
	}
	for _, p := range []Paisa{1, 9, 10, 99, 100, 101, MaxPaisa - 1, MaxPaisa} {
		check(p)
	}
	for range 100_000 {
		check(1 + Paisa(r.Int64N(int64(MaxPaisa))))
	}
	// Small amounts are the common case; cover them more densely.
	for range 20_000 {
		check(1 + Paisa(r.Int64N(1_000_000)))
	}
}

// oracle parses s with math/big as an independent reference. ok reports
// whether the oracle could decide; valid whether ParseTaka should accept.
func oracle(s []byte) (want Paisa, valid, ok bool) {
	if !json.Valid(s) {
		return 0, false, true
	}
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return 0, false, false
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, true
	}
	// Keep math/big away from enormous exponents.
	str := string(num)
	if i := strings.IndexAny(str, "eE"); i >= 0 {
		e, err := strconv.ParseInt(strings.TrimLeft(str[i+1:], "+-"), 10, 32)
		if err != nil || e > 1000 {
			return 0, false, false
		}
	}
	if len(str) > 2000 {
		return 0, false, false
	}
	r, good := new(big.Rat).SetString(str)
	if !good {
		return 0, false, false
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() || r.Sign() <= 0 || r.Num().Cmp(big.NewInt(int64(MaxPaisa))) > 0 {
		return 0, false, true
	}
	return Paisa(r.Num().Int64()), true, true
}

func FuzzParseTaka(f *testing.F) {
	for _, s := range []string{
		"150", "150.5", "150.500", "1.5e2", "15050e-2", " 0.01 ", "1000000000",
		"1000000000.01", "999999999.99", "0.001", "1.234", "0", "-0", "-5",
		`"150"`, "null", "true", "{}", "[]", "01", "1.", ".5", "+1", "1e",
		"0x10", "NaN", "Infinity", "1e999999999", "1e-999999999", "1E+2",
		"0.0000000001e10", "\t1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// Long inputs add nothing the grammar does not already exercise
		// (TestParseTakaHugeInputsAreCheap covers them) and make the
		// engine spend its time minimizing instead of exploring.
		if len(raw) > 256 {
			return
		}
		p, err := ParseTaka(raw)
		if err != nil {
			var re *RuleError
			if !errors.As(err, &re) || re.Rule == "" {
				t.Fatalf("ParseTaka(%q) error %v is not a *RuleError", raw, err)
			}
			if p != 0 {
				t.Fatalf("ParseTaka(%q) = %d alongside error", raw, p)
			}
		} else {
			if p < 1 || p > MaxPaisa {
				t.Fatalf("ParseTaka(%q) = %d out of range", raw, p)
			}
			again, err := ParseTaka([]byte(p.TakaString()))
			if err != nil || again != p {
				t.Fatalf("round trip of %d via %q = %d, %v", p, p.TakaString(), again, err)
			}
			if !json.Valid(raw) {
				t.Fatalf("ParseTaka(%q) accepted invalid JSON", raw)
			}
		}
		if want, valid, ok := oracle(raw); ok {
			if valid != (err == nil) || (valid && want != p) {
				t.Fatalf("ParseTaka(%q) = %d, %v; oracle says %d, valid=%v", raw, p, err, want, valid)
			}
		}
	})
}

func BenchmarkParseTaka(b *testing.B) {
	inputs := [][]byte{
		[]byte("150.50"),
		[]byte("1000000000"),
		[]byte("15050e-2"),
		[]byte(" 0.01 "),
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseTaka(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAppendTakaMatchesTakaString(t *testing.T) {
	for _, p := range []Paisa{0, 1, 99, 100, 150050, MaxPaisa, -300} {
		got := string(p.AppendTaka([]byte("x")))
		if want := "x" + p.TakaString(); got != want {
			t.Errorf("AppendTaka(%d) = %q; want %q", int64(p), got, want)
		}
	}
	buf := make([]byte, 0, 32)
	if n := testing.AllocsPerRun(100, func() { buf = MaxPaisa.AppendTaka(buf[:0]) }); n != 0 {
		t.Errorf("AppendTaka allocates %v times with room in dst", n)
	}
}
