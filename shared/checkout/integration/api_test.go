package integration_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/payment"
)

func start(t *testing.T, env map[string]string) *localapi.TestAPI {
	t.Helper()
	return localapi.StartTestAPI(t, localapi.Options{Env: env})
}

type created struct {
	InvoiceID, Token, Page string
}

// newPayment creates a sandbox payment through the merchant API and returns its checkout path.
func newPayment(t *testing.T, a *localapi.TestAPI, body string) created {
	t.Helper()
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	_ = json.Unmarshal(res.Body, &c)
	u, err := url.Parse(c.PaymentURL)
	if err != nil {
		t.Fatal(err)
	}
	return created{InvoiceID: c.InvoiceID, Token: u.Path[strings.LastIndexByte(u.Path, '/')+1:], Page: u.Path}
}

type view struct {
	InvoiceID     string `json:"invoice_id"`
	Status        string `json:"status"`
	AmountMinor   int64  `json:"amount_minor"`
	AmountDisplay string `json:"amount_display"`
	Currency      string `json:"currency"`
	Reference     string `json:"reference"`
	MerchantName  string `json:"merchant_name"`
	Environment   string `json:"environment"`
	Terminal      bool   `json:"terminal"`
	ReturnURL     string `json:"return_url"`
	Routes        []struct {
		ID string `json:"id"`
	} `json:"routes"`
	Lock *struct {
		Route       string `json:"route"`
		PayerMasked string `json:"payer_masked"`
	} `json:"lock"`
}

func decodeView(t *testing.T, res *localapi.Result) view {
	t.Helper()
	var v view
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("view %s: %v", res.Body, err)
	}
	return v
}

func verifyStatus(t *testing.T, a *localapi.TestAPI, id string) string {
	t.Helper()
	res := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id":"`+id+`"}`)
	var v struct{ Status string }
	_ = json.Unmarshal(res.Body, &v)
	return v.Status
}

const merchantBody = `{"amount": 1500, "reference": "order-9", "redirect_url": "https://shop.com.bd/thanks?x=1",
  "cancel_url": "https://shop.com.bd/cancelled", "webhook_url": "https://hooks.shop.com.bd/takapay",
  "customer_email": "secret-customer@shop.com.bd", "metadata": {"internal_note": "do-not-show"}}`

func TestViewShowsNothingSecret(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
	res := a.Do(t, "GET", p.Page, "", "")
	if res.Status != 200 {
		t.Fatalf("view: %d %s", res.Status, res.Body)
	}
	v := decodeView(t, res)
	if v.InvoiceID != p.InvoiceID || v.Status != "PENDING" || v.AmountMinor != 150000 || v.AmountDisplay != "৳1,500.00" ||
		v.Currency != "BDT" || v.Reference != "order-9" || v.MerchantName != "Demo merchant (local)" || v.Environment != "sandbox" ||
		v.Terminal || v.Lock != nil || len(v.Routes) != 3 {
		t.Fatalf("view %s", res.Body)
	}
	for _, secret := range []string{"hooks.shop.com.bd", "do-not-show", "secret-customer", a.Creds.SandboxKey, "webhook", "metadata"} {
		if strings.Contains(string(res.Body), secret) {
			t.Errorf("the payer view contains %q", secret)
		}
	}
	if n := apitest.DDBRequests(t, a, res); n != 1 {
		t.Errorf("a page view made %d DynamoDB requests, want 1 (the token Query)", n)
	}
	// Unknown and malformed tokens: the same 404, and a malformed one costs no read.
	other := "/v1/public/checkout/" + strings.Repeat("A", 43)
	m1 := apitest.Envelope(t, a.Do(t, "GET", other, "", ""), 404, "NOT_FOUND")
	bad := a.Do(t, "GET", "/v1/public/checkout/short", "", "")
	m2 := apitest.Envelope(t, bad, 404, "NOT_FOUND")
	if m1 != m2 {
		t.Errorf("unknown and malformed tokens answer differently: %q vs %q", m1, m2)
	}
	if n := apitest.DDBRequests(t, a, bad); n != 0 {
		t.Errorf("a malformed token cost %d DynamoDB requests", n)
	}
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/notices/refund", "", ""), 404, "NOT_FOUND")
}

