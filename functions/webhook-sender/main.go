// Command webhook-sender is the Lambda function WebhookSenderFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("WebhookSenderFunction") }
