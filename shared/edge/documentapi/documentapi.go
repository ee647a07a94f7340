// Package documentapi is the HTTP edge of the documents API (DocumentsFunction): each handler
// reads the request — the workspace in the path, the credential, the environment, the
// document id, the query, the Idempotency-Key and the JSON body — calls package document's
// typed operation, and encodes its answer. The rules (who may, what is valid, what is
// written) are package document's; the dashboard's pages call them directly.
package documentapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// API serves the documents routes with Docs' operations.
type API struct {
	Auth *auth.Authenticator
	Docs *document.Service
}

// scope authenticates a request for the workspace in its path and the environment its
// query names, and asks the rules whether the caller may read (GET) or write: 404 for a
// workspace id that is not a UUID, then 401, 422 (environment) and 403 in that order.
func (a *API) scope(ctx context.Context, r *web.Request) (document.Scope, error) {
	ws := strings.ToLower(r.PathParams["workspaceID"])
	if _, err := uuid.Parse(ws); err != nil || len(ws) != 36 {
		return document.Scope{}, apierr.New(apierr.NotFound, "no such workspace")
	}
	id, err := a.Auth.AuthenticateWorkspace(ctx, r, ws)
	if err != nil {
		return document.Scope{}, err
	}
	env, err := auth.RequiredEnvironment(r)
	if err != nil {
		return document.Scope{}, err
	}
	sc := document.Scope{WorkspaceID: ws, Environment: env, Identity: id}
	return sc, a.Docs.Authorize(sc, r.Method != http.MethodGet)
}

// scopeID is scope and the document the path's {documentID} names (404 when it is not a
// UUID).
func (a *API) scopeID(ctx context.Context, r *web.Request, kind document.Kind) (document.Scope, string, error) {
	sc, err := a.scope(ctx, r)
	if err != nil {
		return sc, "", err
	}
	id, err := document.ParseID(kind, r.PathParams["documentID"])
	return sc, id, err
}

// replayed adds Idempotent-Replayed: true to an answer that replays a request's first one.
func replayed(resp *web.Response, replay bool) *web.Response {
	if replay {
		resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	}
	return resp
}

// List serves GET .../documents/{kind}.
func (a *API) List(kind document.Kind) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, err := a.scope(ctx, r)
		if err != nil {
			return nil, err
		}
		q, err := document.ParseListQuery(r.Query, kind)
		if err != nil {
			return nil, err
		}
		res, err := a.Docs.List(ctx, sc, kind, q)
		if err != nil {
			return nil, err
		}
		return web.JSON(http.StatusOK, res), nil
	}
}

// Create serves POST .../documents/{kind}: 201 with the record.
func (a *API) Create(kind document.Kind) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, err := a.scope(ctx, r)
		if err != nil {
			return nil, err
		}
		key, err := payment.RequiredIdempotencyKey(r)
		if err != nil {
			return nil, err
		}
		body, err := a.Docs.CheckBody(r.Body)
		if err != nil {
			return nil, err
		}
		rec, replay, err := a.Docs.Create(ctx, sc, kind, document.CreateInput{IdempotencyKey: key, Body: body})
		if err != nil {
			return nil, err
		}
		return replayed(web.JSON(http.StatusCreated, rec), replay), nil
	}
}

// Get serves GET .../documents/{kind}/{documentID}.
func (a *API) Get(kind document.Kind) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, id, err := a.scopeID(ctx, r, kind)
		if err != nil {
			return nil, err
		}
		q, err := document.ParseListQuery(r.Query, document.Invoices)
		if err != nil {
			return nil, err
		}
		before, err := document.ParseHistoryCursor(r.Query)
		if err != nil {
			return nil, err
		}
		res, err := a.Docs.Get(ctx, sc, kind, document.GetInput{ID: id, Invoices: q, HistoryBefore: before})
		if err != nil {
			return nil, err
		}
		return web.JSON(http.StatusOK, res), nil
	}
}

// Edit serves PATCH .../documents/{kind}/{documentID}: a JSON merge patch of the body.
func (a *API) Edit(kind document.Kind) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, id, err := a.scopeID(ctx, r, kind)
		if err != nil {
			return nil, err
		}
		key, err := payment.RequiredIdempotencyKey(r)
		if err != nil {
			return nil, err
		}
		patch, err := document.ParsePatch(r.Body)
		if err != nil {
			return nil, err
		}
		rec, replay, err := a.Docs.Edit(ctx, sc, kind, id, document.EditInput{IdempotencyKey: key, Patch: patch})
		if err != nil {
			return nil, err
		}
		return replayed(web.JSON(http.StatusOK, rec), replay), nil
	}
}

// Transition serves POST .../documents/{kind}/{documentID}/{action} (issue, cancel, publish,
// archive; the rules answer 404 NOT_DEPLOYED for another). The body is optional:
// {"expected_version": n}.
func (a *API) Transition(kind document.Kind, action string) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, id, err := a.scopeID(ctx, r, kind)
		if err != nil {
			return nil, err
		}
		expected, err := expectedVersion(r.Body)
		if err != nil {
			return nil, err
		}
		rec, err := a.Docs.Transition(ctx, sc, kind, id, action, expected)
		if err != nil {
			return nil, err
		}
		return web.JSON(http.StatusOK, rec), nil
	}
}

// expectedVersion reads a lifecycle command's optional body, {"expected_version": n} with n
// from 1 (nil when the body is empty or has none).
func expectedVersion(body []byte) (*int64, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil, nil
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("expected_version")
	n, ok := r.Int("expected_version", false, 1, document.MaxVersion)
	if err := r.Err(); err != nil || !ok {
		return nil, err
	}
	return &n, nil
}
