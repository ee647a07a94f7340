package sqsqueue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// receiver is a merchant's webhook endpoint: it verifies every request with the official
// Standard Webhooks library and answers with the status fail() chooses.
type receiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	attempts map[string]int    // webhook-id -> requests
	ok       map[string][]byte // webhook-id -> body of the accepted delivery
	badSigs  int
	fail     func(id string, attempt int) bool
}

func newReceiver(t *testing.T, secret string, fail func(id string, attempt int) bool) *receiver {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{attempts: map[string]int{}, ok: map[string][]byte{}, fail: fail}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get("webhook-id")
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err := wh.Verify(body, r.Header); err != nil {
			rc.badSigs++
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.attempts[id]++
		if rc.fail != nil && rc.fail(id, rc.attempts[id]) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		rc.ok[id] = body
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

type harness struct {
	a        *localapi.TestAPI
	consumer *sqsqueue.Consumer
	poller   *sqspoll.Poller
	secret   string
}

func setup(t *testing.T, env map[string]string) *harness {
	t.Helper()
	return setupWith(t, localapi.Options{AllowLocalhostURLs: true, Env: env})
}

// setupWith starts the API with opts, issues a sandbox webhook secret through the operator
// (sealed as the stack's sender opens it) and builds WebhookSenderFunction's consumer.
func setupWith(t *testing.T, opts localapi.Options) *harness {
	t.Helper()
	a := localapi.StartTestAPI(t, opts)
	issued, err := a.Operator(t).IssueWebhookSecret(t.Context(), a.Creds.WorkspaceID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	d := a.Deps["WebhookSenderFunction"]
	d.Config.WebhookQueueURL = a.Stack.QueueURL("WebhookQueue") // even where a test breaks the senders' queue URL
	c := registry.WebhookConsumer(d)
	c.Sender.Schedule = make([]time.Duration, len(webhook.DefaultSchedule)) // retry at once in tests
	return &harness{a: a, consumer: c, secret: issued.Secret,
		poller: &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: d.Config.WebhookQueueURL, Handler: c.Handle}}
}

// pay creates a payment with a webhook_url and completes it through the hosted checkout.
func (h *harness) pay(t *testing.T, hook string, ref string) string {
	t.Helper()
	id, page := h.lock(t, hook, ref)
	if r := h.a.Do(t, "POST", page+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	return id
}

// lock creates a payment with a webhook_url and locks a route on its page; it returns the
// invoice id and the page's path.
func (h *harness) lock(t *testing.T, hook string, ref string) (string, string) {
	t.Helper()
	res := h.a.Do(t, "POST", "/v1/payment/create", h.a.Creds.SandboxKey,
		`{"amount": 250.75, "reference": "`+ref+`", "webhook_url": "`+hook+`"}`)
	var c struct{ InvoiceID, PaymentURL string }
	if err := json.Unmarshal(res.Body, &struct {
		InvoiceID  *string `json:"invoice_id"`
		PaymentURL *string `json:"payment_url"`
	}{&c.InvoiceID, &c.PaymentURL}); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(c.PaymentURL)
	if r := h.a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	return c.InvoiceID, u.Path
}

// drain runs the local event source until done(); it fails only when the queue has given
// nothing for 30 s while done() still says no (a slow, loaded machine only slows it down). A
// message still in flight then (a retry whose visibility change failed on a loaded machine
// comes back only after the queue's visibility timeout, as on AWS) extends the wait to that
// timeout and 30 s more.
func (h *harness) drain(t *testing.T, pollers int, done func() bool) {
	t.Helper()
	idleSince := time.Now()
	for !done() {
		if idle := time.Since(idleSince); idle > 30*time.Second {
			_, hidden, visibility := h.queueCounts(t)
			if hidden == 0 || idle > visibility+30*time.Second {
				t.Fatalf("deliveries did not finish: no message for %s (%d in flight)", idle.Round(time.Second), hidden)
			}
		}
		var wg sync.WaitGroup
		var got atomic.Int32
		for range pollers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := h.poller.RunOnce(context.Background())
				if err != nil {
					t.Error(err)
				}
				got.Add(int32(n))
			}()
		}
		wg.Wait()
		if got.Load() > 0 {
			idleSince = time.Now()
		}
	}
}

// queueCounts is the webhook queue's visible and in-flight messages (approximate, as SQS
// counts them) and its visibility timeout.
func (h *harness) queueCounts(t *testing.T) (visible, hidden int, visibility time.Duration) {
	t.Helper()
	out, err := h.a.Stack.Queue.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(h.poller.QueueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible, sqstypes.QueueAttributeNameVisibilityTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n sqstypes.QueueAttributeName) int { v, _ := strconv.Atoi(out.Attributes[string(n)]); return v }
	return attr(sqstypes.QueueAttributeNameApproximateNumberOfMessages),
		attr(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible),
		time.Duration(attr(sqstypes.QueueAttributeNameVisibilityTimeout)) * time.Second
}

func (h *harness) outbox(t *testing.T, id string) *payment.Delivery {
	t.Helper()
	p, err := h.a.Store.GetPayment(context.Background(), id)
	if err != nil || p == nil {
		t.Fatalf("payment %s: %v", id, err)
	}
	return p.Outbox
}

func TestDeliverySignedAndRecorded(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	id := h.pay(t, rc.srv.URL+"/hooks/takapay", "order-wh-1")
	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1 })
	ob := h.outbox(t, id)
	if ob.Status != payment.DeliveryDelivered || ob.Attempts != 1 || ob.LastHTTPStatus != 204 || ob.Kind != "payment.completed" {
		t.Fatalf("outbox %+v", ob)
	}
	var got webhook.Payload
	if err := json.Unmarshal(rc.ok[ob.EventID], &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != ob.EventID || got.Type != "payment.completed" || got.Data.InvoiceID != id || got.Data.Status != payment.Completed ||
		got.Data.AmountMinor != 25075 || got.Data.Currency != "BDT" || got.Data.Reference != "order-wh-1" || got.Data.Environment != auth.Sandbox {
		t.Fatalf("payload %+v", got)
	}
	for _, secret := range []string{h.a.Creds.SandboxKey, h.secret, "01712345678"} {
		if strings.Contains(string(rc.ok[ob.EventID]), secret) {
			t.Fatal("the payload carries a secret or the payer identity")
		}
	}
	if rc.badSigs != 0 {
		t.Fatalf("%d requests failed the official signature check", rc.badSigs)
	}
	// Nothing more is sent: the queue is empty and a duplicate message is a no-op.
	if n, _ := h.poller.RunOnce(context.Background()); n != 0 {
		t.Fatalf("%d messages left", n)
	}
	resp, _ := h.consumer.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "dup",
		Body: `{"invoice_id":"` + id + `","event_id":"` + ob.EventID + `"}`}}})
	if len(resp.BatchItemFailures) != 0 || rc.attempts[ob.EventID] != 1 {
		t.Fatalf("a duplicate message was sent again: %+v, %d attempts", resp, rc.attempts[ob.EventID])
	}
}

