package integration_test

// The money rules of linked intents under every timing (issue 19): an invoice is paid at most
// once, a document's payment state comes from the payment and never waits on a merchant's
// webhook, live documents are not payable, the public pay door is bounded, closing a document
// closes its door, and abandoned intents do not pile up.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/edge/publicdocapi"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/publicdoc"
	"github.com/takapay/payments/shared/ratelimit"
)

// clock is the stack's clock in these tests: real time plus an offset the test steps.
type clock struct{ off atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) Advance(d time.Duration) { c.off.Add(int64(d)) }
func (c *clock) Set(t time.Time)         { c.off.Store(int64(time.Until(t))) }
func startAt(t *testing.T, c *clock) *localapi.TestAPI {
	t.Helper()
	return localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true, Now: c.Now})
}

// deadReceiver is a merchant's webhook endpoint that answers 500 to everything.
func deadReceiver(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks/takapay", &hits
}

// publicToken reads a document's public token as its merchant does.
func publicToken(t *testing.T, a *localapi.TestAPI, kind, id string) string {
	t.Helper()
	var out struct {
		Items []struct {
			PublicToken string `json:"public_token"`
		} `json:"items"`
	}
	res := a.Do(t, "GET", docs(a, kind)+"/"+id+"?environment=sandbox", a.Creds.SandboxKey, "")
	if err := json.Unmarshal(res.Body, &out); err != nil || len(out.Items) != 1 || out.Items[0].PublicToken == "" {
		t.Fatalf("public token of %s: %d %s", id, res.Status, res.Body)
	}
	return out.Items[0].PublicToken
}

type publicPay struct {
	IntentID   string `json:"intent_id"`
	PaymentURL string `json:"payment_url"`
}

func postPublic(t *testing.T, a *localapi.TestAPI, token, body string) (*localapi.Result, publicPay) {
	t.Helper()
	res := a.Do(t, "POST", "/v1/public/documents/"+token, "", body)
	var p publicPay
	_ = json.Unmarshal(res.Body, &p)
	return res, p
}

func publicState(t *testing.T, a *localapi.TestAPI, token string) (string, int64) {
	t.Helper()
	var v struct {
		State     string `json:"state"`
		PaidMinor int64  `json:"paid_minor"`
	}
	res := a.Do(t, "GET", "/v1/public/documents/"+token, "", "")
	if err := json.Unmarshal(res.Body, &v); err != nil || res.Status != http.StatusOK {
		t.Fatalf("public view: %d %s", res.Status, res.Body)
	}
	return v.State, v.PaidMinor
}

// refusedPaid asserts a 409 that says the invoice has been paid.
func refusedPaid(t *testing.T, res *localapi.Result, door string) {
	t.Helper()
	if msg := apitest.Envelope(t, res, http.StatusConflict, "STATE_CONFLICT"); !strings.Contains(msg, "this invoice has been paid") {
		t.Errorf("%s: %q, want \"this invoice has been paid\"", door, msg)
	}
}

// ttlOf is an item's ttl (epoch seconds; 0 for none).
func ttlOf(item map[string]types.AttributeValue) int64 {
	n, _ := item["ttl"].(*types.AttributeValueMemberN)
	if n == nil {
		return 0
	}
	var v int64
	fmt.Sscan(n.Value, &v)
	return v
}

// pastTTL moves an intent's ttl a minute into the past (the store reads with the real clock):
// what its retention's end looks like before DynamoDB deletes it.
func pastTTL(t *testing.T, a *localapi.TestAPI, id string) {
	t.Helper()
	if _, err := a.Store.DB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(a.Store.Table),
		Key:              map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression: aws.String("SET #ttl = :past"), ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":past": &types.AttributeValueMemberN{Value: fmt.Sprint(time.Now().Add(-time.Minute).Unix())}}}); err != nil {
		t.Fatal(err)
	}
}

func rawItem(t *testing.T, a *localapi.TestAPI, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := a.Store.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(a.Store.Table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}},
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func docPK(a *localapi.TestAPI, env, kind string) string {
	return "DOC#" + a.Creds.WorkspaceID + "#" + env + "#" + kind
}

