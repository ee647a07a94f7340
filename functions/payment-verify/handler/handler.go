// Package handler is PaymentVerifyFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/paymentapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// Function is PaymentVerifyFunction.
var Function = app.HTTPFunction{LogicalID: "PaymentVerifyFunction", Name: "payment-verify", Build: Build}

// Build wires the function's routes: the edge (paymentapi) over the rule (payment.Verifier).
func Build(d *app.Deps) app.API {
	v := &paymentapi.Verify{Auth: d.Auth, Verifier: &payment.Verifier{Store: d.Store}}
	return app.API{Routes: web.Routes{
		"POST /v1/payment/verify": web.JSONBody(v.Handle),
	}}
}
