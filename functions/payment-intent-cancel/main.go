// Command payment-intent-cancel is the Lambda function PaymentIntentCancelFunction of
// template.yaml. It links only its own handler: see the route table in package handler beside it.
package main

import (
	"github.com/takapay/payments/functions/payment-intent-cancel/handler"
	"github.com/takapay/payments/shared/app"
)

func main() { app.StartHTTP(handler.Function) }
