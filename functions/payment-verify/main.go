// Command payment-verify is the Lambda function PaymentVerifyFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("PaymentVerifyFunction") }
