// Package handler is PaymentIntentCancelFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/intentapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
)

// Function is PaymentIntentCancelFunction.
var Function = app.HTTPFunction{LogicalID: "PaymentIntentCancelFunction", Name: "payment-intent-cancel", Build: Build}

// Build wires cancel, the one intent operation that emits a webhook event. It is its own
// function so that only it holds sqs:SendMessage and the state-change UpdateItem, and so that
// neither binary links both the document pricing and the SQS client (size budget).
func Build(d *app.Deps) app.API {
	svc := &intent.Service{Store: d.Store, Tokens: d.Config.CheckoutTokenKey, Now: d.Now}
	if d.Config.WebhookQueueURL != "" {
		svc.Events = &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
	}
	s := &intentapi.Handlers{Auth: d.Auth, URLs: d.URLs, Service: svc}
	return app.API{Routes: web.Routes{
		"POST /v1/payment-intents/{intentID}/cancel":                          s.Cancel,
		"POST /v1/workspaces/{workspaceID}/payment-intents/{intentID}/cancel": s.Cancel,
	}}
}
