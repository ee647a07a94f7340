package rie_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// testOutput collects the instances' lines (the functions' JSON log lines among them).
type testOutput struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *testOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *testOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// startPools starts the in-process test API (its stack, its seeded workspace) and a pool per
// function running the real bootstraps with the same environment the in-process handlers get.
func startPools(t *testing.T, size int) (*localapi.TestAPI, *rie.Set, *testOutput) {
	t.Helper()
	a := localapi.StartTestAPI(t, localapi.Options{})
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a cold build on a loaded machine
	defer cancel()
	out := &testOutput{}
	set, err := rie.Start(ctx, root, a.Stack, func(id string) (map[string]string, error) {
		return localapi.FunctionEnv(a.Stack, id, a.Options)
	}, rie.Options{PoolSize: size, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("instances' output:\n%s", out.String())
		}
	})
	return a, set, out
}

// Every sample event in events/ through its function's real bootstrap (built for this host
// with the Lambda flags) under the Runtime Interface Emulator, with the environment, timeout
// and memory template.yaml gives it: what `sam local invoke <LogicalId> -e events/<file>` runs
// in its container. The answers are the ones the in-process handlers give (TestSampleEvents in
// localapi), so the binaries that ship behave as the handlers the other tests exercise.
func TestSampleEventsThroughRealBootstraps(t *testing.T) {
	a, set, out := startPools(t, 1)
	root, _ := samtemplate.FindRepoRoot()
	files, _ := filepath.Glob(filepath.Join(root, "events", "*.json"))
	if len(files) == 0 {
		t.Fatal("no sample events")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// A payment to verify and cancel, made by PaymentCreateFunction's bootstrap itself.
	invokeHTTP := func(id string, ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
		t.Helper()
		b, _ := json.Marshal(ev)
		res, err := set.Pools[id].Invoke(ctx, "", b)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var resp events.APIGatewayV2HTTPResponse
		if err := json.Unmarshal(res.Payload, &resp); err != nil {
			t.Fatalf("%s: answer %s: %v", id, res.Payload, err)
		}
		return resp
	}
	readEvent := func(name string) events.APIGatewayV2HTTPRequest {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(root, "events", name))
		if err != nil {
			t.Fatal(err)
		}
		var ev events.APIGatewayV2HTTPRequest
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ev.Headers["authorization"] != "" {
			ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
		}
		return ev
	}
	create := readEvent("payment-create.json")
	create.Body = `{"amount": 150.50, "reference": "order-1001"}`
	create.Headers["idempotency-key"] = "rie-sample-events-0001"
	created := invokeHTTP("PaymentCreateFunction", create)
	var c struct {
		InvoiceID string `json:"invoice_id"`
	}
	if created.StatusCode != 201 || json.Unmarshal([]byte(created.Body), &c) != nil || c.InvoiceID == "" {
		t.Fatalf("create: %d %s", created.StatusCode, created.Body)
	}

	want := map[string]int{"checkout-view.json": 404, "documents-create-invoice.json": 201, "merchant-context.json": 200,
		"payment-create.json": 201, "payment-verify.json": 200, "probes-healthz.json": 200,
		"payment-intents-create.json": 201, "payment-intent-cancel.json": 200, "public-documents-view.json": 404,
		"probes-readyz.json": 200, "probes-not-deployed.json": 404,
		"dashboard-sign-in.json": 200, "dashboard-passkeys-page.json": 303}
	covered := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "webhook-sender.json":
			// An SQS batch naming an event that was never recorded: the real sender drops it
			// (never invents an event) and reports no failure, in the partial-batch answer the
			// template asks for (ReportBatchItemFailures).
			res, err := set.Pools["WebhookSenderFunction"].Invoke(ctx, "", raw)
			var resp events.SQSEventResponse
			if err != nil || json.Unmarshal(res.Payload, &resp) != nil || len(resp.BatchItemFailures) != 0 {
				t.Errorf("%s: %v %v", name, res, err)
			}
			covered["WebhookSenderFunction"] = true
			continue
		case "webhook-redrive.json":
			// The schedule's event: the real re-drive runs and finds nothing to re-send.
			if _, err := set.Pools["WebhookRedriveFunction"].Invoke(ctx, "", raw); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			covered["WebhookRedriveFunction"] = true
			continue
		}
		ev := readEvent(name)
		var fn *samtemplate.Function
		for i, tf := range a.Stack.Template.Functions {
			if strings.HasPrefix(name, strings.TrimPrefix(tf.Dir, "functions/")) {
				fn = &a.Stack.Template.Functions[i]
			}
		}
		if fn == nil {
			t.Fatalf("%s names no template function", name)
		}
		covered[fn.LogicalID] = true
		ev.Body = strings.ReplaceAll(ev.Body, "8e604eee-43e6-8efe-b04b-43bc3130c81f", c.InvoiceID)
		if _, ok := ev.PathParameters["intentID"]; ok {
			ev.PathParameters["intentID"] = c.InvoiceID
			ev.RawPath = strings.ReplaceAll(ev.RawPath, "8e604eee-43e6-8efe-b04b-43bc3130c81f", c.InvoiceID)
		}
		if _, ok := ev.PathParameters["workspaceID"]; ok {
			ev.PathParameters["workspaceID"] = a.Creds.WorkspaceID
		}
		resp := invokeHTTP(fn.LogicalID, ev)
		if resp.StatusCode != want[name] {
			t.Errorf("%s: %d %s, want %d", name, resp.StatusCode, resp.Body, want[name])
		}
	}
	for _, id := range registry.LogicalIDs() {
		if !covered[id] {
			t.Errorf("no sample event for %s", id)
		}
	}
	// The answers came from the bootstraps: their own request log lines, with the function
	// names their mains give them, are in the instances' output, and each instance's REPORT.
	logs := out.String()
	for _, s := range []string{`"route":"POST /v1/payment/create"`, `"route":"POST /v1/payment/verify"`, "Init Duration:", "Memory Size: 256 MB"} {
		if !strings.Contains(logs, s) {
			t.Errorf("the instances' output has no %q", s)
		}
	}
}