// The JSON view carries an ETag, and the same view asked for with If-None-Match is a 304 with
// no body (still one GetItem); every state change (lock, approve, expiry) gives a new ETag and
// the full view again. The answer stays no-store: the URL is a bearer credential.
func TestViewETag(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
	etagPattern := regexp.MustCompile(`^"[A-Za-z0-9_-]{22}"$`)
	get := func(ifNoneMatch string) *localapi.Result {
		t.Helper()
		if ifNoneMatch == "" {
			return a.Do(t, "GET", p.Page, "", "")
		}
		return a.Do(t, "GET", p.Page, "", "", "If-None-Match", ifNoneMatch)
	}
	full := func(res *localapi.Result, wantStatus string) string {
		t.Helper()
		tag := res.Header.Get("ETag")
		if res.Status != 200 || !etagPattern.MatchString(tag) || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("view: %d ETag %q Cache-Control %q %s", res.Status, tag, res.Header.Get("Cache-Control"), res.Body)
		}
		if v := decodeView(t, res); v.Status != wantStatus {
			t.Fatalf("view status %s, want %s", v.Status, wantStatus)
		}
		return tag
	}
	notModified := func(res *localapi.Result, tag string) {
		t.Helper()
		if res.Status != http.StatusNotModified || len(res.Body) != 0 || res.Header.Get("ETag") != tag ||
			res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("want 304 with no body and ETag %s: %d ETag %q Cache-Control %q body %q",
				tag, res.Status, res.Header.Get("ETag"), res.Header.Get("Cache-Control"), res.Body)
		}
		if n := apitest.DDBRequests(t, a, res); n != 1 {
			t.Errorf("a 304 made %d DynamoDB requests, want 1 (the GetItem)", n)
		}
	}

	first := get("")
	tag := full(first, "PENDING")
	if again := get(""); again.Header.Get("ETag") != tag || string(again.Body) != string(first.Body) {
		t.Fatalf("the same view twice: ETag %q then %q", tag, again.Header.Get("ETag"))
	}
	notModified(get(tag), tag)
	notModified(get(`"AAAAAAAAAAAAAAAAAAAAAA", `+tag), tag) // a list
	notModified(get("W/"+tag), tag)                         // weak comparison
	full(get(`"AAAAAAAAAAAAAAAAAAAAAA"`), "PENDING")        // another tag: the whole view
	// The page itself (a browser) is not conditional.
	page := a.Do(t, "GET", p.Page, "", "", "Accept", "text/html", "If-None-Match", tag)
	if page.Status != 200 || page.Header.Get("ETag") != "" || !strings.Contains(string(page.Body), "<!doctype html>") {
		t.Fatalf("page with If-None-Match: %d ETag %q", page.Status, page.Header.Get("ETag"))
	}

	// Lock: a new view, a new ETag; then 304 again for the new one.
	if r := a.Do(t, "POST", p.Page+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	locked := get(tag)
	lockedTag := full(locked, "PENDING")
	if lockedTag == tag || decodeView(t, locked).Lock == nil {
		t.Fatalf("after the lock: ETag %s (was %s) %s", lockedTag, tag, locked.Body)
	}
	notModified(get(lockedTag), lockedTag)

	// Approve: terminal, another ETag.
	if r := a.Do(t, "POST", p.Page+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	done := get(lockedTag)
	doneTag := full(done, "COMPLETED")
	if doneTag == lockedTag || doneTag == tag || !decodeView(t, done).Terminal {
		t.Fatalf("after approve: ETag %s %s", doneTag, done.Body)
	}
	notModified(get(doneTag), doneTag)

	// Expiry changes the view with no write by anyone: the old ETag no longer matches.
	q := newPayment(t, a, `{"amount": 10}`)
	p = q
	pendingTag := full(get(""), "PENDING")
	setExpiry(t, a, q.InvoiceID, time.Now().Add(-time.Second))
	if expiredTag := full(get(pendingTag), "EXPIRED"); expiredTag == pendingTag {
		t.Fatalf("expiry kept the ETag %s", expiredTag)
	}
}

func TestLockRules(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
	lock := func(body string) *localapi.Result { return a.Do(t, "POST", p.Page+"/lock", "", body) }
	for _, c := range []struct{ body, path string }{
		{`{"route": "paypal", "payer": "01712345678"}`, "body.route"},
		{`{"route": "bkash", "payer": "12345"}`, "body.payer"},
		{`{"route": "card", "payer": "not-an-email"}`, "body.payer"},
		{`{"route": "bkash"}`, "body.payer"},
		{`{"route": "bkash", "payer": "01712345678", "amount": 1}`, "body.amount"},
	} {
		if msg := apitest.Envelope(t, lock(c.body), 422, "VALIDATION_FAILED"); !strings.Contains(msg, c.path) {
			t.Errorf("%s: %q does not name %s", c.body, msg, c.path)
		}
	}
	apitest.Envelope(t, lock(`{"route": "bkash"`), 400, "MALFORMED_REQUEST")
	// Approve needs a lock.
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/notices/approve", "", ""), 409, "STATE_CONFLICT")

	res := lock(`{"route": "bkash", "payer": "01712345678"}`)
	v := decodeView(t, res)
	if res.Status != 200 || v.Lock == nil || v.Lock.Route != "bkash" || v.Lock.PayerMasked != "017•••••678" {
		t.Fatalf("lock: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("lock made %d DynamoDB requests, want 2 (Query, UpdateItem)", n)
	}
	// The same lock again (another spelling of the same number) is idempotent.
	if res := lock(`{"route": "bkash", "payer": "+880 1712-345678"}`); res.Status != 200 {
		t.Fatalf("same lock again: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, lock(`{"route": "bkash", "payer": "01812345678"}`), 409, "STATE_CONFLICT")
	apitest.Envelope(t, lock(`{"route": "nagad", "payer": "01712345678"}`), 409, "STATE_CONFLICT")
}

func TestOutcomes(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	lockIt := func(p created) {
		if res := a.Do(t, "POST", p.Page+"/lock", "", `{"route": "card", "payer": "Payer@Example.com"}`); res.Status != 200 {
			t.Fatalf("lock: %d %s", res.Status, res.Body)
		}
	}
	for _, c := range []struct {
		action, status string
		lock           bool
		ret            string
	}{
		{"approve", "COMPLETED", true, "https://shop.com.bd/thanks?invoice_id="},
		{"decline", "FAILED", true, "https://shop.com.bd/thanks?invoice_id="},
		{"cancel", "CANCELLED", false, "https://shop.com.bd/cancelled?invoice_id="},
		{"cancel", "CANCELLED", true, "https://shop.com.bd/cancelled?invoice_id="},
	} {
		p := newPayment(t, a, merchantBody)
		if c.lock {
			lockIt(p)
		}
		res := a.Do(t, "POST", p.Page+"/notices/"+c.action, "", "")
		v := decodeView(t, res)
		if res.Status != 200 || v.Status != c.status || !v.Terminal || !strings.HasPrefix(v.ReturnURL, c.ret) || !strings.Contains(v.ReturnURL, p.InvoiceID) {
			t.Fatalf("%s: %d %s", c.action, res.Status, res.Body)
		}
		if got := verifyStatus(t, a, p.InvoiceID); got != c.status {
			t.Fatalf("%s: verify says %s, want %s", c.action, got, c.status)
		}
		// Terminal states never change again; the same outcome again is answered as the first
		// time (a payer's retry after a lost answer), any other is a conflict.
		for _, again := range []string{"approve", "decline", "cancel"} {
			res := a.Do(t, "POST", p.Page+"/notices/"+again, "", "")
			if again != c.action {
				apitest.Envelope(t, res, 409, "STATE_CONFLICT")
				continue
			}
			if v := decodeView(t, res); res.Status != 200 || v.Status != c.status || !strings.HasPrefix(v.ReturnURL, c.ret) {
				t.Fatalf("%s again: %d %s", again, res.Status, res.Body)
			}
		}
		apitest.Envelope(t, a.Do(t, "POST", p.Page+"/lock", "", `{"route": "nagad", "payer": "01912345678"}`), 409, "STATE_CONFLICT")
		if got := verifyStatus(t, a, p.InvoiceID); got != c.status {
			t.Fatalf("%s: status moved to %s", c.action, got)
		}
	}
}

// 20 racing outcomes on one payment: exactly one wins, and verify reports that one.
func TestRacingOutcomes(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
	if res := a.Do(t, "POST", p.Page+"/lock", "", `{"route": "nagad", "payer": "01912345678"}`); res.Status != 200 {
		t.Fatal(res.Status)
	}
	actions := []string{"approve", "decline", "cancel"}
	const n = 20
	results := make([]*localapi.Result, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			results[i] = a.Do(t, "POST", p.Page+"/notices/"+actions[i%3], "", "")
		}()
	}
	close(gate)
	wg.Wait()
	winner := ""
	for i, r := range results {
		switch r.Status {
		case 200: // the winner, or a request for the winner's outcome that came after it
			st := decodeView(t, r).Status
			if winner != "" && st != winner {
				t.Fatalf("two outcomes won: %s and %s", winner, st)
			}
			winner = st
		case 409:
		default:
			t.Fatalf("%s: %d %s", actions[i%3], r.Status, r.Body)
		}
	}
	if winner == "" {
		t.Fatal("no outcome won")
	}
	if got := verifyStatus(t, a, p.InvoiceID); got != winner {
		t.Fatalf("verify says %s, the winner was %s", got, winner)
	}
}

// setExpiry moves a payment's expiry into the past, standing in for the passage of time.
func setExpiry(t *testing.T, a *localapi.TestAPI, invoiceID string, at time.Time) {
	t.Helper()
	_, err := a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(a.Store.Table),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + invoiceID}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression:          aws.String("SET expires_at = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: at.UTC().Format("2006-01-02T15:04:05.000000000Z")}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	// Default 30 minutes; a bounded override.
	p := newPayment(t, a, `{"amount": 10}`)
	got, err := a.Store.GetPayment(context.Background(), p.InvoiceID)
	if err != nil || got.ExpiresAt.Sub(got.CreatedAt) != payment.DefaultExpiry {
		t.Fatalf("default expiry: %v %v", got.ExpiresAt.Sub(got.CreatedAt), err)
	}
	q := newPayment(t, a, `{"amount": 10, "expires_in_minutes": 5}`)
	if got, _ := a.Store.GetPayment(context.Background(), q.InvoiceID); got.ExpiresAt.Sub(got.CreatedAt) != 5*time.Minute {
		t.Fatalf("override: %v", got.ExpiresAt.Sub(got.CreatedAt))
	}
	for _, bad := range []string{`4`, `1441`, `5.5`, `"10"`} {
		apitest.Envelope(t, a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 10, "expires_in_minutes": `+bad+`}`), 422, "VALIDATION_FAILED")
	}
	// Past its expiry, verify reports EXPIRED although nothing touched the payment.
	setExpiry(t, a, p.InvoiceID, time.Now().Add(-time.Second))
	if st := verifyStatus(t, a, p.InvoiceID); st != "EXPIRED" {
		t.Fatalf("verify after expiry: %s", st)
	}
	if stored, _ := a.Store.GetPayment(context.Background(), p.InvoiceID); stored.Status != payment.Pending {
		t.Fatalf("verify wrote %s", stored.Status)
	}
	// The page shows it, records it once, and nothing can change it.
	res := a.Do(t, "GET", p.Page, "", "")
	if v := decodeView(t, res); v.Status != "EXPIRED" || !v.Terminal {
		t.Fatalf("view after expiry: %s", res.Body)
	}
	if stored, _ := a.Store.GetPayment(context.Background(), p.InvoiceID); stored.Status != payment.Expired {
		t.Fatalf("stored status %s, want EXPIRED recorded", stored.Status)
	}
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/lock", "", `{"route": "bkash", "payer": "01712345678"}`), 409, "STATE_CONFLICT")
	apitest.Envelope(t, a.Do(t, "POST", p.Page+"/notices/cancel", "", ""), 409, "STATE_CONFLICT")
	// A locked payment that expires cannot be approved.
	setExpiry(t, a, q.InvoiceID, time.Now().Add(time.Minute))
	if res := a.Do(t, "POST", q.Page+"/lock", "", `{"route": "bkash", "payer": "01712345678"}`); res.Status != 200 {
		t.Fatal(res.Status)
	}
	setExpiry(t, a, q.InvoiceID, time.Now().Add(-time.Second))
	apitest.Envelope(t, a.Do(t, "POST", q.Page+"/notices/approve", "", ""), 409, "STATE_CONFLICT")
	if st := verifyStatus(t, a, q.InvoiceID); st != "EXPIRED" {
		t.Fatalf("expired locked payment: %s", st)
	}
}

func TestSandboxActionsRefusedForLive(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	now := time.Now().UTC()
	const id = "0190a8d2-0000-7000-8000-00000000aaaa"
	token, hash, err := payment.TokenKey(strings.Repeat("k", 32)).CheckoutToken(id)
	if err != nil {
		t.Fatal(err)
	}
	live := &payment.Payment{InvoiceID: id, WorkspaceID: a.Creds.WorkspaceID,
		Environment: auth.Live, Status: payment.Pending, AmountMinor: 100, Currency: "BDT", Reference: "live-1",
		CheckoutHash: hash, RequestHash: "h", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour), LockRoute: "bkash", LockPayer: "01712345678"}
	if _, err := a.Store.CreatePayment(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	page := payment.CheckoutPath(token)
	for _, action := range []string{"approve", "decline"} {
		apitest.Envelope(t, a.Do(t, "POST", page+"/notices/"+action, "", ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	}
	if v := decodeView(t, a.Do(t, "GET", page, "", "")); len(v.Routes) != 0 || v.Status != "PENDING" {
		t.Fatalf("live view: %+v", v)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	a := start(t, map[string]string{"CHECKOUT_RATE_PER_TOKEN": "5", "CHECKOUT_RATE_PER_CLIENT": "8"})
	p := newPayment(t, a, `{"amount": 10}`)
	for i := range 5 {
		if res := a.Do(t, "GET", p.Page, "", ""); res.Status != 200 {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	res := a.Do(t, "GET", p.Page, "", "")
	apitest.Envelope(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
	if res.Header.Get("Retry-After") == "" || !apitest.Retryable(t, res) {
		t.Error("429 without Retry-After or not retryable")
	}
	// Per client: other tokens from the same address run into the client limit.
	q := newPayment(t, a, `{"amount": 10}`)
	statuses := []int{}
	for range 3 {
		statuses = append(statuses, a.Do(t, "GET", q.Page, "", "").Status)
	}
	if statuses[len(statuses)-1] != http.StatusTooManyRequests {
		t.Fatalf("per-client limit not applied: %v", statuses)
	}
}

func TestBrowserFormsAndHeaders(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, body string, headers ...string) *http.Response {
		req, _ := http.NewRequest(method, a.URL+path, strings.NewReader(body))
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := do("GET", p.Page, "", "Accept", "text/html,application/xhtml+xml")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "script-src 'sha256-"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if res.Header.Get("Referrer-Policy") != "no-referrer" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", res.Header)
	}
	form := "application/x-www-form-urlencoded"
	origin := a.URL
	// Cross-site form posts are refused.
	if res := do("POST", p.Page+"/lock", "route=bkash&payer=01712345678", "Content-Type", form, "Origin", "https://evil.example.net"); res.StatusCode != 403 {
		t.Fatalf("cross-site form: %d", res.StatusCode)
	}
	if res := do("POST", p.Page+"/lock", "route=bkash&payer=01712345678", "Content-Type", form, "Origin", "null", "Sec-Fetch-Site", "cross-site"); res.StatusCode != 403 {
		t.Fatalf("cross-site form (fetch metadata): %d", res.StatusCode)
	}
	res = do("POST", p.Page+"/lock", "route=bkash&payer=01712345678", "Content-Type", form, "Origin", origin)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != p.Page {
		t.Fatalf("lock form: %d -> %q", res.StatusCode, res.Header.Get("Location"))
	}
	// An invalid form re-renders the page with the message (422), not a JSON error.
	res = do("POST", p.Page+"/lock", "route=bkash&payer=1", "Content-Type", form, "Origin", origin)
	if res.StatusCode != 422 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("invalid form: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	res = do("POST", p.Page+"/notices/approve", "", "Content-Type", form, "Origin", origin)
	want := "https://shop.com.bd/thanks?invoice_id=" + p.InvoiceID + "&x=1"
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("approve form: %d -> %q, want %q", res.StatusCode, res.Header.Get("Location"), want)
	}
	// The payer's browser retries the form (the first answer was lost): same redirect, not 409.
	res = do("POST", p.Page+"/notices/approve", "", "Content-Type", form, "Origin", origin)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("approve form again: %d -> %q, want %q", res.StatusCode, res.Header.Get("Location"), want)
	}
	if res := do("POST", p.Page+"/notices/cancel", "", "Content-Type", form, "Origin", origin); res.StatusCode != 409 {
		t.Fatalf("cancel after approve: %d, want 409", res.StatusCode)
	}
	if res := do("GET", "/v1/public/checkout/"+strings.Repeat("Z", 43), "", "Accept", "text/html"); res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("unknown token for a browser: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// The checkout token is a bearer credential: after a whole journey (create, a replayed create,
// the page, lock, approve, verify) neither the log output nor any item of the table holds the
// token, its secret half or the payment_url — the payment keeps only the hash of the secret —
// and the page still opens with one GetItem.
func TestNoCheckoutTokenAtRestOrInLogs(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	body := `{"amount": 321, "reference": "no-token-at-rest", "redirect_url": "https://shop.com.bd/thanks"}`
	first := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Idempotency-Key", "token-at-rest-000001")
	replay := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Idempotency-Key", "token-at-rest-000001")
	if first.Status != 201 || replay.Status != 201 || string(first.Body) != string(replay.Body) {
		t.Fatalf("create and its replay: %d %s / %d %s", first.Status, first.Body, replay.Status, replay.Body)
	}
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(first.Body, &c); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(c.PaymentURL)
	token := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %q", token)
	}
	secret := raw[16:]

	view := a.Do(t, "GET", u.Path, "", "")
	if view.Status != 200 {
		t.Fatalf("page: %d %s", view.Status, view.Body)
	}
	if line := a.Logs.Request(view.Header.Get("X-Correlation-Id")); line["ddb_requests"] != float64(1) {
		t.Errorf("page view made %v DynamoDB requests, want 1 GetItem", line["ddb_requests"])
	}
	// A token whose secret half is wrong names the same payment but opens nothing.
	forged := []byte(token)
	forged[30] ^= 1
	if r := a.Do(t, "GET", "/v1/public/checkout/"+string(forged), "", ""); r.Status != 404 {
		t.Errorf("forged token: %d %s", r.Status, r.Body)
	}
	for _, step := range []struct{ path, body string }{{u.Path + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {u.Path + "/notices/approve", ""}} {
		if r := a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	if got := verifyStatus(t, a, c.InvoiceID); got != "COMPLETED" {
		t.Fatalf("verify: %s", got)
	}

	tokenPath := regexp.MustCompile(`/v1/public/checkout/[A-Za-z0-9_-]`) // a route key has {token}
	for line := range strings.Lines(a.Logs.String()) {
		if strings.Contains(line, token) || tokenPath.MatchString(line) {
			t.Errorf("a log line carries the checkout token or a checkout path: %s", line)
		}
	}
	out, err := a.Stack.DDB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(a.Store.Table)})
	if err != nil {
		t.Fatal(err)
	}
	var check func(name string, v types.AttributeValue)
	check = func(name string, v types.AttributeValue) {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			if strings.Contains(x.Value, token) || tokenPath.MatchString(x.Value) ||
				strings.Contains(x.Value, base64.StdEncoding.EncodeToString(secret)) || strings.Contains(x.Value, hex.EncodeToString(secret)) {
				t.Errorf("attribute %s holds the token, its secret or a payment_url: %q", name, x.Value)
			}
		case *types.AttributeValueMemberB:
			if bytes.Contains(x.Value, secret) || bytes.Contains(x.Value, raw) {
				t.Errorf("attribute %s holds the token's secret bytes", name)
			}
		case *types.AttributeValueMemberM:
			for k, e := range x.Value {
				check(name+"."+k, e)
			}
		case *types.AttributeValueMemberL:
			for _, e := range x.Value {
				check(name+"[]", e)
			}
		}
	}
	payments := 0
	for _, item := range out.Items {
		if pk, _ := item["pk"].(*types.AttributeValueMemberS); pk != nil && strings.HasPrefix(pk.Value, "PAY#") {
			payments++
		}
		for name, v := range item {
			check(name, v)
		}
	}
	if payments != 1 {
		t.Fatalf("the scan found %d payment items, want 1 (the replay made none)", payments)
	}
}

// The payer's language over HTTP: ?lang=bn makes the page Bangla and rides on every answer
// the checkout makes (the 303 after a lock), a form the payer gets wrong comes back in Bangla,
// Accept-Language decides when nothing else does (the error page too), the merchant's
// redirect gets invoice_id only, and the JSON view and error envelopes are the same in every
// language.
func TestLanguageAcrossTheFlow(t *testing.T) {
	t.Parallel()
	a := start(t, nil)
	p := newPayment(t, a, merchantBody)
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
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(res.Body)
		return res, b.String()
	}
	html := "text/html"
	for _, c := range []struct {
		query, accept, want string
	}{
		{"", "", `<html lang="en">`},
		{"", "bn-BD,bn;q=0.9,en;q=0.5", `<html lang="bn">`},
		{"?lang=bn", "en", `<html lang="bn">`},
		{"?lang=en", "bn", `<html lang="en">`},
		{"?lang=%3Cscript%3E", "bn", `<html lang="bn">`},
	} {
		res, body := do("GET", p.Page+c.query, "", "Accept", html, "Accept-Language", c.accept)
		if res.StatusCode != 200 || !strings.Contains(body, c.want) {
			t.Errorf("GET %s (Accept-Language %q): %d, want %s", c.query, c.accept, res.StatusCode, c.want)
		}
	}
	_, bn := do("GET", p.Page+"?lang=bn", "", "Accept", html)
	for _, want := range []string{"৳১,৫০০.০০", `action="` + p.Page + `/lock?lang=bn"`, `action="` + p.Page + `/notices/cancel?lang=bn"`,
		`href="` + p.Page + `?lang=en" lang="en" hreflang="en">English</a>`} {
		if !strings.Contains(bn, want) {
			t.Errorf("the Bangla page lacks %q", want)
		}
	}
	// The JSON view is the same whatever the language.
	_, jsonEN := do("GET", p.Page, "", "Accept", "application/json")
	_, jsonBN := do("GET", p.Page+"?lang=bn", "", "Accept", "application/json", "Accept-Language", "bn")
	if jsonEN != jsonBN || !strings.Contains(jsonBN, `"amount_display":"৳1,500.00"`) {
		t.Errorf("the JSON view changed with the language:\n%s\n%s", jsonEN, jsonBN)
	}
	form := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", a.URL}
	// A wrong number comes back as the Bangla page with the Bangla message.
	res, body := do("POST", p.Page+"/lock?lang=bn", "route=bkash&payer=12", form...)
	if res.StatusCode != 422 || !strings.Contains(body, `<html lang="bn">`) || !strings.Contains(body, "বাংলাদেশি মোবাইল নম্বর লিখুন") {
		t.Errorf("invalid lock in Bangla: %d %s", res.StatusCode, body)
	}
	// The page keeps what the payer chose and typed: the method checked, the number in its
	// own field (the method's field name and the old single "payer" alike).
	for _, post := range []string{"route=bkash&payer=12", "route=nagad&payer_nagad=0171&payer_card=x%40y"} {
		_, body := do("POST", p.Page+"/lock?lang=bn", post, form...)
		q, _ := url.ParseQuery(post)
		route := q.Get("route")
		for _, want := range []string{`id="route-` + route + `" required checked>`, `id="payer-` + route + `"`, `value="` + q.Get("payer") + q.Get("payer_nagad") + `"`} {
			if !strings.Contains(body, want) {
				t.Errorf("after %s the page lacks %q", post, want)
			}
		}
	}
	// A number in Bangla digits is the same number; the 303 keeps the language.
	res, _ = do("POST", p.Page+"/lock?lang=bn", "route=bkash&payer="+url.QueryEscape("০১৭১২৩৪৫৬৭৮"), form...)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != p.Page+"?lang=bn" {
		t.Fatalf("lock in Bangla: %d -> %q", res.StatusCode, res.Header.Get("Location"))
	}
	if v := decodeView(t, a.Do(t, "GET", p.Page, "", "")); v.Lock == nil || v.Lock.PayerMasked != "017•••••678" {
		t.Errorf("lock after Bangla digits: %+v", v.Lock)
	}
	// The merchant's redirect is the merchant's URL with invoice_id, nothing more.
	res, _ = do("POST", p.Page+"/notices/approve?lang=bn", "", form...)
	if want := "https://shop.com.bd/thanks?invoice_id=" + p.InvoiceID + "&x=1"; res.Header.Get("Location") != want {
		t.Errorf("approve: -> %q, want %q", res.Header.Get("Location"), want)
	}
	// A conflict on a form post is a Bangla page for the payer; the envelope stays English.
	res, body = do("POST", p.Page+"/notices/cancel?lang=bn", "", form...)
	if res.StatusCode != 409 || !strings.Contains(body, "এই পেমেন্টে আর কোনো পরিবর্তন করা যাবে না") || strings.Contains(body, "already completed") {
		t.Errorf("conflict page in Bangla: %d %s", res.StatusCode, body)
	}
	if msg := apitest.Envelope(t, a.Do(t, "POST", p.Page+"/notices/cancel?lang=bn", "", "", "Accept-Language", "bn"), 409, "STATE_CONFLICT"); !strings.Contains(msg, "already completed") {
		t.Errorf("the envelope's message is not the developers' English: %q", msg)
	}
	// Not found, in the browser's language, and its switch links to the same address.
	res, body = do("GET", "/v1/public/checkout/"+strings.Repeat("Z", 43), "", "Accept", html, "Accept-Language", "bn")
	if res.StatusCode != 404 || !strings.Contains(body, "পেমেন্ট পাওয়া যায়নি") || !strings.Contains(body, `?lang=en" lang="en"`) {
		t.Errorf("not-found page in Bangla: %d %s", res.StatusCode, body)
	}
}
