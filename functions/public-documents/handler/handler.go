// Package handler is PublicDocumentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/publicdocapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/publicdoc"
	"github.com/takapay/payments/shared/ratelimit"
)

// Function is PublicDocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "PublicDocumentsFunction", Name: "public-documents", Build: Build}

// Build wires the public document page and the payer's POST (no merchant credential; the
// token is the capability). Both share one limiter per token and client address, with the
// checkout's limits; the POST also spends the document's own budget of intent creations,
// shared by every instance (DOCUMENT_PAY_RATE, DOCUMENT_PAY_BURST), after the client's own
// budget on that document (DOCUMENT_PAY_PER_CLIENT a minute). A paid invoice's page takes the
// payer's refund request too (payerrefund, with its own limits).
func Build(d *app.Deps) app.API {
	limiter := &ratelimit.CapabilityLimiter{PerToken: d.Config.CheckoutRatePerToken, PerClient: d.Config.CheckoutRatePerClient}
	s := &publicdoc.Service{Store: d.Store, Limiter: limiter, Now: d.Now}
	c := &publicdoc.Checkout{Store: d.Store, Tokens: d.Config.CheckoutTokenKey, URLs: d.URLs}
	if d.Config.DocumentPayRate > 0 {
		// One write per POST (a lease of one), so the bound holds exactly across instances.
		c.Documents = &ratelimit.Limiter{Store: d.Store, Rate: d.Config.DocumentPayRate,
			Burst: d.Config.DocumentPayBurst, Lease: 1, Now: d.Now}
	}
	if n := d.Config.DocumentPayPerClient; n > 0 {
		// Per client address and document, spent first: one more write per POST.
		c.Clients = &ratelimit.Limiter{Store: d.Store, Rate: n, Per: time.Minute, Burst: n, Lease: 1, Now: d.Now}
	}
	refunds := payerrefund.New(d.Store, d.Now)
	if d.Config.WebhookQueueURL != "" { // a payer's request sends refund.requested at once
		refunds.Refunds.Events = &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
	}
	a := &publicdocapi.API{Docs: s, Checkout: c, AllowLocalhostFormAction: d.Config.AllowLocalhostURLs,
		Refunds: refunds}
	return app.API{ErrorPage: a.ErrorPage, Routes: web.Routes{
		"GET /v1/public/documents/{token}":  a.View,
		"POST /v1/public/documents/{token}": a.Pay,
	}}
}
