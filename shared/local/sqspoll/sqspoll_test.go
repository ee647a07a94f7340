package sqspoll

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// fauxqs is one fauxqs for the package's tests (each test makes its own queue).
var fauxqs struct {
	once   sync.Once
	client *sqs.Client
	err    error
	stop   func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fauxqs.stop != nil {
		fauxqs.stop()
	}
	os.Exit(code)
}

// newQueue starts fauxqs on first use and creates a queue whose VisibilityTimeout is 1 s, so
// that a message kept for a retry is visible again soon.
func newQueue(t *testing.T) (*sqs.Client, string) {
	t.Helper()
	devstack.RequireServers(t)
	fauxqs.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		opts := devstack.FauxqsOptions{}
		if os.Getenv("DEVSTACK_VERBOSE") != "" {
			opts.LogWriter = os.Stderr
		}
		srv, err := devstack.StartFauxqs(ctx, opts)
		if err != nil {
			fauxqs.err = err
			return
		}
		fauxqs.stop = srv.Stop
		cfg, err := devstack.AWSConfig(ctx, "", srv.Endpoint)
		if err != nil {
			fauxqs.err = err
			return
		}
		fauxqs.client = devstack.SQSClient(cfg, srv.Endpoint)
	})
	if fauxqs.err != nil {
		t.Fatalf("fauxqs: %v", fauxqs.err)
	}
	out, err := fauxqs.client.CreateQueue(context.Background(), &sqs.CreateQueueInput{
		QueueName:  aws.String(devstack.RandomPrefix() + "q"),
		Attributes: map[string]string{"VisibilityTimeout": "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return fauxqs.client, aws.ToString(out.QueueUrl)
}

func send(t *testing.T, c *sqs.Client, url string, bodies ...string) {
	t.Helper()
	for _, b := range bodies {
		if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
}

// counts returns the queue's visible and in-flight messages (deleted ones are in neither).
func counts(t *testing.T, c *sqs.Client, url string) (visible, inFlight int) {
	t.Helper()
	out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatal(err)
	}
	visible, _ = strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ = strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return visible, inFlight
}

// recorder is a handler that keeps every batch's bodies and answers fail's messages as failures.
type recorder struct {
	mu      sync.Mutex
	batches [][]string
	fail    map[string]bool
	err     error
}

func (r *recorder) handle(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var bodies []string
	var resp events.SQSEventResponse
	for _, m := range ev.Records {
		bodies = append(bodies, m.Body)
		if m.EventSource != "aws:sqs" || m.ReceiptHandle == "" {
			return resp, fmt.Errorf("record %+v is not what Lambda sends", m)
		}
		if r.fail[m.Body] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	r.batches = append(r.batches, bodies)
	return resp, r.err
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Three messages 300 ms apart, the first already queued: one receive returns it, the window
// (2 s here, generous against a loaded machine) gathers the other two, one invocation.
func TestWindowGathersOneBatch(t *testing.T) {
	c, url := newQueue(t)
	ctx := testCtx(t)
	rec := &recorder{}
	p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 5, Window: 2 * time.Second}
	send(t, c, url, "m1")
	sent := make(chan error, 1)
	go func() {
		for _, b := range []string{"m2", "m3"} {
			time.Sleep(300 * time.Millisecond)
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b)}); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	n, err := p.RunOnce(ctx)
	if err != nil || n != 3 {
		t.Fatalf("RunOnce = %d, %v; want 3 messages", n, err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if len(rec.batches) != 1 || !slices.Equal(rec.batches[0], []string{"m1", "m2", "m3"}) {
		t.Fatalf("batches = %v, want one batch [m1 m2 m3]", rec.batches)
	}
	if v, f := counts(t, c, url); v+f != 0 {
		t.Errorf("after a successful batch: %d visible, %d in flight; want all deleted", v, f)
	}
}

// Without a window the first receive is the batch: the handler does not wait for more.
func TestNoWindowOneReceive(t *testing.T) {
	c, url := newQueue(t)
	ctx := testCtx(t)
	rec := &recorder{}
	p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 5}
	send(t, c, url, "m1")
	if n, err := p.RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want 1", n, err)
	}
	p.Wait = 0 // a short poll
	if n, err := p.RunOnce(ctx); err != nil || n != 0 || len(rec.batches) != 1 {
		t.Fatalf("RunOnce on an empty queue = %d, %v", n, err)
	}
}

// BatchSize 2, five messages queued, a window open: batches of at most 2, every message once.
func TestBatchSizeCapsTheBatch(t *testing.T) {
	c, url := newQueue(t)
	ctx := testCtx(t)
	rec := &recorder{}
	p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 1, BatchSize: 2, Window: 500 * time.Millisecond}
	want := []string{"m1", "m2", "m3", "m4", "m5"}
	send(t, c, url, want...)
	var got []string
	for range 20 {
		n, err := p.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && len(got) == len(want) {
			break
		}
		if n > 2 {
			t.Fatalf("a batch of %d with BatchSize 2: %v", n, rec.batches)
		}
		if n > 0 {
			got = append(got, rec.batches[len(rec.batches)-1]...)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("handled %v (batches %v), want each of %v once", got, rec.batches, want)
	}
	if v, f := counts(t, c, url); v+f != 0 {
		t.Errorf("%d visible, %d in flight; want all deleted", v, f)
	}
}

// ReportBatchItemFailures: only the message the handler names stays, and comes back after its
// visibility timeout; the others are deleted.
func TestPartialBatchFailure(t *testing.T) {
	c, url := newQueue(t)
	ctx := testCtx(t)
	rec := &recorder{fail: map[string]bool{"m2": true}}
	p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 5, Window: 200 * time.Millisecond}
	send(t, c, url, "m1", "m2", "m3")
	if n, err := gatherAll(ctx, p, 3); err != nil || n != 3 {
		t.Fatalf("received %d, %v; want 3", n, err)
	}
	if v, f := counts(t, c, url); v+f != 1 {
		t.Errorf("after a batch with one failure: %d visible, %d in flight; want 1 left", v, f)
	}
	// The failed message again, once its 1 s visibility timeout has passed (Wait 5 s for it).
	again := &recorder{}
	p.Handler = again.handle
	if n, err := p.RunOnce(ctx); err != nil || n != 1 || !slices.Equal(again.batches[0], []string{"m2"}) {
		t.Fatalf("after the visibility timeout: %d, %v, %v; want [m2]", n, err, again.batches)
	}
	if v, f := counts(t, c, url); v+f != 0 {
		t.Errorf("%d visible, %d in flight; want all deleted", v, f)
	}
}

// Without ReportBatchItemFailures Lambda ignores the answer: an invocation that did not fail
// deletes the whole batch, the message it named as failed too.
func TestItemFailuresIgnoredWithoutReportBatchItemFailures(t *testing.T) {
	c, url := newQueue(t)
	ctx := testCtx(t)
	rec := &recorder{fail: map[string]bool{"m2": true}}
	p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 5, Window: 200 * time.Millisecond, IgnoreBatchItemFailures: true}
	send(t, c, url, "m1", "m2", "m3")
	if n, err := gatherAll(ctx, p, 3); err != nil || n != 3 {
		t.Fatalf("received %d, %v; want 3", n, err)
	}
	if v, f := counts(t, c, url); v+f != 0 {
		t.Errorf("%d visible, %d in flight; want the whole batch deleted", v, f)
	}
}

