package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
)

type payResp struct {
	IntentID   string `json:"intent_id"`
	PaymentURL string `json:"payment_url"`
}

func postPay(t *testing.T, a *localapi.TestAPI, token, body string) (*localapi.Result, payResp) {
	t.Helper()
	res := a.Do(t, "POST", "/v1/public/documents/"+token, "", body)
	var p payResp
	_ = json.Unmarshal(res.Body, &p)
	return res, p
}

func checkoutPath(u string) string { return u[strings.Index(u, "/v1/"):] }

// settle runs the deployed workers after outcomes: the sender, then the re-drive's settle step.
func settle(t *testing.T, a *localapi.TestAPI) {
	t.Helper()
	a.DrainWebhooks(t)
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// An invoice has one live intent: concurrent payers all get the same one; a form goes on to
// its checkout; a cancelled one is replaced; once paid the invoice refuses (and says so).
func TestPayInvoiceOneLiveIntent(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
	id, token := newDocument(t, a, "invoices", `{"reference": "INV-PAY-1",
		"items": [{"title": "Saree", "quantity": 1, "unit_amount_minor": 90000}],
		"fields": [{"id": "size", "label": "Size", "type": "select", "options": ["S", "M"], "required": true}]}`, "issue")
	body := `{"fields": {"size": "M"}, "payer": {"name": "Karim", "phone": "01712345678"}}`

	// Validation first: a missing required answer is a 422 naming it; nothing is created.
	res, _ := postPay(t, a, token, `{"fields": {}}`)
	if msg := apitest.Envelope(t, res, 422, "VALIDATION_FAILED"); !strings.Contains(msg, "size") {
		t.Errorf("missing answer: %s", msg)
	}

	const n = 20
	ids := make([]string, n)
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, p := postPay(t, a, token, body)
			ids[i], codes[i] = p.IntentID, res.Status
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if ids[i] == "" || ids[i] != ids[0] || (codes[i] != 201 && codes[i] != 200) {
			t.Fatalf("payer %d: %d %s (first %s)", i, codes[i], ids[i], ids[0])
		}
		if codes[i] == 201 {
			created++
		}
	}
	if created < 1 {
		t.Fatalf("no payer created the intent: %v", codes)
	}
	live := ids[0]
	it := intentOf(t, a, live)
	if it.AmountMinor != 90000 || it.Source.Kind != "invoices" || it.Source.DocumentID != id || it.Status != "PENDING" ||
		!strings.Contains(string(it.Snapshot), `"answers":{"fields":{"size":"M"},"payer":{"name":"Karim","phone":"01712345678"},"quantity":1}`) {
		t.Fatalf("live intent: %+v", it)
	}
	// A form from the page goes on (303, followed by the client) to the same intent's checkout.
	res = a.Do(t, "POST", "/v1/public/documents/"+token, "", "field.size=S", "Content-Type", "application/x-www-form-urlencoded")
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"invoice_id":"`+live+`"`) {
		t.Fatalf("form post did not land on the live intent's checkout: %d %s", res.Status, res.Body)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("POST", a.URL+"/v1/public/documents/"+token, strings.NewReader("field.size=S"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	raw, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw.Body.Close()
	if raw.StatusCode != http.StatusSeeOther || raw.Header.Get("Location") != it.PaymentURL {
		t.Fatalf("form post: %d Location %q, want 303 to %s", raw.StatusCode, raw.Header.Get("Location"), it.PaymentURL)
	}
	if raw.Header.Get("Referrer-Policy") != "no-referrer" || raw.Header.Get("Cache-Control") != "no-store" ||
		raw.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("the 303 to the checkout (its URL is a bearer token) lacks the page's headers: %v", raw.Header)
	}
	if _, p := postPay(t, a, token, body); p.IntentID != live {
		t.Fatalf("second post gave %s, want the live %s", p.IntentID, live)
	}
	// A form with a problem gets the page back with the error and its answers.
	res = a.Do(t, "POST", "/v1/public/documents/"+token, "", "field.size=XL&payer_name=Rahim", "Content-Type", "application/x-www-form-urlencoded")
	if res.Status != 422 || !strings.Contains(string(res.Body), `role="alert"`) || !strings.Contains(string(res.Body), "Rahim") {
		t.Fatalf("form with a bad answer: %d %s", res.Status, res.Body)
	}

	// The payer cancels on the checkout: the next POST makes a new intent.
	if r := a.Do(t, "POST", checkoutPath(it.PaymentURL)+"/notices/cancel", "", ""); r.Status != 200 {
		t.Fatalf("checkout cancel: %d %s", r.Status, r.Body)
	}
	res, next := postPay(t, a, token, body)
	if res.Status != http.StatusCreated || next.IntentID == live {
		t.Fatalf("after a cancel: %d %+v", res.Status, next)
	}
	// Paid: refused at once (even before the invoice learns it), and the page says paid later.
	if r := a.Do(t, "POST", checkoutPath(next.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", checkoutPath(next.PaymentURL)+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	res, _ = postPay(t, a, token, body)
	if msg := apitest.Envelope(t, res, 409, "STATE_CONFLICT"); !strings.Contains(msg, "paid") {
		t.Errorf("post after payment: %s", msg)
	}
	settle(t, a)
	if v := decodeView(t, a.Do(t, "GET", "/v1/public/documents/"+token, "", "")); v.State != "paid" {
		t.Fatalf("view after payment: %+v", v)
	}
	res = a.Do(t, "GET", "/v1/public/documents/"+token, "", "", "Accept", "text/html")
	if !strings.Contains(string(res.Body), "has been paid") || strings.Contains(string(res.Body), `id="continue"`) {
		t.Errorf("page of a paid invoice: %s", res.Body)
	}
}

type intentView struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	AmountMinor int64           `json:"amount_minor"`
	PaymentURL  string          `json:"payment_url"`
	Snapshot    json.RawMessage `json:"snapshot"`
	Source      struct {
		Kind       string `json:"kind"`
		DocumentID string `json:"document_id"`
		Quantity   int64  `json:"quantity"`
	} `json:"source"`
}

func intentOf(t *testing.T, a *localapi.TestAPI, id string) intentView {
	t.Helper()
	res := a.Do(t, "GET", "/v1/payment-intents/"+id, a.Creds.SandboxKey, "")
	var it intentView
	if res.Status != 200 || json.Unmarshal(res.Body, &it) != nil {
		t.Fatalf("intent %s: %d %s", id, res.Status, res.Body)
	}
	return it
}

// A payment link gives each payer their own intent, never more live or paid than max_uses:
// 50 concurrent payers on a link with max_uses 10 get at most 10 intents; one that is
// cancelled frees its use.
func TestPayLinkNeverOversold(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"CHECKOUT_RATE_PER_TOKEN": "1000", "CHECKOUT_RATE_PER_CLIENT": "1000"}})
	_, token := newDocument(t, a, "payment-links", `{"reference": "LINK-PAY", "amount_minor": 25000, "max_quantity": 4,
		"max_uses": 10, "return_url": "https://shop.com.bd/thanks"}`, "publish")
	var mu sync.Mutex
	got := map[int][]string{}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 50 payers, each from an address of its own (one client holds at most
			// intent.MaxHoldsPerClient uses: TestOneClientCannotHoardAPaymentLink).
			res := a.DoFrom(t, fmt.Sprintf("127.0.0.%d", 10+i), "POST", "/v1/public/documents/"+token, "", `{"quantity": 2}`)
			var p payResp
			_ = json.Unmarshal(res.Body, &p)
			mu.Lock()
			got[res.Status] = append(got[res.Status], p.IntentID)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(got[201]) != 10 || len(got[409]) != 40 {
		t.Fatalf("50 payers on a max_uses 10 link: %d created, %d refused, others %v", len(got[201]), len(got[409]), got)
	}
	seen := map[string]bool{}
	for _, id := range got[201] {
		if seen[id] {
			t.Fatalf("two payers share intent %s", id)
		}
		seen[id] = true
	}
	it := intentOf(t, a, got[201][0])
	if it.AmountMinor != 50000 || it.Source.Kind != "payment-links" || it.Source.Quantity != 2 {
		t.Fatalf("link intent: %+v", it)
	}
	res, _ := postPay(t, a, token, `{"quantity": 5}`)
	apitest.Envelope(t, res, 422, "VALIDATION_FAILED")
	// The payer goes back to the merchant's return_url after paying; a cancelled intent frees its use.
	u, _ := url.Parse(it.PaymentURL)
	if r := a.Do(t, "POST", u.Path+"/notices/cancel", "", ""); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	settle(t, a)
	res, p := postPay(t, a, token, `{}`)
	if res.Status != http.StatusCreated || p.IntentID == "" {
		t.Fatalf("after a cancel freed a use: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 5 {
		t.Errorf("a link POST made %d DynamoDB requests, want 5 (GSI3 Query, BatchGetItem, use hold UpdateItem, intent PutItem, snapshot PutItem)", n)
	}
	res, _ = postPay(t, a, token, `{}`)
	apitest.Envelope(t, res, 409, "STATE_CONFLICT")
}

// The payer's language on the document pages over HTTP: ?lang=bn makes the page Bangla and
// rides on its form, the form's 303 to the checkout and the intent's way back (cancel_url);
// a refused form comes back in Bangla with each problem; Accept-Language decides when nothing
// else does (the not-found page too); the JSON view is the same in every language.
func TestLanguageAcrossTheDocumentFlow(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
	_, token := newDocument(t, a, "payment-links", `{"reference": "LINK-LANG", "amount_minor": 150000, "max_quantity": 3,
		"fields": [{"id": "size", "label": "Size", "type": "select", "options": ["S", "M"], "required": true}]}`, "publish")
	page := "/v1/public/documents/" + token
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, body string, headers ...string) (*http.Response, string) {
		req, _ := http.NewRequest(method, a.URL+path, strings.NewReader(body))
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res, b.String()
	}
	_, bn := do("GET", page+"?lang=bn", "", "Accept", "text/html", "Accept-Language", "en")
	for _, want := range []string{`<html lang="bn">`, "৳১,৫০০.০০", "প্রতিটির মূল্য", `action="` + page + `?lang=bn"`,
		`href="` + page + `?lang=en" lang="en" hreflang="en">English</a>`} {
		if !strings.Contains(bn, want) {
			t.Errorf("the Bangla page lacks %q", want)
		}
	}
	_, byBrowser := do("GET", page, "", "Accept", "text/html", "Accept-Language", "bn-BD,bn;q=0.9")
	if !strings.Contains(byBrowser, `<html lang="bn">`) || !strings.Contains(byBrowser, `action="`+page+`"`) {
		t.Errorf("Accept-Language bn: not a Bangla page, or its form carries a choice the payer did not make")
	}
	_, jsonEN := do("GET", page, "")
	_, jsonBN := do("GET", page+"?lang=bn", "", "Accept-Language", "bn")
	if jsonEN != jsonBN || !strings.Contains(jsonBN, `"amount_display":"৳1,500.00"`) {
		t.Errorf("the JSON view changed with the language:\n%s\n%s", jsonEN, jsonBN)
	}
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	res, body := do("POST", page+"?lang=bn", "quantity=9&payer_email=x%40", form...)
	for _, want := range []string{`<html lang="bn">`, "অনুগ্রহ করে আপনার উত্তরগুলো আবার দেখুন:", "পরিমাণ: ১ থেকে ৩-এর মধ্যে একটি সংখ্যা দিন",
		"ইমেইল: সঠিক ইমেইল ঠিকানা লিখুন", "Size: একটি বিকল্প বেছে নিন"} {
		if res.StatusCode != 422 || !strings.Contains(body, want) {
			t.Errorf("refused form in Bangla: %d, lacks %q", res.StatusCode, want)
		}
	}
	res, _ = do("POST", page+"?lang=bn", "quantity=2&field.size=M", form...)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, a.URL+"/v1/public/checkout/") || !strings.HasSuffix(loc, "?lang=bn") {
		t.Fatalf("form in Bangla: %d -> %q, want the checkout with ?lang=bn", res.StatusCode, loc)
	}
	checkout := checkoutPath(loc)
	if _, body := do("GET", checkout, "", "Accept", "text/html"); !strings.Contains(body, `<html lang="bn">`) || !strings.Contains(body, "৳৩,০০০.০০") {
		t.Errorf("the checkout after the 303 is not Bangla")
	}
	// Cancelling on the checkout goes back to the document's page, still in Bangla.
	res, _ = do("POST", strings.TrimSuffix(checkout, "?lang=bn")+"/notices/cancel?lang=bn", "", append(form, "Origin", a.URL)...)
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusSeeOther || back.Path != page || back.Query().Get("lang") != "bn" || back.Query().Get("invoice_id") == "" {
		t.Errorf("cancel: %d -> %q, want the document's page with invoice_id and lang=bn", res.StatusCode, res.Header.Get("Location"))
	}
	// Without a choice, the 303 is payment_url as it is.
	res, _ = do("POST", page, "field.size=S", append(form, "Accept-Language", "bn")...)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || strings.Contains(loc, "?") {
		t.Errorf("form without a choice: %d -> %q", res.StatusCode, loc)
	}
	res, body = do("GET", "/v1/public/documents/"+strings.Repeat("Z", 43), "", "Accept", "text/html", "Accept-Language", "bn")
	if res.StatusCode != 404 || !strings.Contains(body, "এই ঠিকানায় কোনো ইনভয়েস বা পেমেন্ট লিংক নেই।") {
		t.Errorf("not-found page in Bangla: %d %s", res.StatusCode, body)
	}
}

// A payment a payer starts on a public page sends its webhooks to the workspace's document
// webhook for the document's environment — only while one is set, and only one that passes
// the webhook_url rules (a stored value that does not is not used).
func TestPayUsesTheDocumentWebhook(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	ctx := t.Context()
	ws := a.Creds.WorkspaceID
	set := func(env auth.Environment, u string) {
		t.Helper()
		if err := a.Store.SetDocumentWebhook(ctx, ws, env, u); err != nil {
			t.Fatal(err)
		}
	}
	hookOf := func(token string) string {
		t.Helper()
		res, p := postPay(t, a, token, `{"payer": {"name": "Karim"}}`)
		if res.Status != http.StatusCreated {
			t.Fatalf("pay: %d %s", res.Status, res.Body)
		}
		pay, err := a.Store.GetPayment(ctx, p.IntentID)
		if err != nil || pay == nil {
			t.Fatalf("payment %s: %v", p.IntentID, err)
		}
		return pay.WebhookURL
	}
	link := func() string {
		_, token := newDocument(t, a, "payment-links", `{"reference": "LINK-HOOK", "amount_minor": 5000}`, "publish")
		return token
	}

	if got := hookOf(link()); got != "" {
		t.Errorf("no document webhook set: the payment has webhook_url %q", got)
	}
	set(auth.Live, "https://hooks.example.com/live")
	if got := hookOf(link()); got != "" {
		t.Errorf("only a live webhook set: the sandbox payment has webhook_url %q", got)
	}
	set(auth.Sandbox, "http://127.0.0.1:9/hooks/documents")
	if got := hookOf(link()); got != "http://127.0.0.1:9/hooks/documents" {
		t.Errorf("sandbox webhook set: the payment has webhook_url %q", got)
	}
	_, inv := newDocument(t, a, "invoices", `{"reference": "INV-HOOK", "items": [{"title": "Tea", "quantity": 1, "unit_amount_minor": 1000}]}`, "issue")
	if got := hookOf(inv); got != "http://127.0.0.1:9/hooks/documents" {
		t.Errorf("invoice payment: webhook_url %q", got)
	}
	set(auth.Sandbox, "ftp://127.0.0.1/hooks") // stored by someone bypassing the rule: not used
	if got := hookOf(link()); got != "" {
		t.Errorf("a stored webhook that breaks the rules was used: %q", got)
	}
	set(auth.Sandbox, "")
	if got := hookOf(link()); got != "" {
		t.Errorf("cleared: the payment has webhook_url %q", got)
	}
}