// The exact double payment the review found: an intent completes while the merchant's webhook
// receiver is dead, its reservation's expiry passes, and nothing has settled the invoice yet.
// The public page's POST and the API's create are both refused ("this invoice has been paid"),
// the page says paid, and so they stay once the settlement has run — with the receiver still
// dead. Both doors' intents are tried: one made through the API, one on the public page.
func TestInvoicePaidOnceWithADeadReceiverAndAnOldReservation(t *testing.T) {
	t.Parallel()
	c := &clock{}
	a := startAt(t, c)
	if _, err := a.Operator(t).IssueWebhookSecret(t.Context(), a.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	hook, hits := deadReceiver(t)
	for _, door := range []string{"api", "page"} {
		t.Run(door, func(t *testing.T) {
			inv := issuedInvoice(t, a)
			token := publicToken(t, a, "invoices", inv)
			var paymentURL string
			if door == "api" {
				it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`", "webhook_url": "`+hook+`", "expires_in_minutes": 5}`)
				paymentURL = it.PaymentURL
			} else {
				res, p := postPublic(t, a, token, `{}`)
				if res.Status != http.StatusCreated {
					t.Fatalf("page POST: %d %s", res.Status, res.Body)
				}
				paymentURL = p.PaymentURL
			}
			if res := pay(t, a, paymentURL, "approve"); res.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", res.Status, res.Body)
			}
			// No settler has run; the reservation's expiry passes (30 min on the page, 5 through the API).
			c.Advance(31 * time.Minute)
			res, _ := postPublic(t, a, token, `{}`)
			refusedPaid(t, res, "the page's POST before settlement")
			refusedPaid(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey()),
				"the API create before settlement")
			if state, paid := publicState(t, a, token); state != "paid" || paid != invoiceTotal {
				t.Errorf("the page before settlement: %s, paid %d; want paid %d", state, paid, invoiceTotal)
			}
			// The sender tries the dead receiver; the invoice learns the payment all the same.
			a.DrainWebhooks(t)
			doc := getDocument(t, a, "invoices", inv)
			if doc.PaidMinor != invoiceTotal || len(doc.Payments) != 1 || doc.Payments[0].State != "COMPLETED" {
				t.Fatalf("the invoice after the sender (receiver dead): %+v", doc)
			}
			c.Advance(4 * 24 * time.Hour) // past every webhook retry
			res, _ = postPublic(t, a, token, `{}`)
			refusedPaid(t, res, "the page's POST after settlement")
			refusedPaid(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey()),
				"the API create after settlement")
			if state, _ := publicState(t, a, token); state != "paid" {
				t.Errorf("the page after settlement: %s", state)
			}
		})
	}
	if hits.Load() == 0 {
		t.Error("the dead receiver was never called: the test did not exercise a failing webhook")
	}
}

// An approve racing new intents for the same invoice never yields two COMPLETED intents, even
// when the approving instance's clock is behind the creators' (the live intent has expired by
// the creators' clock, not by the approver's) and the re-drive's expiry sweep races them too.
func TestApproveRacingNewIntentsNeverPaysTwice(t *testing.T) {
	t.Parallel()
	c := &clock{}
	a := startAt(t, c)
	ctx := context.Background()
	for round := range 4 {
		c.off.Store(0)
		inv := issuedInvoice(t, a)
		token := publicToken(t, a, "invoices", inv)
		first, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`", "expires_in_minutes": 5}`)
		u := pathOf(t, first.PaymentURL)
		if res := a.Do(t, "POST", u+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); res.Status != http.StatusOK {
			t.Fatalf("lock: %d %s", res.Status, res.Body)
		}
		p, err := a.Store.GetPayment(ctx, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		behind := p.ExpiresAt.Add(-300 * time.Millisecond) // the approver: still inside the expiry
		c.Set(p.ExpiresAt.Add(time.Second))                // every other clock: just past it

		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(1)
		go func() { // the payer's approve, as the checkout writes it
			defer wg.Done()
			<-start
			d, _ := p.NewDelivery(payment.Completed, behind)
			if _, err := a.Store.FinishPayment(ctx, first.ID, payment.Completed, true, d, behind); err != nil && err != payment.ErrStateChanged {
				t.Errorf("approve: %v", err)
			}
		}()
		wg.Add(1)
		go func() { // the re-drive's sweep
			defer wg.Done()
			<-start
			if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Expire(ctx); err != nil {
				t.Errorf("expire: %v", err)
			}
		}()
		for i := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i%2 == 0 {
					a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey())
				} else {
					a.Do(t, "POST", "/v1/public/documents/"+token, "", `{}`)
				}
			}()
		}
		close(start)
		wg.Wait()
		// Every intent the race left PENDING is now paid, if the rules let it be.
		list := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?document_id="+inv+"&limit=100", a.Creds.SandboxKey, ""))
		for _, it := range list.Items {
			if it.Status == "PENDING" {
				pay(t, a, it.PaymentURL, "approve")
			}
		}
		list = decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?document_id="+inv+"&limit=100", a.Creds.SandboxKey, ""))
		completed := 0
		for _, it := range list.Items {
			if it.Status == "COMPLETED" {
				completed++
			}
		}
		if completed != 1 {
			t.Fatalf("round %d: %d COMPLETED intents for one invoice (of %d intents), want exactly 1", round, completed, len(list.Items))
		}
	}
}

