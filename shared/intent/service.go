package intent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/payment"
)

// Stored is an intent as the store holds it: the payment record (one id space: every hosted
// payment is an intent) and, for a linked intent, the snapshot of its document.
type Stored struct {
	Payment  *payment.Payment
	Snapshot *Snapshot
	// SnapshotMissing is true when the payment names a snapshot that is not stored: a create
	// that stopped between its two writes. A retry of that create writes it (see Service).
	SnapshotMissing bool
}

// ListQuery selects a page of a workspace's intents in one environment, newest first.
type ListQuery struct {
	WorkspaceID string
	Environment auth.Environment
	// Limit is the page size (1..MaxPageSize).
	Limit int
	// Cursor is the id of the last intent of the previous page ("" for the first page).
	Cursor string
	// DocumentID keeps only intents priced from this document ("" for all).
	DocumentID string
	// CreatedFrom and CreatedBefore bound created_at (CreatedFrom <= created_at <
	// CreatedBefore; zero: unbounded). The store makes them the index query's key condition,
	// so a range costs what its intents cost, never a scan of the rest.
	CreatedFrom, CreatedBefore time.Time
	// Source keeps only intents of this source kind ("" for all). Standalone is decided in the
	// index (a linked intent's index entry carries its document_id); invoices and
	// payment-links by Keep too.
	Source payment.SourceKind
	// Keep, when set, keeps only the intents it accepts (the status filter, which needs the
	// effective status and so the whole record).
	Keep func(*payment.Payment) bool
}

// ErrSnapshotWrite wraps the error of a create whose payment was written but whose snapshot
// was not: the intent exists (a retry of the same request writes the snapshot).
var ErrSnapshotWrite = errors.New("intent: the snapshot was not written")

// ErrBadCursor is returned by ListIntents when the cursor names no intent of the list.
var ErrBadCursor = errors.New("intent: cursor is not an intent of this list")

// Store persists intents. Every write is one single-item conditional write of the payment.
type Store interface {
	// LinkedStore: CreateIntent, PutSnapshot, GetIntent (one strongly consistent read of an
	// intent and its snapshot; nil when there is none) and the linked-intent reservations.
	LinkedStore
	// ListIntents returns a page and the cursor of the next one ("" when none); ErrBadCursor
	// for a cursor that is not an intent of the list.
	ListIntents(ctx context.Context, q ListQuery) ([]Stored, string, error)
	// PayableDocument reads the invoice or payment link with this id in the workspace and
	// environment (one strongly consistent read); nil when there is none.
	PayableDocument(ctx context.Context, ws string, env auth.Environment, id string) (*document.Record, error)
	// FinishPayment and MarkFirstVerified are the payment's (see package dynamo).
	FinishPayment(ctx context.Context, invoiceID string, to payment.Status, requireLock bool, d *payment.Delivery, now time.Time) (*payment.Payment, error)
	MarkFirstVerified(ctx context.Context, invoiceID string, at time.Time) (time.Time, bool, error)
	// GetWorkspace reads the workspace (its name is shown to payers; a key carries it, a
	// dashboard session does not).
	GetWorkspace(ctx context.Context, id string) (*auth.Workspace, error)
}

// Enqueuer hands a recorded webhook event to the delivery queue.
type Enqueuer = payment.Enqueuer

// Page sizes of the list (query parameter limit).
const (
	DefaultPageSize = 25
	MaxPageSize     = 100
)

// DefaultEnqueueTimeout bounds the enqueue after a cancel: the merchant's answer never waits
// on the queue (the event is in the outbox; the re-drive sends it if the enqueue fails).
const DefaultEnqueueTimeout = payment.DefaultEnqueueTimeout

