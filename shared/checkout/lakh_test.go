package checkout

import (
	"testing"

	"github.com/takapay/payments/shared/foundation/money"
	kit "github.com/takapay/payments/shared/foundation/page"
)

// Issue 32: a rendered checkout page writes 150000.00 taka as Bangladeshi banks print it, in
// English (৳1,50,000.00) as in Bangla (৳১,৫০,০০০.০০), never grouped by three (৳150,000.00);
// and the JSON view's amount_display is the English page's amount (decision 96).
func TestRenderedPageGroupsByLakh(t *testing.T) {
	for _, c := range []struct {
		lang       kit.Lang
		want, lost string
	}{
		{kit.EN, "৳1,50,000.00", "150,000"},
		{kit.BN, "৳১,৫০,০০০.০০", "১৫০,০০০"},
	} {
		v := pendingView()
		v.AmountMinor = 15000000
		v.AmountDisplay = money.Paisa(v.AmountMinor).Display()
		v.Lang = kit.Choice{Lang: c.lang, Explicit: true}
		page := render(t, v)
		mustContain(t, page, c.want)
		mustNotContain(t, page, c.lost)
		if c.lang == kit.EN && v.AmountDisplay != c.want {
			t.Errorf("amount_display %q, the English page %q", v.AmountDisplay, c.want)
		}
	}
}