func TestRetriesUntilDelivered(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, func(_ string, attempt int) bool { return attempt <= 2 })
	id := h.pay(t, rc.srv.URL+"/hook", "order-wh-2")
	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1 })
	ob := h.outbox(t, id)
	if ob.Status != payment.DeliveryDelivered || ob.Attempts != 3 || rc.attempts[ob.EventID] != 3 || len(rc.attempts) != 1 {
		t.Fatalf("outbox %+v; receiver saw %v (one event id, three attempts expected)", ob, rc.attempts)
	}
}

func TestAlwaysFailingEndsFailedInTheDLQ(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, func(string, int) bool { return true })
	id := h.pay(t, rc.srv.URL+"/hook", "order-wh-3")
	dlq := h.a.Stack.QueueURL("WebhookDeadLetterQueue")
	var dead []string
	h.drain(t, 1, func() bool {
		out, err := h.a.Stack.Queue.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			dead = append(dead, aws.ToString(m.Body))
		}
		return len(dead) > 0
	})
	ob := h.outbox(t, id)
	attempts := len(webhook.DefaultSchedule) + 1
	if ob.Status != payment.DeliveryFailed || ob.Attempts != attempts || rc.attempts[ob.EventID] != attempts {
		t.Fatalf("outbox %+v, receiver attempts %d, want %d and failed", ob, rc.attempts[ob.EventID], attempts)
	}
	if len(dead) != 1 || !strings.Contains(dead[0], ob.EventID) {
		t.Fatalf("dead-letter queue holds %v", dead)
	}
}

