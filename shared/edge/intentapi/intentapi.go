// Package intentapi is the HTTP edge of the payment intents: the bearer-key routes under
// /v1/payment-intents and their workspace variants under
// /v1/workspaces/{workspaceID}/payment-intents. It authenticates the caller into an
// intent.Scope, parses the path, query and body into typed inputs, calls intent.Service and
// encodes the answer (payment_url made absolute with the origin the caller addressed).
package intentapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// Handlers serves the intent routes over one intent.Service.
type Handlers struct {
	Auth    *auth.Authenticator
	Service *intent.Service
	URLs    urlcheck.Policy
}

// scope authenticates the caller (a bearer key; on the workspace routes also a dashboard
// session, with ?environment= required, exactly like the documents routes) and asks
// intent.Allow for op before anything of the request's body or query is read.
func (h *Handlers) scope(ctx context.Context, r *web.Request, op intent.Op) (intent.Scope, error) {
	sc := intent.Scope{CorrelationID: r.CorrelationID}
	if raw, ok := r.PathParams["workspaceID"]; ok {
		ws := strings.ToLower(raw)
		if _, err := uuid.Parse(ws); err != nil || len(ws) != 36 {
			return sc, apierr.New(apierr.NotFound, "no such workspace")
		}
		id, err := h.Auth.AuthenticateWorkspace(ctx, r, ws)
		if err != nil {
			return sc, err
		}
		env, err := auth.RequiredEnvironment(r)
		if err != nil {
			return sc, err
		}
		sc.Identity, sc.WorkspaceID, sc.Environment = id, ws, env
	} else {
		id, err := h.Auth.Authenticate(ctx, r)
		if err != nil {
			return sc, err
		}
		sc.Identity, sc.WorkspaceID, sc.Environment = id, id.WorkspaceID, id.Environments[0]
	}
	return sc, intent.Allow(sc, op)
}

// encode answers an intent, its payment_url (a path, when the caller may hold it) made
// absolute under the origin the caller addressed.
func encode(r *web.Request, status int, it *intent.Intent) *web.Response {
	absolute(r, it)
	return web.JSON(status, it)
}

func absolute(r *web.Request, it *intent.Intent) {
	if it.PaymentURL != "" {
		it.PaymentURL = r.BaseURL + it.PaymentURL
	}
}

// Create serves POST /v1/payment-intents and POST /v1/workspaces/{workspaceID}/payment-intents.
func (h *Handlers) Create(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := h.scope(ctx, r, intent.OpCreate)
	if err != nil {
		return nil, err
	}
	key, err := payment.RequiredIdempotencyKey(r)
	if err != nil {
		return nil, err
	}
	standalone, linked, err := ParseCreate(r.Body, h.URLs)
	if err != nil {
		return nil, err
	}
	c, err := h.Service.Create(ctx, sc, intent.CreateInput{IdempotencyKey: key, Standalone: standalone, Linked: linked})
	if err != nil {
		return nil, err
	}
	resp := encode(r, http.StatusCreated, c.Intent)
	if c.Replayed {
		resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	}
	return resp, nil
}

// List serves GET /v1/payment-intents and its workspace variant.
func (h *Handlers) List(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := h.scope(ctx, r, intent.OpList)
	if err != nil {
		return nil, err
	}
	in, err := ParseList(r.Query)
	if err != nil {
		return nil, err
	}
	list, err := h.Service.List(ctx, sc, in)
	if err != nil {
		return nil, err
	}
	for _, it := range list.Items {
		absolute(r, it)
	}
	return web.JSON(http.StatusOK, *list), nil
}

// Get serves GET /v1/payment-intents/{intentID} and its workspace variant.
func (h *Handlers) Get(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := h.scope(ctx, r, intent.OpGet)
	if err != nil {
		return nil, err
	}
	it, err := h.Service.Get(ctx, sc, r.PathParams["intentID"])
	if err != nil {
		return nil, err
	}
	return encode(r, http.StatusOK, it), nil
}

// Cancel serves POST /v1/payment-intents/{intentID}/cancel and its workspace variant.
func (h *Handlers) Cancel(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := h.scope(ctx, r, intent.OpCancel)
	if err != nil {
		return nil, err
	}
	if err := noBody(r.Body); err != nil {
		return nil, err
	}
	it, err := h.Service.Cancel(ctx, sc, r.PathParams["intentID"])
	if err != nil {
		return nil, err
	}
	return encode(r, http.StatusOK, it), nil
}

// VerifyTransaction serves POST /v1/payment-intents/{intentID}/verify-transaction.
func (h *Handlers) VerifyTransaction(ctx context.Context, r *web.Request) (*web.Response, error) {
	sc, err := h.scope(ctx, r, intent.OpVerifyTransaction)
	if err != nil {
		return nil, err
	}
	expected, err := ParseVerifyTransaction(r.Body)
	if err != nil {
		return nil, err
	}
	v, err := h.Service.VerifyTransaction(ctx, sc, r.PathParams["intentID"], expected)
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, *v), nil
}
