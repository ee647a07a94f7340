// Package merchantapi is the HTTP edge of the merchant context: GET /v1/merchant/context
// authenticates the bearer key and encodes merchant.Describe of it.
package merchantapi

import (
	"context"
	"net/http"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/merchant"
)

// Context serves GET /v1/merchant/context.
type Context struct {
	Auth *auth.Authenticator
}

// Handle describes the bearer key of the request: any valid key, whatever its scopes or
// environment; 401 without one.
func (h *Context) Handle(ctx context.Context, r *web.Request) (*web.Response, error) {
	id, err := h.Auth.Authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, merchant.Describe(id)), nil
}
