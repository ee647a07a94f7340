package dashboard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
)

// The invoice and payment-link pages over the local gateway: documents made through the API
// with a key, shown, issued, published, archived and paid, seen by the owner and a viewer.

var docSeq atomic.Int64

// sessionBrowser is a browser signed in with an existing session token.
func (s *stack) sessionBrowser(t *testing.T, token string) *browser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.api.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: auth.SessionCookie, Value: token, Path: "/"}})
	return &browser{t: t, s: s, c: &http.Client{Jar: jar, Timeout: 30 * time.Second}, origin: s.api.URL}
}

type apiDoc struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Version     int64  `json:"version"`
	PaidMinor   int64  `json:"paid_minor"`
	PublicToken string `json:"public_token"`
}

// createDoc creates a document through the API with key in workspace ws.
func createDoc(t *testing.T, a *localapi.TestAPI, ws, key, kind, body string) apiDoc {
	t.Helper()
	res := a.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/"+kind+"?environment=sandbox", key, body,
		"Idempotency-Key", fmt.Sprintf("dash-docs-key-%08d", docSeq.Add(1)))
	var d apiDoc
	if err := json.Unmarshal(res.Body, &d); err != nil || res.Status != 201 {
		t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
	}
	return d
}

func getDoc(t *testing.T, a *localapi.TestAPI, kind, id string) apiDoc {
	t.Helper()
	res := a.Do(t, "GET", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/"+kind+"/"+id+"?environment=sandbox", a.Creds.SandboxKey, "")
	var out struct{ Items []apiDoc }
	if err := json.Unmarshal(res.Body, &out); err != nil || res.Status != 200 || len(out.Items) != 1 {
		t.Fatalf("get %s %s: %d %s", kind, id, res.Status, res.Body)
	}
	return out.Items[0]
}

// ddbRequests is the page's DynamoDB requests from its request log line.
func ddbRequests(t *testing.T, a *localapi.TestAPI, p *page) int {
	t.Helper()
	line := a.Logs.Request(p.header.Get("X-Correlation-Id"))
	if line == nil {
		t.Fatalf("no request log line for %s", p.url)
	}
	if testing.Verbose() {
		t.Logf("%s: %v", p.url, line)
	}
	n, _ := line["ddb_requests"].(float64)
	lease, _ := line["ddb_lease_requests"].(float64)
	return int(n - lease)
}

// routeRequests is the DynamoDB requests of the last request to route answered with status.
func routeRequests(t *testing.T, a *localapi.TestAPI, route string, status int) int {
	t.Helper()
	var last map[string]any
	for _, l := range a.Logs.Lines() {
		if l["msg"] == "request" && l["route"] == route && l["status"] == float64(status) {
			last = l
		}
	}
	if last == nil {
		t.Fatalf("no %d request to %s", status, route)
	}
	n, _ := last["ddb_requests"].(float64)
	lease, _ := last["ddb_lease_requests"].(float64)
	return int(n - lease)
}

// raw fetches a page without following a redirect.
func (b *browser) raw(path string) *http.Response {
	b.t.Helper()
	c := *b.c
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(b.s.api.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	return resp
}

func decodeQR(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		t.Fatalf("gozxing could not decode the QR code: %v", err)
	}
	return res.GetText()
}

func must(t *testing.T, p *page, status int, what string, wants ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: %d at %s, want %d\n%.3000s", what, p.status, p.url, status, p.body)
	}
	for _, w := range wants {
		if !strings.Contains(p.body, w) {
			t.Errorf("%s: the page lacks %q", what, w)
		}
	}
	if strings.Contains(p.body, "dash.docs.") {
		t.Errorf("%s: a message key is shown as it is: %s", what, regexp.MustCompile(`dash\.docs\.[a-z_.A-Z]+`).FindString(p.body))
	}
}

