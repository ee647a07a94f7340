package webhook

import (
	"context"
	"errors"
	"fmt"

	"github.com/takapay/payments/shared/payment"
)

// DocumentLedger tells a linked intent's document the intent's outcome, exactly once per
// intent, with single-item conditional writes and no transaction. The intent's terminal event
// carries the follow-up: once the sender has finished with it (delivered, failed, or nothing
// to send), the event waits in the pending-work index (SettlePending) until the re-drive
// settles it (Redrive.Settle):
//
//  1. ApplyOutcome: one conditional write of the document records the outcome (its payments
//     entry; paid_minor grows for COMPLETED; a payment link's reserved use is released
//     otherwise) and adds the intent id to the document's in-flight set, on the condition that
//     the id is not in it: a second application changes nothing.
//  2. MarkApplied: the intent's event records that step 1 is done, so no later pass runs it.
//  3. Forget: the document drops the id from its in-flight set (and trims its payments list);
//     harmless to repeat.
//  4. FinishSettlement: the event is settled and leaves the index.
//
// A process that dies between any two steps leaves the event in the index, and the next run
// completes it from the step it reached; the in-flight set holds only intents between steps
// 1 and 3.
type DocumentLedger interface {
	SettlePending(ctx context.Context, limit int) ([]payment.EventRef, error)
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	ApplyOutcome(ctx context.Context, p *payment.Payment) error
	MarkApplied(ctx context.Context, invoiceID, eventID string) error
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
		if err := SettleOne(ctx, r.Documents, ref); err != nil {
			errs = append(errs, fmt.Errorf("settle %s: %w", ref.EventID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// SettleOne runs the document follow-up of one event, from the step it reached.
func SettleOne(ctx context.Context, l DocumentLedger, ref payment.EventRef) error {
	p, err := l.GetPayment(ctx, ref.InvoiceID)
	if err != nil {
		return err
	}
	if p == nil || p.Outbox == nil || p.Outbox.EventID != ref.EventID || p.Outbox.Settled {
		return nil // another run finished it
	}
	if !p.Outbox.Applied {
		if err := l.ApplyOutcome(ctx, p); err != nil {
			return err
		}
		if err := l.MarkApplied(ctx, p.InvoiceID, ref.EventID); err != nil {
			return err
		}
	}
	if err := l.Forget(ctx, p); err != nil {
		return err
	}
	err = l.FinishSettlement(ctx, p.InvoiceID, ref.EventID)
	if errors.Is(err, payment.ErrStateChanged) {
		return nil
	}
	return err
}
