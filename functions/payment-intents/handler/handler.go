// Package handler is PaymentIntentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/intentapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
)

// Function is PaymentIntentsFunction.
var Function = app.HTTPFunction{LogicalID: "PaymentIntentsFunction", Name: "payment-intents", Build: Build}

// Build wires the payment-intent routes but cancel (PaymentIntentCancelFunction: the one that
// sends to the webhook queue). The bearer-key API and the dashboard's workspace variants share
// one handler per operation (package intentapi, the edge over intent.Service).
func Build(d *app.Deps) app.API {
	s := &intentapi.Handlers{Auth: d.Auth, URLs: d.URLs,
		Service: &intent.Service{Store: d.Store, Tokens: d.Config.CheckoutTokenKey, Now: d.Now}}
	return app.API{Routes: web.Routes{
		"GET /v1/payment-intents":                                     s.List,
		"POST /v1/payment-intents":                                    web.JSONBody(s.Create),
		"GET /v1/payment-intents/{intentID}":                          s.Get,
		"POST /v1/payment-intents/{intentID}/verify-transaction":      web.JSONBody(s.VerifyTransaction),
		"GET /v1/workspaces/{workspaceID}/payment-intents":            s.List,
		"POST /v1/workspaces/{workspaceID}/payment-intents":           web.JSONBody(s.Create),
		"GET /v1/workspaces/{workspaceID}/payment-intents/{intentID}": s.Get,
	}}
}
