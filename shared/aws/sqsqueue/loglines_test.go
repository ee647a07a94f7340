package sqsqueue_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/local/registry"
)

// attemptLines returns the sender's "webhook attempt" log lines of an event.
func attemptLines(h *harness, eventID string) []map[string]any {
	var out []map[string]any
	for _, l := range h.a.Logs.Lines() {
		if l["msg"] == "webhook attempt" && l["event_id"] == eventID {
			out = append(out, l)
		}
	}
	return out
}

// A delivery's log line carries the correlation id of the request that caused its event (the
// approve, the page view that made an expiry explicit, an intent's cancel) and the function's
// name, so one query on correlation_id finds the request and every attempt of its event. The
// re-drive's expiry has no request: its attempts carry an empty correlation_id.
func TestDeliveryLogLineCarriesTheCausingRequest(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	// The sender logs as it does on Lambda, where app.StartWorker names the function in every
	// line of its logger.
	sender := *h.consumer.Sender
	sender.Logger = h.a.Deps["WebhookSenderFunction"].Logger.With(slog.String("function", registry.Name("WebhookSenderFunction")))
	consumer := *h.consumer
	consumer.Sender = &sender
	h.poller.Handler = consumer.Handle
	rc := newReceiver(t, h.secret, func(_ string, attempt int) bool { return attempt == 1 }) // two attempts each
	hook := rc.srv.URL + "/hook"

	// Approve (CheckoutFunction).
	approved, page := h.lock(t, hook, "order-log-1")
	res := h.a.Do(t, "POST", page+"/notices/approve", "", "")
	approveCID := res.Header.Get("X-Correlation-Id")
	if res.Status != 200 || approveCID == "" {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}

	// An expiry made explicit by a page view (CheckoutFunction).
	expired, expiredPage := h.lock(t, hook, "order-log-2")
	past := time.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000000000Z")
	if _, err := h.a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(h.a.Store.Table),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + expired}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression:          aws.String("SET expires_at = :t, gsi2sk = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: past}},
	}); err != nil {
		t.Fatal(err)
	}
	res = h.a.Do(t, "GET", expiredPage, "", "")
	viewCID := res.Header.Get("X-Correlation-Id")
	if res.Status != 200 {
		t.Fatalf("view: %d %s", res.Status, res.Body)
	}

	// A cancel (PaymentIntentCancelFunction).
	res = h.a.Do(t, "POST", "/v1/payment-intents", h.a.Creds.SandboxKey, `{"amount": 10, "webhook_url": "`+hook+`"}`,
		"Idempotency-Key", "log-line-cancel-0001")
	var it struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(res.Body, &it); err != nil || res.Status != 201 {
		t.Fatalf("intent create: %d %s", res.Status, res.Body)
	}
	res = h.a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", h.a.Creds.SandboxKey, "")
	cancelCID := res.Header.Get("X-Correlation-Id")
	if res.Status != 200 {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}

	// An expiry by the re-drive's sweep: no request caused it.
	swept, _ := h.lock(t, hook, "order-log-3")
	if _, err := h.a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(h.a.Store.Table),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + swept}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression:          aws.String("SET expires_at = :t, gsi2sk = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: past}},
	}); err != nil {
		t.Fatal(err)
	}
	redrive := registry.WebhookRedrive(h.a.Deps["WebhookRedriveFunction"])
	redrive.Queue.(*sqsqueue.Queue).URL = h.poller.QueueURL
	if n, err := redrive.Expire(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep expired %d (%v), want 1", n, err)
	}

	h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 4 })
	for _, tc := range []struct {
		what, invoiceID, cid, function, kind string
	}{
		{"approve", approved, approveCID, "checkout", "payment.completed"},
		{"page view after expiry", expired, viewCID, "checkout", "payment.expired"},
		{"intent cancel", it.ID, cancelCID, "payment-intent-cancel", "payment.cancelled"},
		{"the re-drive's expiry", swept, "", "", "payment.expired"},
	} {
		ob := h.outbox(t, tc.invoiceID)
		if hex.EncodeToString(ob.CID) != tc.cid || ob.Kind != tc.kind {
			t.Errorf("%s: the event records cid %q (kind %s), want %q (%s)", tc.what, ob.CID, ob.Kind, tc.cid, tc.kind)
		}
		lines := attemptLines(h, ob.EventID)
		if len(lines) != 2 {
			t.Fatalf("%s: %d attempt lines, want 2: %v", tc.what, len(lines), lines)
		}
		for _, l := range lines {
			if l["correlation_id"] != tc.cid || l["function"] != "webhook-sender" || l["invoice_id"] != tc.invoiceID {
				t.Errorf("%s: attempt line %v, want correlation_id %q and function webhook-sender", tc.what, l, tc.cid)
			}
		}
		if tc.cid == "" {
			continue
		}
		// The same correlation id finds the request that caused the event.
		req := h.a.Logs.Request(tc.cid)
		if req == nil || req["invoice_id"] != tc.invoiceID || req["function"] != tc.function {
			t.Errorf("%s: the request line of %s: %v", tc.what, tc.cid, req)
		}
	}
}
