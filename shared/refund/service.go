package refund

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// Payment is what the refund rule reads of a payment: who owns it, its status and amount,
// and its refund ledger. Claims maps each refund id the payment has seen to the amount it
// counts in Promised; 0 marks a closed id (voided before its claim, or released), which can
// never be claimed again. Counted holds the refund ids already counted in Returned.
type Payment struct {
	ID          string
	WorkspaceID string
	Environment auth.Environment
	Status      payment.Status
	AmountMinor money.Paisa
	Promised    money.Paisa
	Returned    money.Paisa
	Claims      map[string]money.Paisa
	Counted     map[string]bool
	// Document is the invoice or payment link the payment was priced from (zero: standalone).
	Document Document
	// WebhookURL is where the payment's webhooks go: its refunds' events go there too.
	WebhookURL string
	// PayerRequest is the id of the payment's latest payer request ("" for none; decision 108).
	PayerRequest string
}

// Ledger is the payment's refund view.
func (p *Payment) Ledger() Ledger {
	return Ledger{PaymentID: p.ID, Status: p.Status, Paid: p.AmountMinor, Promised: p.Promised, Returned: p.Returned}
}

// Claim is what the payment says of a refund id after a claim or a void.
type Claim int

// The claim results.
const (
	// Claimed: the amount is counted on the payment for the refund.
	Claimed Claim = iota
	// Closed: the id is closed on the payment (voided or released): it counts nothing, ever.
	Closed
	// OverLimit: the claim was refused, as paid − promised is less than the amount.
	OverLimit
	// NotCompleted: the claim was refused, as the payment is not COMPLETED.
	NotCompleted
)

// Ref names a refund with a follow-up due (the repair pass's work list).
type Ref struct {
	WorkspaceID string
	Environment auth.Environment
	ID          string
}

// Errors a Store returns.
var (
	// ErrExists: PutRefund found the id taken (it returns the stored refund with it).
	ErrExists = errors.New("refund: id exists")
	// ErrStateChanged: UpdateRefund found the refund not as read.
	ErrStateChanged = errors.New("refund: changed since read")
)

// Store keeps refunds and their payments' ledgers, each step one single-item conditional
// write (shared/aws/dynamo implements it).
type Store interface {
	// RefundPayment reads a payment with its ledger (nil when absent).
	RefundPayment(ctx context.Context, paymentID string) (*Payment, error)
	// PutRefund writes a new refund (conditional on its id being free): ErrExists and the
	// stored one when it is not.
	PutRefund(ctx context.Context, r *Refund) (*Refund, error)
	// GetRefund reads a refund (nil when absent).
	GetRefund(ctx context.Context, workspaceID string, env auth.Environment, id string) (*Refund, error)
	// ClaimRefund counts amount for refundID on the payment if the payment is COMPLETED, the
	// id is unseen, and promised ≤ maxPromised before (maxPromised = paid − amount); a retry
	// that finds the claim already there answers Claimed.
	ClaimRefund(ctx context.Context, paymentID, refundID string, amount, maxPromised money.Paisa) (Claim, error)
	// VoidClaim closes refundID on the payment unless it is claimed: Closed, or Claimed when
	// a claim won the race.
	VoidClaim(ctx context.Context, paymentID, refundID string) (Claim, error)
	// ReleaseClaim gives refundID's amount back (its claim becomes closed); nothing when it is
	// not claimed.
	ReleaseClaim(ctx context.Context, paymentID, refundID string, amount money.Paisa) error
	// CountReturned adds amount to the payment's returned total once per refundID.
	CountReturned(ctx context.Context, paymentID, refundID string, amount money.Paisa) error
	// CountDocumentRefund adds a RETURNED refund's amount to its document's refunded total
	// once per refund id (nothing when r names no document, or the document is gone).
	CountDocumentRefund(ctx context.Context, r *Refund) error
	// UpdateRefund replaces prev by next, conditional on prev's version, status and follow-up:
	// ErrStateChanged when the refund is not as read.
	UpdateRefund(ctx context.Context, prev, next *Refund) error
	// ListRefunds reads a workspace's refunds in env newest first from after cursor ("" from
	// the newest), keeping those keep accepts, until limit are kept (and one more is seen, or
	// the partition ends) or its read budget is spent: the kept refunds and the cursor to go on
	// from ("" when the partition ended).
	ListRefunds(ctx context.Context, workspaceID string, env auth.Environment, cursor string, limit int, keep func(*Refund) bool) ([]*Refund, string, error)
	// RefundFollowUps lists refunds whose follow-up was due before dueBefore (at most limit).
	RefundFollowUps(ctx context.Context, dueBefore time.Time, limit int) ([]Ref, error)
}

