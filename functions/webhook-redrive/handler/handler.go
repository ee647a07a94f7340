// Package handler is WebhookRedriveFunction of template.yaml: the scheduled re-drive.
package handler

import (
	"context"
	"os"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/refund"
	"github.com/takapay/payments/shared/webhook"
)

// Function is WebhookRedriveFunction. In Lambda every run also writes the
// OldestPendingWebhookAgeSeconds metric to stdout as an Embedded Metric Format line (template.yaml
// alarms on it); the local stack and the tests build the job with Redrive and print nothing.
var Function = app.Worker{LogicalID: "WebhookRedriveFunction", Name: "webhook-redrive",
	Build: func(d *app.Deps) any {
		r := Redrive(d)
		r.Metrics = os.Stdout
		return func(ctx context.Context) error { _, err := r.Run(ctx); return err }
	}}

// Redrive builds the job that expires overdue payments, re-enqueues events still pending
// (payments' and refunds'), and runs the refunds' crash-repair pass (decision 100) every run.
func Redrive(d *app.Deps) *webhook.Redrive {
	q := &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
	repair := &refund.Service{Store: d.Store, Now: d.Now, Events: q}
	return &webhook.Redrive{Store: d.Store, Queue: q, Documents: d.Store, Now: d.Now, Refunds: d.Store, Repair: repair.Repair}
}
