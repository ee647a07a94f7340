package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The placeholders the sample events under events/ ship with.
const (
	placeholderKey       = "sk_sandbox_REPLACE_WITH_A_KEY_FROM_PAYMENTSCTL"
	placeholderInvoice   = "8e604eee-43e6-8efe-b04b-43bc3130c81f"
	placeholderWorkspace = "01a20141-7453-7898-aea2-e7aa4e3181d0"
	placeholderCheckout  = "lEZVO_29Ck9a6FdH8cquLrsLEVAUHNG6fsTDRGHrSRI"
	placeholderDocument  = "Zm9yLWEtcmVhbC10b2tlbi1jcmVhdGUtYW4taW52b2l"
)

// Options say where the table is and how SAM's containers reach it.
type Options struct {
	Root, OutDir   string
	DynamoEndpoint string
	SQSEndpoint    string
	ContainerHost  string
	Prefix         string
	BaseURL        string
}

// Result is what Prepare made.
type Result struct {
	Table           string
	Creds           *localapi.Credentials
	CredentialsPath string
	EnvPath         string
	// Env is env.json: each function's environment, keyed by logical id.
	Env       map[string]map[string]string
	EventsDir string
	Events    []string
	// PaymentID, IntentID and the tokens are the objects the filled events name.
	PaymentID, IntentID, CheckoutToken, DocumentToken string
}

func repoRoot() (string, error) { return samtemplate.FindRepoRoot() }

// containerURL rewrites a loopback URL to the host a container reaches this machine by.
func containerURL(raw, host string) string {
	u, err := url.Parse(raw)
	if err != nil || host == "" {
		return raw
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		if p := u.Port(); p != "" {
			u.Host = host + ":" + p
		} else {
			u.Host = host
		}
	}
	return u.String()
}