// A document learns its payment from the payment, whatever the merchant's endpoint does: with
// the receiver answering 500, the first pass of the sender settles the invoice and the event
// moves on to the pending-delivery index for its retries; when no sender runs at all (the
// message was lost), one re-drive run settles it.
func TestSettlementDoesNotWaitForTheWebhook(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	ctx := context.Background()
	if _, err := a.Operator(t).IssueWebhookSecret(ctx, a.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	hook, hits := deadReceiver(t)

	inv := issuedInvoice(t, a)
	it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`", "webhook_url": "`+hook+`"}`)
	approved := time.Now()
	pay(t, a, it.PaymentURL, "approve")
	a.DrainWebhooks(t)
	doc := getDocument(t, a, "invoices", inv)
	if doc.PaidMinor != invoiceTotal || len(doc.Payments) != 1 {
		t.Fatalf("after the sender's first pass (receiver dead): %+v", doc)
	}
	t.Logf("settled %v after the approve, the webhook receiver answering 500", time.Since(approved).Round(time.Millisecond))
	p, _ := a.Store.GetPayment(ctx, it.ID)
	if hits.Load() == 0 || p.Outbox.Status != payment.DeliveryPending || p.Outbox.Attempts < 1 || !p.Outbox.Settled {
		t.Fatalf("the webhook should be pending after a failed attempt, the document settled: %+v (hits %d)", p.Outbox, hits.Load())
	}
	pending, _ := a.Store.PendingDeliveries(ctx, time.Now().Add(24*time.Hour), 1000)
	waiting, _ := a.Store.SettlePending(ctx, 1000)
	if !containsRef(pending, it.ID) || containsRef(waiting, it.ID) {
		t.Fatalf("the settled event must wait for its retries in the delivery index only: delivery %v, settle %v", pending, waiting)
	}

	// No sender at all: the re-drive's run settles it.
	inv2 := issuedInvoice(t, a)
	it2, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv2+`", "webhook_url": "`+hook+`"}`)
	pay(t, a, it2.PaymentURL, "approve")
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if doc := getDocument(t, a, "invoices", inv2); doc.PaidMinor != invoiceTotal {
		t.Fatalf("after one re-drive run without any sender: %+v", doc)
	}
}

func containsRef(refs []payment.EventRef, id string) bool {
	for _, r := range refs {
		if r.InvoiceID == id {
			return true
		}
	}
	return false
}

