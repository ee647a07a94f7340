// Package refund is the one home of the refund workflow and its money rule: the sum of a
// payment's refunds that are not REJECTED or CANCELLED never exceeds the amount paid, under
// concurrency and at every crash point, with single-item conditional writes only (decision 100).
//
// A refund is asked for (by the merchant or the payer), reviewed, approved or rejected, and
// once the merchant has sent the money back it is reported returned with the provider's
// transaction id. The states and their one transition table are here; the store keeps the
// refund items and the payment's refund ledger (refund_promised, refund_returned, and the
// claims that name each counted refund).
package refund

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// Status is a refund's state.
type Status string

// The statuses a refund shows. RETURNED, REJECTED and CANCELLED are final.
const (
	Requested Status = "REQUESTED"
	InReview  Status = "IN_REVIEW"
	Approved  Status = "APPROVED"
	Returned  Status = "RETURNED"
	Rejected  Status = "REJECTED"
	Cancelled Status = "CANCELLED"
)

// The internal statuses, never shown: a refund written but whose amount is not yet claimed
// on its payment (PendingClaim), and one whose claim was refused (Voided). Readers treat both
// as absent.
const (
	PendingClaim Status = "PENDING_CLAIM"
	Voided       Status = "VOIDED"
)

// Final reports whether no action leads out of s.
func (s Status) Final() bool {
	return s == Returned || s == Rejected || s == Cancelled || s == Voided
}

// Shown reports whether a refund in s is visible (not one of the internal statuses).
func (s Status) Shown() bool { return s != PendingClaim && s != Voided }

// Live reports whether a refund in s counts against its payment (its claim must be there).
func (s Status) Live() bool {
	return s == Requested || s == InReview || s == Approved || s == Returned
}

// Reason is why a refund is asked for.
type Reason string

// The reasons a refund may give.
const (
	ReasonRequestedByCustomer Reason = "requested_by_customer"
	ReasonDuplicate           Reason = "duplicate"
	ReasonFraudulent          Reason = "fraudulent"
	ReasonNotDelivered        Reason = "not_delivered"
	ReasonGoodsReturned       Reason = "goods_returned"
	ReasonOrderCancelled      Reason = "order_cancelled"
	ReasonOther               Reason = "other"
)

// Reasons lists every reason, in the order a form offers them.
var Reasons = []Reason{ReasonRequestedByCustomer, ReasonDuplicate, ReasonFraudulent, ReasonNotDelivered,
	ReasonGoodsReturned, ReasonOrderCancelled, ReasonOther}

// Requester says who asked for a refund.
type Requester string

// The two requesters.
const (
	ByMerchant Requester = "merchant"
	ByPayer    Requester = "payer"
)

// Currency is the one currency of a refund.
const Currency = "BDT"

// The input bounds (characters).
const (
	MaxNote              = 255
	MaxReference         = 128
	MaxRejectionReason   = 255
	MaxProviderReference = 64
)

// Entry is one step of a refund's history: the status it reached, when, and who (a key id, a
// user id, or "payer"), with the note given with the action.
type Entry struct {
	Status Status    `dynamodbav:"s"`
	At     time.Time `dynamodbav:"t"`
	By     string    `dynamodbav:"b"`
	Note   string    `dynamodbav:"n,omitempty"`
}

// FollowUp is the payment-ledger step a refund's last write still owes (decision 100): the
// refund carries it, and sits in the store's repair index, until the step is done.
type FollowUp string

// The follow-ups.
const (
	NoFollowUp FollowUp = ""
	// FollowClaim: the amount is still to be claimed on the payment (PENDING_CLAIM).
	FollowClaim FollowUp = "claim"
	// FollowRelease: a REJECTED or CANCELLED refund's claim is still to be given back.
	FollowRelease FollowUp = "release"
	// FollowCount: a RETURNED refund is still to be counted in refund_returned, and on its
	// payment's document (refunded_minor).
	FollowCount FollowUp = "count"
)

