// Command webhook-redrive is the Lambda function WebhookRedriveFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("WebhookRedriveFunction") }
