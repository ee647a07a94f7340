// Command payment-create is the Lambda function PaymentCreateFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("PaymentCreateFunction") }
