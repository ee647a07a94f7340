package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
	"github.com/takapay/payments/shared/webhook"
)

func TestMessageKinds(t *testing.T) {
	// A payment's message is encoded exactly as before refunds, so messages in queues and
	// senders of either release read each other's.
	pm := webhook.Message{InvoiceID: "inv1", EventID: "ev1"}
	if got := pm.Encode(); got != `{"invoice_id":"inv1","event_id":"ev1"}` {
		t.Fatalf("payment message %s", got)
	}
	old, err := webhook.ParseMessage([]byte(`{"invoice_id":"inv1","event_id":"ev1"}`))
	if err != nil || old.IsRefund() || old != pm {
		t.Fatalf("an old message: %+v %v", old, err)
	}
	rm := webhook.RefundMessage("ws1", auth.Sandbox, "rf1", "ev2")
	back, err := webhook.ParseMessage([]byte(rm.Encode()))
	if err != nil || !back.IsRefund() || back != rm || back.InvoiceID != "" {
		t.Fatalf("refund message %s: %+v %v", rm.Encode(), back, err)
	}
	for _, bad := range []string{
		`{"event_id":"e"}`, `{"invoice_id":"i"}`, `not json`,
		`{"refund_id":"r","workspace_id":"w","event_id":"e"}`,                                          // no environment
		`{"refund_id":"r","workspace_id":"w","environment":"prod","event_id":"e"}`,                     // no such environment
		`{"refund_id":"r","environment":"sandbox","event_id":"e"}`,                                     // no workspace
		`{"refund_id":"r","workspace_id":"w","environment":"sandbox","invoice_id":"i","event_id":"e"}`, // both kinds
		`{"invoice_id":"i","workspace_id":"w","event_id":"e"}`,
	} {
		if _, err := webhook.ParseMessage([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// refundMem is the refund store in memory with DynamoDB's conditional write (on the write
// count, as package dynamo's UpdateRefund); before runs ahead of each write (a racing writer).
type refundMem struct {
	mu      sync.Mutex
	r       *refund.Refund
	before  func(cur *refund.Refund)
	updates int
}

func cloneRefund(r *refund.Refund) *refund.Refund {
	c := *r
	c.Events = append([]payment.Delivery(nil), r.Events...)
	c.History = append([]refund.Entry(nil), r.History...)
	return &c
}

func (m *refundMem) GetRefund(_ context.Context, ws string, env auth.Environment, id string) (*refund.Refund, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.r == nil || m.r.ID != id || m.r.WorkspaceID != ws || m.r.Environment != env {
		return nil, nil
	}
	return cloneRefund(m.r), nil
}

func (m *refundMem) UpdateRefund(_ context.Context, prev, next *refund.Refund) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.before != nil {
		f := m.before
		m.before = nil
		f(m.r)
	}
	if m.r.Writes != prev.Writes || m.r.Version != prev.Version || m.r.Status != prev.Status {
		return refund.ErrStateChanged
	}
	next.Writes = prev.Writes + 1
	m.r = cloneRefund(next)
	m.updates++
	return nil
}

func (m *refundMem) RefundFollowUps(_ context.Context, dueBefore time.Time, _ int) ([]refund.Ref, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if at, ok := m.r.WakeAt(); ok && at.Before(dueBefore) {
		return []refund.Ref{{WorkspaceID: m.r.WorkspaceID, Environment: m.r.Environment, ID: m.r.ID}}, nil
	}
	return nil, nil
}

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// hookReceiver verifies every request with the Standard Webhooks library and keeps the bodies
// by webhook-id; it answers 503 to the ids in fail.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][]string
	bad    int
	fail   map[string]bool
}

func newHookReceiver(t *testing.T) *hookReceiver {
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &hookReceiver{bodies: map[string][]string{}, fail: map[string]bool{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err := wh.Verify(body, r.Header); err != nil {
			rc.bad++
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		id := r.Header.Get("webhook-id")
		rc.bodies[id] = append(rc.bodies[id], string(body))
		if rc.fail[id] {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func refundSender(t *testing.T, m *refundMem) *webhook.Sender {
	key, err := webhook.ParseSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return &webhook.Sender{Refunds: m, Client: webhook.NewClient(webhook.ClientOptions{AllowLocalhost: true}),
		URLs: urlcheck.Policy{AllowLocalhost: true},
		Secrets: func(context.Context, string, auth.Environment, time.Time) ([][]byte, error) {
			return [][]byte{key}, nil
		}}
}

func pendingEvent(id string, s refund.Status, at time.Time) payment.Delivery {
	return payment.Delivery{EventID: id, Kind: refund.EventKind(s), Status: payment.DeliveryPending, CreatedAt: at, NextAttemptAt: at}
}

func testRefund(hook string, at time.Time) *refund.Refund {
	return &refund.Refund{ID: "0193a1b2-0000-7000-8000-000000000001", WorkspaceID: "ws1", Environment: auth.Sandbox,
		PaymentID: "inv1", AmountMinor: 5000, Currency: "BDT", Status: refund.InReview, Reason: refund.ReasonDuplicate,
		RequestedBy: refund.ByMerchant, Version: 2, CreatedAt: at, UpdatedAt: at, WebhookURL: hook, Writes: 3,
		FollowUp: refund.FollowRelease, FollowUpAt: at.Add(time.Hour),
		History: []refund.Entry{{Status: refund.Requested, At: at, By: "key_1"}, {Status: refund.InReview, At: at, By: "user_1"}},
		Events:  []payment.Delivery{pendingEvent("ev-requested", refund.Requested, at), pendingEvent("ev-in-review", refund.InReview, at)}}
}

// A refund that changed status twice before any delivery has both events in flight: each is
// delivered once, signed, with the refund resource (and nothing internal) as data, whatever
// the order of the messages and their duplicates.
func TestRefundTwoEventsEachDeliveredOnce(t *testing.T) {
	rc := newHookReceiver(t)
	at := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	m := &refundMem{r: testRefund(rc.srv.URL+"/hook", at)}
	s := refundSender(t, m)
	msgs := []webhook.Message{
		webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-in-review"),
		webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-requested"),
		webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-in-review"), // the re-drive's duplicate
		webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-unknown"),   // never recorded: dropped
	}
	for _, msg := range msgs {
		if retry, _ := s.Deliver(t.Context(), msg); retry {
			t.Fatalf("%s: retry", msg.EventID)
		}
	}
	if rc.bad != 0 || len(rc.bodies) != 2 || len(rc.bodies["ev-requested"]) != 1 || len(rc.bodies["ev-in-review"]) != 1 {
		t.Fatalf("received %v (bad signatures %d)", rc.bodies, rc.bad)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(rc.bodies["ev-requested"][0]), &p); err != nil {
		t.Fatal(err)
	}
	data, _ := p["data"].(map[string]any)
	if p["type"] != "refund.requested" || p["id"] != "ev-requested" || data["object"] != "refund" || data["id"] != m.r.ID ||
		data["amount_minor"] != float64(5000) || data["payment_id"] != "inv1" {
		t.Fatalf("payload %s", rc.bodies["ev-requested"][0])
	}
	for _, internal := range []string{"webhook_url", "events", "follow", "Writes", "FollowUp", "hook", "PENDING_CLAIM"} {
		if strings.Contains(rc.bodies["ev-requested"][0], internal) {
			t.Errorf("payload shows %q: %s", internal, rc.bodies["ev-requested"][0])
		}
	}
	for _, e := range m.r.Events {
		if e.Status != payment.DeliveryDelivered || e.Attempts != 1 || len(e.AttemptLog) != 1 || e.LastHTTPStatus != 204 {
			t.Errorf("event %s recorded %+v", e.EventID, e)
		}
	}
	// The refund itself is untouched by the attempts: status, version and follow-up as before.
	if m.r.Status != refund.InReview || m.r.Version != 2 || m.r.FollowUp != refund.FollowRelease {
		t.Fatalf("refund %+v", m.r)
	}
}

// A transition that writes between the sender's read and its record (a third event appears)
// loses nothing: the attempt is recorded on the refund as it is now, the new event stays
// pending, and the transition's change stays.
func TestRefundAttemptRecordedAcrossATransition(t *testing.T) {
	rc := newHookReceiver(t)
	at := time.Now().UTC()
	m := &refundMem{r: testRefund(rc.srv.URL+"/hook", at)}
	m.before = func(cur *refund.Refund) {
		cur.Status, cur.Version, cur.Writes = refund.Approved, 3, cur.Writes+1
		cur.Events = append(cur.Events, pendingEvent("ev-approved", refund.Approved, at))
	}
	s := refundSender(t, m)
	if retry, _ := s.Deliver(t.Context(), webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-requested")); retry {
		t.Fatal("retry")
	}
	if m.r.Status != refund.Approved || len(m.r.Events) != 3 {
		t.Fatalf("the transition's write was lost: %+v", m.r)
	}
	if e := m.r.Event("ev-requested"); e.Status != payment.DeliveryDelivered || e.Attempts != 1 {
		t.Fatalf("attempt not recorded: %+v", e)
	}
	if e := m.r.Event("ev-approved"); e.Status != payment.DeliveryPending || e.Attempts != 0 {
		t.Fatalf("new event %+v", e)
	}
}

// A failing receiver: the attempt is recorded pending with the schedule's next time, which is
// where the refund now waits in the sweep index (WakeAt); the message is offered again.
func TestRefundEventRetried(t *testing.T) {
	rc := newHookReceiver(t)
	at := time.Now().UTC()
	m := &refundMem{r: testRefund(rc.srv.URL+"/hook", at)}
	m.r.FollowUp = refund.NoFollowUp
	m.r.Events = m.r.Events[:1]
	rc.fail["ev-requested"] = true
	s := refundSender(t, m)
	now := at.Add(time.Minute)
	s.Now = func() time.Time { return now }
	retry, delay := s.Deliver(t.Context(), webhook.RefundMessage("ws1", auth.Sandbox, m.r.ID, "ev-requested"))
	if !retry || delay != webhook.DefaultSchedule[0] {
		t.Fatalf("retry %v after %s", retry, delay)
	}
	e := m.r.Event("ev-requested")
	if e.Status != payment.DeliveryPending || e.Attempts != 1 || e.LastHTTPStatus != 503 || !e.NextAttemptAt.Equal(now.Add(delay)) {
		t.Fatalf("event %+v", e)
	}
	if wake, ok := m.r.WakeAt(); !ok || !wake.Equal(e.NextAttemptAt) {
		t.Fatalf("wake %s %v", wake, ok)
	}
}

type refundQueue struct {
	mu   sync.Mutex
	sent []string
}

func (q *refundQueue) Enqueue(context.Context, string, string) error { return nil }

func (q *refundQueue) EnqueueRefund(_ context.Context, _ string, _ auth.Environment, _, eventID string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent = append(q.sent, eventID)
	return nil
}

// The re-drive re-enqueues a refund's events once overdue (never before), moves their next
// attempt ahead so the following run leaves them alone, and runs the repair pass every run.
func TestRedriveRefundEvents(t *testing.T) {
	at := time.Now().UTC()
	m := &refundMem{r: testRefund("https://merchant.example/hook", at)}
	q := &refundQueue{}
	repairs := 0
	now := at.Add(time.Minute)
	r := &webhook.Redrive{Store: &pendingStub{}, Queue: q, Refunds: m, Now: func() time.Time { return now },
		Repair: func(context.Context, time.Time) (int, error) { repairs++; return 0, nil }}
	if n, err := r.Run(t.Context()); err != nil || n != 0 || len(q.sent) != 0 {
		t.Fatalf("not yet overdue: %d %v %v", n, err, q.sent)
	}
	now = at.Add(webhook.DefaultOverdue + time.Second)
	if n, err := r.Run(t.Context()); err != nil || n != 2 || len(q.sent) != 2 {
		t.Fatalf("overdue: %d %v %v", n, err, q.sent)
	}
	for _, e := range m.r.Events {
		if !e.NextAttemptAt.Equal(now.Add(webhook.DefaultOverdue)) {
			t.Fatalf("not rescheduled: %+v", e)
		}
	}
	if n, _ := r.Run(t.Context()); n != 0 {
		t.Fatalf("the next run sent %d again", n)
	}
	if repairs != 3 {
		t.Fatalf("repair ran %d times in 3 runs", repairs)
	}
}

// Resend makes a delivered refund event pending and due now, and enqueues it.
func TestResendRefundEvent(t *testing.T) {
	at := time.Now().UTC()
	m := &refundMem{r: testRefund("https://merchant.example/hook", at)}
	m.r.Events[0].Status, m.r.Events[0].Attempts = payment.DeliveryDelivered, 2
	q := &refundQueue{}
	now := at.Add(time.Hour)
	d, err := webhook.ResendRefund(t.Context(), m, q, "ws1", auth.Sandbox, m.r.ID, "ev-requested", "the dashboard (a@b.c)", now)
	if err != nil || d.Status != payment.DeliveryPending || d.Attempts != 0 || !d.NextAttemptAt.Equal(now) ||
		!strings.Contains(d.Detail, "after 2 attempts (was delivered)") || len(q.sent) != 1 {
		t.Fatalf("resend: %+v %v %v", d, err, q.sent)
	}
	if _, err := webhook.ResendRefund(t.Context(), m, q, "ws1", auth.Sandbox, m.r.ID, "ev-other", "x", now); err == nil {
		t.Fatal("resent an event the refund never recorded")
	}
}
