package document

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/jsonbody"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/urlcheck"
	"github.com/takapay/payments/shared/web"
)

// Page sizes of list endpoints (query parameter limit).
const (
	DefaultPageSize = 25
	MaxPageSize     = 100
	MaxQ            = 128
)

// Service serves every released documents operation (one Lambda). Each operation is a
// handler for one route of the function's route table: List, Create, Get, Edit and Transition.
type Service struct {
	Auth  *auth.Authenticator
	Store Store
	Now   func() time.Time
	// URLs holds return_url to a payment's redirect_url rules on create and edit (the zero
	// value is production's; app.Deps.URLs allows localhost for the local stack).
	URLs urlcheck.Policy
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// request is what every operation needs after authentication.
type request struct {
	*web.Request
	id     *auth.Identity
	ws     string
	env    auth.Environment
	kind   Kind
	action string // lifecycle command, or ""
}

// List serves GET .../documents/{kind}.
func (s *Service) List(kind Kind) web.HandlerFunc { return s.operation(kind, "", s.list) }

// Create serves POST .../documents/{kind}.
func (s *Service) Create(kind Kind) web.HandlerFunc { return s.operation(kind, "", s.create) }

// Get serves GET .../documents/{kind}/{documentID}.
func (s *Service) Get(kind Kind) web.HandlerFunc { return s.operation(kind, "", s.get) }

// Edit serves PATCH .../documents/{kind}/{documentID}.
func (s *Service) Edit(kind Kind) web.HandlerFunc { return s.operation(kind, "", s.edit) }

// Transition serves POST .../documents/{kind}/{documentID}/{action} (issue, cancel, publish, archive).
func (s *Service) Transition(kind Kind, action string) web.HandlerFunc {
	return s.operation(kind, action, s.transition)
}

// operation authenticates and authorises a documents request (documents:read for GET,
// documents:write otherwise, in the environment the query names), then runs it.
func (s *Service) operation(kind Kind, action string, run func(context.Context, *request) (*web.Response, error)) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		ws := strings.ToLower(r.PathParams["workspaceID"])
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
		scope := auth.DocumentsWrite
		if r.Method == http.MethodGet {
			scope = auth.DocumentsRead
		}
		if err := id.Authorize(scope, env); err != nil {
			return nil, err
		}
		return run(ctx, &request{Request: r, id: id, ws: ws, env: env, kind: kind, action: action})
	}
}

// documentID reads {documentID}; anything but a UUID addresses nothing (404).
func (req *request) documentID() (string, error) {
	raw := req.PathParams["documentID"]
	u, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", apierr.New(apierr.NotFound, "no such %s document", singular(req.kind))
	}
	return u.String(), nil
}

func singular(k Kind) string {
	switch k {
	case Customers:
		return "customer"
	case Invoices:
		return "invoice"
	}
	return "payment-link"
}