func TestGoneStopsRetrying(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) }))
	t.Cleanup(gone.Close)
	id := h.pay(t, gone.URL+"/hook", "order-wh-410")
	h.drain(t, 1, func() bool { return h.outbox(t, id).Status != payment.DeliveryPending })
	if ob := h.outbox(t, id); ob.Status != payment.DeliveryFailed || ob.Attempts != 1 || ob.LastHTTPStatus != 410 {
		t.Fatalf("outbox %+v", ob)
	}
	if n, _ := h.poller.RunOnce(context.Background()); n != 0 {
		t.Fatal("a 410 delivery is still queued")
	}
}

// A crash between the state write and the SQS send (simulated: the send fails) loses nothing:
// the event is in the payment's outbox, and the re-drive re-enqueues it.
func TestCrashBeforeSendRecoveredByRedrive(t *testing.T) {
	t.Parallel()
	h := setup(t, map[string]string{"WEBHOOK_QUEUE_URL": "http://127.0.0.1:1/000000000000/unreachable"})
	rc := newReceiver(t, h.secret, nil)
	id := h.pay(t, rc.srv.URL+"/hook", "order-wh-crash")
	if ob := h.outbox(t, id); ob == nil || ob.Status != payment.DeliveryPending {
		t.Fatalf("the state change did not record its event: %+v", ob)
	}
	if n, _ := h.poller.RunOnce(context.Background()); n != 0 {
		t.Fatal("the failed send reached the queue after all")
	}
	redrive := registry.WebhookRedrive(h.a.Deps["WebhookRedriveFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	// Not yet: the message may still be on its way until the visibility timeout has passed.
	if n, err := redrive.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("re-drive sent %d (%v) before the event was overdue, want 0", n, err)
	}
	later := time.Now().Add(webhook.DefaultOverdue + time.Second)
	redrive.Now = func() time.Time { return later }
	if n, err := redrive.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("re-drive sent %d (%v), want 1", n, err)
	}
	// The re-enqueued event is rescheduled: the next run leaves the message alone.
	if n, err := redrive.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second re-drive run sent %d (%v), want 0", n, err)
	}
	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1 })
	if ob := h.outbox(t, id); ob.Status != payment.DeliveryDelivered {
		t.Fatalf("outbox %+v", ob)
	}
	if n, _ := redrive.Run(context.Background()); n != 0 {
		t.Fatalf("re-drive found %d pending after delivery", n)
	}
}

