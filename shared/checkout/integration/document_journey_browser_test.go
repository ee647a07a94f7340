//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
)

var docKeySeq atomic.Int64

// newBrowserDocument creates a sandbox document through the documents API, runs its lifecycle
// command (publish, issue) and returns its id and public token.
func newBrowserDocument(t *testing.T, a *localapi.TestAPI, kind, body, command string) (string, string) {
	t.Helper()
	docs := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/" + kind
	key := fmt.Sprintf("browser-document-test-%012d", docKeySeq.Add(1))
	res := a.Do(t, "POST", docs+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	var rec struct {
		ID          string `json:"id"`
		PublicToken string `json:"public_token"`
	}
	if err := json.Unmarshal(res.Body, &rec); err != nil || res.Status != http.StatusCreated || rec.PublicToken == "" {
		t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
	}
	if res := a.Do(t, "POST", docs+"/"+rec.ID+"/"+command+"?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("%s: %d %s", command, res.Status, res.Body)
	}
	return rec.ID, rec.PublicToken
}

// settleDocuments runs the deployed workers after outcomes, as publicdoc's settle does: the
// webhook sender drains its queue, then the re-drive's settle step tells each document of its
// intents' outcomes.
func settleDocuments(t *testing.T, a *localapi.TestAPI) {
	t.Helper()
	a.DrainWebhooks(t)
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

type documentPayment struct {
	IntentID    string `json:"intent_id"`
	State       string `json:"state"`
	AmountMinor int64  `json:"amount_minor"`
}

type documentRecord struct {
	ID        string            `json:"id"`
	Status    string            `json:"status"`
	PaidMinor int64             `json:"paid_minor"`
	Payments  []documentPayment `json:"payments"`
}

// documentOf reads a document through the merchant API (GET answers {items: [record]}).
func documentOf(t *testing.T, a *localapi.TestAPI, kind, id string) documentRecord {
	t.Helper()
	res := a.Do(t, "GET", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/"+kind+"/"+id+"?environment=sandbox", a.Creds.SandboxKey, "")
	var out struct {
		Items []documentRecord `json:"items"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil || res.Status != http.StatusOK || len(out.Items) != 1 {
		t.Fatalf("get %s %s: %d %s", kind, id, res.Status, res.Body)
	}
	return out.Items[0]
}

// checkPaidOnce checks that the document learned exactly one payment: intent, COMPLETED, amount.
func checkPaidOnce(t *testing.T, rec documentRecord, intentID string, amount int64) {
	t.Helper()
	if len(rec.Payments) != 1 || rec.Payments[0] != (documentPayment{IntentID: intentID, State: "COMPLETED", AmountMinor: amount}) ||
		rec.PaidMinor != amount {
		t.Fatalf("document after settle: paid_minor %d, payments %+v; want one COMPLETED payment of %d by %s",
			rec.PaidMinor, rec.Payments, amount, intentID)
	}
}

// payInBrowser completes a sandbox checkout from its route choice, as TestBrowserJourney does:
// bKash, the payer's number, continue (the lock), then the simulated provider's approve. done
// is the element the page after approve shows.
func payInBrowser(t *testing.T, ctx context.Context, a *localapi.TestAPI, done chromedp.Action[chromedp.Void], failShot string) {
	t.Helper()
	if err := do(ctx,
		chromedp.WaitVisible(chromedp.ID("route-bkash")),
		chromedp.Click(chromedp.ID("route-bkash")),
		chromedp.SendKeys(chromedp.ID("payer-bkash"), "01712345678"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	); err != nil {
		screenshot(t, ctx, failShot)
		for _, l := range a.Logs.Lines() {
			t.Logf("%v %v %v", l["method"], l["path"], l["status"])
		}
		t.Fatalf("lock: %v", err)
	}
	if text, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("lock"))); err != nil || !strings.Contains(text, "017•••••678") {
		t.Errorf("locked page does not show the masked payer: %q %v", text, err)
	}
	if err := do(ctx, chromedp.Click(chromedp.ID("approve")), done); err != nil {
		screenshot(t, ctx, failShot)
		t.Fatalf("approve: %v", err)
	}
}

// location is the page's URL now.
func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := browsertest.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The payer's whole journey from a public document page in a real browser: the page's form
// (quantity, custom fields) posts without script, 303s to the hosted checkout, the sandbox
// payment completes, and the document learns it. A payment link sends the payer back to its
// return_url and carries the answers into the intent; an issued invoice, which has no
// return_url, ends on the checkout's completed page, and its public page then says it has
// been paid.
func TestBrowserDocumentJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	chromiumPath(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	shop := newMerchant(t)
	ctx := browser(t)

	// 1. A payment link with a quantity and two required fields.
	linkID, linkToken := newBrowserDocument(t, a, "payment-links", `{"reference": "LINK-BROWSER-1", "amount_minor": 150000,
		"max_quantity": 3, "return_url": "`+shop.srv.URL+`/thanks",
		"fields": [{"id": "name_on_card", "label": "Name on the card", "type": "text", "required": true},
			{"id": "size", "label": "Size", "type": "select", "options": ["Small", "Large"], "required": true}]}`, "publish")
	const nameOnCard = "Rahima Begum"
	if err := do(ctx,
		chromedp.Navigate(a.URL+"/v1/public/documents/"+linkToken),
		chromedp.WaitVisible(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("field-name_on_card")),
		chromedp.WaitVisible(chromedp.ID("field-size")),
		chromedp.WaitVisible(chromedp.ID("quantity")),
	); err != nil {
		t.Fatalf("link page: %v", err)
	}
	text, err := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LINK-BROWSER-1", "৳1,500.00", "Name on the card", "Demo merchant (local)", "no real money moves"} {
		if !strings.Contains(text, want) {
			t.Errorf("link page lacks %q: %q", want, text)
		}
	}
	screenshot(t, ctx, "document-link-page.png")
	if err := do(ctx,
		chromedp.SendKeys(chromedp.ID("field-name_on_card"), nameOnCard),
		chromedp.SetValue(chromedp.ID("field-size"), "Large"),
		chromedp.Clear(chromedp.ID("quantity")),
		chromedp.SendKeys(chromedp.ID("quantity"), "2"),
	); err != nil {
		t.Fatalf("fill the link form: %v", err)
	}
	for id, want := range map[string]string{"field-name_on_card": nameOnCard, "field-size": "Large", "quantity": "2"} {
		if got, err := browsertest.Run(ctx, chromedp.Value(chromedp.ID(id))); err != nil || got != want {
			t.Fatalf("#%s holds %q (%v), want %q", id, got, err, want)
		}
	}
	// A real form post (the page has no script): 303 to the hosted checkout.
	if err := do(ctx, chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("route-bkash"))); err != nil {
		screenshot(t, ctx, "document-link-failed.png")
		t.Fatalf("submit the link form: %v", err)
	}
	if u := location(t, ctx); !strings.HasPrefix(u, a.URL+"/v1/public/checkout/") {
		t.Fatalf("the link form landed on %q, want the hosted checkout", u)
	}
	if text, err = browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body"))); err != nil || !strings.Contains(text, "৳3,000.00") {
		t.Errorf("checkout of 2 × ৳1,500.00 does not show ৳3,000.00: %q %v", text, err)
	}
	// What is bought, above the total: the quantity × the unit price and the chosen options.
	if got, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("purchase"))); err != nil || got != "Quantity: 2 × ৳1,500.00" {
		t.Errorf("checkout purchase %q %v", got, err)
	}
	if got, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("options"))); err != nil ||
		!strings.Contains(got, "Name on the card") || !strings.Contains(got, nameOnCard) || !strings.Contains(got, "Size") || !strings.Contains(got, "Large") {
		t.Errorf("checkout options %q %v", got, err)
	}
	linkIntent, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("invoice")))
	if err != nil || linkIntent == "" {
		t.Fatalf("checkout footer invoice id %q %v", linkIntent, err)
	}
	screenshot(t, ctx, "document-link-checkout.png")
	payInBrowser(t, ctx, a, chromedp.WaitVisible(chromedp.ID("merchant")), "document-link-pay-failed.png")
	if u := location(t, ctx); !strings.HasPrefix(u, shop.srv.URL+"/thanks?invoice_id="+linkIntent) {
		t.Fatalf("after approve the payer is on %q, want the link's return_url with invoice_id=%s", u, linkIntent)
	}
	if hits := shop.landed(); len(hits) != 1 || hits[0] != "/thanks?invoice_id="+linkIntent {
		t.Fatalf("the merchant saw %v, want one visit to /thanks?invoice_id=%s", hits, linkIntent)
	}
	settleDocuments(t, a)
	checkPaidOnce(t, documentOf(t, a, "payment-links", linkID), linkIntent, 300000)
	res := a.Do(t, "GET", "/v1/payment-intents/"+linkIntent, a.Creds.SandboxKey, "")
	var it struct {
		Status      string `json:"status"`
		AmountMinor int64  `json:"amount_minor"`
		Source      struct {
			Kind       string `json:"kind"`
			DocumentID string `json:"document_id"`
			Quantity   int64  `json:"quantity"`
		} `json:"source"`
		Snapshot struct {
			Answers struct {
				Fields   map[string]any `json:"fields"`
				Quantity int64          `json:"quantity"`
			} `json:"answers"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal(res.Body, &it); err != nil || res.Status != http.StatusOK {
		t.Fatalf("intent %s: %d %s", linkIntent, res.Status, res.Body)
	}
	ans := it.Snapshot.Answers
	if it.Status != "COMPLETED" || it.AmountMinor != 300000 || it.Source.Kind != "payment-links" || it.Source.DocumentID != linkID ||
		it.Source.Quantity != 2 || ans.Quantity != 2 || len(ans.Fields) != 2 || ans.Fields["name_on_card"] != nameOnCard || ans.Fields["size"] != "Large" {
		t.Fatalf("link intent: %s", res.Body)
	}

	// 2. An issued invoice: no return_url, so the payer stays on the checkout's completed page.
	invID, invToken := newBrowserDocument(t, a, "invoices", `{"reference": "INV-BROWSER-1",
		"items": [{"title": "Saree", "quantity": 1, "unit_amount_minor": 250000}],
		"fields": [{"id": "note", "label": "Note for the shop", "type": "text"}]}`, "issue")
	invPage := a.URL + "/v1/public/documents/" + invToken
	if err := do(ctx, chromedp.Navigate(invPage), chromedp.WaitVisible(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("items"))); err != nil {
		t.Fatalf("invoice page: %v", err)
	}
	if text, err = browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"INV-BROWSER-1", "Saree", "৳2,500.00", "Amount due"} {
		if !strings.Contains(text, want) {
			t.Errorf("invoice page lacks %q: %q", want, text)
		}
	}
	screenshot(t, ctx, "document-invoice-page.png")
	if err := do(ctx, chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("route-bkash"))); err != nil {
		screenshot(t, ctx, "document-invoice-failed.png")
		t.Fatalf("submit the invoice form: %v", err)
	}
	checkoutURL := location(t, ctx)
	if !strings.HasPrefix(checkoutURL, a.URL+"/v1/public/checkout/") {
		t.Fatalf("the invoice form landed on %q, want the hosted checkout", checkoutURL)
	}
	invIntent, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("invoice")))
	if err != nil || invIntent == "" || invIntent == linkIntent {
		t.Fatalf("checkout footer invoice id %q %v", invIntent, err)
	}
	payInBrowser(t, ctx, a, chromedp.WaitVisible(chromedp.CSS(`#status[data-status="COMPLETED"] #final`)), "document-invoice-pay-failed.png")
	if u := location(t, ctx); u != checkoutURL {
		t.Errorf("after approve the payer is on %q, want the checkout page %q", u, checkoutURL)
	}
	if title, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("status-title"))); err != nil || title == "" {
		t.Errorf("completed page title %q %v", title, err)
	}
	if n, err := browsertest.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#return, #approve, #route-bkash").length`)); err != nil || n != 0 {
		t.Errorf("the completed page still offers %d return/approve/route controls (%v)", n, err)
	}
	if hits := shop.landed(); len(hits) != 1 {
		t.Errorf("the invoice payment sent the payer to the merchant: %v", hits)
	}
	settleDocuments(t, a)
	checkPaidOnce(t, documentOf(t, a, "invoices", invID), invIntent, 250000)

	// The invoice's public page, loaded again, says it has been paid and offers no form.
	if err := do(ctx, chromedp.Navigate(invPage), chromedp.WaitVisible(chromedp.ID("status-title"))); err != nil {
		t.Fatalf("paid invoice page: %v", err)
	}
	screenshot(t, ctx, "document-invoice-paid.png")
	if title, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("status-title"))); err != nil || !strings.Contains(title, "has been paid") {
		t.Fatalf("paid invoice page title %q %v, want it to say it has been paid", title, err)
	}
	if state, err := browsertest.Run(ctx, chromedp.AttributeValue(chromedp.ID("document"), "data-state")); err != nil || state.Value != "paid" {
		t.Errorf("paid invoice page data-state %q %v", state.Value, err)
	}
	// Its one form now is the payer's refund request (issue 33): nothing to pay again.
	if n, err := browsertest.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#continue, form:not(#refund-form)").length`)); err != nil || n != 0 {
		t.Errorf("the paid invoice page still has %d payment forms or #continue buttons (%v)", n, err)
	}
	if n, err := browsertest.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#refund-form").length`)); err != nil || n != 1 {
		t.Errorf("the paid invoice page has %d refund request forms (%v), want 1", n, err)
	}
}
