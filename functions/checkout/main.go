// Command checkout is the Lambda function CheckoutFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("CheckoutFunction") }