// payLink pays a published payment link through the API (quantity units, a webhook to a
// receiver that answers 200), approves it in the sandbox checkout and runs the webhook sender,
// which settles the link. It returns the intent's id.
func payLink(t *testing.T, a *localapi.TestAPI, linkID string, quantity int) string {
	t.Helper()
	if _, err := a.Operator(t).IssueWebhookSecret(t.Context(), a.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) }))
	t.Cleanup(hook.Close)
	res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, fmt.Sprintf(`{"document_id": "%s", "quantity": %d, "webhook_url": "%s/hooks"}`,
		linkID, quantity, hook.URL), "Idempotency-Key", fmt.Sprintf("dash-docs-pay-%08d", docSeq.Add(1)))
	var it struct {
		ID         string `json:"id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &it); err != nil || res.Status != 201 {
		t.Fatalf("intent for the link: %d %s", res.Status, res.Body)
	}
	pu, _ := url.Parse(it.PaymentURL)
	if r := a.Do(t, "POST", pu.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", pu.Path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	a.DrainWebhooks(t)
	return it.ID
}

func TestDocumentPagesOverTheGateway(t *testing.T) {
	s := startStack(t, map[string]string{"ALLOW_LOCALHOST_URLS": "true"})
	a := s.api
	ctx := t.Context()
	ws, key := a.Creds.WorkspaceID, a.Creds.SandboxKey
	op := a.Operator(t)
	owner := s.sessionBrowser(t, a.Creds.SessionToken)
	viewer := s.member(t, "viewer@shop.example.com.bd", auth.RoleViewer)

	// An invoice with two items and a discount: 2 × ৳150 + ৳50 − ৳20 = ৳330.
	inv := createDoc(t, a, ws, key, "invoices", `{"reference": "INV <1> & co", "name": "Rahim Traders",
		"items": [{"title": "Tea", "quantity": 2, "unit_amount_minor": 15000}, {"title": "Cup", "quantity": 1, "unit_amount_minor": 5000}],
		"discount_minor": 2000, "due_at": "2026-12-31T18:00:00Z", "notes": "<script>alert(1)</script>"}`)
	link := createDoc(t, a, ws, key, "payment-links", `{"reference": "LINK-1", "amount_minor": 50000, "max_quantity": 3,
		"fields": [{"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M"]}]}`)

	// The lists: state, total, paid, outstanding; the owner may create.
	p := owner.get("/dashboard/invoices")
	must(t, p, 200, "owner's invoices", `id="documents-table"`, "INV &lt;1&gt; &amp; co", "৳330.00", "Draft", `id="new-document"`,
		`href="/dashboard/invoices/new"`, `href="/dashboard/invoices/`+inv.ID+`"`)
	if n := ddbRequests(t, a, p); n != 5 {
		t.Errorf("invoices list: %d DynamoDB requests, want 5 (session, user, memberships, workspace names, one documents Query)", n)
	}
	p = owner.get("/dashboard/payment-links")
	must(t, p, 200, "owner's payment links", "LINK-1", "৳500.00", `href="/dashboard/payment-links/new"`)

	// The invoice's page: every field, the public link, the commands a draft allows.
	p = owner.get("/dashboard/invoices/" + inv.ID)
	publicURL := a.URL + "/v1/public/documents/" + inv.PublicToken
	must(t, p, 200, "invoice page", `id="document-state"`, "Draft", `id="document-paid"`, "৳330.00", "Rahim Traders",
		`id="public-link"`, publicURL, `data-copy="public-link"`, `id="issue"`, `id="cancel"`, `id="edit-document"`,
		"Tea", "৳300.00", "&lt;script&gt;alert(1)&lt;/script&gt;", `id="document-payments"`, `id="document-deliveries"`)
	if strings.Contains(p.body, "<script>alert(1)") {
		t.Fatal("the notes are not escaped")
	}
	if n := ddbRequests(t, a, p); n != 5 {
		t.Errorf("invoice page: %d DynamoDB requests, want 5 (session, user, memberships, workspace names, the document)", n)
	}

	// A viewer sees both pages, without a command, and the server refuses each command.
	vl := viewer.get("/dashboard/invoices")
	must(t, vl, 200, "viewer's invoices", "INV &lt;1&gt; &amp; co")
	if strings.Contains(vl.body, `id="new-document"`) {
		t.Error("a viewer is offered New invoice")
	}
	vp := viewer.get("/dashboard/invoices/" + inv.ID)
	must(t, vp, 200, "viewer's invoice page", publicURL)
	for _, id := range []string{`id="issue"`, `id="cancel"`, `id="edit-document"`} {
		if strings.Contains(vp.body, id) {
			t.Errorf("a viewer is offered %s", id)
		}
	}
	vtok := csrf(t, viewer.get("/dashboard/payment-links/"+link.ID))
	for _, path := range []string{"/dashboard/invoices/" + inv.ID + "/issue", "/dashboard/invoices/" + inv.ID + "/cancel",
		"/dashboard/payment-links/" + link.ID + "/publish", "/dashboard/payment-links/" + link.ID + "/archive"} {
		if p := viewer.post(path, url.Values{"csrf": {vtok}, "version": {"1"}}); p.status != 403 {
			t.Errorf("viewer POST %s: %d", path, p.status)
		}
	}
	if d := getDoc(t, a, "invoices", inv.ID); d.Status != "draft" || d.Version != 1 {
		t.Fatalf("after the viewer's refused commands the invoice is %s v%d", d.Status, d.Version)
	}
	// Without the form's token or from another site, the owner's command is refused too.
	tok := csrf(t, p)
	if p := owner.post("/dashboard/invoices/"+inv.ID+"/issue", url.Values{"csrf": {"forged"}, "version": {"1"}}); p.status != 403 {
		t.Errorf("forged token issue: %d", p.status)
	}
	if p := owner.post("/dashboard/invoices/"+inv.ID+"/issue", url.Values{"csrf": {tok}, "version": {"1"}}, "Origin", "https://evil.example"); p.status != 403 {
		t.Errorf("cross-origin issue: %d", p.status)
	}

	// The owner issues it: 303 to its page with a notice; the API says issued.
	p = owner.post("/dashboard/invoices/"+inv.ID+"/issue", url.Values{"csrf": {tok}, "version": {"1"}})
	must(t, p, 200, "issue", `id="notice"`, "Issued", `id="cancel"`)
	if !strings.Contains(p.url, "/dashboard/invoices/"+inv.ID+"?notice=issue") {
		t.Errorf("issue landed on %s", p.url)
	}
	if strings.Contains(p.body, `id="issue"`) || strings.Contains(p.body, `id="edit-document"`) {
		t.Error("an issued invoice still offers issue or edit")
	}
	if n := routeRequests(t, a, "POST /dashboard/invoices/{documentID}/issue", 303); n != 6 {
		t.Errorf("issue: %d DynamoDB requests, want 6 (the four of every page, the document, its conditional UpdateItem)", n)
	}
	if d := getDoc(t, a, "invoices", inv.ID); d.Status != "issued" || d.Version != 2 {
		t.Fatalf("after issue the invoice is %s v%d", d.Status, d.Version)
	}
	// A page opened before the issue cancels with version 1: the API's version check refuses
	// it, shown plainly, and nothing changes.
	p = owner.post("/dashboard/invoices/"+inv.ID+"/cancel", url.Values{"csrf": {tok}, "version": {"1"}})
	must(t, p, 409, "stale cancel", `id="transition-conflict"`, "Review it below and retry", "Issued")
	if d := getDoc(t, a, "invoices", inv.ID); d.Status != "issued" {
		t.Fatalf("a stale cancel changed the invoice to %s", d.Status)
	}
	if n := routeRequests(t, a, "POST /dashboard/invoices/{documentID}/cancel", 409); n != 6 {
		t.Errorf("a refused cancel: %d DynamoDB requests, want 6 (the four of every page, the command's read, the page's read)", n)
	}
	// Issuing again from the stale page: the state refuses it (409), shown the same way.
	p = owner.post("/dashboard/invoices/"+inv.ID+"/issue", url.Values{"csrf": {tok}})
	must(t, p, 409, "issue twice", `id="transition-conflict"`)

	// The payment link: publish, its QR code on the page and as files that decode to the link.
	lp := owner.get("/dashboard/payment-links/" + link.ID)
	must(t, lp, 200, "link page", `id="publish"`, `id="qr"`, "<svg", `id="qr-svg"`, `id="qr-png"`, "Size", "M")
	p = owner.post("/dashboard/payment-links/"+link.ID+"/publish", url.Values{"csrf": {csrf(t, lp)}, "version": {"1"}})
	must(t, p, 200, "publish", "Active", `id="archive"`, `id="edit-document"`)
	linkURL := a.URL + "/v1/public/documents/" + link.PublicToken
	resp := owner.raw("/dashboard/payment-links/" + link.ID + "/qr.png")
	var pngBytes bytes.Buffer
	_, _ = pngBytes.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("qr.png: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
	if n := routeRequests(t, a, "GET /dashboard/payment-links/{documentID}/qr.png", 200); n != 5 {
		t.Errorf("qr.png: %d DynamoDB requests, want 5 (the four of every page and the document)", n)
	}
	img, err := png.Decode(&pngBytes)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 512, 512) {
		t.Errorf("qr.png is %v, want 512×512", img.Bounds())
	}
	if got := decodeQR(t, img); got != linkURL {
		t.Fatalf("the QR code decodes to %q, want %q", got, linkURL)
	}
	resp = viewer.raw("/dashboard/payment-links/" + link.ID + "/qr.svg")
	var svg bytes.Buffer
	_, _ = svg.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), `filename="payment-link-`+link.ID+`.svg"`) ||
		!strings.HasPrefix(svg.String(), "<svg") || !strings.Contains(svg.String(), "<title>QR code of the payment link</title>") {
		t.Fatalf("qr.svg (viewer): %d %q %q %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), svg.String())
	}

	// Paid once through the API with a webhook: the page shows the payment (linked to its
	// page), what was paid, and the delivery.
	it := payLink(t, a, link.ID, 2)
	p = owner.get("/dashboard/payment-links/" + link.ID)
	must(t, p, 200, "paid link", `href="/dashboard/payments/`+it+`"`, "Completed", "৳1,000.00", `id="document-deliveries"`)
	if !regexp.MustCompile(`(?s)id="document-deliveries".*Delivered`).MatchString(p.body) {
		t.Errorf("the link's page shows no delivered delivery:\n%.4000s", p.body)
	}
	if n := ddbRequests(t, a, p); n != 6 {
		t.Errorf("a paid link's page: %d DynamoDB requests, want 6 (session, user, memberships, workspace names, the document, its payments' deliveries)", n)
	}
	l := owner.get("/dashboard/payment-links")
	must(t, l, 200, "links list after a payment", "৳1,000.00", "Active")
	if n := ddbRequests(t, a, l); n != 6 {
		t.Errorf("payment links list with a payment: %d DynamoDB requests, want 6 (the four of every page, one Query, one deliveries BatchGetItem)", n)
	}

	// Archive it from its page.
	p = owner.post("/dashboard/payment-links/"+link.ID+"/archive", url.Values{"csrf": {csrf(t, p)}, "version": {"2"}})
	must(t, p, 200, "archive", "Archived", `id="notice"`)
	if d := getDoc(t, a, "payment-links", link.ID); d.Status != "archived" {
		t.Fatalf("after archive the link is %s", d.Status)
	}

	// Another workspace's documents are not found here, whatever the page.
	other, err := op.CreateWorkspace(ctx, "", "Other Bazaar Ltd")
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := op.IssueKey(ctx, other.ID, auth.Sandbox, localapi.FullScopes, "other")
	if err != nil {
		t.Fatal(err)
	}
	oinv := createDoc(t, a, other.ID, otherKey.Plaintext, "invoices", `{"reference": "THEIRS", "amount_minor": 100}`)
	olink := createDoc(t, a, other.ID, otherKey.Plaintext, "payment-links", `{"reference": "THEIRS-LINK", "amount_minor": 100}`)
	if p := owner.get("/dashboard/invoices/" + oinv.ID); p.status != 404 || strings.Contains(p.body, "THEIRS") {
		t.Errorf("another workspace's invoice: %d", p.status)
	}
	for _, path := range []string{"/dashboard/payment-links/" + olink.ID, "/dashboard/payment-links/" + olink.ID + "/qr.png",
		"/dashboard/payment-links/" + olink.ID + "/qr.svg", "/dashboard/invoices/not-a-uuid"} {
		if p := owner.get(path); p.status != 404 {
			t.Errorf("GET %s: %d", path, p.status)
		}
	}
	if p := owner.post("/dashboard/invoices/"+oinv.ID+"/issue", url.Values{"csrf": {tok}}); p.status != 404 {
		t.Errorf("issuing another workspace's invoice: %d", p.status)
	}
	if p := owner.get("/dashboard/invoices?cursor=not-a-cursor"); p.status != 400 {
		t.Errorf("a malformed cursor: %d", p.status)
	}

	// The environment is the URL's: live shows live documents only, and its links keep env=live.
	live := owner.get("/dashboard/invoices?env=live")
	must(t, live, 200, "live invoices", "No invoices yet.", `href="/dashboard/invoices/new?env=live"`)
	if strings.Contains(live.body, "INV &lt;1&gt;") {
		t.Error("the live list shows a sandbox invoice")
	}
	if p := owner.get("/dashboard/invoices/" + inv.ID + "?env=live"); p.status != 404 {
		t.Errorf("a sandbox invoice's page in live: %d", p.status)
	}

	// Bangla: the same pages in Bangla words and digits.
	must(t, owner.get("/dashboard/invoices?lang=bn"), 200, "Bangla list", "ইনভয়েস", "৳৩৩০.০০", "ইস্যু করা")
	must(t, owner.get("/dashboard/payment-links/"+link.ID+"?lang=bn"), 200, "Bangla link page", "পেমেন্ট লিংকের কিউআর কোড",
		"আর্কাইভ করা", "৳১,০০০.০০", "সম্পন্ন")

	// The search, folded away until a search is shown: the rules' q (reference, name, email,
	// phone; any case), its words kept in the box and on the next page's link.
	found := owner.get("/dashboard/invoices?q=RAHIM")
	must(t, found, 200, "search", `<details class="filters" id="documents-filter" open>`, `value="RAHIM"`, "INV &lt;1&gt; &amp; co",
		"matching “RAHIM”")
	if strings.Contains(owner.get("/dashboard/invoices").body, `id="documents-filter" open`) {
		t.Error("the search is open without a search")
	}
	must(t, owner.get("/dashboard/invoices?q=nobody"), 200, "search without a match", `id="documents-empty"`, "No invoice matches “nobody” here.")

	// Paging: 25 a page, newest first; the next page holds the rest. Each page is one Query of
	// at most 26 items (what it shows plus one, to know whether there is more).
	for i := 0; i < 25; i++ {
		createDoc(t, a, ws, key, "invoices", fmt.Sprintf(`{"reference": "BULK-%02d", "amount_minor": %d}`, i, 100+i))
	}
	first := owner.get("/dashboard/invoices")
	must(t, first, 200, "first page", "BULK-24", `id="next-page"`)
	if n := strings.Count(first.body, `<tr id="doc-`); n != 25 || strings.Contains(first.body, "INV &lt;1&gt;") {
		t.Errorf("first page: %d rows (want 25, without the oldest)", n)
	}
	if n := ddbRequests(t, a, first); n != 5 {
		t.Errorf("first page of 26: %d DynamoDB requests, want 5 (the four of every page and one Query of 26 items)", n)
	}
	next := regexp.MustCompile(`id="next-page" href="([^"]+)"`).FindStringSubmatch(first.body)
	if next == nil {
		t.Fatal("no next page link")
	}
	second := owner.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	must(t, second, 200, "second page", "INV &lt;1&gt; &amp; co", `id="first-page"`)
	if n := strings.Count(second.body, `<tr id="doc-`); n != 1 || strings.Contains(second.body, `id="next-page"`) {
		t.Errorf("second page: %d rows, next link %v", n, strings.Contains(second.body, `id="next-page"`))
	}
}
