package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/registry"
)

// What runs of the SAM CLI path on this machine (no Docker, no SAM CLI): the provisioner
// against dynalite (standing in for DynamoDB Local: the same API), the env.json it writes, and
// every filled sample event replayed through the function it names, with that function's
// environment from env.json — as `sam local invoke <LogicalId> --env-vars env.json -e <file>`
// would run it.
func TestPrepareForSAMLocal(t *testing.T) {
	stack := devstack.StartTestStack(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := Options{Root: root, OutDir: t.TempDir(), DynamoEndpoint: stack.Dynamo.Endpoint, SQSEndpoint: stack.SQS.Endpoint,
		ContainerHost: "host.docker.internal", Prefix: "sam-" + devstack.RandomPrefix(), BaseURL: "http://127.0.0.1:3000"}
	res, err := Prepare(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	// The table, exactly as template.yaml declares it (devstack checks the schema on reuse).
	desc, err := stack.DDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(res.Table)})
	if err != nil || len(desc.Table.GlobalSecondaryIndexes) != 3 {
		t.Fatalf("table %s: %v %v", res.Table, desc, err)
	}
	// env.json: every function, the container's view of the servers, one token key.
	var env map[string]map[string]string
	raw, err := os.ReadFile(res.EnvPath)
	if err != nil || json.Unmarshal(raw, &env) != nil {
		t.Fatalf("env.json: %v %s", err, raw)
	}
	if len(env) != len(registry.LogicalIDs()) {
		t.Errorf("env.json has %d functions, want %d", len(env), len(registry.LogicalIDs()))
	}
	keys := map[string]bool{}
	for id, e := range env {
		if e["TABLE_NAME"] != res.Table || !strings.HasPrefix(e["AWS_ENDPOINT_URL_DYNAMODB"], "http://host.docker.internal:") ||
			!strings.HasPrefix(e["AWS_ENDPOINT_URL_SQS"], "http://host.docker.internal:") {
			t.Errorf("%s: %v", id, e)
		}
		if k, ok := e["CHECKOUT_TOKEN_KEY"]; ok {
			keys[k] = true
		}
		if q := e["WEBHOOK_QUEUE_URL"]; q != "" && !strings.Contains(q, "host.docker.internal") {
			t.Errorf("%s: WEBHOOK_QUEUE_URL %q is not the container's view", id, q)
		}
	}
	if len(keys) != 1 {
		t.Errorf("%d different CHECKOUT_TOKEN_KEYs, want one", len(keys))
	}
	// Every filled HTTP event, through its function, with its env.json environment (the
	// endpoints as this process reaches them).
	want := map[string]int{"checkout-view.json": 200, "documents-create-invoice.json": 201, "merchant-context.json": 200,
		"payment-create.json": 201, "payment-verify.json": 200, "payment-intents-create.json": 201,
		"payment-intent-cancel.json": 200, "public-documents-view.json": 200, "probes-healthz.json": 200,
		"probes-readyz.json": 200, "probes-not-deployed.json": 404}
	replayed := 0
	for _, name := range res.Events {
		code, ok := want[name]
		if !ok {
			continue // the workers' events (SQS, schedule) are not HTTP
		}
		raw, err := os.ReadFile(filepath.Join(res.EventsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "REPLACE") || strings.Contains(string(raw), placeholderInvoice) {
			t.Errorf("%s still has a placeholder", name)
		}
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		id := functionOf(t, ev.RouteKey)
		e := env[id]
		c, err := app.ConfigFromEnv(func(k string) (string, bool) { v, ok := e[k]; return v, ok })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c.WebhookQueueURL = strings.ReplaceAll(c.WebhookQueueURL, "host.docker.internal", "127.0.0.1")
		h, err := registry.Lambda(id, app.New(c, stack.DDB, stack.Queue, slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := h(ctx, ev)
		if err != nil || resp.StatusCode != code {
			t.Errorf("%s through %s: %d %v %s, want %d", name, id, resp.StatusCode, err, resp.Body, code)
		}
		replayed++
	}
	if replayed != len(want) {
		t.Errorf("replayed %d events, want %d: %v", replayed, len(want), res.Events)
	}
	// Run again (a restart): the same credentials, nothing created twice.
	again, err := Prepare(ctx, o)
	if err != nil || again.Creds.SandboxKey != res.Creds.SandboxKey {
		t.Fatalf("second run: %v (key kept: %v)", err, again != nil && again.Creds.SandboxKey == res.Creds.SandboxKey)
	}
}

// functionOf names the template function that serves a route key.
func functionOf(t *testing.T, routeKey string) string {
	t.Helper()
	for _, f := range mustTemplate(t).Functions {
		for _, r := range f.Routes {
			if r.String() == routeKey {
				return f.LogicalID
			}
		}
	}
	if strings.HasPrefix(routeKey, "GET /healthz") || strings.HasPrefix(routeKey, "GET /readyz") || routeKey == "$default" {
		return "ProbesFunction"
	}
	t.Fatalf("no function serves %q", routeKey)
	return ""
}

func mustTemplate(t *testing.T) *samTemplate {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := loadTemplate(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}