// 500 completed payments, a receiver that fails 30 % of attempts: every event is delivered, and
// no event arrives that a payment did not record.
func TestManyPaymentsFlakyReceiver(t *testing.T) {
	t.Parallel()
	h := setup(t, map[string]string{"CHECKOUT_RATE_PER_CLIENT": "100000", "WORKSPACE_RATE_LIMIT": "100000"})
	rng := rand.New(rand.NewSource(7))
	var rngMu sync.Mutex
	rc := newReceiver(t, h.secret, func(string, int) bool { rngMu.Lock(); defer rngMu.Unlock(); return rng.Float64() < 0.3 })
	const n = 500
	ids := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ids[i] = h.pay(t, rc.srv.URL+"/hook", fmt.Sprintf("bulk-%03d", i))
		}()
	}
	wg.Wait()
	h.drain(t, 4, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) >= n })
	recorded := map[string]string{}
	for _, id := range ids {
		ob := h.outbox(t, id)
		if ob.Status != payment.DeliveryDelivered {
			t.Fatalf("%s: %+v", id, ob)
		}
		recorded[ob.EventID] = id
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for eid := range rc.attempts {
		if _, ok := recorded[eid]; !ok {
			t.Fatalf("the receiver got event %s that no payment recorded", eid)
		}
	}
	if len(rc.ok) != n || rc.badSigs != 0 {
		t.Fatalf("%d events delivered (want %d), %d bad signatures", len(rc.ok), n, rc.badSigs)
	}
	total := 0
	for _, c := range rc.attempts {
		total += c
	}
	t.Logf("%d events, %d attempts (%.2f per event)", n, total, float64(total)/n)
}

// The send-time check refuses loopback (and every non-public address) even when the URL was
// accepted at create; here the sender runs with the production client.
func TestSendTimeSSRFCheck(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	id := h.pay(t, rc.srv.URL+"/hook", "order-wh-ssrf")
	sender := *h.consumer.Sender
	sender.Client = webhook.NewClient(webhook.ClientOptions{})
	prod := *h.consumer
	prod.Sender = &sender
	h.poller.Handler = prod.Handle
	if _, err := h.poller.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ob := h.outbox(t, id)
	if ob.Status != payment.DeliveryPending || ob.Attempts != 1 || ob.LastHTTPStatus != 0 || !strings.Contains(ob.Detail, "not delivered") {
		t.Fatalf("outbox %+v", ob)
	}
	if len(rc.attempts) != 0 {
		t.Fatal("the receiver on loopback was reached")
	}
}

