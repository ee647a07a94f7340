package intent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/jsonbody"
	"github.com/takapay/payments/shared/obs"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/urlcheck"
	"github.com/takapay/payments/shared/web"
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

// Service serves the payment-intent routes (one Lambda): bearer-key routes under
// /v1/payment-intents and the dashboard's under /v1/workspaces/{workspaceID}/payment-intents.
type Service struct {
	Auth   *auth.Authenticator
	Store  Store
	URLs   urlcheck.Policy
	Tokens payment.TokenKey
	// Events receives the webhook event of a cancel (nil: the re-drive still sends it).
	Events         Enqueuer
	EnqueueTimeout time.Duration
	Now            func() time.Time
	// NoPaymentURL leaves payment_url absent for every caller and Tokens unused: set where the
	// answers are only rendered, never sent to a client (the dashboard's payments pages), so
	// that function does not hold CHECKOUT_TOKEN_KEY. Without it, payment_url is still absent
	// for a caller who may not create payments (see resource).
	NoPaymentURL bool
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// request is an authenticated, authorised intents request.
type request struct {
	*web.Request
	id  *auth.Identity
	ws  string
	env auth.Environment
}

// Create serves POST /v1/payment-intents and POST /v1/workspaces/{workspaceID}/payment-intents.
func (s *Service) Create(ctx context.Context, r *web.Request) (*web.Response, error) {
	return s.operation(ctx, r, auth.PaymentsWrite, true, s.create)
}

// List serves GET /v1/payment-intents and its workspace variant.
func (s *Service) List(ctx context.Context, r *web.Request) (*web.Response, error) {
	return s.operation(ctx, r, auth.PaymentsRead, false, s.list)
}

// Get serves GET /v1/payment-intents/{intentID} and its workspace variant.
func (s *Service) Get(ctx context.Context, r *web.Request) (*web.Response, error) {
	return s.operation(ctx, r, auth.PaymentsRead, false, s.get)
}

// Cancel serves POST /v1/payment-intents/{intentID}/cancel and its workspace variant.
func (s *Service) Cancel(ctx context.Context, r *web.Request) (*web.Response, error) {
	return s.operation(ctx, r, auth.PaymentsWrite, true, s.cancel)
}

// VerifyTransaction serves POST /v1/payment-intents/{intentID}/verify-transaction.
func (s *Service) VerifyTransaction(ctx context.Context, r *web.Request) (*web.Response, error) {
	return s.operation(ctx, r, auth.PaymentsRead, true, s.verifyTransaction)
}

// operation authenticates the caller (a bearer key; on the workspace routes also a dashboard
// session, with ?environment= required, exactly like the documents routes) and authorises
// scope in the environment. Money operations (create, cancel, verify-transaction) refuse live
// with 403, as payment create and verify do: this release is sandbox-only for money. Reads
// (list, get) answer in live too; there they find nothing, and another environment's intent
// is a 404 like another workspace's.
func (s *Service) operation(ctx context.Context, r *web.Request, scope auth.Scope, money bool,
	run func(context.Context, *request) (*web.Response, error)) (*web.Response, error) {
	req := &request{Request: r}
	if raw, ok := r.PathParams["workspaceID"]; ok {
		ws := strings.ToLower(raw)
		if _, err := uuid.Parse(ws); err != nil || len(ws) != 36 {
			return nil, apierr.New(apierr.NotFound, "no such workspace")
		}
		id, err := s.Auth.AuthenticateWorkspace(ctx, r, ws)
		if err != nil {
			return nil, err
		}
		env, err := auth.RequiredEnvironment(r)
		if err != nil {
			return nil, err
		}
		req.id, req.ws, req.env = id, ws, env
	} else {
		id, err := s.Auth.Authenticate(ctx, r)
		if err != nil {
			return nil, err
		}
		req.id, req.ws, req.env = id, id.WorkspaceID, id.Environments[0]
	}
	if err := req.id.Authorize(scope, req.env); err != nil {
		return nil, err
	}
	if money {
		if err := payment.RequireSandbox(req.env); err != nil {
			return nil, err
		}
	}
	return run(ctx, req)
}

func notFound() error {
	return apierr.New(apierr.NotFound, "no payment intent with this id in this workspace and environment")
}

// intentID reads {intentID}; anything but a UUID addresses nothing (404, no read).
func (req *request) intentID() (string, error) {
	id, ok := payment.ParseInvoiceID(req.PathParams["intentID"])
	if !ok {
		return "", notFound()
	}
	return id, nil
}

// load reads an intent of the caller's workspace and environment; 404 for anyone else's.
func (s *Service) load(ctx context.Context, req *request) (*Stored, error) {
	id, err := req.intentID()
	if err != nil {
		return nil, err
	}
	obs.Annotate(ctx, slog.String("invoice_id", id))
	st, err := s.Store.GetIntent(ctx, id)
	if err != nil {
		return nil, err
	}
	if st == nil || !visible(st.Payment, req.ws, req.env) {
		return nil, notFound()
	}
	return st, nil
}

func visible(p *payment.Payment, ws string, env auth.Environment) bool {
	return p != nil && p.WorkspaceID == ws && p.Environment == env
}

// ---- create ----

// linkedFields are the members a linked create may carry.
var linkedFields = []string{"document_id", "quantity", "redirect_url", "cancel_url", "webhook_url",
	"metadata", "expires_in_minutes", "locale"}

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

// ParseCreate validates a create body: linked when it has document_id, standalone (the
// payment create rules) otherwise. Exactly one of the results is non-nil.
func ParseCreate(body []byte, urls urlcheck.Policy) (*payment.CreateRequest, *LinkedRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, nil, err
	}
	if _, linked := obj.Raw("document_id"); !linked {
		req, err := payment.ParseCreateRequest(body, urls)
		return req, nil, err
	}
	r := jsonbody.NewReader(obj)
	if _, ok := obj.Raw("amount"); ok {
		r.Fail("amount", "must not be sent with document_id: the server prices a linked intent from the document")
	}
	var unknown []string
	for _, n := range obj.Names() {
		if n != "amount" && !contains(linkedFields, n) {
			unknown = append(unknown, n)
		}
	}
	for _, n := range unknown {
		r.Fail(n, "is not a member of a linked intent request (allowed: "+strings.Join(linkedFields, ", ")+")")
	}
	var req LinkedRequest
	req.DocumentID, _ = r.String("document_id", jsonbody.StringRule{Required: true, Check: func(s string) string {
		if _, ok := payment.ParseInvoiceID(s); !ok {
			return "must be a UUID (the id of an invoice or a payment link)"
		}
		return ""
	}})
	req.DocumentID, _ = payment.ParseInvoiceID(req.DocumentID)
	if q, ok := r.Int("quantity", false, 1, document.MaxQuantity); ok {
		req.Quantity = &q
	}
	req.Options = payment.ReadOptions(r, obj, urls)
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	return nil, &req, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (s *Service) create(ctx context.Context, req *request) (*web.Response, error) {
	key, err := payment.RequiredIdempotencyKey(req.Request)
	if err != nil {
		return nil, err
	}
	standalone, linked, err := ParseCreate(req.Body, s.URLs)
	if err != nil {
		return nil, err
	}
	now := s.now()
	id := payment.InvoiceIDForKey(req.ws, req.env, key)
	obs.Annotate(ctx, slog.String("invoice_id", id))
	merchant := req.id.WorkspaceName
	if req.id.Kind == auth.KindSession {
		w, err := s.Store.GetWorkspace(ctx, req.ws)
		if err != nil {
			return nil, err
		}
		merchant = w.Name
	}
	if linked != nil {
		return s.createLinked(ctx, req, linked, id, merchant, now)
	}
	p := &payment.Payment{
		InvoiceID: id, WorkspaceID: req.ws, Environment: req.env,
		Status: payment.Pending, Currency: payment.Currency, CreatedAt: now, UpdatedAt: now,
		IdempotencyKey: key, MerchantName: merchant,
		AmountMinor: standalone.Amount, Reference: standalone.Reference, RequestHash: standalone.Hash(),
		CustomerName: standalone.CustomerName, CustomerEmail: standalone.CustomerEmail, CustomerPhone: standalone.CustomerPhone,
		RedirectURL: standalone.RedirectURL, CancelURL: standalone.CancelURL, WebhookURL: standalone.WebhookURL,
		Metadata: standalone.Metadata, ExpiresAt: now.Add(standalone.ExpiresIn), Locale: standalone.Locale,
	}
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
		return s.replay(req, prior, p)
	case err != nil:
		return nil, err
	}
	return s.answer(req, http.StatusCreated, &Stored{Payment: p})
}

