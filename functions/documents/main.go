// Command documents is the Lambda function DocumentsFunction of template.yaml.
package main

import "github.com/takapay/payments/shared/functions"

func main() { functions.Start("DocumentsFunction") }