// Defaults of a Service.
const (
	// DefaultDueDays: an approved refund is due within 3 days (Bangladesh Bank's Merchant
	// Acquiring and Escrow Service Policy 2023: a customer who cancels after paying is
	// refunded within 3 days).
	DefaultDueDays = 3
	// DefaultGrace is how long a write's ledger step is left to its writer before the repair
	// pass does it: longer than any function's timeout, so the writer is gone by then.
	DefaultGrace = 5 * time.Minute
	// repairBatch bounds one repair pass.
	repairBatch = 200
)

// Service runs the refund workflow.
type Service struct {
	Store Store
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// DueDays sets due_by at approval (DefaultDueDays when 0).
	DueDays int
	// Policies holds the workspaces' refund policies (the two-person rule); nil: none.
	Policies Policies
	// Grace is how long before the repair pass takes a follow-up over (DefaultGrace when 0).
	Grace time.Duration
	// Keys maps Idempotency-Keys to refund ids (needed for CreateInput.IdempotencyKey).
	Keys Keys
	// Events receives each webhook event a write recorded (nil: none is enqueued at once;
	// the webhook re-drive sends them once overdue).
	Events EventQueue
}

// Keys maps a workspace's Idempotency-Keys (per environment) to the refund ids they made.
type Keys interface {
	// RefundKey reads the id a key names ("" when the key is unused).
	RefundKey(ctx context.Context, workspaceID string, env auth.Environment, key string) (string, error)
	// PutRefundKey records id under key unless the key is taken (one conditional write), and
	// answers the id the key names now: id, or the one a racing request recorded first.
	PutRefundKey(ctx context.Context, workspaceID string, env auth.Environment, key, id string) (string, error)
}

// Scope is the workspace and environment a call acts in, and who acts: By is recorded in the
// history (a key id, a user id, or "payer").
type Scope struct {
	WorkspaceID string
	Environment auth.Environment
	By          string
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) grace() time.Duration {
	if s.Grace > 0 {
		return s.Grace
	}
	return DefaultGrace
}

func (s *Service) dueDays() int {
	if s.DueDays > 0 {
		return s.DueDays
	}
	return DefaultDueDays
}

func notFound(id string) error { return apierr.New(apierr.NotFound, "no refund %s", id) }

// overLimit is the 409 of a refund larger than what is still refundable.
func overLimit(asked, refundable money.Paisa) error {
	return apierr.New(apierr.StateConflict,
		"this refund of %d paisa is more than the payment's refundable amount: %d paisa (refundable_minor) are still refundable",
		asked, refundable)
}

