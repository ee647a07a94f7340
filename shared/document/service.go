package document

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// Page sizes of list endpoints (query parameter limit).
const (
	DefaultPageSize = 25
	MaxPageSize     = 100
	MaxQ            = 128
)

// Service is the documents rules (one Lambda serves them over HTTP through package
// edge/documentapi; the dashboard's pages call them directly): typed operations on the
// records of one workspace and environment, each checking the permission it needs.
type Service struct {
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

// Scope is who asks and where: the workspace (its canonical lower-case UUID), the
// environment, and the authenticated caller.
type Scope struct {
	WorkspaceID string
	Environment auth.Environment
	Identity    *auth.Identity
}

// Authorize checks that the caller may read (write false) or change (write true) the
// scope's documents: documents:read or documents:write in its environment, else 403. Every
// operation checks it; the HTTP edge asks it first too, so a refused caller learns nothing
// about its request's content.
func (s *Service) Authorize(sc Scope, write bool) error {
	if sc.Identity == nil {
		return apierr.New(apierr.InvalidAPIKey, "no credentials")
	}
	scope := auth.DocumentsRead
	if write {
		scope = auth.DocumentsWrite
	}
	return sc.Identity.Authorize(scope, sc.Environment)
}

// ParseID reads a document id: anything but a UUID addresses nothing (404).
func ParseID(kind Kind, raw string) (string, error) {
	u, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", apierr.New(apierr.NotFound, "no such %s document", singular(kind))
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
func (s *Service) derive(ctx context.Context, rec *Record, body *Body) error {
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
			if _, err := s.Store.GetDocument(ctx, rec.WorkspaceID, rec.Environment, Customers, cid); errors.Is(err, ErrNotFound) {
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

// CheckBody validates a document body a merchant sends (JSON text, a create's body): the
// body's rules (ParseRequestBody, return_url under URLs) with violations named from "body".
func (s *Service) CheckBody(raw []byte) (*Body, error) {
	if _, err := jsonbody.ParseObject(raw); err != nil {
		return nil, err
	}
	body, vs := ParseRequestBody(raw, "body", s.URLs)
	if len(vs) > 0 {
		return nil, apierr.Invalid(vs...)
	}
	return body, nil
}

// CreateInput is a create: the Idempotency-Key it is made under, and the body (from
// CheckBody).
type CreateInput struct {
	IdempotencyKey string
	Body           *Body
}

// Create stores a new document of kind (documents:write). replayed is true when the key
// already made it (the first record is answered; a different body under the key is 409
// IDEMPOTENCY_KEY_REUSED).
func (s *Service) Create(ctx context.Context, sc Scope, kind Kind, in CreateInput) (rec *Record, replayed bool, err error) {
	if err := s.Authorize(sc, true); err != nil {
		return nil, false, err
	}
	if err := CheckIdempotencyKey(in.IdempotencyKey); err != nil {
		return nil, false, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, false, err
	}
	now := s.now()
	rec = &Record{
		ID: id.String(), WorkspaceID: sc.WorkspaceID, Environment: sc.Environment, Kind: kind,
		Status: InitialStatus(kind), Version: 1, CreatedAt: now, UpdatedAt: now,
		Payments: []PaymentRef{},
	}
	rec.SetHistory([]HistoryEntry{{Version: 1, Status: InitialStatus(kind), OccurredAt: now, Action: "create"}})
	if rec.Kind != Customers {
		if rec.PublicToken, err = newPublicToken(); err != nil {
			return nil, false, err
		}
	}
	if err := s.derive(ctx, rec, in.Body); err != nil {
		return nil, false, err
	}
	// The hash covers the canonical body, so formatting and member order do not matter.
	stored, replay, err := s.Store.CreateDocument(ctx, in.IdempotencyKey, hashOf(rec.Body), rec)
	switch {
	case errors.Is(err, ErrIdempotencyReuse):
		return nil, false, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different body; use a new key for a new document")
	case err != nil:
		return nil, false, err
	}
	return stored, replay, nil
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

// ParseListQuery reads a list's query parameters cursor, q and limit (422 naming
// query.<name> when invalid) into the query of kind's page.
func ParseListQuery(params map[string]string, kind Kind) (ListQuery, error) {
	q := ListQuery{Kind: kind, Limit: DefaultPageSize}
	var vs []apierr.Violation
	if c, ok := params["cursor"]; ok && c != "" {
		u, err := uuid.Parse(c)
		if err != nil || len(c) != 36 {
			vs = append(vs, apierr.Violation{Path: "query.cursor", Rule: "must be the next_cursor of a previous page (a UUID)"})
		} else {
			q.Cursor = u.String()
		}
	}
	if text, ok := params["q"]; ok {
		if n := len([]rune(text)); n > MaxQ {
			vs = append(vs, apierr.Violation{Path: "query.q", Rule: fmt.Sprintf("must be at most %d characters", MaxQ)})
		}
		q.Q = strings.ToLower(strings.TrimSpace(text))
	}
	if l, ok := params["limit"]; ok {
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

// List answers one page of kind's documents (documents:read): newest first, cursor paging,
// q search (q from ParseListQuery; its scope fields are set here).
func (s *Service) List(ctx context.Context, sc Scope, kind Kind, q ListQuery) (*ListResult, error) {
	if err := s.Authorize(sc, false); err != nil {
		return nil, err
	}
	q.WorkspaceID, q.Environment, q.Kind = sc.WorkspaceID, sc.Environment, kind
	items, next, err := s.Store.ListDocuments(ctx, q)
	if err != nil {
		return nil, err
	}
	res := result(items, next)
	if res.Delivery, err = s.deliveries(ctx, items); err != nil {
		return nil, err
	}
	return res, nil
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

// ParseHistoryCursor reads the optional history_cursor query parameter (0 when absent).
func ParseHistoryCursor(params map[string]string) (int64, error) {
	c, ok := params["history_cursor"]
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

// GetInput addresses one document: its id (from ParseID), for a customer the page of its
// invoices (ParseListQuery for Invoices), and HistoryBefore, a history page's cursor (0: the
// latest entries).
type GetInput struct {
	ID            string
	Invoices      ListQuery
	HistoryBefore int64
}

// Get answers one document (documents:read) in the list-result shape with items = [record];
// for a customer, activity.invoices pages through its linked invoices. With HistoryBefore,
// the record's history is the page of entries before that version.
func (s *Service) Get(ctx context.Context, sc Scope, kind Kind, in GetInput) (*ListResult, error) {
	if err := s.Authorize(sc, false); err != nil {
		return nil, err
	}
	rec, err := s.read(ctx, sc, kind, in.ID)
	if err != nil {
		return nil, err
	}
	if before := in.HistoryBefore; before > 0 {
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
		q := in.Invoices
		q.WorkspaceID, q.Environment, q.Kind = sc.WorkspaceID, sc.Environment, Invoices
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
	return res, nil
}

// read reads one document of the scope (404 naming the kind when absent).
func (s *Service) read(ctx context.Context, sc Scope, kind Kind, id string) (*Record, error) {
	rec, err := s.Store.GetDocument(ctx, sc.WorkspaceID, sc.Environment, kind, id)
	if errors.Is(err, ErrNotFound) {
		return nil, notFound(kind)
	}
	return rec, err
}

// maxAttempts bounds how often an edit without expected_version re-reads after losing a race.
const maxAttempts = 3

// Patch is an edit's request: a JSON merge patch (RFC 7396) of the body — an object without
// repeated member names — with its optional expected_version. ParsePatch makes one.
type Patch struct {
	text []byte
	hash string
	// ExpectedVersion is the version the edit applies to (nil: the current one).
	ExpectedVersion *int64
}

// ParsePatch reads a merge patch of a document body (JSON text): a JSON object (400
// otherwise), expected_version an integer 0..MaxVersion when present, and no member named
// twice (422 naming the path).
func ParsePatch(raw []byte) (Patch, error) {
	obj, err := jsonbody.ParseObject(raw)
	if err != nil {
		return Patch{}, err
	}
	r := jsonbody.NewReader(obj)
	expected, hasExpected := r.Int("expected_version", false, 0, MaxVersion)
	if err := r.Err(); err != nil {
		return Patch{}, err
	}
	if dup := jsonbody.FirstDuplicate(raw, "body"); dup != "" {
		return Patch{}, apierr.Invalid(apierr.Violation{Path: dup, Rule: "appears more than once"})
	}
	p := Patch{text: raw, hash: hashOf(jsonbody.Canonical(raw))}
	if hasExpected {
		p.ExpectedVersion = &expected
	}
	return p, nil
}

// EditInput is an edit: the Idempotency-Key it is applied under, and the patch.
type EditInput struct {
	IdempotencyKey string
	Patch          Patch
}

// Edit applies a merge patch to a document's body (documents:write): the merged body is
// validated in full and written as version+1 with one conditional write. replayed is true
// when the key was already applied (the document as it is is answered; another patch under
// the key is 409 IDEMPOTENCY_KEY_REUSED).
func (s *Service) Edit(ctx context.Context, sc Scope, kind Kind, id string, in EditInput) (rec *Record, replayed bool, err error) {
	if err := s.Authorize(sc, true); err != nil {
		return nil, false, err
	}
	if err := CheckIdempotencyKey(in.IdempotencyKey); err != nil {
		return nil, false, err
	}
	for attempt := 1; ; attempt++ {
		cur, err := s.read(ctx, sc, kind, id)
		if err != nil {
			return nil, false, err
		}
		if replayed, err := s.applied(ctx, cur, in); err != nil || replayed {
			return cur, replayed, err
		}
		next, err := s.edited(ctx, cur, in)
		if err != nil {
			return nil, false, err
		}
		err = s.Store.UpdateDocument(ctx, cur, next, next.LastEdit)
		switch {
		case err == nil:
			return next, false, nil
		case !errors.Is(err, ErrConflict):
			return nil, false, err
		case in.Patch.ExpectedVersion != nil || attempt == maxAttempts:
			// Re-read once to tell a replay of this very key from a lost race.
			if again, gerr := s.Store.GetDocument(ctx, sc.WorkspaceID, sc.Environment, kind, id); gerr == nil {
				if prior, ferr := s.Store.FindEdit(ctx, again, in.IdempotencyKey); ferr == nil && prior != nil {
					continue
				}
			}
			return nil, false, apierr.New(apierr.VersionConflict,
				"the document changed while this edit was applied (now past version %d); fetch it and retry", cur.Version)
		}
	}
}

// applied reports whether the edit's key was already applied to cur (a replay), or 409
// IDEMPOTENCY_KEY_REUSED when it was applied with another patch.
func (s *Service) applied(ctx context.Context, cur *Record, in EditInput) (bool, error) {
	prior, err := s.Store.FindEdit(ctx, cur, in.IdempotencyKey)
	if err != nil || prior == nil {
		return false, err
	}
	if prior.RequestHash != in.Patch.hash {
		return false, apierr.New(apierr.IdempotencyKeyReused,
			"this Idempotency-Key was already used with a different patch; use a new key for a new edit")
	}
	return true, nil
}

// edited is cur with the edit applied: version+1, the merged body validated in full and its
// derived fields, the applied edit. A version other than the expected one is 409
// VERSION_CONFLICT, a status that takes no edit 409 STATE_CONFLICT.
func (s *Service) edited(ctx context.Context, cur *Record, in EditInput) (*Record, error) {
	if e := in.Patch.ExpectedVersion; e != nil && *e != cur.Version {
		return nil, apierr.New(apierr.VersionConflict,
			"expected_version is %d but the document is at version %d; fetch it and retry", *e, cur.Version)
	}
	if !Editable(cur.Kind, cur.Status) {
		return nil, apierr.New(apierr.StateConflict, "a %s %s cannot be edited", cur.Status, singular(cur.Kind))
	}
	merged, err := MergePatch(cur.Body, in.Patch.text)
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
	if err := s.derive(ctx, &next, body); err != nil {
		return nil, err
	}
	next.LastEdit = &AppliedEdit{Key: in.IdempotencyKey, RequestHash: in.Patch.hash, Version: next.Version, AppliedAt: now}
	return &next, nil
}

// Transition runs a lifecycle command — issue, cancel, publish, archive — on a document
// (documents:write), at expected (nil: whatever the version). A status the command does not
// leave is 409 STATE_CONFLICT naming the allowed ones.
func (s *Service) Transition(ctx context.Context, sc Scope, kind Kind, id, action string, expected *int64) (*Record, error) {
	if err := s.Authorize(sc, true); err != nil {
		return nil, err
	}
	t, ok := FindTransition(kind, action)
	if !ok {
		return nil, apierr.New(apierr.NotDeployed, "%s is not released for %s", action, kind)
	}
	for attempt := 1; ; attempt++ {
		cur, err := s.read(ctx, sc, kind, id)
		if err != nil {
			return nil, err
		}
		next, err := transitioned(cur, t, expected, s.now())
		if err != nil {
			return nil, err
		}
		err = s.Store.UpdateDocument(ctx, cur, next, nil)
		switch {
		case err == nil:
			return next, nil
		case !errors.Is(err, ErrConflict):
			return nil, err
		case attempt == maxAttempts:
			return nil, apierr.New(apierr.VersionConflict, "the document kept changing; fetch it and retry")
		}
		// Lost a race: re-read; the winner's state decides (usually a 409 STATE_CONFLICT).
	}
}

// transitioned is cur after t at now, or why t does not apply.
func transitioned(cur *Record, t Transition, expected *int64, now time.Time) (*Record, error) {
	if expected != nil && *expected != cur.Version {
		return nil, apierr.New(apierr.VersionConflict,
			"expected_version is %d but the document is at version %d", *expected, cur.Version)
	}
	if !slices.Contains(t.From, cur.Status) {
		return nil, apierr.New(apierr.StateConflict, "cannot %s a %s %s (allowed from: %s)",
			t.Action, cur.Status, singular(cur.Kind), strings.Join(t.From, ", "))
	}
	next := *cur
	next.Status, next.Version, next.UpdatedAt = t.To, cur.Version+1, now
	next.SetHistory(withEntry(cur.History, HistoryEntry{Version: next.Version, Status: t.To, OccurredAt: now, Action: t.Action}))
	next.LastEdit = nil
	return &next, nil
}

// keyPattern is an Idempotency-Key's form (the API's header rule, package payment).
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{16,128}$`)

// CheckIdempotencyKey refuses a key not of an Idempotency-Key's form (400), as the API's
// header rule does: the dashboard's forms carry theirs in a field the browser posts.
func CheckIdempotencyKey(key string) error {
	if !keyPattern.MatchString(key) {
		return apierr.New(apierr.MalformedRequest,
			"Idempotency-Key header must be 16 to 128 characters of letters, digits, '_', '.', ':' or '-'")
	}
	return nil
}
