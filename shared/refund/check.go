package refund

import (
	"errors"
	"fmt"
)

// Check states the money rule of one payment as its items hold it, once no follow-up is
// outstanding (after Repair): no amount promised without its refund (every claim names a
// live refund of that amount), no live refund without its claim, refund_promised is the sum
// of the claims and never more than was paid, and refund_returned is the sum of the RETURNED
// refunds, each counted once. refunds are every refund of the payment (any status).
func Check(p *Payment, refunds []*Refund) error {
	var errs []error
	byID := make(map[string]*Refund, len(refunds))
	for _, r := range refunds {
		byID[r.ID] = r
	}
	var sum, returned int64
	for id, amount := range p.Claims {
		if amount == 0 {
			continue
		}
		sum += int64(amount)
		r := byID[id]
		switch {
		case r == nil:
			errs = append(errs, fmt.Errorf("claim %s of %d paisa names no refund", id, amount))
		case !r.Status.Live():
			errs = append(errs, fmt.Errorf("claim %s of %d paisa names a %s refund", id, amount, r.Status))
		case r.AmountMinor != amount:
			errs = append(errs, fmt.Errorf("claim %s is %d paisa, its refund %d", id, amount, r.AmountMinor))
		}
	}
	for _, r := range refunds {
		if r.Status.Live() && p.Claims[r.ID] != r.AmountMinor {
			errs = append(errs, fmt.Errorf("%s refund %s of %d paisa has claim %d", r.Status, r.ID, r.AmountMinor, p.Claims[r.ID]))
		}
		if r.Status == Returned {
			returned += int64(r.AmountMinor)
			if !p.Counted[r.ID] {
				errs = append(errs, fmt.Errorf("returned refund %s is not counted", r.ID))
			}
		} else if p.Counted[r.ID] {
			errs = append(errs, fmt.Errorf("%s refund %s is counted as returned", r.Status, r.ID))
		}
		if r.FollowUp != NoFollowUp || r.Status == PendingClaim {
			errs = append(errs, fmt.Errorf("refund %s (%s) still owes %q", r.ID, r.Status, r.FollowUp))
		}
	}
	if int64(p.Promised) != sum {
		errs = append(errs, fmt.Errorf("refund_promised is %d, its claims sum to %d", p.Promised, sum))
	}
	if p.Promised > p.AmountMinor {
		errs = append(errs, fmt.Errorf("refund_promised %d is more than the %d paid", p.Promised, p.AmountMinor))
	}
	if int64(p.Returned) != returned {
		errs = append(errs, fmt.Errorf("refund_returned is %d, the RETURNED refunds sum to %d", p.Returned, returned))
	}
	return errors.Join(errs...)
}
