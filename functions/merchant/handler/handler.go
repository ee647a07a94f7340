// Package handler is MerchantFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/merchantapi"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is MerchantFunction.
var Function = app.HTTPFunction{LogicalID: "MerchantFunction", Name: "merchant", Build: Build}

// Build wires the function's routes.
func Build(d *app.Deps) app.API {
	c := &merchantapi.Context{Auth: d.Auth}
	return app.API{Routes: web.Routes{
		"GET /v1/merchant/context": c.Handle,
	}}
}
