package localapi_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
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
	a := localapi.StartTestAPI(t, localapi.Options{})
	created := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 150.50, "reference": "order-1001"}`)
	var c struct {
		InvoiceID string `json:"invoice_id"`
	}
	_ = json.Unmarshal(created.Body, &c)
	covered := map[string]bool{}
	for _, se := range a.SampleEvents(t, c.InvoiceID) {
		covered[se.Function.LogicalID] = true
		switch se.Name {
		case "webhook-sender.json":
			var sqsEv events.SQSEvent
			if err := json.Unmarshal(se.Raw, &sqsEv); err != nil || len(sqsEv.Records) != 1 {
				t.Fatalf("%s: %v", se.Name, err)
			}
			// The sample names an event that was never recorded: the sender drops it (never
			// invents an event) and reports no failure.
			resp, err := registry.WebhookConsumer(a.Deps["WebhookSenderFunction"]).Handle(context.Background(), sqsEv)
			if err != nil || len(resp.BatchItemFailures) != 0 {
				t.Errorf("%s: %+v %v", se.Name, resp, err)
			}
			continue
		case "webhook-redrive.json":
			var sched events.EventBridgeEvent
			if err := json.Unmarshal(se.Raw, &sched); err != nil || sched.DetailType != "Scheduled Event" {
				t.Fatalf("%s: %v", se.Name, err)
			}
			if n, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run(context.Background()); err != nil || n != 0 {
				t.Errorf("%s: re-enqueued %d, %v", se.Name, n, err)
			}
			continue
		}
		if se.HTTP == nil {
			t.Fatalf("%s: not an HTTP event and not handled here", se.Name)
		}
		h, err := registry.Lambda(se.Function.LogicalID, a.Deps[se.Function.LogicalID])
		if err != nil {
			t.Fatal(err)
		}
		resp, err := h(context.Background(), *se.HTTP)
		if err != nil || resp.StatusCode != se.Status {
			t.Errorf("%s: %d %v %s, want %d", se.Name, resp.StatusCode, err, resp.Body, se.Status)
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