// A payment that simply runs out of time, with nobody looking at it, still emits
// payment.expired: the scheduled sweep expires it from the expiry index.
func TestUnattendedExpiryEmitsEvent(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	res := h.a.Do(t, "POST", "/v1/payment/create", h.a.Creds.SandboxKey, `{"amount": 99, "reference": "order-wh-exp", "webhook_url": "`+rc.srv.URL+`/hook"}`)
	var c struct {
		InvoiceID string `json:"invoice_id"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	redrive := registry.WebhookRedrive(h.a.Deps["WebhookRedriveFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	if n, err := redrive.Expire(context.Background()); err != nil || n != 0 {
		t.Fatalf("a payment within its expiry was expired: %d %v", n, err)
	}
	// Move the expiry (and its index key) into the past, standing in for the passage of time.
	past := time.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000000000Z")
	if _, err := h.a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(h.a.Store.Table),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + c.InvoiceID}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression:          aws.String("SET expires_at = :t, gsi2sk = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: past}},
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := redrive.Expire(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep expired %d (%v), want 1", n, err)
	}
	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1 })
	ob := h.outbox(t, c.InvoiceID)
	p, _ := h.a.Store.GetPayment(context.Background(), c.InvoiceID)
	if p.Status != payment.Expired || ob.Kind != "payment.expired" || ob.Status != payment.DeliveryDelivered {
		t.Fatalf("status %s, outbox %+v", p.Status, ob)
	}
	if n, _ := redrive.Expire(context.Background()); n != 0 {
		t.Fatal("an expired payment was swept twice")
	}
}

// The documented retry schedule holds, on a compressed clock: against a receiver that always
// fails, attempt k+1 is made DefaultSchedule[k] after attempt k, the delivery fails after
// len(DefaultSchedule)+1 attempts, exactly one message is in flight for the event throughout,
// and the re-drive never adds a second one while a retry is merely waiting out its delay.
func TestRetryScheduleKeptWithOneMessageInFlight(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	// The sender's clock is compressed, so its signatures carry timestamps a real receiver's
	// 5-minute tolerance would refuse; this receiver only counts (signing is tested above).
	var hits atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	id := h.pay(t, failing.URL+"/hook", "order-wh-schedule")

	var mu sync.Mutex
	clock := time.Now().UTC().Truncate(time.Second)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }

	sender := *h.consumer.Sender
	sender.Schedule, sender.Now = webhook.DefaultSchedule, now
	consumer := *h.consumer
	consumer.Sender = &sender
	var receipt string
	h.poller.Handler = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if len(ev.Records) != 1 {
			t.Errorf("%d messages in one receive, want the event's one", len(ev.Records))
		}
		receipt = ev.Records[len(ev.Records)-1].ReceiptHandle
		return consumer.Handle(ctx, ev)
	}
	redrive := registry.WebhookRedrive(h.a.Deps["PaymentCreateFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	redrive.Now = now

	inFlight := func() (visible, hidden int) {
		visible, hidden, _ = h.queueCounts(t)
		return visible, hidden
	}

	var spacing []time.Duration
	var last time.Time
	for attempt := 1; attempt <= len(webhook.DefaultSchedule)+1; attempt++ {
		if n, err := h.poller.RunOnce(context.Background()); err != nil || n != 1 {
			t.Fatalf("attempt %d: received %d messages (%v), want 1", attempt, n, err)
		}
		ob := h.outbox(t, id)
		if ob.Attempts != attempt || int(hits.Load()) != attempt {
			t.Fatalf("attempt %d: outbox records %d attempts, receiver saw %d", attempt, ob.Attempts, hits.Load())
		}
		if attempt > 1 {
			spacing = append(spacing, ob.LastAttemptAt.Sub(last))
		}
		last = *ob.LastAttemptAt
		if attempt > len(webhook.DefaultSchedule) {
			if ob.Status != payment.DeliveryFailed {
				t.Fatalf("after %d attempts the delivery is %s, want failed", attempt, ob.Status)
			}
			break
		}
		delay := webhook.DefaultSchedule[attempt-1]
		if ob.Status != payment.DeliveryPending || !ob.NextAttemptAt.Equal(last.Add(delay)) {
			t.Fatalf("attempt %d: outbox %+v, want pending with the next attempt %s later", attempt, ob, delay)
		}
		// One message, hidden until its retry is due; the re-drive leaves it alone until it is
		// overdue by more than the visibility timeout.
		if v, hidden := inFlight(); v != 0 || hidden != 1 {
			t.Fatalf("attempt %d: %d visible and %d in-flight messages, want 0 and 1", attempt, v, hidden)
		}
		advance(delay + webhook.DefaultOverdue - time.Second) // the last moment the message may still be on its way
		if n, err := redrive.Run(context.Background()); err != nil || n != 0 {
			t.Fatalf("attempt %d: the re-drive re-enqueued %d (%v) while the retry was waiting", attempt, n, err)
		}
		advance(-(webhook.DefaultOverdue - time.Second)) // back to when the retry is due
		// SQS would show the message again when its delay is over: fast-forward its visibility.
		if _, err := h.a.Stack.Queue.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{
			QueueUrl: aws.String(h.poller.QueueURL), ReceiptHandle: aws.String(receipt), VisibilityTimeout: 0,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(spacing, webhook.DefaultSchedule) {
		t.Fatalf("attempts were spaced %v, want the schedule %v", spacing, webhook.DefaultSchedule)
	}
	var total time.Duration
	for _, d := range spacing {
		total += d
	}
	t.Logf("%d attempts over %s", len(spacing)+1, total)
}

// A state change never waits on the queue: with SQS hung (fauxqs stopped), approve answers
// promptly — COMPLETED is recorded with its event — and repeating it is a success, not a
// conflict. When SQS is back, the event is delivered, once.
func TestApproveDoesNotWaitOnAHungQueue(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	rc := newReceiver(t, h.secret, nil)
	id, page := h.lock(t, rc.srv.URL+"/hook", "order-wh-sqs-down")

	if err := h.a.Stack.SQS.Pause(); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := h.a.Stack.SQS.Resume(); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(resume)
	for _, what := range []string{"approve", "approve again"} {
		start := time.Now()
		r := h.a.Do(t, "POST", page+"/notices/approve", "", "")
		took := time.Since(start)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"status":"COMPLETED"`) {
			t.Fatalf("%s with SQS hung: %d %s", what, r.Status, r.Body)
		}
		// The enqueue is bounded by 0.5 s; the rest is two DynamoDB round trips.
		if took > 3*time.Second {
			t.Errorf("%s took %s with SQS hung: the answer waited on the queue", what, took)
		}
		t.Logf("%s with SQS hung: 200 after %s", what, took.Round(time.Millisecond))
	}
	ob := h.outbox(t, id)
	if ob == nil || ob.Status != payment.DeliveryPending {
		t.Fatalf("the state change did not record its event: %+v", ob)
	}

	resume()
	// The send that timed out may still have reached fauxqs once it woke; if it did not, the
	// re-drive sends the event once it is overdue. Either way: delivered, exactly once.
	redrive := registry.WebhookRedrive(h.a.Deps["PaymentCreateFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	later := time.Now().Add(webhook.DefaultOverdue + time.Second)
	redrive.Now = func() time.Time { return later }
	if _, err := redrive.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.drain(t, 1, func() bool { return h.outbox(t, id).Status == payment.DeliveryDelivered })
	for range 3 { // any duplicate message is consumed without a second delivery
		if _, err := h.poller.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.attempts[ob.EventID] != 1 || len(rc.ok) != 1 {
		t.Fatalf("receiver saw %v, want the one event once", rc.attempts)
	}
}

// A webhook_url's path and query may hold a merchant's secret token: when a delivery gets no
// answer (a closed port, a receiver that never answers), the outbox's detail and every log
// line name the receiver's host and never the path or the query.
func TestFailedDeliveryNamesOnlyTheHost(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	sender := *h.consumer.Sender
	sender.Client = webhook.NewClient(webhook.ClientOptions{AllowLocalhost: true, Timeout: 300 * time.Millisecond})
	consumer := *h.consumer
	consumer.Sender = &sender
	h.poller.Handler = consumer.Handle

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(hang) })
	const path, secret = "/merchant-hooks/acct-7731", "SECRET"
	for name, c := range map[string]struct{ base, cause string }{
		"closed port": {closed.URL, "connection refused"},
		"no answer":   {slow.URL, "Client.Timeout exceeded"},
	} {
		u, _ := url.Parse(c.base)
		id := h.pay(t, c.base+path+"?token="+secret+"&shop=1", "order-wh-"+strings.ReplaceAll(name, " ", "-"))
		h.drain(t, 1, func() bool { return h.outbox(t, id).Attempts >= 1 })
		ob := h.outbox(t, id)
		if ob.Status != payment.DeliveryPending || ob.LastHTTPStatus != 0 ||
			!strings.HasPrefix(ob.Detail, "not delivered: "+u.Host+": ") || !strings.Contains(ob.Detail, c.cause) {
			t.Errorf("%s: detail %q, want \"not delivered: %s: …%s…\"", name, ob.Detail, u.Host, c.cause)
		}
		if strings.Contains(ob.Detail, secret) || strings.Contains(ob.Detail, path) || strings.Contains(ob.Detail, "shop=1") {
			t.Errorf("%s: the stored detail holds the URL's path or query: %q", name, ob.Detail)
		}
		attempts := 0
		for _, line := range h.a.Logs.Lines() {
			text, _ := json.Marshal(line)
			if strings.Contains(string(text), secret) || strings.Contains(string(text), path) {
				t.Errorf("%s: a log line holds the URL's path or query: %s", name, text)
			}
			if line["msg"] == "webhook attempt" && line["invoice_id"] == id {
				attempts++
				if d, _ := line["detail"].(string); d != ob.Detail {
					t.Errorf("%s: logged detail %q, stored %q", name, d, ob.Detail)
				}
			}
		}
		if attempts == 0 {
			t.Errorf("%s: no log line for the attempt", name)
		}
	}
}
