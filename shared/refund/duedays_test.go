package refund_test

import (
	"testing"

	"github.com/takapay/payments/shared/refund"
)

func TestDueDays(t *testing.T) {
	lookup := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == refund.EnvDueDays && v != "" }
	}
	if refund.DueDays(nil) != 3 || refund.DueDays(lookup("")) != 3 || refund.DueDays(lookup("10")) != 10 {
		t.Errorf("DueDays: %d %d %d", refund.DueDays(nil), refund.DueDays(lookup("")), refund.DueDays(lookup("10")))
	}
	defer func() {
		if recover() == nil {
			t.Error("REFUND_DUE_DAYS=0 was accepted")
		}
	}()
	refund.DueDays(lookup("0"))
}
