// Package refundapi is the HTTP edge of the merchant refund API (RefundsFunction): each
// handler reads the request — the workspace in the path, the credential, the environment, the
// refund id, the query, the Idempotency-Key and the JSON body — asks refund.Allowed whether the
// caller may, calls refund.Service and encodes its answer. The rules (what is valid, the money
// rule, the transition table, the two-person rule) are package refund's; the dashboard calls
// them directly.
package refundapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// API serves the refund routes with Refunds' operations.
type API struct {
	Auth    *auth.Authenticator
	Refunds *refund.Service
}

// scope authenticates a request for the workspace in its path and the environment its query
// names, and asks refund.Allowed for op before anything of the body or query is read: 404 for
// a workspace id that is not a UUID, then 401, 400 (environment) and 403 in that order.
func (a *API) scope(ctx context.Context, r *web.Request, op refund.Op) (refund.Scope, error) {
	ws := strings.ToLower(r.PathParams["workspaceID"])
	if _, err := uuid.Parse(ws); err != nil || len(ws) != 36 {
		return refund.Scope{}, apierr.New(apierr.NotFound, "no such workspace")
	}
	id, err := a.Auth.AuthenticateWorkspace(ctx, r, ws)
	if err != nil {
		return refund.Scope{}, err
	}
	env, err := auth.RequiredEnvironment(r)
	if err != nil {
		return refund.Scope{}, err
	}
	if err := refund.Allowed(id, env, op); err != nil {
		return refund.Scope{}, err
	}
	return refund.Scope{WorkspaceID: ws, Environment: env, By: By(id)}, nil
}

// By is who an identity is in a refund's history: a key's id, a person's user id.
func By(id *auth.Identity) string {
	if id.Kind == auth.KindSession {
		return id.UserID
	}
	return id.CredentialID
}

// refundID is the path's {refundID}, lower-cased (404 when it is not a UUID).
func refundID(r *web.Request) (string, error) {
	id := strings.ToLower(r.PathParams["refundID"])
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return "", apierr.New(apierr.NotFound, "no such refund")
	}
	return id, nil
}

// List serves GET .../refunds.
func (a *API) List(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := a.scope(ctx, r, refund.OpRead)
	if err != nil {
		return nil, err
	}
	q, err := ParseListQuery(r.Query)
	if err != nil {
		return nil, err
	}
	page, err := a.Refunds.List(ctx, sc, q)
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, EncodeList(page, a.now())), nil
}

// Create serves POST .../refunds: 201 with the refund (Idempotent-Replayed: true on a replay).
func (a *API) Create(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := a.scope(ctx, r, refund.OpCreate)
	if err != nil {
		return nil, err
	}
	key, err := payment.RequiredIdempotencyKey(r)
	if err != nil {
		return nil, err
	}
	in, err := ParseCreate(r.Body)
	if err != nil {
		return nil, err
	}
	in.IdempotencyKey = key
	rf, err := a.Refunds.Create(ctx, sc, in)
	if err != nil {
		return nil, err
	}
	resp := web.JSON(http.StatusCreated, Encode(rf, a.now()))
	if rf.Replayed {
		resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	}
	return resp, nil
}

// Get serves GET .../refunds/{refundID}.
func (a *API) Get(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := a.scope(ctx, r, refund.OpRead)
	if err != nil {
		return nil, err
	}
	id, err := refundID(r)
	if err != nil {
		return nil, err
	}
	rf, err := a.Refunds.Get(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, Encode(rf, a.now())), nil
}

// Transition serves POST .../refunds/{refundID}/{action}: 200 with the refund.
func (a *API) Transition(action refund.Action) web.HandlerFunc {
	return func(ctx context.Context, r *web.Request) (*web.Response, error) {
		sc, err := a.scope(ctx, r, refund.OpOf(action))
		if err != nil {
			return nil, err
		}
		id, err := refundID(r)
		if err != nil {
			return nil, err
		}
		in, err := ParseTransition(action, r.Body)
		if err != nil {
			return nil, err
		}
		rf, err := a.Refunds.Transition(ctx, sc, id, action, in)
		if err != nil {
			return nil, err
		}
		return web.JSON(http.StatusOK, Encode(rf, a.now())), nil
	}
}
