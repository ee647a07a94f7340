package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// emfLine is the exact Embedded Metric Format line one re-drive run writes: the "_aws" member
// tells CloudWatch Logs to record the member named OldestPendingWebhookAgeSeconds as a metric
// of that name in namespace Takapay, without dimensions, in seconds, at Timestamp (ms).
func emfLine(at time.Time, seconds string) string {
	return `{"OldestPendingWebhookAgeSeconds":` + seconds + `,"_aws":{"Timestamp":` + strconv.FormatInt(at.UnixMilli(), 10) +
		`,"CloudWatchMetrics":[{"Namespace":"Takapay","Dimensions":[[]],"Metrics":[{"Name":"OldestPendingWebhookAgeSeconds","Unit":"Seconds"}]}]}}` + "\n"
}

// Every run writes one metric line: 0 when no pending event is overdue, else the floor the
// sweep proves (the re-drive's Overdue), also when re-enqueueing fails.
func TestRedriveWritesOldestPendingAgeMetric(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 123e6, time.UTC)
	refs := []payment.EventRef{{InvoiceID: "a", EventID: "evt_a"}, {InvoiceID: "b", EventID: "evt_b"}}
	for _, c := range []struct {
		name    string
		refs    []payment.EventRef
		overdue time.Duration
		fail    map[string]bool
		want    string
	}{
		{name: "nothing overdue", want: "0"},
		{name: "overdue events", refs: refs, want: "180"},
		{name: "enqueue fails", refs: refs, fail: map[string]bool{"evt_a": true, "evt_b": true}, want: "180"},
		{name: "longer Overdue", refs: refs, overdue: 5*time.Minute + 500*time.Millisecond, want: "300.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &webhook.Redrive{Store: &pendingStub{refs: c.refs}, Queue: &queueStub{fail: c.fail}, Overdue: c.overdue,
				Now: func() time.Time { return now }, Metrics: &out}
			_, err := r.Run(context.Background())
			if (err != nil) != (c.fail != nil) {
				t.Errorf("Run error = %v", err)
			}
			if got, want := out.String(), emfLine(now, c.want); got != want {
				t.Errorf("metric line\n got %s\nwant %s", got, want)
			}
			// The same line as CloudWatch reads it.
			var doc struct {
				AWS struct {
					Timestamp         int64
					CloudWatchMetrics []struct {
						Namespace  string
						Dimensions [][]string
						Metrics    []struct{ Name, Unit string }
					}
				} `json:"_aws"`
				Value *float64 `json:"OldestPendingWebhookAgeSeconds"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			cwm := doc.AWS.CloudWatchMetrics
			if doc.AWS.Timestamp != now.UnixMilli() || len(cwm) != 1 || cwm[0].Namespace != webhook.MetricNamespace ||
				len(cwm[0].Dimensions) != 1 || len(cwm[0].Dimensions[0]) != 0 || len(cwm[0].Metrics) != 1 ||
				cwm[0].Metrics[0].Name != webhook.OldestPendingMetric || cwm[0].Metrics[0].Unit != "Seconds" || doc.Value == nil {
				t.Errorf("EMF document %+v", doc)
			}
		})
	}
}

// sweepFails is a store whose sweep of pending events fails.
type sweepFails struct{ pendingStub }

func (*sweepFails) PendingDeliveries(context.Context, time.Time, int) ([]payment.EventRef, error) {
	return nil, errors.New("throttled")
}

// A run whose sweep failed knows nothing of pending events and writes no metric line (the
// function's Errors alarm reports the failure).
func TestRedriveWritesNoMetricWithoutASweep(t *testing.T) {
	var out bytes.Buffer
	r := &webhook.Redrive{Store: &sweepFails{}, Queue: &queueStub{}, Metrics: &out}
	if _, err := r.Run(context.Background()); err == nil {
		t.Error("Run succeeded without its sweep")
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

func TestOldestPendingAge(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	ref := []payment.EventRef{{InvoiceID: "a", EventID: "evt_a"}}
	for _, c := range []struct {
		dueBefore time.Time
		refs      []payment.EventRef
		want      time.Duration
	}{
		{now.Add(-3 * time.Minute), nil, 0},
		{now.Add(-3 * time.Minute), ref, 3 * time.Minute},
		{now, ref, 0},
		{now.Add(time.Minute), ref, 0},
	} {
		if got := webhook.OldestPendingAge(now, c.dueBefore, c.refs); got != c.want {
			t.Errorf("OldestPendingAge(now, now%+v, %d refs) = %v, want %v", c.dueBefore.Sub(now), len(c.refs), got, c.want)
		}
	}
}
