package integration_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

type docRecord struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	PaidMinor int64  `json:"paid_minor"`
	Payments  []struct {
		IntentID    string    `json:"intent_id"`
		State       string    `json:"state"`
		AmountMinor int64     `json:"amount_minor"`
		OccurredAt  time.Time `json:"occurred_at"`
	} `json:"payments"`
}

// getDocument reads a document as the merchant does.
func getDocument(t *testing.T, a *localapi.TestAPI, kind, id string) docRecord {
	t.Helper()
	res := a.Do(t, "GET", docs(a, kind)+"/"+id+"?environment=sandbox", a.Creds.SandboxKey, "")
	if res.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", kind, res.Status, res.Body)
	}
	var out struct {
		Items []docRecord `json:"items"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil || len(out.Items) != 1 {
		t.Fatalf("get %s: %s", kind, res.Body)
	}
	return out.Items[0]
}

// ledger runs what the deployed workers run after an outcome: the sender on every queued
// event, then the re-drive's settle step.
type ledger struct {
	a       *localapi.TestAPI
	poller  *sqspoll.Poller
	redrive *webhook.Redrive
}

func newLedger(a *localapi.TestAPI) *ledger {
	d := a.Deps["WebhookSenderFunction"]
	return &ledger{a: a,
		poller:  &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: d.Config.WebhookQueueURL, Handler: registry.WebhookConsumer(d).Handle},
		redrive: registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"])}
}

// run drains the queue (the sender settles each linked event it receives) and runs the
// re-drive's settle sweep; it returns how many events left the settle index meanwhile.
func (l *ledger) run(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	before := l.waiting(t)
	for idle := 0; idle < 3; {
		n, err := l.poller.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			idle++
		}
	}
	if _, err := l.redrive.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	return before - l.waiting(t)
}

// waiting counts the events in the settle index.
func (l *ledger) waiting(t *testing.T) int {
	t.Helper()
	refs, err := l.a.Store.SettlePending(context.Background(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	return len(refs)
}

// An invoice learns its intents' outcomes: a cancelled intent is listed, a completed one is
// listed and counted in paid_minor, exactly once however often the follow-up runs; then the
// invoice can no longer be paid.
func TestInvoiceLearnsItsPayments(t *testing.T) {
	t.Parallel()
	a := start(t)
	l := newLedger(a)
	inv := issuedInvoice(t, a)

	first, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	if res := a.Do(t, "POST", "/v1/payment-intents/"+first.ID+"/cancel", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	paid, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	if res := pay(t, a, paid.PaymentURL, "approve"); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	if got := getDocument(t, a, "invoices", inv); got.PaidMinor != 0 || len(got.Payments) != 0 {
		t.Fatalf("the invoice learned its payments before the follow-up ran: %+v", got)
	}
	if n := l.run(t); n != 2 {
		t.Fatalf("settled %d events, want 2", n)
	}
	doc := getDocument(t, a, "invoices", inv)
	if doc.PaidMinor != invoiceTotal || len(doc.Payments) != 2 ||
		doc.Payments[0].IntentID != first.ID || doc.Payments[0].State != "CANCELLED" || doc.Payments[0].AmountMinor != invoiceTotal ||
		doc.Payments[1].IntentID != paid.ID || doc.Payments[1].State != "COMPLETED" || doc.Payments[1].OccurredAt.IsZero() {
		t.Fatalf("invoice after the follow-up: %+v", doc)
	}
	// Running it again, and re-enqueuing the events, changes nothing.
	for _, id := range []string{first.ID, paid.ID} {
		p, err := a.Store.GetPayment(context.Background(), id)
		if err != nil || p.Outbox == nil || !p.Outbox.Applied || !p.Outbox.Settled {
			t.Fatalf("intent %s after the follow-up: %+v %v", id, p.Outbox, err)
		}
		if done, err := intent.SettleRef(context.Background(), a.Store, payment.EventRef{InvoiceID: id, EventID: p.Outbox.EventID}, time.Now()); err != nil || done {
			t.Fatalf("settling a settled event again: %v %v", done, err)
		}
	}
	if n := l.run(t); n != 0 {
		t.Fatalf("a second run settled %d events", n)
	}
	if again := getDocument(t, a, "invoices", inv); again.PaidMinor != invoiceTotal || len(again.Payments) != 2 {
		t.Fatalf("invoice after a second run: %+v", again)
	}
	// Paid in full: a new intent is refused, naming why.
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
}

// A process that dies between the document's write and the intent's (or between any two steps
// of the follow-up) leaves the event waiting; the next run completes it, and the amount is
// counted once.
func TestDocumentFollowUpRecoversFromACrashBetweenItsWrites(t *testing.T) {
	t.Parallel()
	a := start(t)
	l := newLedger(a)
	ctx := context.Background()
	inv := issuedInvoice(t, a)
	it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	pay(t, a, it.PaymentURL, "approve")
	// No settler has run yet (the queue is not drained): the event waits for its follow-up.
	p, err := a.Store.GetPayment(ctx, it.ID)
	if err != nil || p.Outbox == nil || p.Outbox.Status != payment.DeliveryPending || p.Outbox.Applied {
		t.Fatalf("event after the approve: %+v %v", p.Outbox, err)
	}
	// Steps 0 and 1 happened, then the process died: the intent does not know the document
	// has it, and its claim holds until the lease ends.
	now := time.Now()
	if ok, err := a.Store.ClaimSettlement(ctx, it.ID, p.Outbox.EventID, now, now.Add(intent.SettleLease)); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := a.Store.ApplyOutcome(ctx, p, intent.EffectOf(p)); err != nil {
		t.Fatal(err)
	}
	if got := getDocument(t, a, "invoices", inv); got.PaidMinor != invoiceTotal {
		t.Fatalf("after step 1: %+v", got)
	}
	// While the dead run's claim holds, a run leaves the event alone; once it lapses, a run
	// completes it.
	if n := l.run(t); n != 0 {
		t.Fatalf("a run settled %d events while the dead run's claim holds, want 0", n)
	}
	if p, _ := a.Store.GetPayment(ctx, it.ID); p.Outbox.Applied || p.Outbox.Settled {
		t.Fatalf("a run took over an unexpired claim: %+v", p.Outbox)
	}
	later := l.redrive
	later.Now = func() time.Time { return time.Now().Add(intent.SettleLease + time.Second) }
	if n, err := later.Settle(ctx); err != nil || n != 1 {
		t.Fatalf("the run after the lease settled %d (%v), want 1", n, err)
	}
	if got := getDocument(t, a, "invoices", inv); got.PaidMinor != invoiceTotal || len(got.Payments) != 1 {
		t.Fatalf("after the recovery: paid_minor %d (want %d, counted once), payments %+v", got.PaidMinor, invoiceTotal, got.Payments)
	}
	later.Now = nil

	// The same with a death after step 2 (the intent knows; the document still lists it in flight).
	inv2 := issuedInvoice(t, a)
	it2, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv2+`"}`)
	pay(t, a, it2.PaymentURL, "approve")
	p2, _ := a.Store.GetPayment(ctx, it2.ID)
	now = time.Now()
	if ok, err := a.Store.ClaimSettlement(ctx, it2.ID, p2.Outbox.EventID, now, now.Add(intent.SettleLease)); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := a.Store.ApplyOutcome(ctx, p2, intent.EffectOf(p2)); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.MarkApplied(ctx, it2.ID, p2.Outbox.EventID, now.Add(intent.SettleLease)); err != nil {
		t.Fatal(err)
	}
	if n := l.run(t); n != 1 {
		t.Fatalf("settled %d, want 1", n)
	}
	if got := getDocument(t, a, "invoices", inv2); got.PaidMinor != invoiceTotal || len(got.Payments) != 1 {
		t.Fatalf("after a death past step 2: %+v", got)
	}
}

