package integration_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/payment"
)

// delivery is one request the merchant's endpoint received.
type delivery struct {
	path    string
	id      string // the webhook-id header
	body    []byte
	sigErr  error // the official library's verdict on the signature
	jsonErr error
	payload struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			InvoiceID   string `json:"invoice_id"`
			IntentID    string `json:"intent_id"`
			Status      string `json:"status"`
			AmountMinor int64  `json:"amount_minor"`
			Currency    string `json:"currency"`
			Reference   string `json:"reference"`
			Environment string `json:"environment"`
			Source      source `json:"source"`
			DocumentID  string `json:"document_id"`
		} `json:"data"`
	}
	// members are the data object's members as sent (to tell an absent member from an empty one).
	members map[string]json.RawMessage
}

// hookReceiver is a merchant's webhook endpoint: it keeps every request and answers 204.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

func newHookReceiver(t *testing.T, secret string) *hookReceiver {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &hookReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{path: r.URL.Path, id: r.Header.Get("webhook-id"), body: body, sigErr: wh.Verify(body, r.Header)}
		var outer struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if d.jsonErr = json.Unmarshal(body, &d.payload); d.jsonErr == nil {
			d.jsonErr = json.Unmarshal(body, &outer)
		}
		d.members = outer.Data
		rc.mu.Lock()
		rc.got = append(rc.got, d)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *hookReceiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// TestIntentWebhookData: an intent's state change is delivered as the payment events always
// were, signed, with the intent's id, its source and, for a linked intent, its document.
func TestIntentWebhookData(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true,
		Env: map[string]string{"DASHBOARD_ORIGINS": dashboardOrigin}})
	ctx := t.Context()
	issued, err := a.Operator(t).IssueWebhookSecret(ctx, a.Creds.WorkspaceID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	rc := newHookReceiver(t, issued.Secret)
	d := a.Deps["WebhookSenderFunction"]
	sender := registry.WebhookConsumer(d)
	poller := &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: d.Config.WebhookQueueURL, Handler: sender.Handle}
	if d.Config.WebhookQueueURL == "" || d.Config.WebhookQueueURL != a.Deps["PaymentIntentCancelFunction"].Config.WebhookQueueURL ||
		d.Config.WebhookQueueURL != a.Deps["CheckoutFunction"].Config.WebhookQueueURL {
		t.Fatalf("the sender polls %q; cancel sends to %q, checkout to %q", d.Config.WebhookQueueURL,
			a.Deps["PaymentIntentCancelFunction"].Config.WebhookQueueURL, a.Deps["CheckoutFunction"].Config.WebhookQueueURL)
	}
	// drain runs the sender until the receiver has n requests; it fails when the queue has
	// given nothing for 30 s meanwhile (a loaded machine only slows it down).
	drain := func(n int) {
		t.Helper()
		idleSince := time.Now()
		for len(rc.deliveries()) < n {
			if time.Since(idleSince) > 30*time.Second {
				t.Fatalf("%d of %d deliveries after 30 s without a message", len(rc.deliveries()), n)
			}
			got, err := poller.RunOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got > 0 {
				idleSince = time.Now()
			} else {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	hook := func(name string) string { return rc.srv.URL + "/hooks/" + name }

	// (a) A linked intent for an issued invoice, cancelled by the merchant.
	inv := issuedInvoice(t, a)
	linked, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`", "webhook_url": "`+hook("linked")+`"}`)
	if res := a.Do(t, "POST", "/v1/payment-intents/"+linked.ID+"/cancel", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	// (b) A standalone intent, paid through the sandbox checkout.
	standalone, _ := createIntent(t, a, idemKey(), `{"amount": 420.50, "reference": "order-wh-9", "webhook_url": "`+hook("standalone")+`"}`)
	if res := pay(t, a, standalone.PaymentURL, "approve"); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	// (c) A payment-link intent for 2 of the link, paid likewise.
	link := newDocument(t, a, "payment-links", `{"reference": "LINK-WH", "amount_minor": 30000, "max_quantity": 5}`, "publish")
	linkIntent, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`", "quantity": 2, "webhook_url": "`+hook("link")+`"}`)
	if res := pay(t, a, linkIntent.PaymentURL, "approve"); res.Status != http.StatusOK {
		t.Fatalf("approve link intent: %d %s", res.Status, res.Body)
	}

	// (d) A standalone intent cancelled from the dashboard (the workspace route, a session).
	dashboard, _ := createIntent(t, a, idemKey(), `{"amount": 15, "reference": "order-wh-10", "webhook_url": "`+hook("dashboard")+`"}`)
	if res := a.Do(t, "POST", "/v1/workspaces/"+a.Creds.WorkspaceID+"/payment-intents/"+dashboard.ID+"/cancel?environment=sandbox", "", "",
		"Cookie", auth.HostSessionCookie+"="+a.Creds.SessionToken, "Origin", dashboardOrigin); res.Status != http.StatusOK {
		t.Fatalf("dashboard cancel: %d %s", res.Status, res.Body)
	}

	drain(4)
	// Nothing more arrives: a duplicate message (SQS delivers at least once) would be a no-op.
	for range 3 {
		if _, err := poller.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	all := rc.deliveries()
	if len(all) != 4 {
		t.Fatalf("the receiver got %d requests for 4 events", len(all))
	}
	byIntent := map[string][]delivery{}
	for _, dl := range all {
		if dl.jsonErr != nil {
			t.Fatalf("delivery to %s is not the payload JSON: %v: %s", dl.path, dl.jsonErr, dl.body)
		}
		if dl.sigErr != nil {
			t.Errorf("delivery to %s fails the Standard Webhooks verification: %v: %s", dl.path, dl.sigErr, dl.body)
		}
		byIntent[dl.payload.Data.IntentID] = append(byIntent[dl.payload.Data.IntentID], dl)
	}
	one := func(it intentResp, path, wantType string) delivery {
		t.Helper()
		got := byIntent[it.ID]
		if len(got) != 1 {
			t.Fatalf("intent %s: %d deliveries, want exactly one", it.ID, len(got))
		}
		dl := got[0]
		p, err := a.Store.GetPayment(ctx, it.ID)
		if err != nil || p == nil || p.Outbox == nil {
			t.Fatalf("payment %s: %+v %v", it.ID, p, err)
		}
		if dl.path != "/hooks/"+path || dl.payload.Type != wantType || dl.id != p.Outbox.EventID || dl.payload.ID != p.Outbox.EventID ||
			dl.payload.Data.InvoiceID != it.ID || dl.payload.Data.IntentID != it.ID || dl.payload.Data.Currency != "BDT" ||
			dl.payload.Data.Environment != "sandbox" || p.Outbox.Status != payment.DeliveryDelivered || p.Outbox.Attempts != 1 {
			t.Errorf("intent %s: delivery to %s, webhook-id %s, outbox %+v: %s", it.ID, dl.path, dl.id, p.Outbox, dl.body)
		}
		return dl
	}

	dl := one(linked, "linked", "payment.cancelled")
	if data := dl.payload.Data; data.Status != "CANCELLED" || data.AmountMinor != invoiceTotal || data.Reference != "INV-7" ||
		data.Source.Kind != "invoices" || data.Source.DocumentID != inv || data.Source.DocumentVersion != linked.Source.DocumentVersion ||
		data.DocumentID != inv {
		t.Errorf("payment.cancelled of a linked intent: %s", dl.body)
	}

	dl = one(standalone, "standalone", "payment.completed")
	if data := dl.payload.Data; data.Status != "COMPLETED" || data.AmountMinor != 42050 || data.Reference != "order-wh-9" ||
		data.Source.Kind != "standalone" || data.Source.DocumentID != "" {
		t.Errorf("payment.completed of a standalone intent: %s", dl.body)
	}
	if _, ok := dl.members["document_id"]; ok {
		t.Errorf("a standalone intent's event has a document_id member: %s", dl.body)
	}
	var src map[string]json.RawMessage
	if err := json.Unmarshal(dl.members["source"], &src); err != nil || len(src) != 1 || string(src["kind"]) != `"standalone"` {
		t.Errorf("a standalone intent's source = %s, want exactly {\"kind\":\"standalone\"}", dl.members["source"])
	}

	dl = one(linkIntent, "link", "payment.completed")
	if data := dl.payload.Data; data.Status != "COMPLETED" || data.AmountMinor != 60000 || data.Reference != "LINK-WH" ||
		data.Source.Kind != "payment-links" || data.Source.Quantity != 2 || data.Source.DocumentID != link ||
		data.Source.DocumentVersion != linkIntent.Source.DocumentVersion || data.DocumentID != link {
		t.Errorf("payment.completed of a payment-link intent: %s", dl.body)
	}

	dl = one(dashboard, "dashboard", "payment.cancelled")
	if data := dl.payload.Data; data.Status != "CANCELLED" || data.AmountMinor != 1500 || data.Reference != "order-wh-10" ||
		data.Source.Kind != "standalone" {
		t.Errorf("payment.cancelled of a dashboard cancel: %s", dl.body)
	}
	if _, ok := dl.members["document_id"]; ok {
		t.Errorf("a standalone intent's event has a document_id member: %s", dl.body)
	}
}
