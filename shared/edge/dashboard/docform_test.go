package dashboard_test

import (
	"encoding/json"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/localgw"
)

// The invoice and payment link forms (docform*.go) over real HTTP on dynalite. Their routes
// are not in a function of template.yaml yet (the integrator adds them to
// DashboardDocumentsFunction), so the test serves them the way that function will: a
// dashboard.Service built by wire.Build from the stack's Deps, with Service.Documents the
// documents rules, behind the local gateway on a second port of the same host
// (the browser's cookies, being per host, reach both).

// docFormRoutes are the routes the integrator adds, keyed as template.yaml keys them.
var docFormRoutes = []string{
	"GET /dashboard/invoices/new", "POST /dashboard/invoices",
	"GET /dashboard/invoices/{documentID}/edit", "POST /dashboard/invoices/{documentID}/edit",
	"GET /dashboard/payment-links/new", "POST /dashboard/payment-links",
	"GET /dashboard/payment-links/{documentID}/edit", "POST /dashboard/payment-links/{documentID}/edit",
}

// startDocForms serves the forms with the dashboard function's Deps on ln (nil: a new port);
// it returns their base URL.
func startDocForms(t *testing.T, s *stack, ln net.Listener) string {
	t.Helper()
	fn := app.HTTPFunction{LogicalID: "DashboardDocFormsTest", Name: "dashboard-docforms-test", Build: func(d *app.Deps) app.API {
		svc := wire.Build(d, nil, nil).Service
		svc.Documents = &document.Service{Store: d.Store, URLs: d.URLs}
		return app.API{ErrorPage: svc.ErrorPage, Routes: web.Routes{
			"GET /dashboard/invoices/new":                     svc.NewInvoicePage,
			"POST /dashboard/invoices":                        svc.CreateInvoice,
			"GET /dashboard/invoices/{documentID}/edit":       svc.EditInvoicePage,
			"POST /dashboard/invoices/{documentID}/edit":      svc.EditInvoice,
			"GET /dashboard/payment-links/new":                svc.NewPaymentLinkPage,
			"POST /dashboard/payment-links":                   svc.CreatePaymentLink,
			"GET /dashboard/payment-links/{documentID}/edit":  svc.EditPaymentLinkPage,
			"POST /dashboard/payment-links/{documentID}/edit": svc.EditPaymentLink,
		}}
	}}
	var routes []localgw.Route
	for _, key := range docFormRoutes {
		method, path, _ := strings.Cut(key, " ")
		routes = append(routes, localgw.Route{Method: method, Path: path, Function: fn.LogicalID})
	}
	gw, err := localgw.New(routes, map[string]localgw.Handler{fn.LogicalID: localgw.Handler(fn.Lambda(s.api.Deps["DashboardFunction"]))}, localgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(gw)
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(srv.Close)
	// The stack serves http://localhost:<port>; the browser's cookies are for that host.
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

// formsBrowser sends a browser's requests to the forms, not following the 303 after a save
// (its detail page is another helper's function).
type formsBrowser struct {
	*browser
	front string
}

func (b *formsBrowser) fetch(method, path string, form url.Values) *page {
	b.t.Helper()
	var req *http.Request
	if method == "GET" {
		req, _ = http.NewRequest("GET", b.front+path, nil)
	} else {
		req, _ = http.NewRequest("POST", b.front+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.origin) // the dashboard's origin (PUBLIC_BASE_URL)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	req.Header.Set("Accept", "text/html")
	c := *b.c
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return &page{status: resp.StatusCode, url: req.URL.String(), header: resp.Header, body: sb.String()}
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// formValues are a rendered form's hidden fields and the values of its inputs, selects and
// textareas, as a browser would send them (without a submit button's name).
func formValues(t *testing.T, p *page) url.Values {
	t.Helper()
	i := strings.Index(p.body, `id="doc-form"`)
	if i < 0 {
		t.Fatalf("no #doc-form (%d):\n%.3000s", p.status, p.body)
	}
	body := p.body[i:]
	body = body[:strings.Index(body, "</form>")]
	v := url.Values{"csrf": {csrf(t, p)}}
	for _, m := range hiddenRE.FindAllStringSubmatch(body, -1) {
		v.Set(m[1], htmlUnescape(m[2]))
	}
	for _, tag := range regexp.MustCompile(`<input [^>]*class="field"[^>]*>`).FindAllString(body, -1) {
		name := regexp.MustCompile(` name="([^"]+)"`).FindStringSubmatch(tag)
		if val := regexp.MustCompile(` value="([^"]*)"`).FindStringSubmatch(tag); name != nil && val != nil {
			v.Set(name[1], htmlUnescape(val[1]))
		}
	}
	for _, m := range regexp.MustCompile(`(?s)<textarea class="field" id="f-[^"]+" name="([^"]+)"[^>]*>(.*?)</textarea>`).FindAllStringSubmatch(body, -1) {
		if m[2] != "" {
			v.Set(m[1], htmlUnescape(m[2]))
		}
	}
	for _, m := range regexp.MustCompile(`(?s)<select class="field" id="f-[^"]+" name="([^"]+)"[^>]*>(.*?)</select>`).FindAllStringSubmatch(body, -1) {
		opts := regexp.MustCompile(`<option value="([^"]*)"( selected)?`).FindAllStringSubmatch(m[2], -1)
		if len(opts) == 0 {
			continue
		}
		val := opts[0][1]
		for _, o := range opts {
			if o[2] != "" {
				val = o[1]
			}
		}
		v.Set(m[1], htmlUnescape(val))
	}
	for _, m := range regexp.MustCompile(`<input type="checkbox" id="f-[^"]+" name="([^"]+)" checked`).FindAllStringSubmatch(body, -1) {
		v.Set(m[1], "on")
	}
	return v
}

func htmlUnescape(s string) string {
	return html.UnescapeString(s)
}

// ddb is the page's DynamoDB requests, from its request log line.
func ddb(t *testing.T, s *stack, p *page) int {
	t.Helper()
	cid := p.header.Get("X-Correlation-Id")
	line := s.api.Logs.Request(cid)
	if line == nil {
		t.Fatalf("no request log line for %q", cid)
	}
	n, _ := line["ddb_requests"].(float64)
	lease, _ := line["ddb_lease_requests"].(float64)
	return int(n - lease)
}

// wantDDB asserts a page's DynamoDB requests: want counts the signed-in viewer's four
// (session and user GetItems, the user's workspaces: a Query and a BatchGetItem) and the
// page's own. A session's idle deadline moves at most once a minute (account.RefreshEvery),
// with one more UpdateItem: a page served that long after the sign-in may carry it.
func wantDDB(t *testing.T, s *stack, p *page, want int, signedIn time.Time) {
	t.Helper()
	got := ddb(t, s, p)
	if got == want || got == want+1 && time.Since(signedIn) >= account.RefreshEvery {
		return
	}
	t.Errorf("%s: %d DynamoDB requests, want %d", p.url, got, want)
}

// apiDoc reads a document through the API with a key.
func formAPIDoc(t *testing.T, s *stack, key, ws, kind, id string) *document.Record {
	t.Helper()
	res := s.api.Do(t, "GET", "/v1/workspaces/"+ws+"/documents/"+kind+"/"+id+"?environment=sandbox", key, "")
	var out document.ListResult
	if res.Status != 200 || json.Unmarshal(res.Body, &out) != nil || len(out.Items) != 1 {
		t.Fatalf("API get %s %s: %d %s", kind, id, res.Status, res.Body)
	}
	return out.Items[0]
}

func apiCount(t *testing.T, s *stack, key, ws, kind string) int {
	t.Helper()
	res := s.api.Do(t, "GET", "/v1/workspaces/"+ws+"/documents/"+kind+"?environment=sandbox&limit=100", key, "")
	var out document.ListResult
	if res.Status != 200 || json.Unmarshal(res.Body, &out) != nil {
		t.Fatalf("API list %s: %d %s", kind, res.Status, res.Body)
	}
	return len(out.Items)
}

var locationIDRE = regexp.MustCompile(`^/dashboard/(invoices|payment-links)/([0-9a-f-]{36})(?:\?lang=bn)?$`)

func savedID(t *testing.T, p *page, kind string) string {
	t.Helper()
	m := locationIDRE.FindStringSubmatch(p.header.Get("Location"))
	if p.status != 303 || m == nil || m[1] != kind {
		t.Fatalf("save: %d, Location %q\n%.4000s", p.status, p.header.Get("Location"), p.body)
	}
	return m[2]
}

func fieldError(p *page, name string) string {
	m := regexp.MustCompile(`<p class="field-error" id="f-` + regexp.QuoteMeta(name) + `-error">([^<]*)</p>`).FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return m[1]
}

func TestDocumentFormsOverHTTP(t *testing.T) {
	s := startStack(t, nil)
	owner := s.signUp(t, "owner@forms.example.com.bd", "Forms shop", "")
	signedIn := time.Now()
	front := startDocForms(t, s, nil)
	ob := &formsBrowser{browser: owner, front: front}

	// A key to read back through the API what the forms saved.
	keys := owner.get("/dashboard/keys")
	p := owner.post("/dashboard/keys", url.Values{"csrf": {csrf(t, keys)}, "once": {once(t, keys, "/dashboard/keys")}, "name": {"reader"}, "environment": {"sandbox"},
		"scopes": {"documents:read", "documents:write"}})
	m := secretRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("create key: %d", p.status)
	}
	key := m[1]
	ctxRes := s.api.Do(t, "GET", "/v1/merchant/context", key, "")
	var mc struct {
		WorkspaceID string `json:"workspace_id"`
	}
	if err := json.Unmarshal(ctxRes.Body, &mc); err != nil || mc.WorkspaceID == "" {
		t.Fatalf("merchant context: %d %s", ctxRes.Status, ctxRes.Body)
	}
	ws := mc.WorkspaceID

	// A customer to link: the form offers the workspace's customers.
	cres := s.api.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/customers?environment=sandbox", key,
		`{"reference": "CUST-1", "name": "Rahim & Sons"}`, "Idempotency-Key", "forms-test-customer-0001")
	var cust document.Record
	if cres.Status != 201 || json.Unmarshal(cres.Body, &cust) != nil {
		t.Fatalf("customer: %d %s", cres.Status, cres.Body)
	}

	// The new invoice form, in English and in Bangla.
	newp := ob.fetch("GET", "/dashboard/invoices/new", nil)
	if newp.status != 200 || !strings.Contains(newp.body, "<h1>New invoice</h1>") || !strings.Contains(newp.body, `id="f-item-2-unit_amount"`) ||
		!strings.Contains(newp.body, `id="save-document"`) || !strings.Contains(newp.body, `<option value="`+cust.ID+`">CUST-1 · Rahim &amp; Sons</option>`) {
		t.Fatalf("new invoice form: %d\n%.3000s", newp.status, newp.body)
	}
	wantDDB(t, s, newp, 5, signedIn) // + the customers Query
	if bn := ob.fetch("GET", "/dashboard/invoices/new?lang=bn", nil); bn.status != 200 || !strings.Contains(bn.body, "<h1>নতুন ইনভয়েস</h1>") ||
		!strings.Contains(bn.body, `lang="bn"`) || strings.Contains(bn.body, "Save invoice") || !strings.Contains(bn.body, "পণ্য ১: একক দাম") {
		t.Errorf("Bangla new invoice form: %d\n%.2000s", bn.status, bn.body)
	}

	// In the live environment the form posts back to live (the API decides what live allows).
	if live := ob.fetch("GET", "/dashboard/payment-links/new?env=live", nil); live.status != 200 ||
		!strings.Contains(live.body, `<form method="post" action="/dashboard/payment-links?env=live" id="doc-form">`) {
		t.Errorf("live form: %d\n%.2000s", live.status, live.body)
	}

	// "Add rows" shows more rows and keeps everything typed; nothing is saved.
	f := formValues(t, newp)
	f.Set("reference", "INV-1")
	f.Set("item-0-title", "Rice <5 kg>")
	f.Set("item-0-quantity", "2")
	f.Set("item-0-unit_amount", "1,250.50")
	f.Set("discount", "100")
	f.Set("action", "add_items")
	more := ob.fetch("POST", "/dashboard/invoices", f)
	if more.status != 200 || !strings.Contains(more.body, `id="f-item-5-title"`) || strings.Contains(more.body, `id="f-item-6-title"`) ||
		!strings.Contains(more.body, `value="Rice &lt;5 kg&gt;"`) || !strings.Contains(more.body, `value="1,250.50"`) ||
		!strings.Contains(more.body, `<input type="text" class="field" id="f-discount" name="discount" autocomplete="off" inputmode="decimal" aria-describedby="f-discount-hint" value="100">`) {
		t.Fatalf("add rows: %d\n%.4000s", more.status, more.body)
	}
	wantDDB(t, s, more, 5, signedIn) // + the customers Query (the form shown again)
	if n := apiCount(t, s, key, ws, "invoices"); n != 0 {
		t.Fatalf("add rows saved %d invoices", n)
	}

	// Row 3 (the second item typed, row 2 left empty) with a bad unit price: shown next to
	// row 3's field, in the summary, and nothing is saved.
	f = formValues(t, more)
	f.Set("item-2-title", "Oil")
	f.Set("item-2-unit_amount", "12.345")
	bad := ob.fetch("POST", "/dashboard/invoices", f)
	if bad.status != 422 || !strings.Contains(fieldError(bad, "item-2-unit_amount"), "Item 3: unit price") ||
		!strings.Contains(bad.body, `href="#f-item-2-unit_amount"`) || !strings.Contains(bad.body, `aria-describedby="f-item-2-unit_amount-error"`) {
		t.Fatalf("bad unit amount: %d\n%.4000s", bad.status, bad.body)
	}
	wantDDB(t, s, bad, 5, signedIn) // the API is not called
	// The API's own violation (quantity 0: body.items[1].quantity) lands on row 3 too.
	f = formValues(t, bad)
	f.Set("item-2-unit_amount", "৳৫০০")
	f.Set("item-2-quantity", "0")
	bad = ob.fetch("POST", "/dashboard/invoices", f)
	if bad.status != 422 || !strings.Contains(fieldError(bad, "item-2-quantity"), "1 to 9999") || fieldError(bad, "item-0-quantity") != "" {
		t.Fatalf("API violation: %d\n%.4000s", bad.status, bad.body)
	}
	wantDDB(t, s, bad, 5, signedIn) // the API refuses before it reads
	if n := apiCount(t, s, key, ws, "invoices"); n != 0 {
		t.Fatalf("invalid forms saved %d invoices", n)
	}

	// Saved: two items and a discount. Sent twice with the same Idempotency-Key (a double
	// click): one invoice, both answers the same 303.
	f = formValues(t, bad)
	f.Set("item-2-quantity", "1")
	f.Set("tax", "10.5")
	f.Set("due_at", "2026-12-31") // a date input's value: the last day to pay
	f.Set("customer_id", cust.ID)
	f.Set("action", "save")
	saved := ob.fetch("POST", "/dashboard/invoices", f)
	id := savedID(t, saved, "invoices")
	wantDDB(t, s, saved, 7, signedIn) // + the customer's GetItem, the idempotency and document PutItems
	again := ob.fetch("POST", "/dashboard/invoices", f)
	if savedID(t, again, "invoices") != id {
		t.Fatalf("double submit made another invoice")
	}
	wantDDB(t, s, again, 8, signedIn) // + the customer's GetItem, the refused PutItem, the first answer's reads
	if n := apiCount(t, s, key, ws, "invoices"); n != 1 {
		t.Fatalf("double submit: %d invoices", n)
	}
	rec := formAPIDoc(t, s, key, ws, "invoices", id)
	body, vs := document.ParseBody(rec.Body, "body")
	if len(vs) > 0 {
		t.Fatal(vs)
	}
	// 2 × 1,250.50 + 500.00 + 10.50 − 100.00
	if rec.AmountMinor == nil || *rec.AmountMinor != 2*125050+50000+1050-10000 || len(body.Items) != 2 ||
		body.Items[0] != (document.LineItem{Title: "Rice <5 kg>", Quantity: 2, UnitAmountMinor: 125050}) ||
		body.Items[1] != (document.LineItem{Title: "Oil", Quantity: 1, UnitAmountMinor: 50000}) ||
		*body.DiscountMinor != 10000 || *body.TaxMinor != 1050 || *body.DueAt != "2026-12-31T23:59:59+06:00" || body.Reference != "INV-1" ||
		rec.CustomerID == nil || *rec.CustomerID != cust.ID {
		t.Fatalf("saved invoice: %s amount %v", rec.Body, rec.AmountMinor)
	}

	// The edit form shows it as saved, at version 1.
	edit := ob.fetch("GET", "/dashboard/invoices/"+id+"/edit", nil)
	ef := formValues(t, edit)
	if edit.status != 200 || ef.Get("version") != "1" || ef.Get("customer_id") != cust.ID || ef.Get("item-0-unit_amount") != "1250.50" || ef.Get("item-1-title") != "Oil" ||
		ef.Get("discount") != "100.00" || ef.Get("due_at") != "2026-12-31" || ef.Get("due_at_raw") != "2026-12-31T23:59:59+06:00" {
		t.Fatalf("edit form: %d %v\n%.3000s", edit.status, ef, edit.body)
	}
	wantDDB(t, s, edit, 6, signedIn) // + the document GetItem, the customers Query

	// Someone else edits it meanwhile (through the API): the form's save is a conflict,
	// shown plainly, nothing typed lost; saving again applies it over the new version.
	if r := s.api.Do(t, "PATCH", "/v1/workspaces/"+ws+"/documents/invoices/"+id+"?environment=sandbox", key,
		`{"notes": "changed elsewhere"}`, "Idempotency-Key", "forms-test-other-edit-0001"); r.Status != 200 {
		t.Fatalf("API edit: %d %s", r.Status, r.Body)
	}
	ef.Set("description", "Monthly groceries")
	ef.Set("action", "save")
	conflict := ob.fetch("POST", "/dashboard/invoices/"+id+"/edit", ef)
	if conflict.status != 409 || !strings.Contains(conflict.body, `id="conflict"`) || !strings.Contains(conflict.body, "it is now at version 2") ||
		!strings.Contains(conflict.body, "Monthly groceries") || !strings.Contains(conflict.body, `id="conflict-review"`) {
		t.Fatalf("stale edit: %d\n%.4000s", conflict.status, conflict.body)
	}
	wantDDB(t, s, conflict, 7, signedIn) // + the API's GetItem, the current version's, the customers Query
	if rec := formAPIDoc(t, s, key, ws, "invoices", id); rec.Version != 2 {
		t.Fatalf("the stale edit was applied: version %d", rec.Version)
	}
	re := formValues(t, conflict)
	if re.Get("version") != "2" {
		t.Fatalf("the conflict form is not based on version 2: %v", re)
	}
	re.Set("action", "save")
	reapplied := ob.fetch("POST", "/dashboard/invoices/"+id+"/edit", re)
	id2 := savedID(t, reapplied, "invoices")
	wantDDB(t, s, reapplied, 7, signedIn) // + the API's edit
	rec = formAPIDoc(t, s, key, ws, "invoices", id2)
	body, _ = document.ParseBody(rec.Body, "body")
	if id2 != id || rec.Version != 3 || body.Description == nil || *body.Description != "Monthly groceries" || body.Notes != nil ||
		*body.DueAt != "2026-12-31T23:59:59+06:00" || len(body.Items) != 2 {
		t.Fatalf("re-applied edit: version %d %s", rec.Version, rec.Body)
	}

	// A payment link in Bangla: amount typed with Bangla digits, a required select question.
	lp := ob.fetch("GET", "/dashboard/payment-links/new?lang=bn", nil)
	if lp.status != 200 || !strings.Contains(lp.body, "<h1>নতুন পেমেন্ট লিংক</h1>") {
		t.Fatalf("Bangla link form: %d", lp.status)
	}
	lf := formValues(t, lp)
	lf.Set("reference", "TSHIRT")
	lf.Set("amount", "১,২৫০.৫০")
	lf.Set("max_quantity", "৩")
	lf.Set("max_uses", "100")
	lf.Set("field-0-id", "size")
	lf.Set("field-0-label", "মাপ")
	lf.Set("field-0-type", "select")
	lf.Set("field-0-required", "on")
	lf.Set("field-0-options", "S\r\nM\r\nL")
	lf.Set("field-1-id", "size")
	lf.Set("field-1-label", "Again")
	lf.Set("action", "save")
	// A repeated question id: the API's body.fields[1].id, shown at question 2 in Bangla.
	dup := ob.fetch("POST", "/dashboard/payment-links?lang=bn", lf)
	if dup.status != 422 || !strings.Contains(fieldError(dup, "field-1-id"), "প্রশ্ন ২: আইডি") {
		t.Fatalf("duplicate field id: %d\n%.4000s", dup.status, dup.body)
	}
	lf = formValues(t, dup)
	lf.Del("field-1-id")
	lf.Del("field-1-label")
	lf.Set("action", "save")
	lid := savedID(t, ob.fetch("POST", "/dashboard/payment-links?lang=bn", lf), "payment-links")
	link := formAPIDoc(t, s, key, ws, "payment-links", lid)
	lb, _ := document.ParseBody(link.Body, "body")
	if link.AmountMinor == nil || *link.AmountMinor != 125050 || *lb.MaxQuantity != 3 || *lb.MaxUses != 100 || len(lb.Fields) != 1 ||
		lb.Fields[0].Type != "select" || lb.Fields[0].Required == nil || !*lb.Fields[0].Required || strings.Join(lb.Fields[0].Options, ",") != "S,M,L" {
		t.Fatalf("saved link: %s", link.Body)
	}
	le := ob.fetch("GET", "/dashboard/payment-links/"+lid+"/edit", nil)
	if lv := formValues(t, le); lv.Get("amount") != "1250.50" || lv.Get("field-0-options") != "S\nM\nL" || lv.Get("field-0-required") != "on" {
		t.Fatalf("link edit form: %v", lv)
	}

	// An issued invoice cannot be edited (the API's rule): said plainly, no form.
	if r := s.api.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/invoices/"+id+"/issue?environment=sandbox", key, ""); r.Status != 200 {
		t.Fatalf("issue: %d %s", r.Status, r.Body)
	}
	if p := ob.fetch("GET", "/dashboard/invoices/"+id+"/edit", nil); p.status != 409 || !strings.Contains(p.body, "only a draft invoice can be edited") ||
		strings.Contains(p.body, `id="doc-form"`) {
		t.Fatalf("issued invoice's edit: %d\n%.2000s", p.status, p.body)
	}

	// A viewer sees neither form and cannot post one, whatever the page showed.
	team := owner.get("/dashboard/team")
	if p := owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")}, "email": {"viewer@forms.example.com.bd"}, "role": {"viewer"}}); !strings.Contains(p.url, "notice=invited") {
		t.Fatalf("invite: %d", p.status)
	}
	invite, _ := s.mailLink(t, "viewer@forms.example.com.bd", "/dashboard/invite", 0)
	viewer := s.signUp(t, "viewer@forms.example.com.bd", "", invite)
	inv := viewer.get(invite)
	if p := viewer.post(actionRE.FindAllStringSubmatch(inv.body, -1)[1][1], url.Values{"csrf": {csrf(t, inv)}}); !strings.Contains(p.body, `id="role">Viewer`) {
		t.Fatalf("accept: %d", p.status)
	}
	vb := &formsBrowser{browser: viewer, front: front}
	for _, path := range []string{"/dashboard/invoices/new", "/dashboard/payment-links/new", "/dashboard/payment-links/" + lid + "/edit"} {
		if p := vb.fetch("GET", path, nil); p.status != 403 || strings.Contains(p.body, `id="doc-form"`) {
			t.Errorf("viewer GET %s: %d", path, p.status)
		}
	}
	vf := formValues(t, newp)
	vf.Set("csrf", csrf(t, viewer.get("/dashboard")))
	vf.Set("reference", "VIEWER-1")
	vf.Set("amount", "10")
	vf.Set("idem", "viewer-attempt-000000000001")
	for _, path := range []string{"/dashboard/invoices", "/dashboard/payment-links", "/dashboard/payment-links/" + lid + "/edit"} {
		if p := vb.fetch("POST", path, vf); p.status != 403 {
			t.Errorf("viewer POST %s: %d", path, p.status)
		}
	}
	if n := apiCount(t, s, key, ws, "invoices"); n != 1 {
		t.Errorf("invoices after the viewer's posts: %d", n)
	}
	if rec := formAPIDoc(t, s, key, ws, "payment-links", lid); rec.Version != 1 {
		t.Errorf("the viewer's edit changed the link: version %d", rec.Version)
	}
}