// Prepare provisions the table (and queues with an SQS endpoint), seeds the workspace, makes
// a payment, an intent to cancel and an issued invoice through the functions' own handlers,
// and writes credentials.json, env.json and the filled events.
func Prepare(ctx context.Context, o Options) (*Result, error) {
	tpl, err := samtemplate.Load(filepath.Join(o.Root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	cfg, err := devstack.AWSConfig(ctx, o.DynamoEndpoint, o.SQSEndpoint)
	if err != nil {
		return nil, err
	}
	ddb := devstack.DynamoClient(cfg, o.DynamoEndpoint)
	var q *sqs.Client
	if o.SQSEndpoint != "" {
		q = devstack.SQSClient(cfg, o.SQSEndpoint)
	}
	res, err := devstack.Provision(ctx, ddb, q, tpl, devstack.Names{Prefix: o.Prefix})
	if err != nil {
		return nil, err
	}
	out := &Result{Table: res.Tables["Table"], Env: map[string]map[string]string{},
		CredentialsPath: filepath.Join(o.OutDir, "credentials.json"), EnvPath: filepath.Join(o.OutDir, "env.json"),
		EventsDir: filepath.Join(o.OutDir, "events")}
	store := &dynamo.Store{DB: ddb, Table: out.Table}
	prev, err := localapi.ReadCredentials(out.CredentialsPath)
	if err != nil {
		return nil, err
	}
	if out.Creds, _, err = localapi.Seed(ctx, store, prev); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	out.Creds.BaseURL = o.BaseURL
	if err := localapi.WriteCredentials(out.CredentialsPath, out.Creds); err != nil {
		return nil, err
	}

	// env.json: what each function gets, as the containers reach the servers. One token key
	// for every function that holds it, so their payment_urls agree.
	var tokenKey string
	for _, f := range tpl.Functions {
		env, err := res.FunctionEnv(f.LogicalID)
		if err != nil {
			return nil, err
		}
		if k, ok := env["CHECKOUT_TOKEN_KEY"]; ok {
			if tokenKey == "" {
				tokenKey = k
			}
			env["CHECKOUT_TOKEN_KEY"] = tokenKey
		}
		if _, ok := env["PUBLIC_BASE_URL"]; ok {
			env["PUBLIC_BASE_URL"] = o.BaseURL
		}
		if v, ok := env["WEBHOOK_QUEUE_URL"]; ok {
			env["WEBHOOK_QUEUE_URL"] = containerURL(v, o.ContainerHost)
		}
		env["AWS_ENDPOINT_URL_DYNAMODB"] = containerURL(o.DynamoEndpoint, o.ContainerHost)
		if o.SQSEndpoint != "" {
			env["AWS_ENDPOINT_URL_SQS"] = containerURL(o.SQSEndpoint, o.ContainerHost)
		}
		out.Env[f.LogicalID] = env
	}
	if err := writeJSON(out.EnvPath, out.Env); err != nil {
		return nil, err
	}

	// The objects the events name, made by the functions' own handlers against this table.
	invoke := func(logicalID string, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		env := out.Env[logicalID]
		local := map[string]string{}
		for k, v := range env {
			local[k] = v
		}
		local["WEBHOOK_QUEUE_URL"] = ""     // this process sends no events; the containers may
		local["WORKSPACE_RATE_LIMIT"] = "0" // the provisioner's own few requests are not limited
		c, err := app.ConfigFromEnv(func(k string) (string, bool) { v, ok := local[k]; return v, ok })
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		h, err := registry.Lambda(logicalID, app.New(c, ddb, q, slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		return h(ctx, ev)
	}
	sample := func(name string) (events.APIGatewayV2HTTPRequest, error) {
		var ev events.APIGatewayV2HTTPRequest
		raw, err := os.ReadFile(filepath.Join(o.Root, "events", name))
		if err == nil {
			err = json.Unmarshal([]byte(strings.ReplaceAll(string(raw), placeholderKey, out.Creds.SandboxKey)), &ev)
		}
		return ev, err
	}
	create := func(logicalID, event, body, idem string) (map[string]any, error) {
		ev, err := sample(event)
		if err != nil {
			return nil, err
		}
		ev.Body = body
		ev.Headers["idempotency-key"] = idem
		if _, ok := ev.PathParameters["workspaceID"]; ok {
			ev.PathParameters["workspaceID"] = out.Creds.WorkspaceID
			ev.RawPath = strings.ReplaceAll(ev.RawPath, placeholderWorkspace, out.Creds.WorkspaceID)
		}
		resp, err := invoke(logicalID, ev)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != 201 && resp.StatusCode != 200 {
			return nil, fmt.Errorf("%s: %d %s", logicalID, resp.StatusCode, resp.Body)
		}
		var m map[string]any
		return m, json.Unmarshal([]byte(resp.Body), &m)
	}
	lastPart := func(u any) string {
		s, _ := u.(string)
		return s[strings.LastIndex(s, "/")+1:]
	}
	p, err := create("PaymentCreateFunction", "payment-create.json", `{"amount": 150.50, "reference": "order-1001"}`, "samlocal-payment-0001")
	if err != nil {
		return nil, err
	}
	out.PaymentID, _ = p["invoice_id"].(string)
	out.CheckoutToken = lastPart(p["payment_url"])
	it, err := create("PaymentIntentsFunction", "payment-intents-create.json", `{"amount": 99, "reference": "order-1002"}`, "samlocal-intent-0001")
	if err != nil {
		return nil, err
	}
	out.IntentID, _ = it["id"].(string)
	inv, err := create("DocumentsFunction", "documents-create-invoice.json",
		`{"reference": "INV-SAM-1", "items": [{"title": "Saree", "quantity": 1, "unit_amount_minor": 150000}]}`, "samlocal-invoice-0001")
	if err != nil {
		return nil, err
	}
	out.DocumentToken, _ = inv["public_token"].(string)
	if id, _ := inv["id"].(string); inv["status"] == "draft" {
		ev, err := sample("documents-create-invoice.json")
		if err != nil {
			return nil, err
		}
		ev.RouteKey = "POST /v1/workspaces/{workspaceID}/documents/invoices/{documentID}/issue"
		ev.RequestContext.RouteKey = ev.RouteKey
		ev.RawPath = "/v1/workspaces/" + out.Creds.WorkspaceID + "/documents/invoices/" + id + "/issue"
		ev.RequestContext.HTTP.Path = ev.RawPath
		ev.PathParameters = map[string]string{"workspaceID": out.Creds.WorkspaceID, "documentID": id}
		ev.Body = ""
		// 409: a second run replayed the create of an invoice the first run issued.
		if resp, err := invoke("DocumentsFunction", ev); err != nil || (resp.StatusCode != 200 && resp.StatusCode != 409) {
			return nil, fmt.Errorf("issue the invoice: %d %s %v", resp.StatusCode, resp.Body, err)
		}
	}

	// The sample events, filled.
	files, err := filepath.Glob(filepath.Join(o.Root, "events", "*.json"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out.EventsDir, 0o700); err != nil {
		return nil, err
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f)
		invoice := out.PaymentID
		if strings.Contains(name, "cancel") {
			invoice = out.IntentID // a cancel needs a PENDING intent of its own
		}
		text := strings.NewReplacer(placeholderKey, out.Creds.SandboxKey, placeholderInvoice, invoice,
			placeholderWorkspace, out.Creds.WorkspaceID, placeholderCheckout, out.CheckoutToken,
			placeholderDocument, out.DocumentToken).Replace(string(raw))
		if err := os.WriteFile(filepath.Join(out.EventsDir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
		out.Events = append(out.Events, name)
	}
	return out, nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

type samTemplate = samtemplate.Template

func loadTemplate(path string) (*samTemplate, error) { return samtemplate.Load(path) }