// createLinked makes an intent priced from a document through the linked-intent rules
// (Linker.Place), as the API door: the id is the Idempotency-Key's (a replay answers the first
// create), and an invoice's PENDING live intent is refused with 409 naming it (RefuseLive).
func (s *Service) createLinked(ctx context.Context, req *request, l *LinkedRequest, id, merchant string, now time.Time) (*web.Response, error) {
	doc, err := s.Store.PayableDocument(ctx, req.ws, req.env, l.DocumentID)
	if err != nil {
		return nil, err
	}
	if doc != nil && (doc.WorkspaceID != req.ws || doc.Environment != req.env) {
		doc = nil
	}
	attempt := &payment.Payment{InvoiceID: id, WorkspaceID: req.ws, Environment: req.env, RequestHash: l.Hash()}
	placed, err := (&Linker{Store: s.Store, Tokens: s.Tokens}).Place(ctx, Order{
		Doc: doc, ID: id, Keyed: true, Quantity: l.Quantity, Options: l.Options,
		RequestHash: attempt.RequestHash, MerchantName: merchant, Live: RefuseLive, Now: now,
	})
	if err != nil {
		return nil, err
	}
	if placed.Replayed {
		return s.replay(req, &placed.Stored, attempt)
	}
	return s.answer(req, http.StatusCreated, &placed.Stored)
}

