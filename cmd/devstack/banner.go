package main

import (
	"fmt"
	"os"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/localgw"
)

func banner(base, dashboard string, s *devstack.Stack, ses *devstack.Server, c *localapi.Credentials, fresh bool, credPath, envPath string, routes []localgw.Route) {
	seeded := "kept from the last run"
	if fresh {
		seeded = "newly issued"
	}
	fmt.Printf(`
Takapay local stack is up (sandbox; no real money moves)

  API          %s   (routes from template.yaml, handlers = the Lambda handlers)
  API docs     %s/docs   (the reference, built from shared/openapi/openapi.yaml by make docs)
  Dashboard    %s/dashboard/sign-in   as %s (dashboard_password in the credentials)
  DynamoDB     %s   dynalite, table %s, data in .dev/dynalite
  SQS          %s   fauxqs, queue %s
  Email (SES)  %s   aws-ses-v2-local: sent mail in a browser there, as JSON at /store
  KMS          %s   local-kms, key %s (webhook secrets), data in .dev/kms
  Credentials  %s   (%s)
  Shell env    source %s   then e.g. go run ./cmd/paymentsctl key list --workspace %s

Routes:
`, base, base, dashboard, c.DashboardEmail, s.Dynamo.Endpoint, s.TableName("Table"), s.SQS.Endpoint, s.QueueURL("WebhookQueue"), ses.Endpoint, s.KMS.Endpoint, devstack.KMSKeyARN, credPath, seeded, envPath, c.WorkspaceID)
	for _, r := range routes {
		fmt.Printf("  %-6s %-24s -> %s\n", r.Method, r.Path, r.Function)
	}
	fmt.Printf(`
Try it:
  KEY=$(jq -r .sandbox_key .dev/credentials.json)
  curl -s %s/v1/payment/create -H "Authorization: Bearer $KEY" \
       -H 'Content-Type: application/json' -H "Idempotency-Key: order-$(date +%%s)-0001" \
       -d '{"amount": 150.50, "reference": "order-1001", "redirect_url": "http://localhost:8080/thanks"}'
  curl -s %s/v1/payment/verify -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"invoice_id": "<invoice_id>"}'
  curl -s "%s/v1/workspaces/%s/documents/customers?environment=sandbox" -H "Authorization: Bearer $KEY"
  # webhooks are signed with sandbox_webhook_secret (in the credentials); a shop that verifies
  # them, in Go, Node or PHP: docs/getting-started-go.md, -node.md, -php.md
  # dashboard session (owner): reads need the cookie; writes also need Origin: %s
  curl -s -b "takapay_session=$(jq -r .session_token .dev/credentials.json)" "%s/v1/workspaces/%s/documents/invoices?environment=sandbox"

Ctrl-C stops the API, the functions, aws-ses-v2-local, dynalite, fauxqs and local-kms. Request logs follow (JSON, one line per request).
`, base, base, base, c.WorkspaceID, base, base, c.WorkspaceID)
	_ = os.Stdout.Sync()
}
