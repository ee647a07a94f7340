package localapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// SampleEventStatus is the status each HTTP sample event in events/ is answered with on a
// fresh test stack (its payment id, workspace and key filled in by SampleEvents): the
// dashboard's pages without a session go to sign in (303); the checkout and public document
// samples name tokens that do not exist (404).
var SampleEventStatus = map[string]int{
	"checkout-view.json": 404, "documents-create-invoice.json": 201, "merchant-context.json": 200,
	"payment-create.json": 201, "payment-verify.json": 200, "probes-healthz.json": 200,
	"payment-intents-create.json": 201, "payment-intent-cancel.json": 200, "public-documents-view.json": 404,
	"probes-readyz.json": 200, "probes-not-deployed.json": 404,
	"dashboard-sign-in.json": 200, "dashboard-public-sign-up.json": 200, "dashboard-passkeys-page.json": 303, "dashboard-documents-invoices.json": 303,
	"dashboard-webhooks-page.json": 303, "dashboard-customers-list.json": 303, "dashboard-payments-list.json": 303,
	"dashboard-export-csv.json": 303, "refunds-list.json": 200,
}

// SampleEventIntentID is the payment id the HTTP samples carry; SampleEvents puts a real one
// in its place.
const SampleEventIntentID = "8e604eee-43e6-8efe-b04b-43bc3130c81f"

// SampleEvent is one file of events/ (what `sam local invoke <LogicalId> -e` sends) and the
// template function it is for.
type SampleEvent struct {
	Name     string
	Function *samtemplate.Function
	Raw      []byte
	// HTTP is the decoded API Gateway event, with this stack's key, workspace and intentID
	// filled in; nil for the SQS batch and the schedule's event.
	HTTP *events.APIGatewayV2HTTPRequest
	// Status is SampleEventStatus[Name] (HTTP events only).
	Status int
}

// SampleEvents reads every file of events/ for this stack. A file is for the function whose
// directory is the longest prefix of its name (dashboard-customers-… is
// DashboardCustomersFunction's, not DashboardFunction's). HTTP events are decoded strictly and
// must name a route of their function; intentID (an existing payment's id) replaces the
// samples' own.
func (a *TestAPI) SampleEvents(tb testing.TB, intentID string) []SampleEvent {
	tb.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "events", "*.json"))
	if len(files) == 0 {
		tb.Fatal("no sample events")
	}
	var out []SampleEvent
	for _, f := range files {
		se := SampleEvent{Name: filepath.Base(f)}
		if se.Raw, err = os.ReadFile(f); err != nil {
			tb.Fatal(err)
		}
		for i, tf := range a.Stack.Template.Functions {
			dir := strings.TrimPrefix(tf.Dir, "functions/")
			if strings.HasPrefix(se.Name, dir) && (se.Function == nil || len(tf.Dir) > len(se.Function.Dir)) {
				se.Function = &a.Stack.Template.Functions[i]
			}
		}
		if se.Function == nil {
			tb.Fatalf("%s names no template function", se.Name)
		}
		if len(se.Function.Routes) > 0 {
			se.HTTP = a.sampleHTTP(tb, se, intentID)
			se.Status = SampleEventStatus[se.Name]
		}
		out = append(out, se)
	}
	return out
}

func (a *TestAPI) sampleHTTP(tb testing.TB, se SampleEvent, intentID string) *events.APIGatewayV2HTTPRequest {
	tb.Helper()
	var ev events.APIGatewayV2HTTPRequest
	dec := json.NewDecoder(strings.NewReader(string(se.Raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		tb.Fatalf("%s: %v", se.Name, err)
	}
	found := false
	for _, r := range se.Function.Routes {
		found = found || r.String() == ev.RouteKey
	}
	if !found || ev.RequestContext.RouteKey != ev.RouteKey || ev.Version != "2.0" {
		tb.Fatalf("%s: routeKey %q is not a route of %s", se.Name, ev.RouteKey, se.Function.LogicalID)
	}
	if _, ok := SampleEventStatus[se.Name]; !ok {
		tb.Fatalf("%s: no expected status in localapi.SampleEventStatus", se.Name)
	}
	if ev.Headers["authorization"] != "" {
		ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
	}
	ev.Body = strings.ReplaceAll(ev.Body, SampleEventIntentID, intentID)
	if _, ok := ev.PathParameters["intentID"]; ok {
		ev.PathParameters["intentID"] = intentID
		ev.RawPath = strings.ReplaceAll(ev.RawPath, SampleEventIntentID, intentID)
	}
	if _, ok := ev.PathParameters["workspaceID"]; ok {
		ev.PathParameters["workspaceID"] = a.Creds.WorkspaceID
	}
	return &ev
}
