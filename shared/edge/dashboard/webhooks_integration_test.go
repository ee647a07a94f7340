package dashboard_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/payment"
)

// receiver is a merchant's webhook endpoint on loopback: it verifies each request with the
// workspace's secret (Standard Webhooks' own library) and answers status.
type receiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []received
}

type received struct {
	path      string
	body      []byte
	verifyErr error
}

func newReceiver(t *testing.T, secret string) *receiver {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{}
	rc.status.Store(http.StatusNoContent)
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{path: r.URL.Path, body: body, verifyErr: wh.Verify(body, r.Header)})
		rc.mu.Unlock()
		w.WriteHeader(int(rc.status.Load()))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// ddbRequests is a page's DynamoDB requests, from its request log line.
func (s *stack) ddbRequests(t *testing.T, p *page) int {
	t.Helper()
	id := p.header.Get("X-Correlation-Id")
	for _, l := range s.api.Logs.Lines() {
		if l["msg"] == "request" && l["correlation_id"] == id {
			if testing.Verbose() {
				t.Logf("%s: %v", p.url, l)
			}
			n, ok := l["ddb_requests"].(float64)
			if !ok {
				t.Fatalf("request log line without ddb_requests: %v", l)
			}
			return int(n)
		}
	}
	t.Fatalf("no request log line for %s (%s)", p.url, id)
	return 0
}

// member adds a person with a role to the stack's workspace and returns their signed-in browser.
func (s *stack) member(t *testing.T, email string, role auth.Role) *browser {
	t.Helper()
	return s.memberIn(t, s.api.Creds.WorkspaceID, email, role)
}

// memberIn adds a person with a role to workspace ws and returns their signed-in browser (a
// session made by the operator: the pages' sign-in check is the same as after the sign-in form).
func (s *stack) memberIn(t *testing.T, ws, email string, role auth.Role) *browser {
	t.Helper()
	return s.sessionBrowser(t, s.memberToken(t, ws, email, role))
}

// memberSession adds a person with a role to the stack's workspace and returns a session
// token of theirs (the auth.SessionCookie cookie's value).
func (s *stack) memberSession(t *testing.T, email string, role auth.Role) string {
	t.Helper()
	return s.memberToken(t, s.api.Creds.WorkspaceID, email, role)
}

