package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// hookRequest is one request a receiver got.
type hookRequest struct {
	header    http.Header
	body      []byte
	verifyErr error // the official Standard Webhooks library's verdict (timestamp checked too)
}

// hookServer is a merchant's endpoint: it keeps every request and answers with status.
type hookServer struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []hookRequest
}

func newHookServer(t *testing.T, secret string) *hookServer {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := &hookServer{}
	h.status.Store(http.StatusNoContent)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, hookRequest{header: r.Header.Clone(), body: body, verifyErr: wh.Verify(body, r.Header)})
		h.mu.Unlock()
		w.WriteHeader(int(h.status.Load()))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookServer) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got...)
}

// deliveryJSON is one element of webhook deliveries --json.
type deliveryJSON struct {
	InvoiceID      string `json:"invoice_id"`
	EventID        string `json:"event_id"`
	Kind           string `json:"kind"`
	Status         string `json:"status"`
	CreatedAt      string `json:"created_at"`
	Attempts       int    `json:"attempts"`
	PriorAttempts  int    `json:"attempts_before_resend"`
	LastAttemptAt  string `json:"last_attempt_at"`
	LastHTTPStatus int    `json:"last_http_status"`
	Detail         string `json:"detail"`
	NextAttemptAt  string `json:"next_attempt_at"`
	CorrelationID  string `json:"correlation_id"`
}

// apiCLI is the CLI against a running local API (dynalite, fauxqs, the real handlers) with
// WebhookSenderFunction's consumer behind the local event source.
type apiCLI struct {
	*cli
	a      *localapi.TestAPI
	poller *sqspoll.Poller
}

func newAPICLI(t *testing.T) *apiCLI {
	t.Helper()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	sealer, err := kmsseal.NewLocal(a.Stack.SealingKey)
	if err != nil {
		t.Fatal(err)
	}
	queueURL := a.Stack.QueueURL("WebhookQueue")
	c := &cli{stack: a.Stack, store: a.Store, sealer: sealer, ctx: ctx,
		queue: &sqsqueue.Queue{SQS: a.Stack.Queue, URL: queueURL}, urls: urlcheck.Policy{AllowLocalhost: true}}
	consumer := registry.WebhookConsumer(a.Deps["WebhookSenderFunction"])
	consumer.Sender.Schedule = make([]time.Duration, len(webhook.DefaultSchedule)) // retry at once
	return &apiCLI{cli: c, a: a, poller: &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: queueURL, Handler: consumer.Handle}}
}

// pay creates a sandbox payment with a webhook_url and approves it on its checkout; it
// returns the invoice id and the approve's correlation id.
func (c *apiCLI) pay(t *testing.T, hook string) (string, string) {
	t.Helper()
	res := c.a.Do(t, "POST", "/v1/payment/create", c.a.Creds.SandboxKey, `{"amount": 120, "webhook_url": "`+hook+`"}`)
	var p struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &p); err != nil || res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(p.PaymentURL)
	if r := c.a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	r := c.a.Do(t, "POST", u.Path+"/notices/approve", "", "")
	if r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	return p.InvoiceID, r.Header.Get("X-Correlation-Id")
}

// drain runs the local event source until done() (or fails after 30 s).
func (c *apiCLI) drain(t *testing.T, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("the queue did not deliver in 30 s")
		}
		if _, err := c.poller.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *cli) deliveries(t *testing.T, invoiceID string) []deliveryJSON {
	t.Helper()
	out, _ := c.ok(t, "webhook", "deliveries", "--invoice", invoiceID, "--json")
	var list []deliveryJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("webhook deliveries --json: %v\n%s", err, out)
	}
	return list
}

func (c *cli) delivery(t *testing.T, invoiceID string) deliveryJSON {
	t.Helper()
	list := c.deliveries(t, invoiceID)
	if len(list) != 1 {
		t.Fatalf("webhook deliveries of %s: %+v, want one event", invoiceID, list)
	}
	return list[0]
}

