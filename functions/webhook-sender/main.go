// Command webhook-sender is the Lambda function WebhookSenderFunction of template.yaml (not behind the HTTP
// API). It links only its own handler: see package handler beside it.
package main

import (
	"github.com/takapay/payments/functions/webhook-sender/handler"
	"github.com/takapay/payments/shared/app"
)

func main() { app.StartWorker(handler.Function) }