// Live documents are not payable in this sandbox-only release: the page says so, and the
// payer's POST creates nothing — no intent, no reservation on the invoice, no use of the link.
func TestLiveDocumentsAreNotPayable(t *testing.T) {
	t.Parallel()
	a := start(t)
	for _, kind := range []string{"invoices", "payment-links"} {
		body, command := `{"reference": "LIVE-INV", "amount_minor": 50000}`, "issue"
		if kind == "payment-links" {
			body, command = `{"reference": "LIVE-LINK", "amount_minor": 50000, "max_uses": 3}`, "publish"
		}
		res := a.Do(t, "POST", docs(a, kind)+"?environment=live", a.Creds.LiveKey, body, "Idempotency-Key", idemKey())
		var rec struct {
			ID          string `json:"id"`
			PublicToken string `json:"public_token"`
		}
		if err := json.Unmarshal(res.Body, &rec); err != nil || res.Status != http.StatusCreated {
			t.Fatalf("live %s: %d %s", kind, res.Status, res.Body)
		}
		if r := a.Do(t, "POST", docs(a, kind)+"/"+rec.ID+"/"+command+"?environment=live", a.Creds.LiveKey, ""); r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", command, r.Status, r.Body)
		}
		if state, _ := publicState(t, a, rec.PublicToken); state != "unavailable" {
			t.Errorf("live %s page state %q, want unavailable", kind, state)
		}
		page := a.Do(t, "GET", "/v1/public/documents/"+rec.PublicToken, "", "", "Accept", "text/html")
		if !strings.Contains(string(page.Body), "does not accept payments on this page yet") || strings.Contains(string(page.Body), "<form") {
			t.Errorf("live %s page: %s", kind, page.Body)
		}
		res, _ = postPublic(t, a, rec.PublicToken, `{}`)
		apitest.Envelope(t, res, http.StatusForbidden, "SCOPE_OR_ENVIRONMENT_DENIED")
		item := rawItem(t, a, docPK(a, "live", kind), rec.ID)
		if _, ok := item["live_intent"]; ok {
			t.Errorf("live %s: the POST reserved it: %v", kind, item["live_intent"])
		}
		for _, attr := range []string{"uses", "holds"} {
			if _, ok := item[attr]; ok {
				t.Errorf("live %s: the POST took a use: %s %v", kind, attr, item[attr])
			}
		}
	}
	list := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents", a.Creds.LiveKey, ""))
	if len(list.Items) != 0 {
		t.Errorf("live intents were written: %+v", list.Items)
	}
}

// The page's POST is limited per document across instances (DynamoDB, like the workspace
// limit): two instances of the function share one budget, and the refusal is a 429 with
// Retry-After that writes nothing.
func TestPublicPayIsLimitedPerDocument(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DOCUMENT_PAY_RATE": "1", "DOCUMENT_PAY_BURST": "3",
		"CHECKOUT_RATE_PER_TOKEN": "1000", "CHECKOUT_RATE_PER_CLIENT": "1000"}
	a := localapi.StartTestAPI(t, localapi.Options{Env: env})
	link := newDocument(t, a, "payment-links", `{"reference": "LIMITED", "amount_minor": 1000}`, "publish")
	token := publicToken(t, a, "payment-links", link)
	// A second instance of the function (its own limiter, the same table), as Lambda would run
	// beside the one behind the local gateway.
	second := publicdocapi.API{
		Docs: &publicdoc.Service{Store: a.Store, Limiter: &ratelimit.CapabilityLimiter{PerToken: 1000, PerClient: 1000}},
		Checkout: &publicdoc.Checkout{Store: a.Store, Tokens: a.Deps["PublicDocumentsFunction"].Config.CheckoutTokenKey,
			Documents: &ratelimit.Limiter{Store: a.Store, Rate: 1, Burst: 3, Lease: 1}}}
	viaSecond := func() int {
		_, err := second.Pay(context.Background(), &web.Request{Method: "POST", Path: "/v1/public/documents/" + token,
			PathParams: map[string]string{"token": token}, Body: []byte(`{}`), SourceIP: "203.0.113.9", BaseURL: a.URL})
		if err == nil {
			return http.StatusCreated
		}
		return apierr.As(err).Status()
	}
	codes := map[int]int{}
	var retry string
	for i := range 5 {
		if i%2 == 1 {
			codes[viaSecond()]++
			continue
		}
		res, _ := postPublic(t, a, token, `{}`)
		codes[res.Status]++
		if res.Status == http.StatusTooManyRequests {
			retry = res.Header.Get("Retry-After")
		}
	}
	if codes[http.StatusCreated] != 3 || codes[http.StatusTooManyRequests] != 2 || retry == "" {
		t.Fatalf("5 POSTs through two instances with a burst of 3: %v (Retry-After %q)", codes, retry)
	}
	list := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?document_id="+link, a.Creds.SandboxKey, ""))
	if len(list.Items) != 3 {
		t.Fatalf("%d intents, want the 3 admitted", len(list.Items))
	}
	// Another link has its own budget.
	link2 := newDocument(t, a, "payment-links", `{"reference": "OTHER", "amount_minor": 1000}`, "publish")
	if res, _ := postPublic(t, a, publicToken(t, a, "payment-links", link2), `{}`); res.Status != http.StatusCreated {
		t.Fatalf("another document: %d %s", res.Status, res.Body)
	}
}