// pendingRefs lists the events in the re-drive's index of pending events, due or not.
func (c *cli) pendingRefs(t *testing.T) []payment.EventRef {
	t.Helper()
	refs, err := c.store.PendingDeliveries(c.ctx, time.Now().Add(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// nextSecond waits until the unix second after ts: a webhook signed later has another
// webhook-timestamp, hence another signature.
func nextSecond(ts string) {
	sec, _ := strconv.ParseInt(ts, 10, 64)
	time.Sleep(time.Until(time.Unix(sec+1, 0)))
}

// A delivered event, shown and resent: the sender sends it again with the same webhook-id and
// payload and a new signature; the delivery shows each step, and the correlation id of the
// request that caused the event.
func TestWebhookDeliveriesAndResend(t *testing.T) {
	t.Parallel()
	c := newAPICLI(t)
	ws := c.a.Creds.WorkspaceID
	secret := fields(mustOut(c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")))["secret"]
	rc := newHookServer(t, secret)
	id, cid := c.pay(t, rc.srv.URL+"/hook")

	// Recorded, not yet sent.
	d := c.delivery(t, id)
	if d.InvoiceID != id || d.EventID == "" || d.Kind != "payment.completed" || d.Status != "pending" ||
		d.Attempts != 0 || d.LastAttemptAt != "" || d.NextAttemptAt == "" || d.CorrelationID != cid || cid == "" || d.CreatedAt == "" {
		t.Fatalf("before sending: %+v (approve's correlation id %s)", d, cid)
	}
	out, _ := c.ok(t, "webhook", "deliveries", "--invoice", strings.ToUpper(id))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "EVENT_ID ") || !strings.Contains(lines[0], "NEXT_ATTEMPT_AT") ||
		!strings.HasPrefix(lines[1], d.EventID+" ") || !strings.Contains(lines[1], " pending ") || !strings.Contains(lines[1], cid) {
		t.Fatalf("deliveries table:\n%s", out)
	}

	c.drain(t, func() bool { return len(rc.requests()) == 1 })
	d = c.delivery(t, id)
	if d.Status != "delivered" || d.Attempts != 1 || d.PriorAttempts != 0 || d.LastHTTPStatus != 204 || d.LastAttemptAt == "" ||
		d.NextAttemptAt != "" || d.Detail != "HTTP 204" || d.CorrelationID != cid {
		t.Fatalf("after delivery: %+v", d)
	}
	first := rc.requests()[0]
	if first.verifyErr != nil || first.header.Get("webhook-id") != d.EventID {
		t.Fatalf("first delivery: %v, webhook-id %q", first.verifyErr, first.header.Get("webhook-id"))
	}
	if refs := c.pendingRefs(t); len(refs) != 0 {
		t.Fatalf("a delivered event is in the pending index: %+v", refs)
	}

	// Resend: pending again and due now, back in the re-drive's index, its attempts kept.
	nextSecond(first.header.Get("webhook-timestamp"))
	before := time.Now().UTC().Truncate(time.Second)
	out, _ = c.ok(t, "webhook", "resend", "--invoice", id, "--event", d.EventID)
	f := fields(out)
	if f["resent"] != d.EventID+" (payment.completed)" || f["invoice_id"] != id || f["was"] != "delivered after 1 attempts" ||
		f["status"] != "pending, due now, enqueued" {
		t.Fatalf("resend output:\n%s", out)
	}
	r := c.delivery(t, id)
	next, err := time.Parse(time.RFC3339, r.NextAttemptAt)
	if r.EventID != d.EventID || r.Status != "pending" || r.Attempts != 0 || r.PriorAttempts != 1 || err != nil ||
		next.Before(before) || next.After(time.Now()) || r.LastHTTPStatus != 204 || r.LastAttemptAt != d.LastAttemptAt ||
		r.Detail != "resent by an operator after 1 attempts (was delivered, last HTTP 204)" || r.CorrelationID != cid {
		t.Fatalf("after resend: %+v", r)
	}
	if refs := c.pendingRefs(t); len(refs) != 1 || refs[0] != (payment.EventRef{InvoiceID: id, EventID: d.EventID}) {
		t.Fatalf("the pending index after resend: %+v", refs)
	}
	out, _ = c.ok(t, "webhook", "deliveries", "--invoice", id)
	if !strings.Contains(out, " 0 (+1 before resend) ") {
		t.Errorf("deliveries table after resend:\n%s", out)
	}

	c.drain(t, func() bool { return len(rc.requests()) == 2 })
	second := rc.requests()[1]
	if second.verifyErr != nil || second.header.Get("webhook-id") != d.EventID || !bytes.Equal(second.body, first.body) ||
		second.header.Get("webhook-signature") == first.header.Get("webhook-signature") ||
		second.header.Get("webhook-timestamp") <= first.header.Get("webhook-timestamp") {
		t.Fatalf("resent delivery: verify %v, webhook-id %q, same body %v, signatures %q and %q, timestamps %s and %s",
			second.verifyErr, second.header.Get("webhook-id"), bytes.Equal(second.body, first.body),
			first.header.Get("webhook-signature"), second.header.Get("webhook-signature"),
			first.header.Get("webhook-timestamp"), second.header.Get("webhook-timestamp"))
	}
	d = c.delivery(t, id)
	if d.Status != "delivered" || d.Attempts != 1 || d.PriorAttempts != 1 || d.NextAttemptAt != "" || d.Detail != "HTTP 204" {
		t.Fatalf("after the resent delivery: %+v", d)
	}
	if refs := c.pendingRefs(t); len(refs) != 0 {
		t.Fatalf("the pending index after the resent delivery: %+v", refs)
	}
	if n, _ := c.poller.RunOnce(context.Background()); n != 0 {
		t.Fatalf("%d messages left in the queue", n)
	}

	// --json, and the global flags after the command words; a second resend counts both runs.
	out, _ = c.ok(t, "webhook", "resend", "--event", d.EventID, "--json", "--invoice", id)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["invoice_id"] != id || v["event_id"] != d.EventID ||
		v["previous_status"] != "delivered" || v["previous_attempts"] != float64(1) || v["status"] != "pending" ||
		v["enqueued"] != true || v["next_attempt_at"] == "" {
		t.Fatalf("resend --json = %s (%v)", out, err)
	}
	c.drain(t, func() bool { return len(rc.requests()) == 3 })
	if d := c.delivery(t, id); d.Status != "delivered" || d.Attempts != 1 || d.PriorAttempts != 2 {
		t.Fatalf("after the second resend: %+v", d)
	}
}

func mustOut(stdout, _ string) string { return stdout }

// A failed event is resent once the receiver is fixed; what cannot be resent is refused, with
// nothing written.
func TestWebhookResendFailedAndRefused(t *testing.T) {
	t.Parallel()
	c := newAPICLI(t)
	ws := c.a.Creds.WorkspaceID
	secret := fields(mustOut(c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")))["secret"]
	rc := newHookServer(t, secret)
	rc.status.Store(http.StatusGone) // failed at once: no retries
	id, _ := c.pay(t, rc.srv.URL+"/hook")
	c.drain(t, func() bool { return len(rc.requests()) == 1 })
	d := c.delivery(t, id)
	if d.Status != "failed" || d.Attempts != 1 || d.LastHTTPStatus != 410 || d.NextAttemptAt != "" {
		t.Fatalf("after 410: %+v", d)
	}

	// Refusals: exit 2 for the command line, 1 for the event; the delivery is left as it was.
	unpaid := c.a.Do(t, "POST", "/v1/payment/create", c.a.Creds.SandboxKey, `{"amount": 5, "webhook_url": "https://hooks.example.com/x"}`)
	var pending struct {
		InvoiceID string `json:"invoice_id"`
	}
	_ = json.Unmarshal(unpaid.Body, &pending)
	for _, tc := range []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"webhook", "resend", "--invoice", id}, 2, "--event is required"},
		{[]string{"webhook", "resend", "--event", d.EventID}, 2, "--invoice is required"},
		{[]string{"webhook", "resend", "--invoice", "nope", "--event", d.EventID}, 2, "must be an invoice"},
		{[]string{"webhook", "resend", "--invoice", id, "--event", "evt_test_0123"}, 2, "--event must be"},
		{[]string{"webhook", "resend", "--invoice", id, "--event", "evt_000000000000000000000000"}, 1, "has no event evt_000000000000000000000000 (its event is " + d.EventID},
		{[]string{"webhook", "resend", "--invoice", id, "--event", " "}, 2, "--event is required"},
		{[]string{"webhook", "resend", "--invoice", uuid.NewString(), "--event", d.EventID}, 1, "not found"},
		{[]string{"webhook", "resend", "--invoice", pending.InvoiceID, "--event", d.EventID}, 1, "recorded no webhook event (status PENDING)"},
		{[]string{"webhook", "deliveries", "--invoice", uuid.NewString()}, 1, "not found"},
		{[]string{"webhook", "deliveries"}, 2, "--invoice is required"},
		{[]string{"webhook", "deliveries", "--invoice", id, "extra"}, 2, "unexpected argument"},
	} {
		out, _, err := c.run(tc.args...)
		if err == nil || exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.wantErr) || out != "" {
			t.Errorf("paymentsctl %q = %v (exit code %d), stdout %q; want exit %d and %q", tc.args, err, exitCode(err), out, tc.code, tc.wantErr)
		}
	}
	if got := c.deliveries(t, pending.InvoiceID); len(got) != 0 {
		t.Errorf("deliveries of a pending payment: %+v", got)
	}
	// Without a queue (and none in the environment): a usage error before anything is written.
	noQueue := *c.cli
	noQueue.queue = nil
	if _, _, err := noQueue.run("webhook", "resend", "--invoice", id, "--event", d.EventID, "--queue", ""); err == nil ||
		exitCode(err) != 2 || !strings.Contains(err.Error(), "no webhook queue") {
		t.Errorf("resend without a queue = %v", err)
	}
	if got := c.delivery(t, id); got != d {
		t.Fatalf("refused resends changed the delivery: %+v, was %+v", got, d)
	}

	// The receiver is fixed: resent, delivered.
	rc.status.Store(http.StatusOK)
	out, _ := c.ok(t, "webhook", "resend", "--invoice", id, "--event", d.EventID)
	if fields(out)["was"] != "failed after 1 attempts" {
		t.Errorf("resend output:\n%s", out)
	}
	if r := c.delivery(t, id); r.Status != "pending" || r.Detail != "resent by an operator after 1 attempts (was failed, last HTTP 410)" {
		t.Errorf("after resend: %+v", r)
	}
	c.drain(t, func() bool { return len(rc.requests()) == 2 })
	if got := rc.requests()[1]; got.verifyErr != nil || got.header.Get("webhook-id") != d.EventID || !bytes.Equal(got.body, rc.requests()[0].body) {
		t.Fatalf("resent delivery: %v, webhook-id %q", got.verifyErr, got.header.Get("webhook-id"))
	}
	if d := c.delivery(t, id); d.Status != "delivered" || d.Attempts != 1 || d.PriorAttempts != 1 || d.LastHTTPStatus != 200 {
		t.Fatalf("after the resent delivery: %+v", d)
	}

	// A linked intent's final event waits for its document follow-up: refused until it is
	// settled; once resent, its delivery does not queue the follow-up again. (The item is
	// made linked by hand: the follow-up itself is package webhook's.)
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}}
	update := func(expr string, vals map[string]types.AttributeValue) {
		t.Helper()
		if _, err := c.stack.DDB.UpdateItem(c.ctx, &dynamodb.UpdateItemInput{TableName: aws.String(c.store.Table), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals}); err != nil {
			t.Fatal(err)
		}
	}
	update("SET src = :k, document_id = :d", map[string]types.AttributeValue{
		":k": &types.AttributeValueMemberS{Value: "invoices"}, ":d": &types.AttributeValueMemberS{Value: uuid.NewString()}})
	if _, _, err := c.run("webhook", "resend", "--invoice", id, "--event", d.EventID); err == nil || exitCode(err) != 1 ||
		!strings.Contains(err.Error(), "document follow-up") {
		t.Fatalf("resend of an unsettled linked event = %v", err)
	}
	update("SET outbox.settled = :t", map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}})
	c.ok(t, "webhook", "resend", "--invoice", id, "--event", d.EventID)
	c.drain(t, func() bool { return len(rc.requests()) == 3 })
	out2, err := c.stack.DDB.GetItem(c.ctx, &dynamodb.GetItemInput{TableName: aws.String(c.store.Table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out2.Item["gsi2pk"]; ok {
		t.Errorf("a settled event, resent and delivered, is still indexed: gsi2pk %v", out2.Item["gsi2pk"])
	}
}

// webhook deliveries shows a failed attempt's detail as the sender stored it: the receiver's
// host and the cause, never the webhook_url's path or query (which may hold a secret token).
func TestWebhookDeliveriesShowOnlyTheHost(t *testing.T) {
	t.Parallel()
	c := newAPICLI(t)
	ws := c.a.Creds.WorkspaceID
	c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	host := strings.TrimPrefix(dead.URL, "http://")
	id, _ := c.pay(t, dead.URL+"/hooks/acct-7?token=SECRET")
	c.drain(t, func() bool { return c.delivery(t, id).Attempts >= 1 })
	d := c.delivery(t, id)
	if d.Status != "pending" || !strings.HasPrefix(d.Detail, "not delivered: "+host+": ") {
		t.Fatalf("delivery %+v, want a detail naming %s", d, host)
	}
	table, _ := c.ok(t, "webhook", "deliveries", "--invoice", id)
	js, _ := c.ok(t, "webhook", "deliveries", "--invoice", id, "--json")
	for _, out := range []string{table, js} {
		if !strings.Contains(out, "not delivered: "+host+": ") || strings.Contains(out, "SECRET") || strings.Contains(out, "acct-7") {
			t.Errorf("webhook deliveries prints more than the host:\n%s", out)
		}
	}
}

// webhook test signs like the sender (every active secret), posts to the URL and prints the
// answer; the URL rules, a missing secret or key, and a non-2xx answer are reported.
func TestWebhookTestCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.urls = urlcheck.Policy{AllowLocalhost: true} // the local stack's rules (make dev)
	ws := c.createWorkspace(t, "W")
	hookArgs := func(u string, extra ...string) []string {
		return append([]string{"webhook", "test", "--workspace", ws, "--env", "sandbox", "--url", u}, extra...)
	}
	if _, _, err := c.run(hookArgs("http://127.0.0.1:1/hook")...); err == nil || exitCode(err) != 1 ||
		!strings.Contains(err.Error(), "no active webhook secret") {
		t.Errorf("without a secret: %v", err)
	}
	first := fields(mustOut(c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")))["secret"]
	rc := newHookServer(t, first)

	before := time.Now().UTC()
	// The output names the receiver's host, never the URL's path or query (a secret token).
	host := strings.TrimPrefix(rc.srv.URL, "http://")
	out, _ := c.ok(t, hookArgs(rc.srv.URL+"/hooks/takapay?token=SECRET")...)
	f := fields(out)
	latency, err := strconv.ParseFloat(f["latency_ms"], 64)
	if !strings.HasPrefix(f["event_id"], "evt_test_") || len(f["event_id"]) != len("evt_test_")+24 || f["host"] != host ||
		strings.Contains(out, "SECRET") || strings.Contains(out, "/hooks/takapay") ||
		f["http_status"] != "204" || f["signatures"] != "1" || err != nil || latency <= 0 {
		t.Fatalf("webhook test output:\n%s", out)
	}
	reqs := rc.requests()
	if len(reqs) != 1 || reqs[0].verifyErr != nil || reqs[0].header.Get("webhook-id") != f["event_id"] ||
		reqs[0].header.Get("User-Agent") != webhook.UserAgent || reqs[0].header.Get("Content-Type") != "application/json" {
		t.Fatalf("the receiver got %d requests: %+v", len(reqs), reqs)
	}
	var body struct {
		ID        string                     `json:"id"`
		Type      string                     `json:"type"`
		Timestamp time.Time                  `json:"timestamp"`
		Data      map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(reqs[0].body, &body); err != nil || body.ID != f["event_id"] || body.Type != "webhook.test" ||
		body.Timestamp.Before(before.Add(-time.Second)) || body.Timestamp.After(time.Now()) || len(body.Data) != 2 ||
		string(body.Data["workspace_id"]) != `"`+ws+`"` || string(body.Data["environment"]) != `"sandbox"` {
		t.Fatalf("test event body %s (%v)", reqs[0].body, err)
	}

	// During a rotation both secrets sign, as for real events; --json.
	second := fields(mustOut(c.ok(t, "webhook", "secret", "rotate", "--workspace", ws, "--env", "sandbox")))["secret"]
	out, _ = c.ok(t, hookArgs(rc.srv.URL+"/hook", "--json")...)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["signatures"] != float64(2) || v["http_status"] != float64(204) ||
		v["type"] != "webhook.test" || v["workspace_id"] != ws || v["environment"] != "sandbox" || v["host"] != host {
		t.Fatalf("webhook test --json = %s (%v)", out, err)
	}
	got := rc.requests()[1]
	if sigs := strings.Fields(got.header.Get("webhook-signature")); len(sigs) != 2 || got.verifyErr != nil {
		t.Fatalf("signatures during the rotation: %q (%v)", got.header.Get("webhook-signature"), got.verifyErr)
	}
	if wh, _ := standardwebhooks.NewWebhook(second); wh.Verify(got.body, got.header) != nil {
		t.Error("the new secret does not verify the test event")
	}

	// A non-2xx answer is printed, and fails the command.
	rc.status.Store(http.StatusInternalServerError)
	out, _, err = c.run(hookArgs(rc.srv.URL + "/hook")...)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "HTTP 500") || fields(out)["http_status"] != "500" {
		t.Errorf("against a 500: %v\n%s", err, out)
	}
	// No answer at all.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if out, stderr, err := c.run(hookArgs(dead.URL + "/hook/acct-7?token=SECRET")...); err == nil || exitCode(err) != 1 ||
		!strings.Contains(err.Error(), "not delivered") || !strings.Contains(err.Error(), strings.TrimPrefix(dead.URL, "http://")+": ") ||
		strings.Contains(err.Error()+stderr, "SECRET") || strings.Contains(err.Error()+stderr, "acct-7") || out != "" {
		t.Errorf("against a closed port: %v\n%s%s", err, out, stderr)
	}

	// URLs are checked like any webhook_url (usage errors, nothing sent).
	n := len(rc.requests())
	prod := *c
	prod.urls = urlcheck.Policy{}
	for _, tc := range []struct {
		c   *cli
		url string
	}{
		{c, "ftp://hooks.example.com/x"},
		{c, "https://10.0.0.1/hook"},
		{c, "https://169.254.169.254/latest/meta-data"},
		{c, "https://user:pw@hooks.example.com/x"},
		{&prod, rc.srv.URL + "/hook"}, // localhost, with production's rules
		{&prod, "http://hooks.example.com/x"},
	} {
		if out, _, err := tc.c.run(hookArgs(tc.url)...); err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "--url is refused") || out != "" {
			t.Errorf("--url %s: %v (exit code %d)", tc.url, err, exitCode(err))
		}
	}
	if len(rc.requests()) != n {
		t.Error("a refused URL was sent to")
	}

	// Other failures: no such workspace, no secret in the other environment, no key to open
	// the secrets with, bad flags.
	noKey := *c
	noKey.sealer = nil
	for _, tc := range []struct {
		c       *cli
		args    []string
		code    int
		wantErr string
	}{
		{c, []string{"webhook", "test", "--workspace", uuid.NewString(), "--env", "sandbox", "--url", rc.srv.URL}, 1, "not found"},
		{c, []string{"webhook", "test", "--workspace", ws, "--env", "live", "--url", rc.srv.URL}, 1, "no active webhook secret"},
		{&noKey, hookArgs(rc.srv.URL), 1, "--kms-key"},
		{c, []string{"webhook", "test", "--workspace", ws, "--env", "sandbox"}, 2, "--url is required"},
		{c, []string{"webhook", "test", "--workspace", ws, "--env", "prod", "--url", rc.srv.URL}, 2, "--env must be"},
	} {
		if _, _, err := tc.c.run(tc.args...); err == nil || exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("paymentsctl %q = %v (exit code %d), want %d and %q", tc.args, err, exitCode(err), tc.code, tc.wantErr)
		}
	}
	if len(rc.requests()) != n {
		t.Error("a failed test sent something")
	}
	if _, err := localhostPolicy("yes"); err == nil || exitCode(err) != 2 {
		t.Errorf("ALLOW_LOCALHOST_URLS=yes: %v", err)
	}
}

// The CLI process finds the queue from --queue (and SQS from AWS_ENDPOINT_URL_SQS) for a resend,
// and allows a localhost URL for webhook test only with ALLOW_LOCALHOST_URLS=true.
func TestProcessResendAndTest(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	goRun := func(extraEnv []string, args ...string) (string, string, error) {
		cmd := exec.CommandContext(c.ctx, goBin, append([]string{"run", "./cmd/paymentsctl", "--table", c.store.Table, "--endpoint", c.stack.Dynamo.Endpoint}, args...)...)
		cmd.Dir = root
		cmd.Env = append(processEnv(), extraEnv...)
		var out, errw bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errw
		err := cmd.Run()
		return out.String(), errw.String(), err
	}
	ws := c.createWorkspace(t, "W")

	// A delivered event, recorded as the functions record it.
	now := time.Now().UTC()
	id := uuid.NewString()
	p := &payment.Payment{InvoiceID: id, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Pending, AmountMinor: 100,
		Currency: payment.Currency, Reference: "ref", WebhookURL: "https://hooks.example.com/x", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour), RequestHash: "00"}
	if _, err := c.store.CreatePayment(c.ctx, p); err != nil {
		t.Fatal(err)
	}
	ev, _ := payment.NewEvent(payment.Completed, now)
	if _, err := c.store.FinishPayment(c.ctx, id, payment.Completed, false, ev, now); err != nil {
		t.Fatal(err)
	}
	if err := c.store.RecordAttempt(c.ctx, id, ev.EventID, 1, payment.DeliveryDelivered, 200, "HTTP 200", nil, false, now, now); err != nil {
		t.Fatal(err)
	}
	queueURL := c.stack.QueueURL("WebhookQueue")
	sqsEnv := []string{"AWS_ENDPOINT_URL_SQS=" + c.stack.SQS.Endpoint}
	if out, stderr, err := goRun(sqsEnv, "webhook", "resend", "--invoice", id, "--event", ev.EventID); err == nil ||
		!strings.Contains(stderr, "no webhook queue") || !strings.Contains(stderr, "exit status 2") {
		t.Fatalf("resend without --queue: %v\n%s\n%s", err, out, stderr)
	}
	if out, stderr, err := goRun(sqsEnv, "webhook", "resend", "--invoice", id, "--event", ev.EventID, "--queue", queueURL); err != nil ||
		fields(out)["status"] != "pending, due now, enqueued" {
		t.Fatalf("resend with --queue: %v\n%s\n%s", err, out, stderr)
	}
	msgs, err := c.stack.Queue.ReceiveMessage(c.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := webhook.Message{InvoiceID: id, EventID: ev.EventID}.Encode()
	if len(msgs.Messages) != 1 || aws.ToString(msgs.Messages[0].Body) != want {
		t.Fatalf("the queue holds %d messages (%v), want the one %s", len(msgs.Messages), msgs.Messages, want)
	}

	// webhook test: the stack's key opens the secret; localhost only when allowed.
	secret := fields(mustOut(c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")))["secret"]
	rc := newHookServer(t, secret)
	keyEnv := "LOCAL_SEALING_KEY=" + base64.StdEncoding.EncodeToString(c.stack.SealingKey)
	args := []string{"webhook", "test", "--workspace", ws, "--env", "sandbox", "--url", rc.srv.URL + "/hook"}
	var exitErr *exec.ExitError
	if out, stderr, err := goRun([]string{keyEnv}, args...); !errors.As(err, &exitErr) || !strings.Contains(stderr, "--url is refused") ||
		!strings.Contains(stderr, "exit status 2") {
		t.Errorf("localhost without ALLOW_LOCALHOST_URLS: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err := goRun([]string{keyEnv, "ALLOW_LOCALHOST_URLS=true"}, args...)
	if err != nil || fields(out)["http_status"] != "204" {
		t.Fatalf("webhook test: %v\n%s\n%s", err, out, stderr)
	}
	if reqs := rc.requests(); len(reqs) != 1 || reqs[0].verifyErr != nil {
		t.Fatalf("the receiver got %+v", reqs)
	}
}