func notFound(k Kind) error {
	return apierr.New(apierr.NotFound, "no such %s in this workspace and environment", singular(k))
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// derive fills the record fields that follow from the body: reference, search text, amount
// and the customer link, checking the kind's rules (invoice amounts, customer existence). rec
// holds the previous state on an edit.
func (s *Service) derive(ctx context.Context, req *request, rec *Record, body *Body) error {
	rec.Reference = body.Reference
	rec.SearchText = body.SearchText()
	rec.setContent(body)
	prevCustomer := rec.CustomerID
	rec.AmountMinor, rec.CustomerID = nil, nil
	var vs []apierr.Violation
	switch rec.Kind {
	case Invoices:
		if len(body.Items) > 0 {
			amount, rule := body.ComputeInvoiceAmount()
			switch {
			case rule != "":
				vs = append(vs, apierr.Violation{Path: "body.items", Rule: rule})
			case body.AmountMinor != nil && *body.AmountMinor != amount:
				vs = append(vs, apierr.Violation{Path: "body.amount_minor", Rule: fmt.Sprintf(
					"must equal the invoice total computed from items, tax, shipping, fee and discount (%d), or be omitted", amount)})
			default:
				rec.AmountMinor = &amount
			}
		} else {
			rec.AmountMinor = body.AmountMinor
		}
	case PaymentLinks:
		rec.AmountMinor = body.AmountMinor
	}
	if body.CustomerID != nil && rec.Kind != Customers {
		cid := strings.ToLower(*body.CustomerID)
		// Checked when set or changed (an edit that keeps the link costs no read).
		if prevCustomer == nil || *prevCustomer != cid {
			if _, err := s.Store.GetDocument(ctx, req.ws, req.env, Customers, cid); errors.Is(err, ErrNotFound) {
				vs = append(vs, apierr.Violation{Path: "body.customer_id", Rule: "must name a customer of this workspace and environment"})
			} else if err != nil {
				return err
			}
		}
		rec.CustomerID = &cid
	}
	if len(vs) > 0 {
		return apierr.Invalid(vs...)
	}
	return nil
}

func newPublicToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// create serves POST .../documents/{kind}.
func (s *Service) create(ctx context.Context, req *request) (*web.Response, error) {
	key, err := payment.RequiredIdempotencyKey(req.Request)
	if err != nil {
		return nil, err
	}
	if _, err := jsonbody.ParseObject(req.Body); err != nil {
		return nil, err
	}
	body, vs := ParseRequestBody(req.Body, "body", s.URLs)
	if len(vs) > 0 {
		return nil, apierr.Invalid(vs...)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	now := s.now()
	rec := &Record{
		ID: id.String(), WorkspaceID: req.ws, Environment: req.env, Kind: req.kind,
		Status: InitialStatus(req.kind), Version: 1, CreatedAt: now, UpdatedAt: now,
		Payments: []PaymentRef{},
	}
	rec.SetHistory([]HistoryEntry{{Version: 1, Status: InitialStatus(req.kind), OccurredAt: now, Action: "create"}})
	if rec.Kind != Customers {
		if rec.PublicToken, err = newPublicToken(); err != nil {
			return nil, err
		}
	}
	if err := s.derive(ctx, req, rec, body); err != nil {
		return nil, err
	}
	// The hash covers the canonical body, so formatting and member order do not matter.
	stored, replay, err := s.Store.CreateDocument(ctx, key, hashOf(rec.Body), rec)
	switch {
	case errors.Is(err, ErrIdempotencyReuse):
		return nil, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different body; use a new key for a new document")
	case err != nil:
		return nil, err
	}
	resp := web.JSON(http.StatusCreated, stored)
	if replay {
		resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	}
	return resp, nil
}

// ListResult is the spec's list result.
type ListResult struct {
	Items      []*Record      `json:"items"`
	NextCursor *string        `json:"next_cursor"`
	Delivery   []Delivery     `json:"delivery"`
	Activity   map[string]any `json:"activity"`
}

// MaxDeliveries bounds a list result's delivery: those of the page's latest payments, at most
// this many (a record carries its latest PaymentsWindow payments).
const MaxDeliveries = 100

// Delivery is a webhook delivery of a record's payment intent: id is the event id, kind the
// event type, status pending, delivered or failed.
type Delivery struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// listQuery reads cursor, q and limit (422 naming query.<name> when invalid).
func (req *request) listQuery(kind Kind) (ListQuery, error) {
	p := req.Query
	q := ListQuery{WorkspaceID: req.ws, Environment: req.env, Kind: kind, Limit: DefaultPageSize}
	var vs []apierr.Violation
	if c, ok := p["cursor"]; ok && c != "" {
		u, err := uuid.Parse(c)
		if err != nil || len(c) != 36 {
			vs = append(vs, apierr.Violation{Path: "query.cursor", Rule: "must be the next_cursor of a previous page (a UUID)"})
		} else {
			q.Cursor = u.String()
		}
	}
	if text, ok := p["q"]; ok {
		if n := len([]rune(text)); n > MaxQ {
			vs = append(vs, apierr.Violation{Path: "query.q", Rule: fmt.Sprintf("must be at most %d characters", MaxQ)})
		}
		q.Q = strings.ToLower(strings.TrimSpace(text))
	}
	if l, ok := p["limit"]; ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > MaxPageSize {
			vs = append(vs, apierr.Violation{Path: "query.limit", Rule: fmt.Sprintf("must be an integer between 1 and %d", MaxPageSize)})
		} else {
			q.Limit = n
		}
	}
	if len(vs) > 0 {
		return q, apierr.Invalid(vs...)
	}
	return q, nil
}

func result(items []*Record, next string) *ListResult {
	r := &ListResult{Items: items, Delivery: []Delivery{}, Activity: map[string]any{}}
	if r.Items == nil {
		r.Items = []*Record{}
	}
	if next != "" {
		r.NextCursor = &next
	}
	return r
}

// list serves GET .../documents/{kind}: newest first, cursor paging, q search.
func (s *Service) list(ctx context.Context, req *request) (*web.Response, error) {
	q, err := req.listQuery(req.kind)
	if err != nil {
		return nil, err
	}
	items, next, err := s.Store.ListDocuments(ctx, q)
	if err != nil {
		return nil, err
	}
	res := result(items, next)
	if res.Delivery, err = s.deliveries(ctx, items); err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, res), nil
}