// payment reads the scope's COMPLETED payment (404 for another workspace's or environment's,
// 409 for one not COMPLETED).
func (s *Service) payment(ctx context.Context, scope Scope, id string) (*Payment, error) {
	p, err := s.Store.RefundPayment(ctx, id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.WorkspaceID != scope.WorkspaceID || p.Environment != scope.Environment {
		return nil, apierr.New(apierr.NotFound, "no payment %s in this workspace's %s environment", id, scope.Environment)
	}
	if p.Status != payment.Completed {
		return nil, apierr.New(apierr.StateConflict, "this payment is %s; only a COMPLETED payment can be refunded", p.Status)
	}
	return p, nil
}

// Ledger returns a payment's refund view (404 as Create says; any status).
func (s *Service) Ledger(ctx context.Context, scope Scope, paymentID string) (Ledger, error) {
	p, err := s.Store.RefundPayment(ctx, paymentID)
	if err != nil {
		return Ledger{}, err
	}
	if p == nil || p.WorkspaceID != scope.WorkspaceID || p.Environment != scope.Environment {
		return Ledger{}, apierr.New(apierr.NotFound, "no payment %s in this workspace's %s environment", paymentID, scope.Environment)
	}
	return p.Ledger(), nil
}

// Create asks for a refund of a COMPLETED payment: it writes the refund PENDING_CLAIM, claims
// its amount on the payment, and marks it REQUESTED (decision 100). A claim refused for the
// limit voids it and answers 409 with what is still refundable. With in.ID, a retry finds the
// refund and finishes it forward (another input under the same id: 409). Live is refused (403)
// like every live money path of this release.
func (s *Service) Create(ctx context.Context, scope Scope, in CreateInput) (*Refund, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := payment.RequireSandbox(scope.Environment); err != nil { // no live money in this release
		return nil, err
	}
	p, err := s.payment(ctx, scope, in.PaymentID)
	if err != nil {
		return nil, err
	}
	if in.ID, err = s.keyID(ctx, scope, in); err != nil {
		return nil, err
	}
	if in.ID != "" { // a retry finds its refund and finishes it
		if stored, err := s.Store.GetRefund(ctx, scope.WorkspaceID, scope.Environment, in.ID); err != nil || stored != nil {
			if err != nil {
				return nil, err
			}
			return s.replay(ctx, stored, in, p)
		}
	}
	amount := in.AmountMinor
	if amount == 0 {
		amount = p.Ledger().Refundable()
	}
	if amount == 0 || amount > p.Ledger().Refundable() {
		return nil, overLimit(amount, p.Ledger().Refundable())
	}
	if in.ID == "" && in.IdempotencyKey != "" { // first use: the key names a new id from now on
		if in.ID, err = s.reserveKey(ctx, scope, in.IdempotencyKey); err != nil {
			return nil, err
		}
	}
	r, err := s.newRefund(scope, in, amount, p)
	if err != nil {
		return nil, err
	}
	stored, err := s.Store.PutRefund(ctx, r)
	if errors.Is(err, ErrExists) {
		return s.replay(ctx, stored, in, p)
	}
	if err != nil {
		return nil, err
	}
	return s.finishClaim(ctx, r, p.AmountMinor)
}

// replay answers a create whose id is taken: the same request finishes that refund forward;
// another (other payment or amount) is 409.
func (s *Service) replay(ctx context.Context, stored *Refund, in CreateInput, p *Payment) (*Refund, error) {
	if stored.PaymentID != in.PaymentID || in.AmountMinor != 0 && stored.AmountMinor != in.AmountMinor ||
		in.RequestHash != "" && stored.RequestHash != in.RequestHash {
		return nil, apierr.New(apierr.IdempotencyKeyReused, "this Idempotency-Key was used for another refund request")
	}
	r, err := s.finishClaim(ctx, stored, p.AmountMinor)
	if r != nil {
		r.Replayed = true
	}
	return r, err
}

// keyID is the id in.IdempotencyKey names, when it was used before; else in.ID.
func (s *Service) keyID(ctx context.Context, scope Scope, in CreateInput) (string, error) {
	if in.IdempotencyKey == "" {
		return in.ID, nil
	}
	if s.Keys == nil {
		return "", errors.New("refund: an Idempotency-Key needs Service.Keys")
	}
	return s.Keys.RefundKey(ctx, scope.WorkspaceID, scope.Environment, in.IdempotencyKey)
}

// reserveKey records a new uuid v7 under key (a racing request with the same key may have
// recorded its own first: then that one is the refund's id, and the PutRefund that follows
// finds it taken and replays).
func (s *Service) reserveKey(ctx context.Context, scope Scope, key string) (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	return s.Keys.PutRefundKey(ctx, scope.WorkspaceID, scope.Environment, key, u.String())
}

// newRefund is the PENDING_CLAIM refund a create writes for p: it carries the payment's
// webhook_url and document, so its events and its document's count need no second read.
func (s *Service) newRefund(scope Scope, in CreateInput, amount money.Paisa, p *Payment) (*Refund, error) {
	id := in.ID
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		id = u.String()
	}
	now := s.now()
	return &Refund{
		ID: id, WorkspaceID: scope.WorkspaceID, Environment: scope.Environment, PaymentID: in.PaymentID,
		AmountMinor: amount, Currency: Currency, Status: PendingClaim, Reason: in.Reason, Note: in.Note,
		Reference: in.Reference, Metadata: in.Metadata, RequestedBy: in.RequestedBy, PayerContact: in.PayerContact,
		History: []Entry{{Status: Requested, At: now, By: scope.By, Note: in.Note}}, Version: 1,
		CreatedAt: now, UpdatedAt: now, FollowUp: FollowClaim, FollowUpAt: now.Add(s.grace()), WebhookURL: p.WebhookURL,
		Document: p.Document, RequestHash: in.RequestHash,
	}, nil
}