// Service is the payment intent's operations: create, get, list, cancel and
// verify-transaction, on typed values. Every operation takes the caller's Scope and checks
// the permission it needs itself (Allow); the HTTP edge (package intentapi) parses requests
// and encodes the answers, and the dashboard calls the same operations directly.
type Service struct {
	Store  Store
	Tokens payment.TokenKey
	// Events receives the webhook event of a cancel (nil: the re-drive still sends it).
	Events         Enqueuer
	EnqueueTimeout time.Duration
	Now            func() time.Time
	// NoPaymentURL leaves payment_url absent for every caller and Tokens unused for it: set
	// where the answers are only rendered, never sent to a client (the dashboard's payments
	// pages), so that function does not hold CHECKOUT_TOKEN_KEY. Without it, payment_url is
	// still absent for a caller who may not create payments (see resource).
	NoPaymentURL bool
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Scope is who calls an operation and where: the caller's workspace and environment (a key's
// own; on the workspace routes the path's workspace and ?environment=), and the caller.
type Scope struct {
	WorkspaceID string
	Environment auth.Environment
	Identity    *auth.Identity
	// CorrelationID is the 24-hex id of the request, recorded with the event a cancel causes
	// (its sender's log lines carry it); "" for none.
	CorrelationID string
}

// Op names an operation for Allow.
type Op int

// The operations.
const (
	OpCreate Op = iota
	OpList
	OpGet
	OpCancel
	OpVerifyTransaction
)

// opRules is what each operation needs: its scope, and whether it moves money (then live is
// refused with 403, as payment create and verify do: this release is sandbox-only for money).
// Reads (list, get) answer in live too; there they find nothing.
var opRules = map[Op]struct {
	scope auth.Scope
	money bool
}{
	OpCreate:            {auth.PaymentsWrite, true},
	OpList:              {auth.PaymentsRead, false},
	OpGet:               {auth.PaymentsRead, false},
	OpCancel:            {auth.PaymentsWrite, true},
	OpVerifyTransaction: {auth.PaymentsRead, true},
}

// Allow is the one permission rule of the intents: the caller must hold op's scope in the
// environment, and a money operation refuses live. Every operation checks it; the HTTP edge
// also asks it before it reads a request's body, so a caller who may not act learns nothing
// of the body's rules.
func Allow(sc Scope, op Op) error {
	rule := opRules[op]
	if sc.Identity == nil {
		return apierr.New(apierr.InvalidAPIKey, "no credentials")
	}
	if err := sc.Identity.Authorize(rule.scope, sc.Environment); err != nil {
		return err
	}
	if rule.money {
		return payment.RequireSandbox(sc.Environment)
	}
	return nil
}

func notFound() error {
	return apierr.New(apierr.NotFound, "no payment intent with this id in this workspace and environment")
}

// load reads the intent id of the caller's workspace and environment; 404 for anyone else's,
// and for anything but a UUID (no read).
func (s *Service) load(ctx context.Context, sc Scope, rawID string) (*Stored, error) {
	id, ok := payment.ParseInvoiceID(rawID)
	if !ok {
		return nil, notFound()
	}
	obs.Annotate(ctx, slog.String("invoice_id", id))
	st, err := s.Store.GetIntent(ctx, id)
	if err != nil {
		return nil, err
	}
	if st == nil || !visible(st.Payment, sc.WorkspaceID, sc.Environment) {
		return nil, notFound()
	}
	return st, nil
}

func visible(p *payment.Payment, ws string, env auth.Environment) bool {
	return p != nil && p.WorkspaceID == ws && p.Environment == env
}

// ---- create ----

// LinkedRequest is a validated create of an intent priced from a document.
type LinkedRequest struct {
	DocumentID string
	Quantity   *int64
	payment.Options
}

// Hash identifies the linked request's content (as payment.CreateRequest.Hash does for a
// standalone one; the "k" member keeps the two apart).
func (l *LinkedRequest) Hash() string {
	q := int64(0)
	if l.Quantity != nil {
		q = *l.Quantity
	}
	canon, _ := json.Marshal(struct {
		K string `json:"k"`
		D string `json:"d"`
		Q int64  `json:"q"`
		R string `json:"r"`
		C string `json:"c"`
		W string `json:"w"`
		M string `json:"m"`
		X int64  `json:"x"`
		L string `json:"l,omitempty"` // omitted for "auto": hashes of requests without it are unchanged
	}{"linked", l.DocumentID, q, l.RedirectURL, l.CancelURL, l.WebhookURL, l.Metadata, int64(l.ExpiresIn), l.Locale})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// CreateInput is a validated create: exactly one of Standalone (a client amount, the payment
// create rules) and Linked (priced from a document), and the required Idempotency-Key.
type CreateInput struct {
	IdempotencyKey string
	Standalone     *payment.CreateRequest
	Linked         *LinkedRequest
}

// Created is a create's outcome: the intent, and whether it replays an earlier create with the
// same Idempotency-Key (the same request; a different one is a 409).
type Created struct {
	Intent   *Intent
	Replayed bool
}

// Create makes an intent (or replays the one its Idempotency-Key made): the id is the key's.
func (s *Service) Create(ctx context.Context, sc Scope, in CreateInput) (*Created, error) {
	if err := Allow(sc, OpCreate); err != nil {
		return nil, err
	}
	now := s.now()
	id := payment.InvoiceIDForKey(sc.WorkspaceID, sc.Environment, in.IdempotencyKey)
	obs.Annotate(ctx, slog.String("invoice_id", id))
	merchant := sc.Identity.WorkspaceName
	if sc.Identity.Kind == auth.KindSession {
		w, err := s.Store.GetWorkspace(ctx, sc.WorkspaceID)
		if err != nil {
			return nil, err
		}
		merchant = w.Name
	}
	if in.Linked != nil {
		return s.createLinked(ctx, sc, in.Linked, id, merchant, now)
	}
	return s.createStandalone(ctx, sc, in, id, merchant, now)
}

func (s *Service) createStandalone(ctx context.Context, sc Scope, in CreateInput, id, merchant string, now time.Time) (*Created, error) {
	standalone := in.Standalone
	p := &payment.Payment{
		InvoiceID: id, WorkspaceID: sc.WorkspaceID, Environment: sc.Environment,
		Status: payment.Pending, Currency: payment.Currency, CreatedAt: now, UpdatedAt: now,
		IdempotencyKey: in.IdempotencyKey, MerchantName: merchant,
		AmountMinor: standalone.Amount, Reference: standalone.Reference, RequestHash: standalone.Hash(),
		CustomerName: standalone.CustomerName, CustomerEmail: standalone.CustomerEmail, CustomerPhone: standalone.CustomerPhone,
		RedirectURL: standalone.RedirectURL, CancelURL: standalone.CancelURL, WebhookURL: standalone.WebhookURL,
		Metadata: standalone.Metadata, ExpiresAt: now.Add(standalone.ExpiresIn), Locale: standalone.Locale,
	}
	var err error
	if p.Reference == "" {
		if p.Reference, err = payment.NewReference(); err != nil {
			return nil, err
		}
	}
	if _, p.CheckoutHash, err = s.Tokens.CheckoutToken(p.InvoiceID); err != nil {
		return nil, err
	}
	existing, err := s.Store.CreateIntent(ctx, p, nil)
	switch {
	case errors.Is(err, payment.ErrExists):
		prior, err := s.Store.GetIntent(ctx, existing.InvoiceID)
		if err != nil {
			return nil, err
		}
		if prior == nil {
			return nil, fmt.Errorf("intent %s vanished after a conditional failure", existing.InvoiceID)
		}
		return s.replay(sc, prior, p)
	case err != nil:
		return nil, err
	}
	return s.created(sc, &Stored{Payment: p}, false)
}

// createLinked makes an intent priced from a document through the linked-intent rules
// (Linker.Place), as the API door: the id is the Idempotency-Key's (a replay answers the first
// create), and an invoice's PENDING live intent is refused with 409 naming it (RefuseLive).
func (s *Service) createLinked(ctx context.Context, sc Scope, l *LinkedRequest, id, merchant string, now time.Time) (*Created, error) {
	doc, err := s.Store.PayableDocument(ctx, sc.WorkspaceID, sc.Environment, l.DocumentID)
	if err != nil {
		return nil, err
	}
	if doc != nil && (doc.WorkspaceID != sc.WorkspaceID || doc.Environment != sc.Environment) {
		doc = nil
	}
	attempt := &payment.Payment{InvoiceID: id, WorkspaceID: sc.WorkspaceID, Environment: sc.Environment, RequestHash: l.Hash()}
	placed, err := (&Linker{Store: s.Store, Tokens: s.Tokens}).Place(ctx, Order{
		Doc: doc, ID: id, Keyed: true, Quantity: l.Quantity, Options: l.Options,
		RequestHash: attempt.RequestHash, MerchantName: merchant, Live: RefuseLive, Now: now,
	})
	if err != nil {
		return nil, err
	}
	if placed.Replayed {
		return s.replay(sc, &placed.Stored, attempt)
	}
	return s.created(sc, &placed.Stored, false)
}

// replay answers a create whose Idempotency-Key already made an intent: the same intent for
// the same request, 409 for a different one.
func (s *Service) replay(sc Scope, prior *Stored, attempt *payment.Payment) (*Created, error) {
	if !visible(prior.Payment, sc.WorkspaceID, sc.Environment) {
		return nil, apierr.New(apierr.IdempotencyKeyReused, "this Idempotency-Key cannot be used; choose another")
	}
	if prior.Payment.RequestHash != attempt.RequestHash {
		return nil, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different request body; use a new key for a new payment intent")
	}
	return s.created(sc, prior, true)
}

func (s *Service) created(sc Scope, st *Stored, replayed bool) (*Created, error) {
	it, err := s.resource(sc, st)
	if err != nil {
		return nil, err
	}
	return &Created{Intent: it, Replayed: replayed}, nil
}

// ---- read ----

// Get reads the intent id of the caller's workspace and environment (404 for anyone else's).
func (s *Service) Get(ctx context.Context, sc Scope, id string) (*Intent, error) {
	if err := Allow(sc, OpGet); err != nil {
		return nil, err
	}
	st, err := s.load(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return s.resource(sc, st)
}

// ListResult is the list's body: the list-result shape of the documents.
type ListResult struct {
	Items      []*Intent `json:"items"`
	NextCursor *string   `json:"next_cursor"`
}

// ListInput selects a page of the caller's intents, newest first: Limit (1..MaxPageSize;
// 0 for DefaultPageSize), the previous page's Cursor, and the filters (zero values: none).
// Status is compared with the effective status (an overdue PENDING intent is EXPIRED);
// CreatedFrom <= created_at < CreatedBefore; Reference is exact.
type ListInput struct {
	Limit                      int
	Cursor                     string
	Status                     payment.Status
	DocumentID                 string
	CreatedFrom, CreatedBefore time.Time
	Source                     payment.SourceKind
	Reference                  string
}

// query is the store's query of in as of now: the filters the index cannot decide become Keep.
func (in ListInput) query(sc Scope, now time.Time) ListQuery {
	q := ListQuery{WorkspaceID: sc.WorkspaceID, Environment: sc.Environment, Limit: in.Limit, Cursor: in.Cursor,
		DocumentID: in.DocumentID, CreatedFrom: in.CreatedFrom, CreatedBefore: in.CreatedBefore, Source: in.Source}
	if q.Limit == 0 {
		q.Limit = DefaultPageSize
	}
	var keep []func(*payment.Payment) bool
	if want := in.Status; want != "" {
		keep = append(keep, func(p *payment.Payment) bool { return p.EffectiveStatus(now) == want })
	}
	if k := in.Source; k != "" && k != payment.SourceStandalone {
		keep = append(keep, func(p *payment.Payment) bool { return p.Source.Kind == k })
	}
	if v := in.Reference; v != "" {
		keep = append(keep, func(p *payment.Payment) bool { return p.Reference == v })
	}
	if len(keep) > 0 {
		q.Keep = func(p *payment.Payment) bool {
			for _, k := range keep {
				if !k(p) {
					return false
				}
			}
			return true
		}
	}
	return q
}

// List answers a page of the caller's intents; a cursor that is not an intent of this list is
// a 422 naming query.cursor.
func (s *Service) List(ctx context.Context, sc Scope, in ListInput) (*ListResult, error) {
	if err := Allow(sc, OpList); err != nil {
		return nil, err
	}
	items, next, err := s.Store.ListIntents(ctx, in.query(sc, s.now()))
	if errors.Is(err, ErrBadCursor) {
		return nil, apierr.Invalid(apierr.Violation{Path: "query.cursor", Rule: "must be the next_cursor of a previous page of this list"})
	}
	if err != nil {
		return nil, err
	}
	out := ListResult{Items: make([]*Intent, 0, len(items))}
	for i := range items {
		it, err := s.resource(sc, &items[i])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, it)
	}
	if next != "" {
		out.NextCursor = &next
	}
	return &out, nil
}

// ---- cancel ----

// Cancel cancels a PENDING intent (with its event); cancelling a cancelled one answers it
// again, and any other status is a 409.
func (s *Service) Cancel(ctx context.Context, sc Scope, id string) (*Intent, error) {
	if err := Allow(sc, OpCancel); err != nil {
		return nil, err
	}
	st, err := s.load(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	p := st.Payment
	now := s.now()
	if p.EffectiveStatus(now) == payment.Pending {
		d, err := p.NewDelivery(payment.Cancelled, now)
		if err != nil {
			return nil, err
		}
		if cid, err := hex.DecodeString(sc.CorrelationID); d != nil && err == nil {
			d.CID = cid // the sender's log lines of the event carry it
		}
		q, err := s.Store.FinishPayment(ctx, p.InvoiceID, payment.Cancelled, false, d, now)
		switch {
		case err == nil:
			payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
			return s.resource(sc, &Stored{Payment: q, Snapshot: st.Snapshot})
		case errors.Is(err, payment.ErrStateChanged):
			p = q // a payer's outcome or the expiry got there first
		default:
			return nil, err
		}
	}
	switch status := p.EffectiveStatus(now); status {
	case payment.Cancelled:
		return s.resource(sc, &Stored{Payment: p, Snapshot: st.Snapshot})
	default:
		return nil, apierr.New(apierr.StateConflict, "this payment intent is already %s; it cannot be cancelled",
			strings.ToLower(string(status)))
	}
}

// ---- verify-transaction ----

// VerifyTransactionResponse is exactly payment verify's answer plus the intent's id and source.
type VerifyTransactionResponse struct {
	payment.VerifyResponse
	IntentID string `json:"intent_id"`
	Source   Source `json:"source"`
}

// VerifyTransaction answers payment verify's report of the intent id (payment.Verify: the two
// cannot disagree), compared with expected when the merchant sent it.
func (s *Service) VerifyTransaction(ctx context.Context, sc Scope, id string, expected *payment.Expected) (*VerifyTransactionResponse, error) {
	if err := Allow(sc, OpVerifyTransaction); err != nil {
		return nil, err
	}
	st, err := s.load(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	resp, err := payment.Verify(ctx, s.Store, st.Payment, expected, s.now())
	if err != nil {
		return nil, err
	}
	return &VerifyTransactionResponse{VerifyResponse: resp, IntentID: st.Payment.InvoiceID, Source: st.Payment.SourceOf()}, nil
}

// ---- the resource ----

// resource renders an intent for the caller. Its payment_url is the payer's capability (lock,
// cancel, in the sandbox approve), so it is there only for a caller who may create payments
// (auth.Identity.MayCreatePayments: a payments:write key, a developer and up); a
// payments:read key or a viewer's session gets the intent without it. Here it is the hosted
// page's path (payment.CheckoutPath); the HTTP edge makes it absolute with the origin the
// caller addressed. Every operation that answers an intent renders it here.
func (s *Service) resource(sc Scope, st *Stored) (*Intent, error) {
	if s.NoPaymentURL || !sc.Identity.MayCreatePayments(sc.Environment) {
		return Resource(st, "", s.now()), nil
	}
	token, _, err := s.Tokens.CheckoutToken(st.Payment.InvoiceID)
	if err != nil {
		return nil, err
	}
	return Resource(st, payment.CheckoutPath(token), s.now()), nil
}

// Resource is the intent resource of a stored intent as of now (an unexpired PENDING intent
// past its expiry shows EXPIRED, as verify does). paymentURL is "" (the member is absent)
// unless the caller may create payments: Service.resource decides.
func Resource(st *Stored, paymentURL string, now time.Time) *Intent {
	p := st.Payment
	status := p.EffectiveStatus(now)
	it := &Intent{
		ID: p.InvoiceID, Object: Object, WorkspaceID: p.WorkspaceID, Environment: p.Environment,
		Status: status, AmountMinor: p.AmountMinor, Currency: p.Currency, Reference: p.Reference,
		Source: p.SourceOf(), Snapshot: st.Snapshot, PaymentURL: paymentURL, ExpiresAt: p.ExpiresAt,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Locale: "auto",
		History:       []HistoryEntry{{Status: payment.Pending, OccurredAt: p.CreatedAt}},
		RefundedMinor: p.Refunded, RefundableMinor: p.Refundable,
	}
	if p.Locale != "" {
		it.Locale = p.Locale
	}
	switch {
	case status != payment.Pending && p.FinishedAt != nil:
		it.History = append(it.History, HistoryEntry{Status: status, OccurredAt: *p.FinishedAt})
	case status == payment.Expired:
		it.History = append(it.History, HistoryEntry{Status: status, OccurredAt: p.Expiry()})
	}
	if p.LockBy != nil && p.LockRoute == "" && p.Status == payment.Pending {
		by := *p.LockBy
		it.StartBy = &by
	}
	if p.Metadata != "" {
		it.Metadata = json.RawMessage(p.Metadata)
	}
	if p.LockRoute != "" && p.LockedAt != nil {
		it.Lock = &Lock{Route: p.LockRoute, PayerMasked: payment.MaskPayer(p.LockPayer), At: *p.LockedAt}
	}
	it.FirstVerifiedAt = p.FirstVerifiedAt
	if p.Outbox != nil && p.WebhookURL != "" {
		d := *p.Outbox
		it.Delivery = &d
	}
	return it
}
