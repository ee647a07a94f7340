package page

import (
	"strconv"
	"time"

	"github.com/takapay/payments/shared/foundation/money"
)

// Dhaka is Bangladesh Standard Time. Bangladesh has kept UTC+6 with no daylight saving since
// 2010, so a fixed zone is exact for every date a page shows and needs no tzdata in the
// Lambda image.
var Dhaka = time.FixedZone("Asia/Dhaka", 6*60*60)

// bnDigits are the Bangla digits ০ to ৯ (U+09E6 to U+09EF).
var bnDigits = [10]string{"০", "১", "২", "৩", "৪", "৫", "৬", "৭", "৮", "৯"}

// Digits writes the ASCII digits of s as the language writes them: Bangla digits in Bangla,
// unchanged in English. Everything else in s is kept.
func (l Lang) Digits(s string) string {
	if l != BN {
		return s
	}
	out := make([]byte, 0, len(s)*3)
	for i := 0; i < len(s); i++ {
		if c := s[i]; '0' <= c && c <= '9' {
			out = append(out, bnDigits[c-'0']...)
		} else {
			out = append(out, c)
		}
	}
	return string(out)
}

// Amount formats paisa as taka for a payer, grouped as Bangladeshi banks print amounts: the
// last three digits of the whole taka, then groups of two (lakh, crore; CLDR's bn pattern
// #,##,##0.00). English: ৳1,500.00, ৳1,50,000.00, exactly money.Paisa.Display (the JSON views'
// amount_display). Bangla: the same in Bangla digits, ৳১,৫০০.০০ and ৳১,০০,০০০.০০ for one lakh
// taka. One grouping (money.AppendLakhGrouped) serves both. A negative amount (a discount)
// starts with '-', as Display does.
func (l Lang) Amount(p money.Paisa) string {
	return l.Digits(p.Display())
}

// Number formats a count (a quantity) in the language's digits, without grouping.
func (l Lang) Number(n int64) string {
	return l.Digits(strconv.FormatInt(n, 10))
}

var monthsBN = [12]string{"জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট",
	"সেপ্টেম্বর", "অক্টোবর", "নভেম্বর", "ডিসেম্বর"}

// DateTime formats an instant in Dhaka time as a payer reads it: "2 January 2006, 15:04" in
// English, "২ জানুয়ারি ২০০৬, ১৫:০৪" in Bangla (the Gregorian month names as Bangla writes
// them; a 24-hour clock in both).
func (l Lang) DateTime(t time.Time) string {
	d := t.In(Dhaka)
	if l != BN {
		return d.Format("2 January 2006, 15:04")
	}
	return BN.Digits(strconv.Itoa(d.Day())) + " " + monthsBN[d.Month()-1] + " " +
		BN.Digits(strconv.Itoa(d.Year())) + ", " + BN.Digits(d.Format("15:04"))
}

// Clock formats an instant's time of day in Dhaka time: "15:04", "১৫:০৪".
func (l Lang) Clock(t time.Time) string {
	return l.Digits(t.In(Dhaka).Format("15:04"))
}
