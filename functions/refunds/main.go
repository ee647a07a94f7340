// Command refunds is the Lambda function RefundsFunction of template.yaml. It links only its own
// handler: see the route table in package handler beside it.
package main

import (
	"github.com/takapay/payments/functions/refunds/handler"
	"github.com/takapay/payments/shared/app"
)

func main() { app.StartHTTP(handler.Function) }