// Twenty intents of one payment link complete at once and their follow-ups run concurrently:
// paid_minor is exactly their sum, every payment is counted once, and the record shows the
// latest document.PaymentsWindow of them.
func TestConcurrentCompletionsOfOneLinkAddUpExactly(t *testing.T) {
	t.Parallel()
	a := start(t)
	l := newLedger(a)
	ctx := context.Background()
	link := newDocument(t, a, "payment-links", `{"reference": "LINK-20", "amount_minor": 1500, "max_quantity": 3}`, "publish")
	const n = 20
	var want int64
	ids := make([]string, n)
	for i := range n {
		q := int64(i%3 + 1)
		it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`", "quantity": `+string(rune('0'+q))+`}`)
		ids[i], want = it.ID, want+1500*q
		u := it.PaymentURL
		if res := a.Do(t, "POST", pathOf(t, u)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); res.Status != http.StatusOK {
			t.Fatalf("lock: %d %s", res.Status, res.Body)
		}
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			it := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+id, a.Creds.SandboxKey, ""))
			if res := a.Do(t, "POST", pathOf(t, it.PaymentURL)+"/notices/approve", "", ""); res.Status != http.StatusOK {
				t.Errorf("approve %s: %d %s", id, res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	// Every follow-up at once, each twice (a duplicate run racing the first), before the sender
	// has seen any of their events.
	errs := make(chan error, 2*n)
	var settled atomic.Int64
	for _, id := range ids {
		p, err := a.Store.GetPayment(ctx, id)
		if err != nil || p.Outbox == nil {
			t.Fatalf("intent %s: %+v %v", id, p, err)
		}
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done, err := intent.SettleRef(ctx, a.Store, payment.EventRef{InvoiceID: id, EventID: p.Outbox.EventID}, time.Now())
				if done {
					settled.Add(1)
				}
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if settled.Load() != n {
		t.Errorf("%d runs finished a follow-up, want exactly one per intent (%d)", settled.Load(), n)
	}
	if left := l.run(t); left != 0 {
		t.Errorf("%d events were still waiting after every follow-up ran", left)
	}
	doc := getDocument(t, a, "payment-links", link)
	if doc.PaidMinor != want {
		t.Fatalf("paid_minor = %d, want exactly %d (the sum of the 20 intents)", doc.PaidMinor, want)
	}
	if len(doc.Payments) != 10 {
		t.Fatalf("the record shows %d payments, want the latest 10", len(doc.Payments))
	}
	seen := map[string]bool{}
	for _, p := range doc.Payments {
		if p.State != "COMPLETED" || seen[p.IntentID] {
			t.Fatalf("payments %+v", doc.Payments)
		}
		seen[p.IntentID] = true
	}
}

func pathOf(t *testing.T, rawURL string) string {
	t.Helper()
	const marker = "/v1/public/checkout/"
	for i := 0; i+len(marker) <= len(rawURL); i++ {
		if rawURL[i:i+len(marker)] == marker {
			return rawURL[i:]
		}
	}
	t.Fatalf("no checkout path in %q", rawURL)
	return ""
}

// A payment link's max_uses bounds its completed payments and live intents together: never
// oversold; an intent that ends other than COMPLETED gives its use back; a replayed create
// takes none.
func TestPaymentLinkMaxUses(t *testing.T) {
	t.Parallel()
	a := start(t)
	l := newLedger(a)
	link := newDocument(t, a, "payment-links", `{"reference": "LINK-2", "amount_minor": 5000, "max_uses": 2}`, "publish")
	body := `{"document_id": "` + link + `"}`
	key := idemKey()
	first, res := createIntent(t, a, key, body)
	if n := apitest.DDBRequests(t, a, res); n != 5 {
		t.Errorf("linked create with max_uses made %d DynamoDB requests, want 5 (key, document, use, intent, snapshot)", n)
	}
	if res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key); res.Status != http.StatusCreated {
		t.Fatalf("replay: %d %s", res.Status, res.Body)
	}
	second, _ := createIntent(t, a, idemKey(), body)
	// 50 concurrent payers for a link whose two uses are taken: none gets an intent.
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
			mu.Lock()
			statuses[res.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[http.StatusConflict] != 50 {
		t.Fatalf("50 creates on a sold-out link: %v, want 50 × 409", statuses)
	}
	// One is cancelled: once its document follow-up ran, its use is free again.
	if res := a.Do(t, "POST", "/v1/payment-intents/"+second.ID+"/cancel", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	l.run(t)
	third, _ := createIntent(t, a, idemKey(), body)
	// Completed payments keep their use.
	pay(t, a, first.PaymentURL, "approve")
	pay(t, a, third.PaymentURL, "approve")
	l.run(t)
	if res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey()); res.Status != http.StatusConflict {
		t.Fatalf("a third use of a max_uses 2 link after two payments: %d %s", res.Status, res.Body)
	}
	if doc := getDocument(t, a, "payment-links", link); doc.PaidMinor != 10000 || len(doc.Payments) != 3 {
		t.Fatalf("link after two payments and a cancel: %+v", doc)
	}
}

// A record's delivery lists its payment intents' webhook deliveries: on a get, the record's;
// on a list page, those of the page's records, newest first.
func TestRecordsListTheirDeliveries(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	l := newLedger(a)
	if _, err := a.Operator(t).IssueWebhookSecret(context.Background(), a.Creds.WorkspaceID, "sandbox"); err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	inv := issuedInvoice(t, a)
	// Without a webhook_url: a payment, but no delivery.
	quiet, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	a.Do(t, "POST", "/v1/payment-intents/"+quiet.ID+"/cancel", a.Creds.SandboxKey, "")
	loud, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`", "webhook_url": "`+hook.URL+`/takapay"}`)
	a.Do(t, "POST", "/v1/payment-intents/"+loud.ID+"/cancel", a.Creds.SandboxKey, "")
	l.run(t)
	p, err := a.Store.GetPayment(context.Background(), loud.ID)
	if err != nil || p.Outbox == nil {
		t.Fatal(err)
	}
	type result struct {
		Items    []docRecord `json:"items"`
		Delivery []struct {
			ID        string    `json:"id"`
			Kind      string    `json:"kind"`
			Status    string    `json:"status"`
			CreatedAt time.Time `json:"created_at"`
		} `json:"delivery"`
	}
	res := a.Do(t, "GET", docs(a, "invoices")+"/"+inv+"?environment=sandbox", a.Creds.SandboxKey, "")
	var got result
	if err := json.Unmarshal(res.Body, &got); err != nil || len(got.Items) != 1 || len(got.Items[0].Payments) != 2 {
		t.Fatalf("get: %s", res.Body)
	}
	if len(got.Delivery) != 1 || got.Delivery[0].ID != p.Outbox.EventID || got.Delivery[0].Kind != "payment.cancelled" ||
		got.Delivery[0].Status != "delivered" || got.Delivery[0].CreatedAt.IsZero() {
		t.Fatalf("delivery of the invoice: %+v", got.Delivery)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("a get with payments made %d DynamoDB requests, want 3 (key, GetItem, BatchGetItem of the deliveries)", n)
	}
	res = a.Do(t, "GET", docs(a, "invoices")+"?environment=sandbox", a.Creds.SandboxKey, "")
	got = result{}
	if err := json.Unmarshal(res.Body, &got); err != nil || len(got.Delivery) != 1 || got.Delivery[0].ID != p.Outbox.EventID {
		t.Fatalf("list: %s", res.Body)
	}
	// A record without payments reads no deliveries.
	other := issuedInvoice(t, a)
	res = a.Do(t, "GET", docs(a, "invoices")+"/"+other+"?environment=sandbox", a.Creds.SandboxKey, "")
	if n := apitest.DDBRequests(t, a, res); n != 2 || !strings.Contains(string(res.Body), `"delivery":[]`) {
		t.Errorf("a get without payments: %d requests, %s", n, res.Body)
	}
}

// An invoice has at most one live intent, whichever door it comes through: a second API
// create (another key) while one is PENDING is a 409 naming it, as is the public page's POST
// answering the same intent; once the live one is cancelled, a new one may be made; a replay
// of the first create still answers it. So an invoice cannot be paid twice over.
func TestInvoiceHasOneLiveIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	body := `{"document_id": "` + inv + `"}`
	key := idemKey()
	first, _ := createIntent(t, a, key, body)
	msg := apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	if !strings.Contains(msg, first.ID) {
		t.Errorf("second live intent: %s (want it to name %s)", msg, first.ID)
	}
	// The invoice's public page answers the same live intent.
	var rec struct {
		PublicToken string `json:"public_token"`
		Items       []struct {
			PublicToken string `json:"public_token"`
		} `json:"items"`
	}
	_ = json.Unmarshal(a.Do(t, "GET", docs(a, "invoices")+"/"+inv+"?environment=sandbox", a.Creds.SandboxKey, "").Body, &rec)
	res := a.Do(t, "POST", "/v1/public/documents/"+rec.Items[0].PublicToken, "", `{}`)
	var pub struct {
		IntentID string `json:"intent_id"`
	}
	if _ = json.Unmarshal(res.Body, &pub); res.Status != http.StatusOK || pub.IntentID != first.ID {
		t.Fatalf("the page's POST: %d %s, want 200 with %s", res.Status, res.Body, first.ID)
	}
	// The replay still answers the first; after a cancel a new intent may be made.
	if res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key); res.Status != http.StatusCreated ||
		decode[intentResp](t, res).ID != first.ID {
		t.Fatalf("replay: %d %s", res.Status, res.Body)
	}
	if res := a.Do(t, "POST", "/v1/payment-intents/"+first.ID+"/cancel", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	second, _ := createIntent(t, a, idemKey(), body)
	if second.ID == first.ID {
		t.Fatal("the new intent is the cancelled one")
	}
}
