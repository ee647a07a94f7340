package takapay

import (
	"context"
	"fmt"
	"iter"
	"net/http"

	"github.com/google/uuid"
)

// DocumentKind is one of the document collections.
type DocumentKind string

const (
	Customers    DocumentKind = "customers"
	Invoices     DocumentKind = "invoices"
	PaymentLinks DocumentKind = "payment-links"
)

// Documents is one collection of the workspace's documents in the client's environment
// (…/v1/workspaces/{workspaceID}/documents/{kind}). Get one with Client.Customers,
// Client.Invoices or Client.PaymentLinks.
type Documents struct {
	c    *Client
	kind DocumentKind
}

// Customers is the workspace's customers.
func (c *Client) Customers() *Documents { return &Documents{c, Customers} }

// Invoices is the workspace's invoices (draft → issued → cancelled).
func (c *Client) Invoices() *Documents { return &Documents{c, Invoices} }

// PaymentLinks is the workspace's payment links (published, archived).
func (c *Client) PaymentLinks() *Documents { return &Documents{c, PaymentLinks} }

// workspace is the workspace the documents calls name: the option's, else the key's (asked once).
func (c *Client) workspace(ctx context.Context) (uuid.UUID, error) {
	c.mu.Lock()
	ws := c.workspaceID
	c.mu.Unlock()
	if ws == "" {
		mc, err := c.MerchantContext(ctx)
		if err != nil {
			return uuid.UUID{}, err
		}
		ws = mc.WorkspaceId
		c.mu.Lock()
		c.workspaceID = ws
		c.mu.Unlock()
	}
	return parseID("workspace id", ws)
}

type docCall struct {
	ws  uuid.UUID
	env string
	cc  *callConfig
}

func (d *Documents) prepare(ctx context.Context, opts []CallOption, idempotent bool) (*docCall, error) {
	return d.c.prepareWorkspaceCall(ctx, opts, idempotent)
}

// prepareWorkspaceCall is what a call under /v1/workspaces/{workspaceID} needs: the
// environment, the call's options and the workspace.
func (c *Client) prepareWorkspaceCall(ctx context.Context, opts []CallOption, idempotent bool) (*docCall, error) {
	if c.environment == "" {
		return nil, fmt.Errorf("takapay: no environment: set Options.Environment (the key is neither sk_sandbox_ nor sk_live_)")
	}
	cc, err := c.callConfig(opts, idempotent)
	if err != nil {
		return nil, err
	}
	ws, err := c.workspace(ctx)
	if err != nil {
		return nil, err
	}
	return &docCall{ws, c.environment, cc}, nil
}

