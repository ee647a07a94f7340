package refund

import (
	"fmt"
	"strconv"
	"strings"
)

// EnvDueDays is the variable that sets due_by at approval (the template's RefundDueDays).
const EnvDueDays = "REFUND_DUE_DAYS"

// DueDays reads REFUND_DUE_DAYS through lookup: DefaultDueDays when unset; 1 to 60
// days otherwise (anything else stops the function at its cold start: a misconfiguration).
func DueDays(lookup func(string) (string, bool)) int {
	if lookup == nil {
		return DefaultDueDays
	}
	v, ok := lookup(EnvDueDays)
	if !ok || strings.TrimSpace(v) == "" {
		return DefaultDueDays
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 60 {
		panic(fmt.Sprintf("%s must be 1 to 60 days, not %q", EnvDueDays, v))
	}
	return n
}