// deliveries reads the webhook deliveries of the records' latest payments (at most
// MaxDeliveries of them, newest first): one read, none when there are no payments.
func (s *Service) deliveries(ctx context.Context, recs []*Record) ([]Delivery, error) {
	var refs []PaymentRef
	for _, r := range recs {
		refs = append(refs, r.Payments...)
	}
	if len(refs) == 0 {
		return []Delivery{}, nil
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].OccurredAt.After(refs[j].OccurredAt) })
	ids := make([]string, 0, min(len(refs), MaxDeliveries))
	for _, p := range refs[:min(len(refs), MaxDeliveries)] {
		ids = append(ids, p.IntentID)
	}
	ds, err := s.Store.Deliveries(ctx, ids)
	if err != nil {
		return nil, err
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].CreatedAt.After(ds[j].CreatedAt) })
	if ds == nil {
		ds = []Delivery{}
	}
	return ds, nil
}

// historyCursor reads the optional history_cursor query parameter (0 when absent).
func (req *request) historyCursor() (int64, error) {
	c, ok := req.Query["history_cursor"]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(c, 10, 64)
	if err != nil || n < 2 || n > MaxVersion || strconv.FormatInt(n, 10) != c {
		return 0, apierr.Invalid(apierr.Violation{Path: "query.history_cursor",
			Rule: "must be the history_next_cursor of a previous response (a version number)"})
	}
	return n, nil
}

// historyBefore returns the HistoryWindow entries of rec before version before (fewer at
// version 1), oldest first: the part within rec.History from the record, the rest from the
// entries stored apart (one Query).
func (s *Service) historyBefore(ctx context.Context, rec *Record, before int64) ([]HistoryEntry, error) {
	from, to := max(1, before-HistoryWindow), before-1
	first := rec.Version + 1
	if len(rec.History) > 0 {
		first = rec.History[0].Version
	}
	var out []HistoryEntry
	if from < first {
		last := min(to, first-1)
		older, err := s.Store.History(ctx, rec, from, last)
		if err != nil {
			return nil, err
		}
		if int64(len(older)) != last-from+1 {
			return nil, fmt.Errorf("document %s: %d stored history entries for versions %d..%d", rec.ID, len(older), from, last)
		}
		out = older
	}
	for _, h := range rec.History {
		if h.Version >= from && h.Version <= to {
			out = append(out, h)
		}
	}
	return out, nil
}