func (s *stack) memberToken(t *testing.T, ws, email string, role auth.Role) string {
	t.Helper()
	op := &operator.Operator{Store: s.api.Store}
	u, err := op.CreateUser(t.Context(), email)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Grant(t.Context(), u.ID, ws, role); err != nil {
		t.Fatal(err)
	}
	sess, err := op.CreateSession(t.Context(), u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return sess.Token
}

var (
	whsecRE   = regexp.MustCompile(`id="issued-secret">(whsec_[^<]+)<`)
	outcomeRE = regexp.MustCompile(`<div id="test-result" role="status" class="[a-z]+" data-outcome="([a-z]+)">`)
)

func outcome(p *page) string {
	if m := outcomeRE.FindStringSubmatch(p.body); m != nil {
		return m[1]
	}
	return ""
}

// The webhooks page over the local gateway: the signing secrets' metadata, a test event that
// reaches a loopback receiver and verifies with the workspace's secret, the sender's URL rules,
// the roles, the recent deliveries failures first, the request counts, both languages.
func TestWebhooksPageOverTheGateway(t *testing.T) {
	// The local stack's URL policy (ALLOW_LOCALHOST_URLS, make dev's): loopback receivers are
	// allowed here only; production's zero policy refuses them (checked below).
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	owner := s.browser(t)
	p := owner.get("/dashboard/sign-in")
	p = owner.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {a.Creds.DashboardEmail}, "password": {a.Creds.DashboardPassword}})
	if p.status != 200 || !strings.HasSuffix(p.url, "/dashboard") {
		t.Fatalf("owner sign-in: %d at %s", p.status, p.url)
	}

	// No secret yet: the page says so, and a test event is refused with the reason.
	wp := owner.get("/dashboard/webhooks")
	if wp.status != 200 || !strings.Contains(wp.body, `id="webhook-secrets"`) || !strings.Contains(wp.body, "No secret yet.") ||
		!strings.Contains(wp.body, `href="/dashboard/webhook-secrets"`) || !strings.Contains(wp.body, `id="recent-deliveries"`) ||
		!strings.Contains(wp.body, "No webhook events yet.") {
		t.Fatalf("webhooks page before a secret: %d\n%.4000s", wp.status, wp.body)
	}
	// The owner's page: the session (GetItem), its user (GetItem), their memberships (Query)
	// and workspace names (BatchGetItem); the secrets' metadata (the workspace's GetItem, the
	// secrets item's GetItem); one gsi3 Query (an empty index: no BatchGetItem); one Query of the refunds.
	if n := s.ddbRequests(t, wp); n != 8 {
		t.Errorf("GET /dashboard/webhooks with no payments made %d DynamoDB requests, want 8", n)
	}
	rc := newReceiver(t, "whsec_"+strings.Repeat("A", 44)) // replaced once the secret exists
	if p := owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {rc.srv.URL + "/x"}}); p.status != 409 ||
		!strings.Contains(p.body, "no signing secret yet") || outcome(p) != "refused" {
		t.Fatalf("test without a secret: %d\n%.3000s", p.status, p.body)
	}

	// The owner issues the sandbox secret (DashboardFunction's page, linked from here).
	sp := owner.get("/dashboard/webhook-secrets")
	p = owner.post("/dashboard/webhook-secrets", url.Values{"csrf": {csrf(t, sp)}, "once": {once(t, sp, "/dashboard/webhook-secrets")}, "environment": {"sandbox"}})
	m := whsecRE.FindStringSubmatch(p.body)
	if p.status != 200 || m == nil {
		t.Fatalf("issue secret: %d\n%.3000s", p.status, p.body)
	}
	secret := html.UnescapeString(m[1])
	rc = newReceiver(t, secret)
	failing := newReceiver(t, secret)
	failing.status.Store(http.StatusInternalServerError)

	// Payments with events: delivered, retrying, failed, and one not tried yet.
	create := func(hook string) string {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 12.5, "webhook_url": "`+hook+`"}`)
		var c struct {
			InvoiceID string `json:"invoice_id"`
		}
		if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		if r := a.Do(t, "POST", "/v1/payment-intents/"+c.InvoiceID+"/cancel", a.Creds.SandboxKey, ""); r.Status != 200 {
			t.Fatalf("cancel: %d %s", r.Status, r.Body)
		}
		return c.InvoiceID
	}
	delivered := create(rc.srv.URL + "/hook")
	retrying := create(failing.srv.URL + "/hook")
	failed := create(failing.srv.URL + "/hook")
	a.DrainWebhooks(t)
	st, err := a.Store.GetPayment(t.Context(), failed)
	if err != nil || st.Outbox == nil || st.Outbox.Status != payment.DeliveryPending || st.Outbox.Attempts < 1 {
		t.Fatalf("failed payment's outbox after its first attempt: %+v %v", st, err)
	}
	// Its last attempt, as the sender records the twelfth.
	if err := a.Store.RecordAttempt(t.Context(), failed, st.Outbox.EventID, 12, payment.DeliveryFailed, 500, "HTTP 500", nil, false,
		time.Now(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	waiting := create(rc.srv.URL + "/hook") // cancelled, its event not sent yet
	hooks := len(rc.requests())

	wp = owner.get("/dashboard/webhooks")
	order := []string{failed, retrying, waiting, delivered}
	last := -1
	for _, id := range order {
		i := strings.Index(wp.body, `id="delivery-`+id+`"`)
		if i < 0 || i < last {
			t.Fatalf("recent deliveries not failed, retrying, waiting, delivered (%v):\n%.6000s", order, wp.body)
		}
		last = i
	}
	// Each status is a pill (ui.Pill: its tone's colour and its words; data-status in capitals).
	for _, want := range []string{`data-status="FAILED"`, `data-status="RETRYING"`, `data-status="PENDING"`, `data-status="DELIVERED"`,
		`href="/dashboard/payments/` + failed + `"`, "payment.cancelled", "Failed", "Retrying", "Waiting", "Delivered", ">500<", ">204<",
		"whsec_" /* never */} {
		if want == "whsec_" {
			if strings.Contains(wp.body, secret) {
				t.Error("the webhooks page shows the secret")
			}
			continue
		}
		if !strings.Contains(wp.body, want) {
			t.Errorf("webhooks page lacks %s", want)
		}
	}
	// The same 4 for the session, 2 for the secrets, one gsi3 Query and one BatchGetItem
	// (the 50 latest payments and their snapshots: at most 100 keys); one Query of the refunds.
	if n := s.ddbRequests(t, wp); n != 9 {
		t.Errorf("GET /dashboard/webhooks made %d DynamoDB requests, want 9", n)
	}
	if !strings.Contains(wp.body, "current") || !strings.Contains(wp.body, `id="send-test"`) || !strings.Contains(wp.body, `id="test-url"`) {
		t.Errorf("owner's page lacks the current secret or the test form")
	}

	// A test event reaches the receiver, signed with the workspace's secret; the page shows the
	// status and the duration, never the URL's path or query.
	p = owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {rc.srv.URL + "/test/acct-7?token=SECRET"}})
	if p.status != 200 || outcome(p) != "delivered" || !strings.Contains(p.body, "answered HTTP 204 in") ||
		!strings.Contains(p.body, strings.TrimPrefix(rc.srv.URL, "http://")) {
		t.Fatalf("test event: %d\n%.4000s", p.status, p.body)
	}
	got := rc.requests()
	if len(got) != hooks+1 {
		t.Fatalf("the receiver got %d requests, want %d", len(got), hooks+1)
	}
	ev := got[len(got)-1]
	var body struct {
		ID, Type string
		Data     map[string]string
	}
	if ev.verifyErr != nil || ev.path != "/test/acct-7" || json.Unmarshal(ev.body, &body) != nil || body.Type != "webhook.test" ||
		body.Data["workspace_id"] != a.Creds.WorkspaceID || body.Data["environment"] != "sandbox" || !strings.Contains(p.body, body.ID) {
		t.Fatalf("test event %s: verify %v", ev.body, ev.verifyErr)
	}
	// 4 for the session; the test-event limit's lease (one UpdateItem: shared by every
	// instance); the keyring's GetItem of the secrets item (opened with the sealing key); one
	// activity PutItem; then the page: 2 for the secrets' metadata, the deliveries' Query and
	// BatchGetItem, the refunds' Query.
	if n := s.ddbRequests(t, p); n != 12 {
		t.Errorf("POST /dashboard/webhooks/test made %d DynamoDB requests, want 12", n)
	}

	// The sender's URL rules, with the sender's words: nothing is sent.
	for _, bad := range []string{"https://169.254.169.254/latest/meta-data/", "https://10.0.0.5/hook", "https://metadata.google.internal/x", "ftp://shop.com.bd/x"} {
		rule := urlcheck.Policy{AllowLocalhost: true}.CheckWebhook(bad)
		p := owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {bad}})
		if rule == nil || p.status != 422 || outcome(p) != "refused" || !strings.Contains(p.body, "This URL is refused: "+rule.Error()) ||
			!strings.Contains(p.body, `id="test-url-error"`) || !strings.Contains(p.body, `aria-invalid="true"`) {
			t.Errorf("%s: %d (rule %v)\n%.3000s", bad, p.status, rule, p.body)
		}
	}
	if err := (urlcheck.Policy{}).CheckWebhook(rc.srv.URL); err == nil {
		t.Error("production's URL policy accepts a loopback receiver")
	}
	if len(rc.requests()) != hooks+1 {
		t.Error("a refused URL was sent to")
	}
	// A receiver that answers 500: a result, not an error.
	p = owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {failing.srv.URL + "/t"}})
	if p.status != 200 || outcome(p) != "rejected" || !strings.Contains(p.body, "answered HTTP 500") {
		t.Errorf("test against a 500: %d\n%.3000s", p.status, p.body)
	}
	// No answer at all.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	p = owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {dead.URL + "/t?token=SECRET"}})
	result := regexp.MustCompile(`(?s)<div id="test-result".*?</div>`).FindString(p.body)
	if p.status != 200 || outcome(p) != "unreachable" || strings.Contains(result, "SECRET") || !strings.Contains(result, "connection refused") ||
		!strings.Contains(result, strings.TrimPrefix(dead.URL, "http://")) {
		t.Errorf("test against a closed port: %d %q\n%.3000s", p.status, outcome(p), p.body[strings.Index(p.body, "<main"):])
	}

	// Live is its own environment: no secret there, and the form keeps env=live.
	live := owner.get("/dashboard/webhooks?env=live")
	if live.status != 200 || !strings.Contains(live.body, "Environment: Live.") || !strings.Contains(live.body, "No secret yet.") ||
		!strings.Contains(live.body, `action="/dashboard/webhooks/test?env=live"`) || strings.Contains(live.body, `id="delivery-`) {
		t.Errorf("live page: %d\n%.3000s", live.status, live.body)
	}
	if p := owner.post("/dashboard/webhooks/test?env=live", url.Values{"csrf": {csrf(t, live)}, "url": {rc.srv.URL + "/live"}}); p.status != 409 {
		t.Errorf("live test event without a live secret: %d", p.status)
	}

	// In Bangla: the page and the result.
	bn := owner.get("/dashboard/webhooks?lang=bn")
	if bn.status != 200 || !strings.Contains(bn.body, "সাম্প্রতিক ডেলিভারি") || !strings.Contains(bn.body, "ব্যর্থ") || !strings.Contains(bn.body, `lang="bn"`) {
		t.Errorf("Bangla page: %d\n%.3000s", bn.status, bn.body)
	}
	action := regexp.MustCompile(`<form method="post" action="([^"]+)"[^>]* id="send-test-form"`).FindStringSubmatch(bn.body)
	if action == nil || !strings.Contains(action[1], "lang=bn") {
		t.Fatalf("Bangla test form action: %v", action)
	}
	p = owner.post(strings.ReplaceAll(action[1], "&amp;", "&"), url.Values{"csrf": {csrf(t, bn)}, "url": {rc.srv.URL + "/bn"}})
	if p.status != 200 || !strings.Contains(p.body, "পৌঁছেছে: গ্রাহক সার্ভার") || !strings.Contains(p.body, "HTTP ২০৪") {
		t.Errorf("Bangla test event: %d\n%.3000s", p.status, p.body)
	}

	// A developer may send a test event (auth.ViewKeys); a viewer sees the page and the
	// deliveries, and the server refuses their test event (403) whatever the page showed.
	dev := s.member(t, "dev@shop.example.com.bd", auth.RoleDeveloper)
	dp := dev.get("/dashboard/webhooks")
	if dp.status != 200 || !strings.Contains(dp.body, `id="send-test"`) || !strings.Contains(dp.body, "See the signing secrets") {
		t.Fatalf("developer's page: %d\n%.3000s", dp.status, dp.body)
	}
	if p := dev.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, dp)}, "url": {rc.srv.URL + "/dev"}}); p.status != 200 || outcome(p) != "delivered" {
		t.Errorf("developer's test event: %d", p.status)
	}
	viewer := s.member(t, "viewer@shop.example.com.bd", auth.RoleViewer)
	vp := viewer.get("/dashboard/webhooks")
	if vp.status != 200 || strings.Contains(vp.body, `id="send-test"`) || !strings.Contains(vp.body, `id="test-readonly"`) ||
		!strings.Contains(vp.body, `id="delivery-`+failed+`"`) || strings.Contains(vp.body, `id="webhook-secrets-link"`) {
		t.Fatalf("viewer's page: %d\n%.3000s", vp.status, vp.body)
	}
	// The viewer's page reads no secrets: 4 for the session, the gsi3 Query and BatchGetItem,
	// the refunds' Query.
	if n := s.ddbRequests(t, vp); n != 7 {
		t.Errorf("viewer's GET /dashboard/webhooks made %d DynamoDB requests, want 7", n)
	}
	n := len(rc.requests())
	if p := viewer.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, vp)}, "url": {rc.srv.URL + "/viewer"}}); p.status != 403 {
		t.Errorf("viewer's test event: %d", p.status)
	}
	if len(rc.requests()) != n {
		t.Error("the viewer's test event was sent")
	}

	// Rate limit: 10 test events a minute per workspace (this instance): the 11th is refused
	// with Retry-After; refused URLs did not count.
	sent := 7 // owner: no secret yet, receiver, 500, closed port, live without a secret, Bangla; developer
	var limited *page
	for i := sent; i < 11; i++ {
		if limited != nil && limited.status != 200 {
			t.Fatalf("test event %d of the minute: %d", i, limited.status)
		}
		limited = owner.post("/dashboard/webhooks/test", url.Values{"csrf": {csrf(t, wp)}, "url": {rc.srv.URL + "/again"}})
	}
	if limited.status != 429 || limited.header.Get("Retry-After") == "" || !strings.Contains(limited.body, "Too many test events") {
		t.Errorf("the 11th test event in a minute: %d, Retry-After %q", limited.status, limited.header.Get("Retry-After"))
	}

	// Each test event is in the activity, with the host only.
	act := owner.get("/dashboard/activity")
	if !strings.Contains(act.body, "sent a test webhook") || !strings.Contains(act.body, "sandbox test event to "+strings.TrimPrefix(rc.srv.URL, "http://")+": HTTP 204") ||
		strings.Contains(act.body, "SECRET") {
		t.Errorf("activity lacks the test events:\n%.4000s", act.body)
	}
}
