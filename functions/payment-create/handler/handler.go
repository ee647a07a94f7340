// Package handler is PaymentCreateFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/web"
)

// Function is PaymentCreateFunction.
var Function = app.HTTPFunction{LogicalID: "PaymentCreateFunction", Name: "payment-create", Build: Build}

// Build wires the function's routes.
func Build(d *app.Deps) app.API {
	c := &payment.Creator{Auth: d.Auth, Store: d.Store, URLs: d.URLs, Tokens: d.Config.CheckoutTokenKey}
	return app.API{Routes: web.Routes{
		"POST /v1/payment/create": web.JSONBody(c.Handle),
	}}
}