// get serves GET .../documents/{kind}/{id}: the list-result shape with items = [record]; for
// a customer, activity.invoices pages (cursor, q) through its linked invoices. With
// history_cursor, the record's history is the page of entries before that version.
func (s *Service) get(ctx context.Context, req *request) (*web.Response, error) {
	id, err := req.documentID()
	if err != nil {
		return nil, err
	}
	q, err := req.listQuery(Invoices)
	if err != nil {
		return nil, err
	}
	before, err := req.historyCursor()
	if err != nil {
		return nil, err
	}
	rec, err := s.Store.GetDocument(ctx, req.ws, req.env, req.kind, id)
	if errors.Is(err, ErrNotFound) {
		return nil, notFound(req.kind)
	}
	if err != nil {
		return nil, err
	}
	if before > 0 {
		if before > rec.Version {
			return nil, apierr.Invalid(apierr.Violation{Path: "query.history_cursor",
				Rule: fmt.Sprintf("must be the history_next_cursor of a previous response (at most the version, %d)", rec.Version)})
		}
		page, err := s.historyBefore(ctx, rec, before)
		if err != nil {
			return nil, err
		}
		rec.SetHistory(page)
	}
	res := result([]*Record{rec}, "")
	if res.Delivery, err = s.deliveries(ctx, res.Items); err != nil {
		return nil, err
	}
	if rec.Kind == Customers {
		invoices, next, err := s.Store.ListCustomerInvoices(ctx, rec.ID, q)
		if err != nil {
			return nil, err
		}
		if invoices == nil {
			invoices = []*Record{}
		}
		res.Activity["invoices"] = invoices
		if next != "" {
			res.NextCursor = &next
		}
	}
	return web.JSON(http.StatusOK, res), nil
}

// maxAttempts bounds how often an edit without expected_version re-reads after losing a race.
const maxAttempts = 3