// Refund is the refund resource.
type Refund struct {
	ID                string
	WorkspaceID       string
	Environment       auth.Environment
	PaymentID         string
	AmountMinor       money.Paisa
	Currency          string
	Status            Status
	Reason            Reason
	Note              string
	Reference         string
	Metadata          map[string]string
	RequestedBy       Requester
	DueBy             *time.Time
	ProviderReference string
	ReturnedAt        *time.Time
	RejectionReason   string
	History           []Entry
	Version           int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// FollowUp and FollowUpAt (when the repair pass may do it) are internal: never shown.
	FollowUp   FollowUp
	FollowUpAt time.Time
	// Document is the invoice or payment link the payment was priced from, as create read it
	// (zero for a standalone payment); internal: a RETURNED refund is counted on that
	// document's record too (refunded_minor), without reading the payment again.
	Document Document
	// RequestHash identifies the create request's content (internal, never shown): a create
	// retried under the same Idempotency-Key with another body is refused by comparing it.
	RequestHash string
	// Replayed is set (never stored) on the refund Create answers for a create that an earlier
	// one under the same id or Idempotency-Key already made.
	Replayed bool
	// WebhookURL is the payment's webhook_url, copied at create (internal: the sender posts
	// the refund's events there without reading the payment); "" records no events.
	WebhookURL string
	// Events are the refund's webhook events, one per status it reached since create, each
	// with its own delivery state (internal; events.go). Every write that changes the status
	// records its event here, in the same write.
	Events []payment.Delivery
	// Writes counts every write of the refund item (internal): each write is conditional on
	// it, so a delivery attempt's write and a transition's never overwrite each other.
	Writes int64
}

// Document names the invoice or payment link a linked payment was priced from.
type Document struct {
	Kind payment.SourceKind
	ID   string
}

// DocumentOf is the document a payment was priced from (zero for a standalone payment).
func DocumentOf(p *payment.Payment) Document {
	if !p.Linked() {
		return Document{}
	}
	return Document{Kind: p.Source.Kind, ID: p.Source.DocumentID}
}

// Overdue reports whether an approved refund is past its due_by at now.
func (r *Refund) Overdue(now time.Time) bool {
	return r.Status == Approved && r.DueBy != nil && now.After(*r.DueBy)
}

// Action is a transition a caller asks for.
type Action string

// The actions, named as their paths name them.
const (
	Review         Action = "review"
	Approve        Action = "approve"
	Reject         Action = "reject"
	ReportReturned Action = "report-returned"
	Cancel         Action = "cancel"
)

// transition is one row of the table: the statuses an action leaves from, the status it
// reaches, and the ledger step it owes.
type transition struct {
	from   []Status
	to     Status
	follow FollowUp
}

// transitions is the one transition table of the workflow.
var transitions = map[Action]transition{
	Review:         {from: []Status{Requested}, to: InReview},
	Approve:        {from: []Status{Requested, InReview}, to: Approved},
	Reject:         {from: []Status{Requested, InReview}, to: Rejected, follow: FollowRelease},
	ReportReturned: {from: []Status{Approved}, to: Returned, follow: FollowCount},
	Cancel:         {from: []Status{Requested, InReview, Approved}, to: Cancelled, follow: FollowRelease},
}

// Actions lists every action.
var Actions = []Action{Review, Approve, Reject, ReportReturned, Cancel}

// Target is the status action reaches (ok false for an unknown action).
func (a Action) Target() (Status, bool) {
	t, ok := transitions[a]
	return t.to, ok
}

// Outcome is what the table says of an action on a refund in a status.
type Outcome int

// The outcomes.
const (
	// Move: the action applies.
	Move Outcome = iota
	// Already: the refund is already in the action's target status; answer it as it is.
	Already
	// Refused: the action does not apply from the status.
	Refused
)

// Decide looks action up in the table for a refund in from.
func Decide(action Action, from Status) (Outcome, error) {
	t, ok := transitions[action]
	if !ok {
		return Refused, apierr.New(apierr.NotFound, "no refund action %q", action)
	}
	if from == t.to {
		return Already, nil
	}
	for _, f := range t.from {
		if f == from {
			return Move, nil
		}
	}
	return Refused, apierr.New(apierr.StateConflict, "this refund is %s; it cannot be %s (allowed from %s)",
		from, pastTense(action), joinStatuses(t.from))
}

func pastTense(a Action) string {
	switch a {
	case Review:
		return "put in review"
	case ReportReturned:
		return "reported returned"
	case Cancel:
		return "cancelled"
	}
	return string(a) + "d"
}

func joinStatuses(ss []Status) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}

// CreateInput is what a create asks for.
type CreateInput struct {
	// ID is the refund's id when the caller derives it (from an Idempotency-Key, so a retry
	// finds the same refund); "" makes a new one.
	ID        string
	PaymentID string
	// AmountMinor is the amount in paisa; 0 asks for everything still refundable.
	AmountMinor money.Paisa
	Reason      Reason
	Note        string
	Reference   string
	Metadata    map[string]string
	RequestedBy Requester
	// IdempotencyKey, when set, makes the create idempotent through the Service's Keys: the
	// key names the refund's id (a fresh uuid v7, so lists stay in time order) from its first
	// use on.
	IdempotencyKey string
	// RequestHash identifies the request's content: the same key with another hash is 409
	// IDEMPOTENCY_KEY_REUSED ("" compares only payment and amount).
	RequestHash string
}