// finishClaim takes a PENDING_CLAIM refund forward: claim, then REQUESTED; or, refused for
// the limit, close the id on the payment and VOIDED. Any other status is answered as it is
// (a VOIDED one as the 409 it was).
func (s *Service) finishClaim(ctx context.Context, r *Refund, paid money.Paisa) (*Refund, error) {
	if r.Status != PendingClaim {
		return s.settled(ctx, r)
	}
	c, err := OverLimit, error(nil)
	if r.AmountMinor <= paid { // DynamoDB conditions cannot add: the caller computes the bound
		if c, err = s.Store.ClaimRefund(ctx, r.PaymentID, r.ID, r.AmountMinor, paid-r.AmountMinor); err != nil {
			return nil, fmt.Errorf("claim refund %s: %w", r.ID, err)
		}
	}
	if c == OverLimit || c == NotCompleted {
		if c, err = s.Store.VoidClaim(ctx, r.PaymentID, r.ID); err != nil {
			return nil, fmt.Errorf("void refund %s: %w", r.ID, err)
		}
	}
	next := *r
	next.FollowUp, next.FollowUpAt = NoFollowUp, time.Time{}
	next.Status = Requested
	if c != Claimed {
		next.Status = Voided
	}
	ev, err := recordEvent(&next, s.now()) // refund.requested, in the write that makes it REQUESTED
	if err != nil {
		return nil, err
	}
	if err := s.Store.UpdateRefund(ctx, r, &next); err != nil {
		if !errors.Is(err, ErrStateChanged) {
			return nil, err
		}
		cur, err := s.Store.GetRefund(ctx, r.WorkspaceID, r.Environment, r.ID)
		if err != nil || cur == nil {
			return nil, fmt.Errorf("refund %s vanished or unreadable: %w", r.ID, err)
		}
		return s.settled(ctx, cur)
	}
	s.emit(ctx, &next, ev)
	return s.settled(ctx, &next)
}

// settled answers a create whose refund left PENDING_CLAIM: the refund, or for a VOIDED one
// the 409 with what is refundable now.
func (s *Service) settled(ctx context.Context, r *Refund) (*Refund, error) {
	if r.Status != Voided {
		return r, nil
	}
	p, err := s.Store.RefundPayment(ctx, r.PaymentID)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Status != payment.Completed {
		return nil, apierr.New(apierr.StateConflict, "this payment is no longer COMPLETED; it cannot be refunded")
	}
	return nil, overLimit(r.AmountMinor, p.Ledger().Refundable())
}