// An intent holding one of a payment link's max_uses that nobody starts paying gives the use
// back after payment.UseHold, not after its whole life; one whose payer locks a route in time
// lives on to its expires_at.
func TestUnstartedIntentsHoldAUseOnlyBriefly(t *testing.T) {
	t.Parallel()
	c := &clock{}
	a := startAt(t, c)
	ctx := context.Background()
	link := newDocument(t, a, "payment-links", `{"reference": "ONE-SEAT", "amount_minor": 20000, "max_uses": 1}`, "publish")
	token := publicToken(t, a, "payment-links", link)
	res, held := postPublic(t, a, token, `{}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("first payer: %d %s", res.Status, res.Body)
	}
	var it struct {
		Status    string     `json:"status"`
		StartBy   *time.Time `json:"start_by"`
		ExpiresAt time.Time  `json:"expires_at"`
		CreatedAt time.Time  `json:"created_at"`
	}
	_ = json.Unmarshal(a.Do(t, "GET", "/v1/payment-intents/"+held.IntentID, a.Creds.SandboxKey, "").Body, &it)
	if it.StartBy == nil || !it.StartBy.Equal(it.CreatedAt.Add(payment.UseHold)) || !it.ExpiresAt.Equal(it.CreatedAt.Add(payment.UseLife)) {
		t.Fatalf("the held intent: %+v", it)
	}
	res, _ = postPublic(t, a, token, `{}`)
	apitest.Envelope(t, res, http.StatusConflict, "STATE_CONFLICT")

	c.Advance(payment.UseHold + time.Second)
	_ = json.Unmarshal(a.Do(t, "GET", "/v1/payment-intents/"+held.IntentID, a.Creds.SandboxKey, "").Body, &it)
	if it.Status != "EXPIRED" {
		t.Fatalf("an unstarted intent past its hold is %s, want EXPIRED", it.Status)
	}
	if r := a.Do(t, "POST", pathOf(t, held.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != http.StatusConflict {
		t.Fatalf("a lock after the hold: %d %s", r.Status, r.Body)
	}
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	a.DrainWebhooks(t)
	res, started := postPublic(t, a, token, `{}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("after the hold gave the use back: %d %s", res.Status, res.Body)
	}
	// The next payer starts at once: the intent lives on past the hold, and the sweep leaves it.
	if r := a.Do(t, "POST", pathOf(t, started.PaymentURL)+"/lock", "", `{"route":"nagad","payer":"01812345678"}`); r.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	c.Advance(payment.UseHold + time.Minute)
	if due, err := a.Store.ExpiredPending(ctx, c.Now(), 1000); err != nil || len(due) != 0 {
		t.Fatalf("a started intent is due to expire at its hold: %v %v", due, err)
	}
	it.StartBy = nil
	_ = json.Unmarshal(a.Do(t, "GET", "/v1/payment-intents/"+started.IntentID, a.Creds.SandboxKey, "").Body, &it)
	if it.Status != "PENDING" || it.StartBy != nil {
		t.Fatalf("a started intent after the hold: %+v", it)
	}
	if r := a.Do(t, "POST", pathOf(t, started.PaymentURL)+"/notices/approve", "", ""); r.Status != http.StatusOK {
		t.Fatalf("approve after the hold: %d %s", r.Status, r.Body)
	}
}

