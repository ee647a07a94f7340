// Package handler is DashboardPaymentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/refund"
)

// Function is DashboardPaymentsFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardPaymentsFunction", Name: "dashboard-payments", Build: Build}

// Build wires the payments and refund pages. They call the intent rules directly (intent.Service: list,
// get; cancel with the webhook queue, exactly as PaymentIntentCancelFunction wires it), and
// Resend runs webhook.Resend on the table and the same queue. It is its own function because
// it alone among the dashboard's holds sqs:SendMessage and the payment's state-change and
// resend UpdateItem: the other pages' functions never get them.
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.PaymentsMessages(), dashboard.RefundsMessages()) // the words of the page groups this function serves
	s := wire.Build(d, nil, nil).Service
	// NoPaymentURL: the pages never show a checkout link, so this function does not hold
	// CHECKOUT_TOKEN_KEY.
	intents := &intent.Service{Store: d.Store, NoPaymentURL: true, Now: d.Now}
	p := &dashboard.Payments{Service: s, Intents: intents, Deliveries: d.Store}
	if d.Store != nil {
		// The refund pages call the refund rules directly, on the same store as the API.
		p.Refunds = &refund.Service{Store: d.Store, Policies: d.Store, Now: d.Now, DueDays: refund.DueDays(d.Config.Lookup)}
		p.Log = activity.New(d.Store, d.Now)
	}
	if d.Config.WebhookQueueURL != "" {
		q := &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
		intents.Events, p.Queue = q, q
		if p.Refunds != nil {
			p.Refunds.Events = q
		}
	}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/payments":                      p.List,
		"GET /dashboard/payments/{paymentID}":          p.Detail,
		"POST /dashboard/payments/{paymentID}/cancel":  p.Cancel,
		"POST /dashboard/payments/{paymentID}/resend":  p.Resend,
		"POST /dashboard/payments/{paymentID}/refunds": p.CreateRefund,
		"GET /dashboard/refunds":                       p.RefundsPage,
		"POST /dashboard/refunds":                      p.SetRefundPolicy,
		"GET /dashboard/refunds/{refundID}":            p.RefundPage,
		"POST /dashboard/refunds/{refundID}/{action}":  p.RefundAction,
	}}
}
