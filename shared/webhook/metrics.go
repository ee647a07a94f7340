package webhook

import (
	"encoding/json"
	"io"
	"time"

	"github.com/takapay/payments/shared/payment"
)

// MetricNamespace is the CloudWatch namespace of the service's own metrics; template.yaml's
// alarms read them from there.
const MetricNamespace = "Takapay"

// OldestPendingMetric is the metric each re-drive run publishes (OldestPendingAge): how late,
// in seconds, the most overdue pending webhook event's next attempt is, as far as the run can
// tell.
const OldestPendingMetric = "OldestPendingWebhookAgeSeconds"

// OldestPendingAge is what one sweep tells of the oldest pending event at no extra cost. The
// sweep asked for the events whose next attempt was due before dueBefore (now less Overdue),
// and PendingDeliveries returns their keys without their due times, so: 0 when the sweep found
// none (no pending event is late by more than Overdue), else now-dueBefore, a floor: at least
// one event's next attempt is late by more than that, and the oldest by at least as much.
//
// "Late" counts from the event's current next_attempt_at, which the sender moves on every
// failed attempt (by the retry schedule) and the re-drive moves to now+Overdue when it
// re-enqueues: it measures how long our machinery has left an event unattended, not the
// event's age since it was recorded (a receiver that keeps failing keeps its events pending for
// as long as the schedule lasts, and that is not an alarm). A run whose sweep hit its limit
// still reports a floor.
func OldestPendingAge(now, dueBefore time.Time, refs []payment.EventRef) time.Duration {
	if len(refs) == 0 || !dueBefore.Before(now) {
		return 0
	}
	return now.Sub(dueBefore)
}

// emfMetric, emfDirective and emfMetadata are the "_aws" member of a CloudWatch Embedded Metric
// Format log line.
type emfMetric struct{ Name, Unit string }

type emfDirective struct {
	Namespace  string
	Dimensions [][]string
	Metrics    []emfMetric
}

type emfMetadata struct {
	Timestamp         int64
	CloudWatchMetrics []emfDirective
}

// writeOldestPendingAge writes one Embedded Metric Format line (a JSON object and a newline, in
// a single Write) that makes CloudWatch Logs record OldestPendingMetric in MetricNamespace,
// without dimensions, in seconds, at the time at.
func writeOldestPendingAge(w io.Writer, at time.Time, age time.Duration) error {
	line, err := json.Marshal(map[string]any{
		"_aws": emfMetadata{
			Timestamp: at.UnixMilli(),
			CloudWatchMetrics: []emfDirective{{
				Namespace:  MetricNamespace,
				Dimensions: [][]string{{}},
				Metrics:    []emfMetric{{Name: OldestPendingMetric, Unit: "Seconds"}},
			}},
		},
		OldestPendingMetric: age.Seconds(),
	})
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