// Closing a document closes its door: a cancelled invoice's or archived link's pending intent
// is cancelled when its payer tries to lock or approve, and an approve that was already past
// that check is recorded on the closed document as paid after close — never lost, never
// counted in paid_minor.
func TestClosingADocumentClosesItsDoor(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	// Lock refused after the invoice is cancelled.
	inv := issuedInvoice(t, a)
	it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	if r := a.Do(t, "POST", docs(a, "invoices")+"/"+inv+"/cancel?environment=sandbox", a.Creds.SandboxKey, ""); r.Status != http.StatusOK {
		t.Fatalf("cancel invoice: %d %s", r.Status, r.Body)
	}
	res := a.Do(t, "POST", pathOf(t, it.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`)
	if msg := apitest.Envelope(t, res, http.StatusConflict, "STATE_CONFLICT"); !strings.Contains(msg, "cancelled this invoice") {
		t.Errorf("lock on a cancelled invoice: %s", msg)
	}
	if got := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, "")); got.Status != "CANCELLED" {
		t.Errorf("the intent of a cancelled invoice is %s, want CANCELLED", got.Status)
	}

	// Approve refused after the link is archived (the payer had locked before).
	link := newDocument(t, a, "payment-links", `{"reference": "ARCHIVE-ME", "amount_minor": 7000}`, "publish")
	li, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`"}`)
	if r := a.Do(t, "POST", pathOf(t, li.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", docs(a, "payment-links")+"/"+link+"/archive?environment=sandbox", a.Creds.SandboxKey, ""); r.Status != http.StatusOK {
		t.Fatalf("archive: %d %s", r.Status, r.Body)
	}
	res = a.Do(t, "POST", pathOf(t, li.PaymentURL)+"/notices/approve", "", "")
	apitest.Envelope(t, res, http.StatusConflict, "STATE_CONFLICT")
	if got := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+li.ID, a.Creds.SandboxKey, "")); got.Status != "CANCELLED" {
		t.Errorf("the intent of an archived link is %s after an approve, want CANCELLED", got.Status)
	}

	// An approve already past the check when the merchant cancels: paid after close.
	inv2 := issuedInvoice(t, a)
	it2, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv2+`"}`)
	if r := a.Do(t, "POST", pathOf(t, it2.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", docs(a, "invoices")+"/"+inv2+"/cancel?environment=sandbox", a.Creds.SandboxKey, ""); r.Status != http.StatusOK {
		t.Fatalf("cancel invoice: %d %s", r.Status, r.Body)
	}
	p, _ := a.Store.GetPayment(ctx, it2.ID)
	d, _ := p.NewDelivery(payment.Completed, time.Now())
	if _, err := a.Store.FinishPayment(ctx, it2.ID, payment.Completed, true, d, time.Now()); err != nil {
		t.Fatal(err) // the checkout's write, after its document check passed
	}
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Settle(ctx); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Items []struct {
			Status              string `json:"status"`
			PaidMinor           int64  `json:"paid_minor"`
			PaidAfterCloseMinor int64  `json:"paid_after_close_minor"`
			Payments            []struct {
				IntentID   string `json:"intent_id"`
				State      string `json:"state"`
				AfterClose bool   `json:"after_close"`
			} `json:"payments"`
		} `json:"items"`
	}
	_ = json.Unmarshal(a.Do(t, "GET", docs(a, "invoices")+"/"+inv2+"?environment=sandbox", a.Creds.SandboxKey, "").Body, &rec)
	got := rec.Items[0]
	if got.Status != "cancelled" || got.PaidMinor != 0 || got.PaidAfterCloseMinor != invoiceTotal ||
		len(got.Payments) != 1 || got.Payments[0].State != "COMPLETED" || !got.Payments[0].AfterClose {
		t.Fatalf("a payment completed after the invoice was cancelled: %+v", got)
	}
}

