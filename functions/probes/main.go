// Command probes is the Lambda function ProbesFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("ProbesFunction") }