// replay answers a create whose Idempotency-Key already made an intent: the same 201 for the
// same request, 409 for a different one.
func (s *Service) replay(req *request, prior *Stored, attempt *payment.Payment) (*web.Response, error) {
	if !visible(prior.Payment, req.ws, req.env) {
		return nil, apierr.New(apierr.IdempotencyKeyReused, "this Idempotency-Key cannot be used; choose another")
	}
	if prior.Payment.RequestHash != attempt.RequestHash {
		return nil, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different request body; use a new key for a new payment intent")
	}
	resp, err := s.answer(req, http.StatusCreated, prior)
	if err != nil {
		return nil, err
	}
	resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	return resp, nil
}

// ---- read ----

func (s *Service) get(ctx context.Context, req *request) (*web.Response, error) {
	st, err := s.load(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.answer(req, http.StatusOK, st)
}

// ListResult is the list's body: the list-result shape of the documents.
type ListResult struct {
	Items      []*Intent `json:"items"`
	NextCursor *string   `json:"next_cursor"`
}

// statuses are the values of the list's status filter.
var statuses = []payment.Status{payment.Pending, payment.Completed, payment.Failed, payment.Cancelled, payment.Expired}

// Filters of the list besides status and document_id: created_gte and created_lt (RFC 3339
// date-times), source and reference (the intent's exact reference).
var sourceKinds = []payment.SourceKind{payment.SourceStandalone, payment.SourceInvoice, payment.SourcePaymentLinks}

// listQuery reads limit, cursor, status, document_id, created_gte, created_lt, source and
// reference (422 naming query.<name>).
func (req *request) listQuery(now time.Time) (ListQuery, error) {
	p := req.Query
	q := ListQuery{WorkspaceID: req.ws, Environment: req.env, Limit: DefaultPageSize}
	var vs []apierr.Violation
	if c, ok := p["cursor"]; ok && c != "" {
		if id, ok := payment.ParseInvoiceID(c); ok {
			q.Cursor = id
		} else {
			vs = append(vs, apierr.Violation{Path: "query.cursor", Rule: "must be the next_cursor of a previous page (a UUID)"})
		}
	}
	if l, ok := p["limit"]; ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > MaxPageSize {
			vs = append(vs, apierr.Violation{Path: "query.limit", Rule: fmt.Sprintf("must be an integer between 1 and %d", MaxPageSize)})
		} else {
			q.Limit = n
		}
	}
	var keep []func(*payment.Payment) bool
	if v, ok := p["status"]; ok {
		want := payment.Status(strings.ToUpper(v))
		if !containsStatus(want) {
			vs = append(vs, apierr.Violation{Path: "query.status", Rule: "must be one of PENDING, COMPLETED, FAILED, CANCELLED, EXPIRED"})
		} else {
			keep = append(keep, func(p *payment.Payment) bool { return p.EffectiveStatus(now) == want })
		}
	}
	for _, name := range []string{"created_gte", "created_lt"} {
		v, ok := p[name]
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil || t.Year() < 2000 || t.Year() > 9999 {
			vs = append(vs, apierr.Violation{Path: "query." + name, Rule: "must be an RFC 3339 date-time, e.g. 2026-05-01T00:00:00+06:00"})
			continue
		}
		if name == "created_gte" {
			q.CreatedFrom = t.UTC()
		} else {
			q.CreatedBefore = t.UTC()
		}
	}
	if !q.CreatedFrom.IsZero() && !q.CreatedBefore.IsZero() && !q.CreatedFrom.Before(q.CreatedBefore) {
		vs = append(vs, apierr.Violation{Path: "query.created_lt", Rule: "must be after created_gte"})
	}
	if v, ok := p["source"]; ok {
		k := payment.SourceKind(v)
		if !slices.Contains(sourceKinds, k) {
			vs = append(vs, apierr.Violation{Path: "query.source", Rule: "must be one of standalone, invoices, payment-links"})
		} else {
			q.Source = k
			if k != payment.SourceStandalone {
				keep = append(keep, func(p *payment.Payment) bool { return p.Source.Kind == k })
			}
		}
	}
	if v, ok := p["reference"]; ok {
		if v == "" || len(v) > 128 {
			vs = append(vs, apierr.Violation{Path: "query.reference", Rule: "must be 1 to 128 characters (an intent's exact reference)"})
		} else {
			keep = append(keep, func(p *payment.Payment) bool { return p.Reference == v })
		}
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
	if v, ok := p["document_id"]; ok {
		if id, ok := payment.ParseInvoiceID(v); ok {
			q.DocumentID = id
		} else {
			vs = append(vs, apierr.Violation{Path: "query.document_id", Rule: "must be a UUID (the id of an invoice or a payment link)"})
		}
	}
	if len(vs) > 0 {
		return q, apierr.Invalid(vs...)
	}
	return q, nil
}

func containsStatus(s payment.Status) bool {
	for _, v := range statuses {
		if v == s {
			return true
		}
	}
	return false
}

func (s *Service) list(ctx context.Context, req *request) (*web.Response, error) {
	q, err := req.listQuery(s.now())
	if err != nil {
		return nil, err
	}
	items, next, err := s.Store.ListIntents(ctx, q)
	if errors.Is(err, ErrBadCursor) {
		return nil, apierr.Invalid(apierr.Violation{Path: "query.cursor", Rule: "must be the next_cursor of a previous page of this list"})
	}
	if err != nil {
		return nil, err
	}
	out := ListResult{Items: make([]*Intent, 0, len(items))}
	for i := range items {
		it, err := s.resource(req, &items[i])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, it)
	}
	if next != "" {
		out.NextCursor = &next
	}
	return web.JSON(http.StatusOK, out), nil
}