// Abandoned intents and their snapshots do not accumulate: an intent that ends other than
// COMPLETED carries a TTL (payment.Retention after it ended), and so does its snapshot once
// settled; a COMPLETED one carries none. Past its TTL an intent reads as absent everywhere
// (DynamoDB deletes it only eventually; dynalite never), and its Idempotency-Key makes a new one.
func TestAbandonedIntentsExpireFromTheTable(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	inv := issuedInvoice(t, a)
	key := idemKey()
	gone, _ := createIntent(t, a, key, `{"document_id": "`+inv+`"}`)
	if r := a.Do(t, "POST", "/v1/payment-intents/"+gone.ID+"/cancel", a.Creds.SandboxKey, ""); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	paid, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	pay(t, a, paid.PaymentURL, "approve")
	a.DrainWebhooks(t)

	p, _ := a.Store.GetPayment(ctx, gone.ID)
	want := p.FinishedAt.Add(payment.Retention).Unix()
	item := rawItem(t, a, "PAY#"+gone.ID, "PAY")
	snap := rawItem(t, a, "PAY#"+gone.ID, p.SnapshotKey)
	if got := ttlOf(item); got < want-5 || got > want+5 {
		t.Errorf("cancelled intent ttl %d, want about %d", got, want)
	}
	if got := ttlOf(snap); got < want-5 || got > want+5 {
		t.Errorf("its snapshot's ttl %d, want about %d", got, want)
	}
	pp, _ := a.Store.GetPayment(ctx, paid.ID)
	if ttlOf(rawItem(t, a, "PAY#"+paid.ID, "PAY")) != 0 || ttlOf(rawItem(t, a, "PAY#"+paid.ID, pp.SnapshotKey)) != 0 {
		t.Error("a COMPLETED intent or its snapshot carries a ttl")
	}

	// Past its ttl, the abandoned intent is absent to every reader.
	pastTTL(t, a, gone.ID)
	apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents/"+gone.ID, a.Creds.SandboxKey, ""), http.StatusNotFound, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "`+gone.ID+`"}`), http.StatusNotFound, "NOT_FOUND")
	for _, it := range decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?limit=100", a.Creds.SandboxKey, "")).Items {
		if it.ID == gone.ID {
			t.Error("the list shows an intent past its ttl")
		}
	}
	// Its Idempotency-Key makes a new intent (the invoice is paid, so a standalone one here).
	res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": 10}`, "Idempotency-Key", key)
	if res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "" || decode[intentResp](t, res).ID != gone.ID {
		t.Fatalf("the key of an intent past its ttl: %d %s", res.Status, res.Body)
	}
}

// The re-drive drains a backlog in one run instead of 100 expiries a minute: 1,500 payments
// past their expiry (the old limit was 100 a run) are all expired, and their events sent.
func TestRedriveDrainsABacklogOfExpiries(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	const n = 1500
	past := time.Now().Add(-time.Hour)
	ids := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			id, _ := payment.NewInvoiceID()
			p := &payment.Payment{InvoiceID: id, WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox,
				Status: payment.Pending, AmountMinor: 1000, Currency: payment.Currency, Reference: fmt.Sprintf("backlog-%d", i),
				WebhookURL: "https://shop.example.com.bd/hooks", CheckoutHash: []byte{1}, RequestHash: "00",
				CreatedAt: past, UpdatedAt: past, ExpiresAt: past.Add(5 * time.Minute)}
			if _, err := a.Store.CreatePayment(ctx, p); errors.Is(err, payment.ErrExists) {
				// Under load the SDK may retry a PutItem whose first attempt was written but
				// whose answer was late: the retry then meets its own item. Ours if it is.
				if got, gerr := a.Store.GetPayment(ctx, id); gerr != nil || got.Reference != p.Reference {
					t.Errorf("%s exists and is not ours: %v", id, gerr)
				}
			} else if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	r := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"])
	began := time.Now()
	got, err := r.Expire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("expired %d payments in one run in %v", got, time.Since(began).Round(time.Millisecond))
	if left, _ := a.Store.ExpiredPending(ctx, time.Now(), 10); len(left) != 0 {
		t.Fatalf("%d still waiting after the run (it counted %d expired)", len(left), got)
	}
	// Every one is EXPIRED after the one run. The run's own count may be short by an update
	// the SDK retried after its first attempt had been written (the retry's condition then
	// fails on its own change), so the store, not the count, is what is checked.
	expired := 0
	for _, id := range ids {
		if p, err := a.Store.GetPayment(ctx, id); err == nil && p.Status == payment.Expired {
			expired++
		}
	}
	if expired != n || got < n-n/100 {
		t.Fatalf("one run: %d of %d EXPIRED in the store, %d counted", expired, n, got)
	}
}

// shared/intent is the only package that reserves or releases an invoice's live intent or a
// payment link's use (its store implements them): no other production code calls them.
func TestOnlyIntentReservesInvoicesAndUses(t *testing.T) {
	root := filepath.Join("..", "..", "..") // the repository, from shared/intent/integration
	call := regexp.MustCompile(`\.(ReserveInvoiceIntent|HoldUse|ReleaseHold)\(`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, filepath.Join("shared", "intent")+string(filepath.Separator)) ||
			strings.HasPrefix(rel, filepath.Join("shared", "aws", "dynamo")+string(filepath.Separator)) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := call.Find(src); m != nil {
			t.Errorf("%s calls %s: only shared/intent may reserve or release", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
