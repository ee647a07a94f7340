// Package handler is WebhookSenderFunction of template.yaml: the webhook queue's consumer.
package handler

import (
	"context"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/sqsqueue"
	"github.com/takapay/payments/shared/webhook"
)

// Function is WebhookSenderFunction.
var Function = app.Worker{LogicalID: "WebhookSenderFunction", Name: "webhook-sender",
	Build: func(d *app.Deps) any { return Consumer(d).Handle }}

// Consumer builds the SQS consumer that signs and sends webhook events.
func Consumer(d *app.Deps) *sqsqueue.Consumer {
	return &sqsqueue.Consumer{Sender: Sender(d), SQS: d.SQS, QueueURL: d.Config.WebhookQueueURL, Logger: d.Logger}
}

// Sender builds the delivery attempts' sender.
func Sender(d *app.Deps) *webhook.Sender {
	return &webhook.Sender{
		Store: d.Store,
		Secrets: func(ctx context.Context, ws string, env auth.Environment, now time.Time) ([][]byte, error) {
			all, _, err := d.Store.GetWebhookSecrets(ctx, ws, env)
			if err != nil {
				return nil, err
			}
			var out [][]byte
			for _, s := range all.ActiveSecrets(now) {
				if b, err := webhook.ParseSecret(s.Secret); err == nil {
					out = append(out, b)
				}
			}
			return out, nil
		},
		Client: webhook.NewClient(webhook.ClientOptions{AllowLocalhost: d.Config.AllowLocalhostURLs}),
		URLs:   d.URLs,
		Logger: d.Logger,
	}
}