// ---- cancel ----

// noBody accepts an empty body or an empty JSON object: cancel takes no parameters, and a
// member (say an amount) must not look as if it were applied.
func noBody(body []byte) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return err
	}
	r := jsonbody.NewReader(obj)
	for _, n := range obj.Names() {
		r.Fail(n, "is not accepted: cancel takes no parameters")
	}
	return r.Err()
}

func (s *Service) cancel(ctx context.Context, req *request) (*web.Response, error) {
	if err := noBody(req.Body); err != nil {
		return nil, err
	}
	st, err := s.load(ctx, req)
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
		if cid, err := hex.DecodeString(req.CorrelationID); d != nil && err == nil {
			d.CID = cid // the sender's log lines of the event carry it
		}
		q, err := s.Store.FinishPayment(ctx, p.InvoiceID, payment.Cancelled, false, d, now)
		switch {
		case err == nil:
			payment.Emit(ctx, s.Events, s.EnqueueTimeout, q.InvoiceID, d)
			return s.answer(req, http.StatusOK, &Stored{Payment: q, Snapshot: st.Snapshot})
		case errors.Is(err, payment.ErrStateChanged):
			p = q // a payer's outcome or the expiry got there first
		default:
			return nil, err
		}
	}
	switch status := p.EffectiveStatus(now); status {
	case payment.Cancelled:
		return s.answer(req, http.StatusOK, &Stored{Payment: p, Snapshot: st.Snapshot})
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

// ParseVerifyTransaction validates the optional body {"expected": {...}}: empty is allowed.
func ParseVerifyTransaction(body []byte) (*payment.Expected, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil, nil
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("expected")
	if err := r.Err(); err != nil {
		return nil, err
	}
	if _, ok := obj.Raw("expected"); !ok {
		return nil, nil
	}
	// The verify rules for expected, with a placeholder invoice_id (the path names the intent).
	raw, _ := obj.Raw("expected")
	v, err := payment.ParseVerifyRequest([]byte(`{"invoice_id":"00000000-0000-4000-8000-000000000000","expected":` + string(raw) + `}`))
	if err != nil {
		return nil, err
	}
	return v.Expected, nil
}

func (s *Service) verifyTransaction(ctx context.Context, req *request) (*web.Response, error) {
	expected, err := ParseVerifyTransaction(req.Body)
	if err != nil {
		return nil, err
	}
	st, err := s.load(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := payment.Verify(ctx, s.Store, st.Payment, expected, s.now())
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, VerifyTransactionResponse{VerifyResponse: resp,
		IntentID: st.Payment.InvoiceID, Source: st.Payment.SourceOf()}), nil
}

// ---- the resource ----

func (s *Service) answer(req *request, status int, st *Stored) (*web.Response, error) {
	it, err := s.resource(req, st)
	if err != nil {
		return nil, err
	}
	return web.JSON(status, it), nil
}

// resource renders an intent for the caller of req. Its payment_url is the payer's capability
// (lock, cancel, in the sandbox approve), so it is there only for a caller who may create
// payments (auth.Identity.MayCreatePayments: a payments:write key, a developer and up); a
// payments:read key or a viewer's session gets the intent without it. Every operation that
// answers an intent (create, get, list, cancel; the dashboard's pages run these same
// handlers) renders it here.
func (s *Service) resource(req *request, st *Stored) (*Intent, error) {
	if s.NoPaymentURL || !req.id.MayCreatePayments(req.env) {
		return Resource(st, "", s.now()), nil
	}
	token, _, err := s.Tokens.CheckoutToken(st.Payment.InvoiceID)
	if err != nil {
		return nil, err
	}
	return Resource(st, req.BaseURL+payment.CheckoutPath(token), s.now()), nil
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
		History: []HistoryEntry{{Status: payment.Pending, OccurredAt: p.CreatedAt}},
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
