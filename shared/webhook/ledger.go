package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// DocumentLedger tells a linked intent's document the intent's outcome, exactly once per
// intent, with single-item conditional writes and no transaction. The intent's terminal event
// carries the follow-up: once the sender has finished with it (delivered, failed, or nothing
// to send), the event waits in the pending-work index (SettlePending) until the re-drive
// settles it (Redrive.Settle):
//
//  0. Claim: the run takes the event for SettleLease (a conditional write of the intent: not
//     applied yet, and no unexpired claim). Only the claim's holder applies; the lease outlasts
//     the re-drive's timeout, so a holder is done or dead before anyone else can claim.
//  1. ApplyOutcome: one conditional write of the document records the outcome (its payments
//     entry; paid_minor grows for COMPLETED; a payment link's reserved use is released
//     otherwise) and adds the intent id to the document's in-flight set, on the condition that
//     the id is not in it: a repeat by a later holder (the first died after this write)
//     changes nothing.
//  2. MarkApplied: the intent's event records that step 1 is done (only while the claim is
//     still this run's), so no later run claims it.
//  3. Forget: the document drops the id from its in-flight set (and trims its payments list);
//     harmless to repeat. It comes after step 2, so the id leaves the set only once no run can
//     apply again.
//  4. FinishSettlement: the event is settled and leaves the index.
//
// A process that dies between any two steps leaves the event in the index, and a later run
// completes it from the step it reached; the in-flight set holds only intents between steps
// 1 and 3. Two runs at once (two re-drive invocations overlapping) cannot both apply: the
// claim admits one, and the set stops a holder whose predecessor died after step 1.
type DocumentLedger interface {
	SettlePending(ctx context.Context, limit int) ([]payment.EventRef, error)
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	// ClaimSettlement reports whether this run took the event (false: applied already, or
	// another run holds it).
	ClaimSettlement(ctx context.Context, invoiceID, eventID string, now, until time.Time) (bool, error)
	ApplyOutcome(ctx context.Context, p *payment.Payment) error
	MarkApplied(ctx context.Context, invoiceID, eventID string, claim time.Time) error
	Forget(ctx context.Context, p *payment.Payment) error
	FinishSettlement(ctx context.Context, invoiceID, eventID string) error
}

// Settle runs the document follow-up of every linked intent event waiting for it (at most
// Limit); it returns how many it settled. One event's failure does not stop the others.
func (r *Redrive) Settle(ctx context.Context) (int, error) {
	if r.Documents == nil {
		return 0, nil
	}
	limit := r.Limit
	if limit <= 0 {
		limit = 100
	}
	refs, err := r.Documents.SettlePending(ctx, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, ref := range refs {
		done, err := SettleOne(ctx, r.Documents, ref, r.now())
		if err != nil {
			errs = append(errs, fmt.Errorf("settle %s: %w", ref.EventID, err))
			continue
		}
		if done {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// SettleLease is how long a run holds an event's follow-up: longer than the re-drive's
// timeout (60 s in template.yaml).
const SettleLease = 5 * time.Minute

// SettleOne runs the document follow-up of one event, from the step it reached, and reports
// whether this run finished it (false: another run holds it or finished it).
func SettleOne(ctx context.Context, l DocumentLedger, ref payment.EventRef, now time.Time) (bool, error) {
	p, err := l.GetPayment(ctx, ref.InvoiceID)
	if err != nil {
		return false, err
	}
	if p == nil || p.Outbox == nil || p.Outbox.EventID != ref.EventID || p.Outbox.Settled {
		return false, nil
	}
	if !p.Outbox.Applied {
		until := now.Add(SettleLease)
		claimed, err := l.ClaimSettlement(ctx, p.InvoiceID, ref.EventID, now, until)
		if err != nil || !claimed {
			return false, err
		}
		if err := l.ApplyOutcome(ctx, p); err != nil {
			return false, err
		}
		if err := l.MarkApplied(ctx, p.InvoiceID, ref.EventID, until); err != nil {
			if errors.Is(err, payment.ErrStateChanged) {
				return false, nil // the claim lapsed and another run took over
			}
			return false, err
		}
	}
	if err := l.Forget(ctx, p); err != nil {
		return false, err
	}
	err = l.FinishSettlement(ctx, p.InvoiceID, ref.EventID)
	if errors.Is(err, payment.ErrStateChanged) {
		return false, nil
	}
	return err == nil, err
}