// TransitionInput is the body of a transition.
type TransitionInput struct {
	// Note is kept with the history entry (review, approve, cancel).
	Note string
	// Reason is the rejection reason (reject; required).
	Reason string
	// ProviderReference is the provider's transaction id (report-returned; required).
	ProviderReference string
	// ReturnedAt is when the money went back (report-returned; default now, never in the future).
	ReturnedAt *time.Time
	// ExpectedVersion, when not 0, must be the refund's version.
	ExpectedVersion int64
}

// Violation paths, as the API names its body fields.
const (
	pathPaymentID         = "body.payment_id"
	pathAmount            = "body.amount_minor"
	pathReason            = "body.reason"
	pathNote              = "body.note"
	pathReference         = "body.reference"
	pathProviderReference = "body.provider_reference"
	pathReturnedAt        = "body.returned_at"
)

// Validate checks a create's input: every broken rule, each naming its field.
func (in *CreateInput) Validate() error {
	var vs []apierr.Violation
	if strings.TrimSpace(in.PaymentID) == "" {
		vs = append(vs, apierr.Violation{Path: pathPaymentID, Rule: "is required"})
	}
	if in.AmountMinor < 0 {
		vs = append(vs, apierr.Violation{Path: pathAmount, Rule: "must be a whole number of paisa greater than 0"})
	}
	if !validReason(in.Reason) {
		vs = append(vs, apierr.Violation{Path: pathReason, Rule: "must be one of " + reasonList()})
	}
	vs = appendLength(vs, pathNote, in.Note, MaxNote)
	vs = appendLength(vs, pathReference, in.Reference, MaxReference)
	if in.RequestedBy != ByMerchant && in.RequestedBy != ByPayer {
		vs = append(vs, apierr.Violation{Path: "requested_by", Rule: "must be merchant or payer"})
	}
	if len(vs) > 0 {
		return apierr.Invalid(vs...)
	}
	return nil
}

// Validate checks a transition's input for action at now.
func (in *TransitionInput) Validate(action Action, now time.Time) error {
	var vs []apierr.Violation
	vs = appendLength(vs, pathNote, in.Note, MaxNote)
	switch action {
	case Reject:
		if strings.TrimSpace(in.Reason) == "" {
			vs = append(vs, apierr.Violation{Path: pathReason, Rule: "is required"})
		}
		vs = appendLength(vs, pathReason, in.Reason, MaxRejectionReason)
	case ReportReturned:
		if strings.TrimSpace(in.ProviderReference) == "" {
			vs = append(vs, apierr.Violation{Path: pathProviderReference, Rule: "is required"})
		}
		vs = appendLength(vs, pathProviderReference, in.ProviderReference, MaxProviderReference)
		if in.ReturnedAt != nil && in.ReturnedAt.After(now) {
			vs = append(vs, apierr.Violation{Path: pathReturnedAt, Rule: "must not be in the future"})
		}
	}
	if in.ExpectedVersion < 0 {
		vs = append(vs, apierr.Violation{Path: "body.expected_version", Rule: "must be a positive version"})
	}
	if len(vs) > 0 {
		return apierr.Invalid(vs...)
	}
	return nil
}

func appendLength(vs []apierr.Violation, path, s string, limit int) []apierr.Violation {
	if !utf8.ValidString(s) {
		return append(vs, apierr.Violation{Path: path, Rule: "must be valid UTF-8"})
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return append(vs, apierr.Violation{Path: path, Rule: fmt.Sprintf("must be at most %d characters (it has %d)", limit, n)})
	}
	return vs
}

func validReason(r Reason) bool {
	for _, x := range Reasons {
		if x == r {
			return true
		}
	}
	return false
}

func reasonList() string {
	out := make([]string, len(Reasons))
	for i, r := range Reasons {
		out[i] = string(r)
	}
	return strings.Join(out, ", ")
}

// Ledger is a payment's refund view: its status, what was paid, promised back (every refund
// not REJECTED or CANCELLED) and returned. It is the one home of the figures every door shows
// (refundable_minor, refunded_minor): the refund rule, verify, the intent resource and the
// dashboard all compute them here.
type Ledger struct {
	PaymentID string
	Status    payment.Status
	Paid      money.Paisa
	Promised  money.Paisa
	Returned  money.Paisa
}

// Refundable is what may still be refunded: paid − promised for a COMPLETED payment, 0 for
// any other (nothing was paid, or nothing yet).
func (l Ledger) Refundable() money.Paisa {
	if l.Status != payment.Completed {
		return 0
	}
	return max(0, l.Paid-l.Promised)
}

// Refunded is what has been returned.
func (l Ledger) Refunded() money.Paisa { return l.Returned }
