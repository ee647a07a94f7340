// Package handler is PaymentCreateFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/paymentapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// Function is PaymentCreateFunction.
var Function = app.HTTPFunction{LogicalID: "PaymentCreateFunction", Name: "payment-create", Build: Build}

// Build wires the function's routes: the edge (paymentapi) over the rule (payment.Creator).
func Build(d *app.Deps) app.API {
	c := &paymentapi.Create{Auth: d.Auth, URLs: d.URLs,
		Creator: &payment.Creator{Store: d.Store, Tokens: d.Config.CheckoutTokenKey}}
	return app.API{Routes: web.Routes{
		"POST /v1/payment/create": web.JSONBody(c.Handle),
	}}
}
