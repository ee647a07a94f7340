package localapi_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// The sample events in events/ (for `sam local invoke -e`) are valid payload 2.0 events for a
// route of the function their file name names, and that function's handler answers them.
func TestSampleEvents(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "events", "*.json"))
	if len(files) == 0 {
		t.Fatal("no sample events")
	}
	a := localapi.StartTestAPI(t, localapi.Options{})
	created := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 150.50, "reference": "order-1001"}`)
	var c struct {
		InvoiceID string `json:"invoice_id"`
	}
	_ = json.Unmarshal(created.Body, &c)
	want := map[string]int{"checkout-view.json": 404, "documents-create-invoice.json": 201, "merchant-context.json": 200, "payment-create.json": 201, "payment-verify.json": 200, "probes-healthz.json": 200,
		"payment-intents-create.json": 201, "payment-intent-cancel.json": 200, "public-documents-view.json": 404,
		"probes-readyz.json": 200, "probes-not-deployed.json": 404,
		// The dashboard's sign-in page; the passkeys page without a session goes to sign in.
		"dashboard-sign-in.json": 200, "dashboard-passkeys-page.json": 303,
		"dashboard-documents-invoices.json": 303, "dashboard-webhooks-page.json": 303, "dashboard-customers-list.json": 303, "dashboard-payments-list.json": 303, "dashboard-export-csv.json": 303}
	covered := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "webhook-sender.json":
			var sqsEv events.SQSEvent
			if err := json.Unmarshal(raw, &sqsEv); err != nil || len(sqsEv.Records) != 1 {
				t.Fatalf("%s: %v", name, err)
			}
			// The sample names an event that was never recorded: the sender drops it (never
			// invents an event) and reports no failure.
			resp, err := registry.WebhookConsumer(a.Deps["WebhookSenderFunction"]).Handle(context.Background(), sqsEv)
			if err != nil || len(resp.BatchItemFailures) != 0 {
				t.Errorf("%s: %+v %v", name, resp, err)
			}
			covered["WebhookSenderFunction"] = true
			continue
		case "webhook-redrive.json":
			var sched events.EventBridgeEvent
			if err := json.Unmarshal(raw, &sched); err != nil || sched.DetailType != "Scheduled Event" {
				t.Fatalf("%s: %v", name, err)
			}
			if n, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run(context.Background()); err != nil || n != 0 {
				t.Errorf("%s: re-enqueued %d, %v", name, n, err)
			}
			covered["WebhookRedriveFunction"] = true
			continue
		}
		var ev events.APIGatewayV2HTTPRequest
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The function whose directory is the longest prefix of the name (dashboard-customers-…
		// is DashboardCustomersFunction's, not DashboardFunction's).
		var fn *samtemplate.Function
		for i, tf := range a.Stack.Template.Functions {
			// The longest directory that prefixes the name (dashboard-documents-… is not dashboard's).
			if dir := strings.TrimPrefix(tf.Dir, "functions/"); strings.HasPrefix(name, dir) && (fn == nil || len(dir) > len(fn.Dir)-len("functions/")) {
				fn = &a.Stack.Template.Functions[i]
			}
		}
		if fn == nil {
			t.Fatalf("%s names no template function", name)
		}
		covered[fn.LogicalID] = true
		found := false
		for _, r := range fn.Routes {
			found = found || r.String() == ev.RouteKey
		}
		if !found || ev.RequestContext.RouteKey != ev.RouteKey || ev.Version != "2.0" {
			t.Fatalf("%s: routeKey %q is not a route of %s", name, ev.RouteKey, fn.LogicalID)
		}
		if ev.Headers["authorization"] != "" {
			ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
		}
		ev.Body = strings.ReplaceAll(ev.Body, "8e604eee-43e6-8efe-b04b-43bc3130c81f", c.InvoiceID)
		if _, ok := ev.PathParameters["intentID"]; ok {
			ev.PathParameters["intentID"] = c.InvoiceID
			ev.RawPath = strings.ReplaceAll(ev.RawPath, "8e604eee-43e6-8efe-b04b-43bc3130c81f", c.InvoiceID)
		}
		if _, ok := ev.PathParameters["workspaceID"]; ok {
			ev.PathParameters["workspaceID"] = a.Creds.WorkspaceID
		}
		h, err := registry.Lambda(fn.LogicalID, a.Deps[fn.LogicalID])
		if err != nil {
			t.Fatal(err)
		}
		resp, err := h(context.Background(), ev)
		if err != nil || resp.StatusCode != want[name] {
			t.Errorf("%s: %d %v %s, want %d", name, resp.StatusCode, err, resp.Body, want[name])
		}
	}
	for _, id := range registry.LogicalIDs() {
		if !covered[id] {
			t.Errorf("no sample event for %s", id)
		}
	}
}

// The sample events are self-consistent, as API Gateway and SQS would send them: an HTTP
// event's timeEpoch is its time, an SQS record's md5OfBody is the MD5 of its body.
func TestSampleEventsAreConsistent(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "events", "*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		var sqsEv events.SQSEvent
		if json.Unmarshal(raw, &sqsEv) == nil && len(sqsEv.Records) > 0 {
			for _, r := range sqsEv.Records {
				if sum := md5.Sum([]byte(r.Body)); r.Md5OfBody != hex.EncodeToString(sum[:]) {
					t.Errorf("%s: md5OfBody %s is not the MD5 of the body (%x)", name, r.Md5OfBody, sum)
				}
			}
			continue
		}
		var ev events.APIGatewayV2HTTPRequest
		if json.Unmarshal(raw, &ev) != nil || ev.RequestContext.Time == "" {
			continue
		}
		at, err := time.Parse("02/Jan/2006:15:04:05 -0700", ev.RequestContext.Time)
		if err != nil {
			t.Errorf("%s: requestContext.time %q: %v", name, ev.RequestContext.Time, err)
			continue
		}
		if at.UnixMilli() != ev.RequestContext.TimeEpoch {
			t.Errorf("%s: timeEpoch %d is not its time %s (%d)", name, ev.RequestContext.TimeEpoch, ev.RequestContext.Time, at.UnixMilli())
		}
	}
}
