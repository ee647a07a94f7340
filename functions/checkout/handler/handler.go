// Package handler is CheckoutFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/edge/checkoutapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
)

// Function is CheckoutFunction.
var Function = app.HTTPFunction{LogicalID: "CheckoutFunction", Name: "checkout", Build: Build}

// Build wires the hosted checkout page and its public, token-addressed endpoints: the edge
// (checkoutapi) over the rules (checkout.Service), and the payer's refund request
// (payerrefund.Door over refund.Service, with its limits shared by every instance).
func Build(d *app.Deps) app.API {
	s := &checkout.Service{Store: d.Store, Now: d.Now,
		Limiter: &checkout.Limiter{PerToken: d.Config.CheckoutRatePerToken, PerClient: d.Config.CheckoutRatePerClient}}
	refunds := payerrefund.New(d.Store, d.Now)
	if d.Config.WebhookQueueURL != "" {
		q := &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
		s.Events, refunds.Refunds.Events = q, q
	}
	h := &checkoutapi.Handlers{Service: s, AllowLocalhostRedirects: d.Config.AllowLocalhostURLs, Refunds: refunds}
	return app.API{ErrorPage: h.ErrorPage, Routes: web.Routes{
		"GET /v1/public/checkout/{token}":                         h.View,
		"POST /v1/public/checkout/{token}/lock":                   h.Lock,
		"POST /v1/public/checkout/{token}/notices/{noticeAction}": h.Notice,
		"POST /v1/public/checkout/{token}/refunds":                h.Refund,
	}}
}