// A failed invocation keeps the whole batch, whatever the mapping.
func TestFailedInvocationKeepsTheBatch(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run("IgnoreBatchItemFailures="+strconv.FormatBool(ignore), func(t *testing.T) {
			c, url := newQueue(t)
			ctx := testCtx(t)
			rec := &recorder{err: fmt.Errorf("boom")}
			p := &Poller{SQS: c, QueueURL: url, Handler: rec.handle, Wait: 5, Window: 200 * time.Millisecond, IgnoreBatchItemFailures: ignore}
			send(t, c, url, "m1", "m2")
			if n, err := p.RunOnce(ctx); n == 0 || err == nil {
				t.Fatalf("RunOnce = %d, %v; want the handler's error", n, err)
			}
			if v, f := counts(t, c, url); v+f != 2 {
				t.Errorf("%d visible, %d in flight; want both kept", v, f)
			}
		})
	}
}

// gatherAll runs batches until want messages were received (fauxqs may return fewer than
// are queued in one receive; the window normally gathers them).
func gatherAll(ctx context.Context, p *Poller, want int) (int, error) {
	total := 0
	for total < want && ctx.Err() == nil {
		n, err := p.RunOnce(ctx)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, ctx.Err()
}

func TestFromTemplate(t *testing.T) {
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	sender, _ := tpl.Function("WebhookSenderFunction")
	p, err := FromTemplate(sender)
	if err != nil {
		t.Fatal(err)
	}
	if p.BatchSize != 10 || p.Window != time.Second || p.IgnoreBatchItemFailures {
		t.Errorf("WebhookSenderFunction's poller = %+v; want BatchSize 10, Window 1s, batch item failures honoured", p)
	}
	p, err = FromTemplate(samtemplate.Function{LogicalID: "XFunction", SQS: &samtemplate.SQSEvent{BatchSize: 3}})
	if err != nil || p.BatchSize != 3 || p.Window != 0 || !p.IgnoreBatchItemFailures {
		t.Errorf("FromTemplate without ReportBatchItemFailures = %+v, %v", p, err)
	}
	redrive, _ := tpl.Function("WebhookRedriveFunction")
	if _, err := FromTemplate(redrive); err == nil {
		t.Error("FromTemplate accepted a function without an SQS event")
	}
}