// runDoc is call for a document operation: run, then the answer decoded into a new T.
func runDoc[T any](ctx context.Context, d *Documents, dc *docCall, req *http.Request, err error) (*T, error) {
	var out T
	if err := d.run(ctx, dc, req, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (d *Documents) run(ctx context.Context, dc *docCall, req *http.Request, err error, out any) error {
	return d.c.do(ctx, req, err, dc.cc, out)
}

// Create creates a draft document with an Idempotency-Key, the same on every retry.
func (d *Documents) Create(ctx context.Context, body DocumentBody, opts ...CallOption) (*DocumentRecord, error) {
	dc, err := d.prepare(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	var req *http.Request
	u, env, key := d.c.baseURL, dc.env, dc.cc.idempotencyKey
	switch d.kind {
	case Customers:
		req, err = NewCreatecustomersRequest(u, dc.ws, &CreatecustomersParams{Environment: CreatecustomersParamsEnvironment(env), IdempotencyKey: key}, body)
	case Invoices:
		req, err = NewCreateinvoicesRequest(u, dc.ws, &CreateinvoicesParams{Environment: CreateinvoicesParamsEnvironment(env), IdempotencyKey: key}, body)
	default:
		req, err = NewCreatepaymentlinksRequest(u, dc.ws, &CreatepaymentlinksParams{Environment: CreatepaymentlinksParamsEnvironment(env), IdempotencyKey: key}, body)
	}
	return runDoc[DocumentRecord](ctx, d, dc, req, err)
}

// Get is one document with its latest history (the only item of GetResult).
func (d *Documents) Get(ctx context.Context, documentID string, opts ...CallOption) (*DocumentRecord, error) {
	r, err := d.GetResult(ctx, documentID, "", opts...)
	if err != nil {
		return nil, err
	}
	if len(r.Items) != 1 {
		return nil, fmt.Errorf("takapay: get %s %s: %d items in the answer", d.kind, documentID, len(r.Items))
	}
	return &r.Items[0], nil
}

// GetResult is one document in the list-result shape: the document as the only item, its
// payments' webhook deliveries, and for a customer its invoices (activity). historyCursor
// ("" for none) pages the document's history.
func (d *Documents) GetResult(ctx context.Context, documentID, historyCursor string, opts ...CallOption) (*ListResult, error) {
	id, err := parseID("document id", documentID)
	if err != nil {
		return nil, err
	}
	dc, err := d.prepare(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	var hc *HistoryCursor
	if historyCursor != "" {
		hc = &historyCursor
	}
	var req *http.Request
	u, env := d.c.baseURL, dc.env
	switch d.kind {
	case Customers:
		req, err = NewGetcustomersRequest(u, dc.ws, id, &GetcustomersParams{Environment: GetcustomersParamsEnvironment(env), HistoryCursor: hc})
	case Invoices:
		req, err = NewGetinvoicesRequest(u, dc.ws, id, &GetinvoicesParams{Environment: GetinvoicesParamsEnvironment(env), HistoryCursor: hc})
	default:
		req, err = NewGetpaymentlinksRequest(u, dc.ws, id, &GetpaymentlinksParams{Environment: GetpaymentlinksParamsEnvironment(env), HistoryCursor: hc})
	}
	return runDoc[ListResult](ctx, d, dc, req, err)
}

// ListOptions pages and searches a document list; zero members are left out.
type ListOptions struct {
	Cursor string
	Q      string
	Limit  int
}

// List is a page of the collection.
func (d *Documents) List(ctx context.Context, lo ListOptions, opts ...CallOption) (*ListResult, error) {
	var cursor *Cursor
	var q *Q
	var limit *Limit
	if lo.Cursor != "" {
		c, err := parseID("cursor", lo.Cursor)
		if err != nil {
			return nil, err
		}
		cursor = &c
	}
	if lo.Q != "" {
		q = &lo.Q
	}
	if lo.Limit > 0 {
		limit = &lo.Limit
	}
	dc, err := d.prepare(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	var req *http.Request
	u, env := d.c.baseURL, dc.env
	switch d.kind {
	case Customers:
		req, err = NewListcustomersRequest(u, dc.ws, &ListcustomersParams{Environment: ListcustomersParamsEnvironment(env), Cursor: cursor, Q: q, Limit: limit})
	case Invoices:
		req, err = NewListinvoicesRequest(u, dc.ws, &ListinvoicesParams{Environment: ListinvoicesParamsEnvironment(env), Cursor: cursor, Q: q, Limit: limit})
	default:
		req, err = NewListpaymentlinksRequest(u, dc.ws, &ListpaymentlinksParams{Environment: ListpaymentlinksParamsEnvironment(env), Cursor: cursor, Q: q, Limit: limit})
	}
	return runDoc[ListResult](ctx, d, dc, req, err)
}

// All yields every record of the collection (matching lo.Q), page after page from lo.Cursor
// (or the first page) to the last, with paginate's rules: an error is yielded once, and a
// break stops the paging.
func (d *Documents) All(ctx context.Context, lo ListOptions, opts ...CallOption) iter.Seq2[*DocumentRecord, error] {
	return paginate(func(cursor *Cursor) ([]DocumentRecord, *Cursor, error) {
		if cursor != nil {
			lo.Cursor = cursor.String()
		}
		page, err := d.List(ctx, lo, opts...)
		if err != nil {
			return nil, nil, err
		}
		return page.Items, page.NextCursor, nil
	})
}

// Edit patches a document (members to change; expected_version in the patch guards against a
// concurrent edit: 409 VERSION_CONFLICT) with an Idempotency-Key, the same on every retry.
func (d *Documents) Edit(ctx context.Context, documentID string, patch DocumentPatch, opts ...CallOption) (*DocumentRecord, error) {
	id, err := parseID("document id", documentID)
	if err != nil {
		return nil, err
	}
	dc, err := d.prepare(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	var req *http.Request
	u, env, key := d.c.baseURL, dc.env, dc.cc.idempotencyKey
	switch d.kind {
	case Customers:
		req, err = NewEditcustomersRequest(u, dc.ws, id, &EditcustomersParams{Environment: EditcustomersParamsEnvironment(env), IdempotencyKey: key}, patch)
	case Invoices:
		req, err = NewEditinvoicesRequest(u, dc.ws, id, &EditinvoicesParams{Environment: EditinvoicesParamsEnvironment(env), IdempotencyKey: key}, patch)
	default:
		req, err = NewEditpaymentlinksRequest(u, dc.ws, id, &EditpaymentlinksParams{Environment: EditpaymentlinksParamsEnvironment(env), IdempotencyKey: key}, patch)
	}
	return runDoc[DocumentRecord](ctx, d, dc, req, err)
}

// Issue moves a draft invoice to issued; Cancel a draft or issued invoice to cancelled;
// Publish and Archive do the same for payment links. expectedVersion, when not nil, must be
// the document's version (else 409 VERSION_CONFLICT).
func (d *Documents) Issue(ctx context.Context, documentID string, expectedVersion *int, opts ...CallOption) (*DocumentRecord, error) {
	return d.transition(ctx, "issue", documentID, expectedVersion, opts)
}

// Cancel cancels an invoice (see Issue).
func (d *Documents) Cancel(ctx context.Context, documentID string, expectedVersion *int, opts ...CallOption) (*DocumentRecord, error) {
	return d.transition(ctx, "cancel", documentID, expectedVersion, opts)
}

// Publish publishes a payment link (see Issue).
func (d *Documents) Publish(ctx context.Context, documentID string, expectedVersion *int, opts ...CallOption) (*DocumentRecord, error) {
	return d.transition(ctx, "publish", documentID, expectedVersion, opts)
}

// Archive archives a payment link (see Issue).
func (d *Documents) Archive(ctx context.Context, documentID string, expectedVersion *int, opts ...CallOption) (*DocumentRecord, error) {
	return d.transition(ctx, "archive", documentID, expectedVersion, opts)
}

func (d *Documents) transition(ctx context.Context, action, documentID string, expectedVersion *int, opts []CallOption) (*DocumentRecord, error) {
	id, err := parseID("document id", documentID)
	if err != nil {
		return nil, err
	}
	ok := (d.kind == Invoices && (action == "issue" || action == "cancel")) || (d.kind == PaymentLinks && (action == "publish" || action == "archive"))
	if !ok {
		return nil, fmt.Errorf("takapay: %s have no %s", d.kind, action)
	}
	dc, err := d.prepare(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	body := TransitionRequest{ExpectedVersion: expectedVersion}
	var req *http.Request
	u, env := d.c.baseURL, dc.env
	switch action {
	case "issue":
		req, err = NewIssueinvoicesRequest(u, dc.ws, id, &IssueinvoicesParams{Environment: IssueinvoicesParamsEnvironment(env)}, body)
	case "cancel":
		req, err = NewCancelinvoicesRequest(u, dc.ws, id, &CancelinvoicesParams{Environment: CancelinvoicesParamsEnvironment(env)}, body)
	case "publish":
		req, err = NewPublishpaymentlinksRequest(u, dc.ws, id, &PublishpaymentlinksParams{Environment: PublishpaymentlinksParamsEnvironment(env)}, body)
	default:
		req, err = NewArchivepaymentlinksRequest(u, dc.ws, id, &ArchivepaymentlinksParams{Environment: ArchivepaymentlinksParamsEnvironment(env)}, body)
	}
	return runDoc[DocumentRecord](ctx, d, dc, req, err)
}