// edit serves PATCH .../documents/{kind}/{id}: a JSON merge patch of the body, plus an
// optional expected_version; the merged body is validated in full and written as version+1
// with one conditional UpdateItem.
func (s *Service) edit(ctx context.Context, req *request) (*web.Response, error) {
	id, err := req.documentID()
	if err != nil {
		return nil, err
	}
	key, err := payment.RequiredIdempotencyKey(req.Request)
	if err != nil {
		return nil, err
	}
	patch, err := jsonbody.ParseObject(req.Body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(patch)
	expected, hasExpected := r.Int("expected_version", false, 0, MaxVersion)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if dup := jsonbody.FirstDuplicate(req.Body, "body"); dup != "" {
		return nil, apierr.Invalid(apierr.Violation{Path: dup, Rule: "appears more than once"})
	}
	reqHash := hashOf(jsonbody.Canonical(req.Body))
	for attempt := 1; ; attempt++ {
		cur, err := s.Store.GetDocument(ctx, req.ws, req.env, req.kind, id)
		if errors.Is(err, ErrNotFound) {
			return nil, notFound(req.kind)
		}
		if err != nil {
			return nil, err
		}
		prior, err := s.Store.FindEdit(ctx, cur, key)
		if err != nil {
			return nil, err
		}
		if prior != nil {
			if prior.RequestHash != reqHash {
				return nil, apierr.New(apierr.IdempotencyKeyReused,
					"this Idempotency-Key was already used with a different patch; use a new key for a new edit")
			}
			resp := web.JSON(http.StatusOK, cur)
			resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
			return resp, nil
		}
		if hasExpected && expected != cur.Version {
			return nil, apierr.New(apierr.VersionConflict,
				"expected_version is %d but the document is at version %d; fetch it and retry", expected, cur.Version)
		}
		if !Editable(cur.Kind, cur.Status) {
			return nil, apierr.New(apierr.StateConflict, "a %s %s cannot be edited", cur.Status, singular(cur.Kind))
		}
		merged, err := MergePatch(cur.Body, req.Body)
		if err != nil {
			return nil, apierr.New(apierr.ValidationFailed, "body: %v", err)
		}
		body, vs := ParseRequestBody(merged, "body", s.URLs)
		if len(vs) > 0 {
			return nil, apierr.Invalid(vs...)
		}
		next := *cur
		now := s.now()
		next.Version, next.UpdatedAt = cur.Version+1, now
		next.SetHistory(withEntry(cur.History, HistoryEntry{Version: next.Version, Status: cur.Status, OccurredAt: now, Action: "edit"}))
		if err := s.derive(ctx, req, &next, body); err != nil {
			return nil, err
		}
		next.LastEdit = &AppliedEdit{Key: key, RequestHash: reqHash, Version: next.Version, AppliedAt: now}
		err = s.Store.UpdateDocument(ctx, cur, &next, next.LastEdit)
		switch {
		case err == nil:
			return web.JSON(http.StatusOK, &next), nil
		case !errors.Is(err, ErrConflict):
			return nil, err
		case hasExpected || attempt == maxAttempts:
			// Re-read once to tell a replay of this very key from a lost race.
			if again, gerr := s.Store.GetDocument(ctx, req.ws, req.env, req.kind, id); gerr == nil {
				if prior, ferr := s.Store.FindEdit(ctx, again, key); ferr == nil && prior != nil {
					continue
				}
			}
			return nil, apierr.New(apierr.VersionConflict,
				"the document changed while this edit was applied (now past version %d); fetch it and retry", cur.Version)
		}
	}
}

// transition serves the lifecycle commands (issue, cancel, publish, archive). The body is
// optional: {"expected_version": n}.
func (s *Service) transition(ctx context.Context, req *request) (*web.Response, error) {
	t, ok := FindTransition(req.kind, req.action)
	if !ok {
		return nil, apierr.New(apierr.NotDeployed, "%s is not released for %s", req.action, req.kind)
	}
	id, err := req.documentID()
	if err != nil {
		return nil, err
	}
	var expected int64
	var hasExpected bool
	if len(strings.TrimSpace(string(req.Body))) > 0 {
		obj, err := jsonbody.ParseObject(req.Body)
		if err != nil {
			return nil, err
		}
		r := jsonbody.NewReader(obj)
		r.OnlyKnown("expected_version")
		expected, hasExpected = r.Int("expected_version", false, 1, MaxVersion)
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		cur, err := s.Store.GetDocument(ctx, req.ws, req.env, req.kind, id)
		if errors.Is(err, ErrNotFound) {
			return nil, notFound(req.kind)
		}
		if err != nil {
			return nil, err
		}
		if hasExpected && expected != cur.Version {
			return nil, apierr.New(apierr.VersionConflict,
				"expected_version is %d but the document is at version %d", expected, cur.Version)
		}
		allowed := false
		for _, from := range t.From {
			allowed = allowed || cur.Status == from
		}
		if !allowed {
			return nil, apierr.New(apierr.StateConflict, "cannot %s a %s %s (allowed from: %s)",
				t.Action, cur.Status, singular(cur.Kind), strings.Join(t.From, ", "))
		}
		next := *cur
		now := s.now()
		next.Status, next.Version, next.UpdatedAt = t.To, cur.Version+1, now
		next.SetHistory(withEntry(cur.History, HistoryEntry{Version: next.Version, Status: t.To, OccurredAt: now, Action: t.Action}))
		next.LastEdit = nil
		err = s.Store.UpdateDocument(ctx, cur, &next, nil)
		switch {
		case err == nil:
			return web.JSON(http.StatusOK, &next), nil
		case !errors.Is(err, ErrConflict):
			return nil, err
		case attempt == maxAttempts:
			return nil, apierr.New(apierr.VersionConflict, "the document kept changing; fetch it and retry")
		}
		// Lost a race: re-read; the winner's state decides (usually a 409 STATE_CONFLICT).
	}
}