// Get reads a refund of the scope (404 for none, or one never shown).
func (s *Service) Get(ctx context.Context, scope Scope, id string) (*Refund, error) {
	r, err := s.Store.GetRefund(ctx, scope.WorkspaceID, scope.Environment, id)
	if err != nil {
		return nil, err
	}
	if r == nil || !r.Status.Shown() {
		return nil, notFound(id)
	}
	return r, nil
}

// Transition applies action to a refund: the one transition table decides; repeating an
// action that already happened answers the refund as it is (finishing a ledger step a crash
// left); any other wrong status is 409 naming the current one.
func (s *Service) Transition(ctx context.Context, scope Scope, id string, action Action, in TransitionInput) (*Refund, error) {
	now := s.now()
	if err := in.Validate(action, now); err != nil {
		return nil, err
	}
	if err := payment.RequireSandbox(scope.Environment); err != nil { // no live money in this release
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		r, err := s.Get(ctx, scope, id)
		if err != nil {
			return nil, err
		}
		if in.ExpectedVersion != 0 && in.ExpectedVersion != r.Version {
			if to, _ := action.Target(); r.Status != to {
				return nil, apierr.New(apierr.VersionConflict, "this refund is at version %d, not %d", r.Version, in.ExpectedVersion)
			}
		}
		out, err := Decide(action, r.Status)
		switch {
		case err != nil:
			return nil, err
		case out == Already:
			return r, s.followUp(ctx, r)
		}
		if action == Approve {
			if err := s.secondApprover(ctx, r, scope.By); err != nil {
				return nil, err
			}
		}
		next := s.apply(r, action, in, scope.By, now)
		ev, err := recordEvent(next, now) // the event of the new status, in the same write
		if err != nil {
			return nil, err
		}
		err = s.Store.UpdateRefund(ctx, r, next)
		if errors.Is(err, ErrStateChanged) {
			if attempt < 2 { // changed meanwhile: the table decides again on what it is now
				continue
			}
			return nil, apierr.Wrap(apierr.VersionConflict, err, "this refund is changing; retry")
		}
		if err != nil {
			return nil, err
		}
		s.emit(ctx, next, ev)
		return next, s.followUp(ctx, next)
	}
}

// secondApprover refuses by as r's approver when the workspace's policy needs someone else.
func (s *Service) secondApprover(ctx context.Context, r *Refund, by string) error {
	p, err := s.Policy(ctx, r.WorkspaceID)
	if err != nil {
		return err
	}
	if p.NeedsSecondApprover(r, by) {
		return apierr.New(apierr.StateConflict, "this refund of %s is at or above the workspace's two-person amount of %s: someone other than who asked for it must approve it",
			r.AmountMinor.Display(), p.TwoPersonMinor.Display())
	}
	return nil
}

// apply is the refund after action at now.
func (s *Service) apply(r *Refund, action Action, in TransitionInput, by string, now time.Time) *Refund {
	t := transitions[action]
	next := *r
	next.Status, next.Version, next.UpdatedAt = t.to, r.Version+1, now
	next.History = append(append([]Entry(nil), r.History...), Entry{Status: t.to, At: now, By: by, Note: in.Note})
	next.FollowUp, next.FollowUpAt = t.follow, time.Time{}
	if t.follow != NoFollowUp {
		next.FollowUpAt = now.Add(s.grace())
	}
	switch action {
	case Approve:
		due := now.AddDate(0, 0, s.dueDays())
		next.DueBy = &due
	case Reject:
		next.RejectionReason = in.Reason
	case ReportReturned:
		at := now
		if in.ReturnedAt != nil {
			at = in.ReturnedAt.UTC()
		}
		next.ProviderReference, next.ReturnedAt = in.ProviderReference, &at
	}
	return &next
}

