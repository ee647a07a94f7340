// Package handler is WebhookSenderFunction of template.yaml: the webhook queue's consumer.
package handler

import (
	"log/slog"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/webhook"
)

// Function is WebhookSenderFunction.
var Function = app.Worker{LogicalID: "WebhookSenderFunction", Name: "webhook-sender",
	Build: func(d *app.Deps) any { return Consumer(d).Handle }}

// Consumer builds the SQS consumer that signs and sends webhook events.
func Consumer(d *app.Deps) *sqsqueue.Consumer {
	return &sqsqueue.Consumer{Sender: Sender(d), SQS: d.SQS, QueueURL: d.Config.WebhookQueueURL, Logger: d.Logger}
}

// SealerFor opens the stored webhook signing secrets: with KMS (WEBHOOK_SECRETS_KEY_ID; make
// dev's local-kms locally). A test stack without KMS runs the handlers in-process, where its
// tooling (package registry) replaces SealerFor with one that takes LOCAL_SEALING_KEY too, so
// the Lambda binary does not link the local sealer at all.
var SealerFor = func(d *app.Deps) (webhook.Sealer, error) {
	return kmsseal.NewKMS(d.AWS, d.Config.WebhookSecretsKeyID)
}

// Sender builds the delivery attempts' sender. Its signing keys come from a Keyring: the
// stored secrets are read on every attempt and opened with SealerFor, each opened key kept for
// webhook.DefaultKeyTTL in this instance.
func Sender(d *app.Deps) *webhook.Sender {
	sealer, err := SealerFor(d)
	if err != nil && d.Logger != nil {
		// Every attempt fails with this error (and is retried) until the configuration is fixed.
		d.Logger.Error("webhook secrets cannot be opened", slog.String("error", err.Error()))
	}
	return &webhook.Sender{
		Store:     d.Store,
		Refunds:   d.Store,
		Documents: d.Store,
		Secrets:   (&webhook.Keyring{Store: d.Store, Sealer: sealer, Logger: d.Logger}).Secrets,
		Client:    webhook.NewClient(webhook.ClientOptions{AllowLocalhost: d.Config.AllowLocalhostURLs}),
		URLs:      d.URLs,
		Logger:    d.Logger,
		Now:       d.Now,
	}
}
