package rie_test

import (
	"context"
	"encoding/json"
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
	var create events.APIGatewayV2HTTPRequest
	for _, se := range a.SampleEvents(t, localapi.SampleEventIntentID) {
		if se.Name == "payment-create.json" {
			create = *se.HTTP
		}
	}
	create.Body = `{"amount": 150.50, "reference": "order-1001"}`
	create.Headers["idempotency-key"] = "rie-sample-events-0001"
	created := invokeHTTP("PaymentCreateFunction", create)
	var c struct {
		InvoiceID string `json:"invoice_id"`
	}
	if created.StatusCode != 201 || json.Unmarshal([]byte(created.Body), &c) != nil || c.InvoiceID == "" {
		t.Fatalf("create: %d %s", created.StatusCode, created.Body)
	}

	covered := map[string]bool{}
	for _, se := range a.SampleEvents(t, c.InvoiceID) {
		covered[se.Function.LogicalID] = true
		switch se.Name {
		case "webhook-sender.json":
			// An SQS batch naming an event that was never recorded: the real sender drops it
			// (never invents an event) and reports no failure, in the partial-batch answer the
			// template asks for (ReportBatchItemFailures).
			res, err := set.Pools["WebhookSenderFunction"].Invoke(ctx, "", se.Raw)
			var resp events.SQSEventResponse
			if err != nil || json.Unmarshal(res.Payload, &resp) != nil || len(resp.BatchItemFailures) != 0 {
				t.Errorf("%s: %v %v", se.Name, res, err)
			}
			continue
		case "webhook-redrive.json":
			// The schedule's event: the real re-drive runs and finds nothing to re-send.
			if _, err := set.Pools["WebhookRedriveFunction"].Invoke(ctx, "", se.Raw); err != nil {
				t.Errorf("%s: %v", se.Name, err)
			}
			continue
		}
		if resp := invokeHTTP(se.Function.LogicalID, *se.HTTP); resp.StatusCode != se.Status {
			t.Errorf("%s: %d %s, want %d", se.Name, resp.StatusCode, resp.Body, se.Status)
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
