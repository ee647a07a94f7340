package intent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// Effect is what a linked intent's outcome does to its document: the one rule for what a
// document learns, applied by the settlement (Settle) through Ledger.ApplyOutcome.
type Effect struct {
	// Paid is what a COMPLETED intent collected (0 for any other outcome). The store adds it
	// to paid_minor while the document is open (an issued invoice, an active link) and to
	// paid_after_close_minor, with the payment marked after_close, when it was closed first
	// (cancelled, archived): money that arrived is never lost, and never silently counted
	// towards a closed document.
	Paid int64
	// DropHold removes the intent's hold on its payment link's use (UseHeld), whatever the
	// outcome; CountUse counts a COMPLETED one's use for good in the same write.
	DropHold, CountUse bool
	// HoldID is the intent whose hold DropHold removes.
	HoldID string
	// ReleaseUse gives back the counted use an older intent took (ReservedUse without
	// UseHeld) when it ended other than COMPLETED; a completed payment keeps its use for good.
	ReleaseUse bool
}

// EffectOf is the effect of a finished linked intent's outcome on its document.
func EffectOf(p *payment.Payment) Effect {
	var e Effect
	if p.UseHeld {
		e.DropHold, e.HoldID, e.CountUse = true, p.InvoiceID, p.Status == payment.Completed
	}
	if p.Status == payment.Completed {
		e.Paid = int64(p.AmountMinor)
		return e
	}
	e.ReleaseUse = p.ReservedUse && !p.UseHeld
	return e
}

// Ledger is the storage of a linked intent's settlement: its document learns the intent's
// outcome exactly once, with single-item conditional writes and no transaction. The intent's
// terminal write records its event in the settle index (SettlePending lists it); from there:
//
//  0. ClaimSettlement: the settler takes the event for SettleLease (a conditional write of the
//     intent: not applied yet, and no unexpired claim). Only the claim's holder applies; the
//     lease outlasts every settler's timeout (the sender's 30 s, the re-drive's 60 s), so a
//     holder is done or dead before anyone else can claim.
//  1. ApplyOutcome: one conditional write of the document records the Effect and adds the
//     intent id to the document's in-flight set, on the condition that the id is not in it:
//     a repeat by a later holder (the first died after this write) changes nothing.
//  2. MarkApplied: the intent's event records that step 1 is done (only while the claim is
//     still this settler's), so no later settler claims it.
//  3. RetainSnapshot (an outcome other than COMPLETED): the snapshot gets the payment's TTL.
//  4. Forget: the document drops the id from its in-flight set (and trims its payments list);
//     harmless to repeat. It comes after step 2, so the id leaves the set only once no
//     settler can apply again.
//  5. FinishSettlement: the event is settled and moves to where its webhook delivery stands
//     (the pending-delivery index, or nowhere once delivered or failed).
//
// A settler that dies between any two steps leaves the event in the settle index, and a later
// one completes it from the step it reached; the in-flight set holds only intents between
// steps 1 and 4. Two settlers at once (the sender and the re-drive, say) cannot both apply:
// the claim admits one, and the set stops a holder whose predecessor died after step 1.
type Ledger interface {
	SettlePending(ctx context.Context, limit int) ([]payment.EventRef, error)
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	// ClaimSettlement reports whether this settler took the event (false: applied already, or
	// another settler holds it).
	ClaimSettlement(ctx context.Context, invoiceID, eventID string, now, until time.Time) (bool, error)
	ApplyOutcome(ctx context.Context, p *payment.Payment, e Effect) error
	MarkApplied(ctx context.Context, invoiceID, eventID string, claim time.Time) error
	RetainSnapshot(ctx context.Context, p *payment.Payment, until time.Time) error
	Forget(ctx context.Context, p *payment.Payment) error
	// FinishSettlement settles p's event as read; payment.ErrStateChanged with the current
	// payment when its delivery moved meanwhile (place it again).
	FinishSettlement(ctx context.Context, p *payment.Payment) (*payment.Payment, error)
}

// SettleLease is how long a settler holds an event's follow-up: longer than any settler's
// timeout (the webhook sender's 30 s and the re-drive's 60 s in template.yaml).
const SettleLease = 5 * time.Minute

// Settle runs the document follow-up of p's terminal event (p as just read, strongly
// consistent), from the step it reached, and reports whether this call finished it (false:
// nothing to do, or another settler holds it or finished it). It never waits on anything but
// the store: the webhook's delivery goes on separately.
func Settle(ctx context.Context, l Ledger, p *payment.Payment, now time.Time) (bool, error) {
	if p == nil || !p.Linked() || p.Outbox == nil || p.Outbox.Settled || !p.Status.Terminal() {
		return false, nil
	}
	if !p.Outbox.Applied {
		if applied, err := applySettlement(ctx, l, p, now); !applied || err != nil {
			return false, err
		}
	}
	if until := payment.RetainUntil(p.Status, *p.FinishedAt); !until.IsZero() {
		if err := l.RetainSnapshot(ctx, p, until); err != nil {
			return false, err
		}
	}
	if err := l.Forget(ctx, p); err != nil {
		return false, err
	}
	return finishSettlement(ctx, l, p)
}

// applySettlement is the follow-up's first step: claim it for SettleLease, record the outcome
// on the document, mark it applied. It reports false (and no error) when another settler holds
// the claim or took over after this claim lapsed.
func applySettlement(ctx context.Context, l Ledger, p *payment.Payment, now time.Time) (bool, error) {
	eventID := p.Outbox.EventID
	until := now.Add(SettleLease)
	claimed, err := l.ClaimSettlement(ctx, p.InvoiceID, eventID, now, until)
	if err != nil || !claimed {
		return false, err
	}
	if err := l.ApplyOutcome(ctx, p, EffectOf(p)); err != nil {
		return false, err
	}
	if err := l.MarkApplied(ctx, p.InvoiceID, eventID, until); err != nil {
		if errors.Is(err, payment.ErrStateChanged) {
			return false, nil // the claim lapsed and another settler took over
		}
		return false, err
	}
	return true, nil
}

// finishSettlement is the last step: the event leaves the settle index for the delivery's.
// The delivery may move between the read and the write (an attempt recorded meanwhile): place
// the event by the state the failed write returns, a bounded number of times.
func finishSettlement(ctx context.Context, l Ledger, p *payment.Payment) (bool, error) {
	eventID := p.Outbox.EventID
	cur := p
	for range 4 {
		next, err := l.FinishSettlement(ctx, cur)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, payment.ErrStateChanged) || next == nil {
			return false, err
		}
		if next.Outbox == nil || next.Outbox.EventID != eventID || next.Outbox.Settled {
			return false, nil // settled by another settler
		}
		cur = next
	}
	return false, fmt.Errorf("settle %s: its delivery kept changing", p.InvoiceID)
}

// SettleRef reads the intent an event names and settles it (Settle): what a settler does with
// an entry of the settle index.
func SettleRef(ctx context.Context, l Ledger, ref payment.EventRef, now time.Time) (bool, error) {
	p, err := l.GetPayment(ctx, ref.InvoiceID)
	if err != nil {
		return false, err
	}
	if p == nil || p.Outbox == nil || p.Outbox.EventID != ref.EventID {
		return false, nil
	}
	return Settle(ctx, l, p, now)
}