// followUp does the ledger step r owes (release or count) and then clears it on the refund;
// each step is idempotent, so the writer, a repeat and the repair pass may all run it.
func (s *Service) followUp(ctx context.Context, r *Refund) error {
	switch r.FollowUp {
	case NoFollowUp:
		return nil
	case FollowRelease:
		if err := s.Store.ReleaseClaim(ctx, r.PaymentID, r.ID, r.AmountMinor); err != nil {
			return fmt.Errorf("release refund %s: %w", r.ID, err)
		}
	case FollowCount: // the payment's returned total, then its document's (each once per refund)
		if err := s.Store.CountReturned(ctx, r.PaymentID, r.ID, r.AmountMinor); err != nil {
			return fmt.Errorf("count refund %s: %w", r.ID, err)
		}
		if err := s.Store.CountDocumentRefund(ctx, r); err != nil {
			return fmt.Errorf("count refund %s on its document: %w", r.ID, err)
		}
	default:
		return fmt.Errorf("refund %s: follow-up %q is not this write's", r.ID, r.FollowUp)
	}
	return s.clearFollowUp(ctx, r)
}

// clearFollowUp records r's ledger step done. A delivery attempt may have written the refund
// since it was read (its events change, never its status, version or follow-up): the clear is
// then made on the refund as it is now; a refund that moved on is left to its new writer.
func (s *Service) clearFollowUp(ctx context.Context, r *Refund) error {
	cur := r
	for range 3 {
		done := *cur
		done.FollowUp, done.FollowUpAt = NoFollowUp, time.Time{}
		err := s.Store.UpdateRefund(ctx, cur, &done)
		if err == nil {
			r.Writes = done.Writes
			break
		}
		if !errors.Is(err, ErrStateChanged) {
			return err
		}
		if cur, err = s.Store.GetRefund(ctx, r.WorkspaceID, r.Environment, r.ID); err != nil {
			return err
		}
		if cur == nil || cur.Version != r.Version || cur.Status != r.Status || cur.FollowUp != r.FollowUp {
			break
		}
	}
	r.FollowUp, r.FollowUpAt = NoFollowUp, time.Time{}
	return nil
}

// Repair finishes what crashed writers left (decision 100): refunds stuck in PENDING_CLAIM are
// claimed and REQUESTED, or voided when the claim is refused; REJECTED and CANCELLED refunds
// whose claim is still on the payment give it back; RETURNED refunds not yet counted are
// counted. It takes the follow-ups due before now (each writer's grace has passed) and answers
// how many it finished.
func (s *Service) Repair(ctx context.Context, now time.Time) (int, error) {
	refs, err := s.Store.RefundFollowUps(ctx, now, repairBatch)
	if err != nil {
		return 0, err
	}
	done := 0
	var errs []error
	for _, ref := range refs {
		did, err := s.repairOne(ctx, ref, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if did {
			done++
		}
	}
	return done, errors.Join(errs...)
}

// repairOne does ref's follow-up if one is due at now. The sweep index also holds refunds
// whose only due work is a webhook event (WakeAt), and a follow-up found early (a refund woken
// by its event) is left to its writer until its grace has passed: both are skipped (false).
func (s *Service) repairOne(ctx context.Context, ref Ref, now time.Time) (bool, error) {
	r, err := s.Store.GetRefund(ctx, ref.WorkspaceID, ref.Environment, ref.ID)
	if err != nil || r == nil || r.FollowUp == NoFollowUp || r.FollowUpAt.After(now) {
		return false, err
	}
	if r.FollowUp != FollowClaim {
		return true, s.followUp(ctx, r)
	}
	p, err := s.Store.RefundPayment(ctx, r.PaymentID)
	if err != nil {
		return false, err
	}
	paid := money.Paisa(0)
	if p != nil {
		paid = p.AmountMinor
	}
	_, err = s.finishClaim(ctx, r, paid)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.StateConflict { // voided: that is its end
		return true, nil
	}
	return err == nil, err
}
