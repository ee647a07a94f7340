package money

import (
	"errors"
	"testing"
)

func TestParseTakaText(t *testing.T) {
	good := map[string]Paisa{
		"0": 0, "0.00": 0, "1": 100, "1250.5": 125050, "1,250.50": 125050, " 1,250.50 ": 125050,
		"৳1,250.50": 125050, "৳ 1,00,000": 10000000, "12,34,567.89": 123456789, "1,234,567": 123456700,
		"১২৫০.৫০": 125050, "১,২৫০.৫": 125050, ".5": 50, "5.": 500, "1.230": 123, "007": 700,
		"1000000000": 100000000000, "1,000,000,000.00": 100000000000, "0.01": 1,
	}
	for in, want := range good {
		got, err := ParseTakaText(in)
		if err != nil || got != want {
			t.Errorf("ParseTakaText(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"": ruleTextEmpty, "  ": ruleTextEmpty, "৳": ruleTextEmpty, "-1": ruleTextNegative, "−5": ruleTextNegative,
		"1.234": ruleTextPrecision, "1e3": ruleTextInvalid, "abc": ruleTextInvalid, "1.2.3": ruleTextInvalid,
		".": ruleTextInvalid, "1,2": ruleTextGrouping, "12,3456": ruleTextGrouping, ",123": ruleTextGrouping,
		"1234,567": ruleTextGrouping, "123,45,678": ruleTextGrouping, "1.5,0": ruleTextInvalid, "+1": ruleTextInvalid,
		"1000000000.01": ruleTextMax, "99999999999": ruleTextMax, "12345678901234567890": ruleTextMax, "Tk 5": ruleTextInvalid,
	}
	for in, rule := range bad {
		_, err := ParseTakaText(in)
		var re *RuleError
		if !errors.As(err, &re) || re.Rule != rule {
			t.Errorf("ParseTakaText(%q) = %v; want %q", in, err, rule)
		}
	}
}
