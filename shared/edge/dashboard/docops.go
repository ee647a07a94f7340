package dashboard

import (
	"context"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
)

// The invoice, payment-link and customer pages hold no rule of a document: they call the
// documents rules (Service.Documents, package document) as the signed-in person in the page's
// environment, with the page's values, and render what those answer — the same validation
// (422 naming the body's field path), the same version conflicts, the same refusals as the
// API. The helpers below read the page's values in the order the API reads its request's, so
// a page meets the same error first.

// docScope is the signed-in viewer in the page's environment: the scope the rules check
// (the identity a session cookie gives on the API's workspace routes).
func (s *Service) docScope(r *req) (document.Scope, error) {
	if s.Documents == nil || r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return document.Scope{}, apierr.New(apierr.NotFound, "this page is not served here")
	}
	return document.Scope{WorkspaceID: r.viewer.ws.WorkspaceID, Environment: r.env(), Identity: r.identity()}, nil
}

// docList reads a page of kind's documents; params are the list's query (cursor, q, limit).
func (s *Service) docList(ctx context.Context, r *req, kind document.Kind, params map[string]string) (*document.ListResult, error) {
	sc, err := s.docScope(r)
	if err != nil {
		return nil, err
	}
	if err := s.Documents.Authorize(sc, false); err != nil {
		return nil, err
	}
	q, err := document.ParseListQuery(params, kind)
	if err != nil {
		return nil, err
	}
	return s.Documents.List(ctx, sc, kind, q)
}

// docGet reads the document rawID of kind (404 when it is not one of this workspace and
// environment); params page a customer's invoices (cursor, limit).
func (s *Service) docGet(ctx context.Context, r *req, kind document.Kind, rawID string, params map[string]string) (*document.ListResult, error) {
	sc, err := s.docScope(r)
	if err != nil {
		return nil, err
	}
	if err := s.Documents.Authorize(sc, false); err != nil {
		return nil, err
	}
	id, err := document.ParseID(kind, rawID)
	if err != nil {
		return nil, err
	}
	q, err := document.ParseListQuery(params, document.Invoices)
	if err != nil {
		return nil, err
	}
	return s.Documents.Get(ctx, sc, kind, document.GetInput{ID: id, Invoices: q})
}

// docRecord is docGet's one record.
func (s *Service) docRecord(ctx context.Context, r *req, kind document.Kind, rawID string) (*document.Record, []document.Delivery, error) {
	res, err := s.docGet(ctx, r, kind, rawID, nil)
	if err != nil {
		return nil, nil, err
	}
	return res.Items[0], res.Delivery, nil
}

// docCreate creates a document of kind from body (the JSON body the form's values make)
// under the form's Idempotency-Key.
func (s *Service) docCreate(ctx context.Context, r *req, kind document.Kind, body []byte, key string) (*document.Record, error) {
	sc, err := s.docScope(r)
	if err != nil {
		return nil, err
	}
	if err := s.Documents.Authorize(sc, true); err != nil {
		return nil, err
	}
	if err := document.CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	b, err := s.Documents.CheckBody(body)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.Documents.Create(ctx, sc, kind, document.CreateInput{IdempotencyKey: key, Body: b})
	return rec, err
}

// docEdit applies patch (a merge patch of the form's values with expected_version) to the
// document rawID under the form's Idempotency-Key.
func (s *Service) docEdit(ctx context.Context, r *req, kind document.Kind, rawID string, patch []byte, key string) (*document.Record, error) {
	sc, err := s.docScope(r)
	if err != nil {
		return nil, err
	}
	if err := s.Documents.Authorize(sc, true); err != nil {
		return nil, err
	}
	id, err := document.ParseID(kind, rawID)
	if err != nil {
		return nil, err
	}
	if err := document.CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	p, err := document.ParsePatch(patch)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.Documents.Edit(ctx, sc, kind, id, document.EditInput{IdempotencyKey: key, Patch: p})
	return rec, err
}

// docTransition runs a lifecycle command on the document rawID at expected (nil: any version).
func (s *Service) docTransition(ctx context.Context, r *req, kind document.Kind, rawID, action string, expected *int64) error {
	sc, err := s.docScope(r)
	if err != nil {
		return err
	}
	if err := s.Documents.Authorize(sc, true); err != nil {
		return err
	}
	id, err := document.ParseID(kind, rawID)
	if err != nil {
		return err
	}
	_, err = s.Documents.Transition(ctx, sc, kind, id, action, expected)
	return err
}
