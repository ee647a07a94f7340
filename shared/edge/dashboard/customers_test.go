package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
)

// The customers pages over the local gateway (DashboardCustomersFunction on dynalite), as a
// browser signed in as an owner, a developer or a viewer would use them.

// noFollow posts a form like b.post but returns the first response (a 303 as it is).
func (b *browser) noFollow(path string, form url.Values) *page {
	b.t.Helper()
	c := *b.c
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	saved := b.c
	b.c = &c
	defer func() { b.c = saved }()
	return b.post(path, form)
}

var (
	idemRE    = regexp.MustCompile(`name="idem" value="([^"]+)"`)
	versionRE = regexp.MustCompile(`name="version" value="([0-9]+)"`)
	custRowRE = regexp.MustCompile(`<tr id="customer-([0-9a-f-]{36})">`)
)

func field(t *testing.T, re *regexp.Regexp, p *page) string {
	t.Helper()
	m := re.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no %s on %s (%d):\n%.3000s", re, p.url, p.status, p.body)
	}
	return m[1]
}

// requests returns the route and the DynamoDB requests of a page from its request log line.
func requests(t *testing.T, s *stack, p *page) (string, int) {
	t.Helper()
	cid := p.header.Get("X-Correlation-Id")
	line := s.api.Logs.Request(cid)
	if line == nil {
		t.Fatalf("no request log line for %s (correlation id %q)", p.url, cid)
	}
	n, _ := line["ddb_requests"].(float64)
	route, _ := line["route"].(string)
	return route, int(n)
}

// wantRequests checks a page's route and DynamoDB requests.
func wantRequests(t *testing.T, s *stack, p *page, route string, n int) {
	t.Helper()
	gotRoute, got := requests(t, s, p)
	if gotRoute != route || got != n {
		t.Errorf("%s: route %q with %d DynamoDB requests, want %q with %d", p.url, gotRoute, got, route, n)
	}
}

// signInReads are the sign-in check's reads on every page: the session, the user, the
// user's memberships and the workspaces' names.
const signInReads = 4

func TestCustomersOverTheGateway(t *testing.T) {
	s := &stack{api: localapi.StartTestAPI(t, localapi.Options{})}
	ctx := context.Background()
	ws := s.api.Creds.WorkspaceID
	dev := s.memberIn(t, ws, "dev@customers.example.com.bd", auth.RoleDeveloper)
	viewer := s.memberIn(t, ws, "viewer@customers.example.com.bd", auth.RoleViewer)

	// The literal /dashboard/customers/new wins over /dashboard/customers/{documentID}, as
	// on API Gateway: the form, not a customer called "new".
	p := dev.get("/dashboard/customers/new")
	if p.status != 200 || !strings.Contains(p.body, `id="customer-form"`) || !strings.Contains(p.body, `id="f-private_notes"`) {
		t.Fatalf("new customer page: %d\n%.3000s", p.status, p.body)
	}
	wantRequests(t, s, p, "GET /dashboard/customers/new", signInReads)

	// Create: every field; 303 to the customer's page.
	form := url.Values{"csrf": {csrf(t, p)}, "idem": {field(t, idemRE, p)}, "reference": {"C-100"}, "name": {"রহিম <Store>"},
		"email": {"rahim@shop.example.com.bd"}, "phone": {"+880 1712-345678"}, "tags": {"wholesale, dhaka , "},
		"description": {"Buys tea"}, "notes": {"line one\r\nline two"}, "private_notes": {"pays late"}}
	created := dev.noFollow("/dashboard/customers", form)
	loc := created.header.Get("Location")
	m := regexp.MustCompile(`^/dashboard/customers/([0-9a-f-]{36})\?notice=created$`).FindStringSubmatch(loc)
	if created.status != 303 || m == nil {
		t.Fatalf("create: %d Location %q\n%.3000s", created.status, loc, created.body)
	}
	id := m[1]
	wantRequests(t, s, created, "POST /dashboard/customers", signInReads+2) // the create key, the customer
	// The same form sent twice (its Idempotency-Key): the same customer, not a second one.
	if again := dev.noFollow("/dashboard/customers", form); again.status != 303 || again.header.Get("Location") != loc {
		t.Errorf("the same form again: %d %q, want 303 %q", again.status, again.header.Get("Location"), loc)
	}
	one := dev.get(loc)
	for _, want := range []string{`id="customer-reference">C-100<`, `id="customer-name">রহিম &lt;Store&gt;<`,
		`id="customer-tags">wholesale, dhaka<`, `id="customer-notes">line one<br>line two<`, `id="customer-private-notes">pays late<`,
		`id="notice"`, `id="edit-customer"`, `id="customer-invoices"`} {
		if !strings.Contains(one.body, want) {
			t.Errorf("customer page lacks %s\n%.4000s", want, one.body)
		}
	}
	wantRequests(t, s, one, "GET /dashboard/customers/{documentID}", signInReads+2) // the customer, its invoices

	// Validation: the API's violations beside their fields, with the summary; values kept.
	p = dev.get("/dashboard/customers/new")
	bad := dev.post("/dashboard/customers", url.Values{"csrf": {csrf(t, p)}, "idem": {field(t, idemRE, p)}, "reference": {""},
		"name": {strings.Repeat("n", 161)}, "email": {"not-an-email"}, "tags": {"ok, " + strings.Repeat("t", 41)}})
	if bad.status != 422 {
		t.Fatalf("invalid create: %d\n%.3000s", bad.status, bad.body)
	}
	for _, want := range []string{`id="error-summary"`, `href="#f-reference"`, `id="f-reference-error">Reference is required.<`,
		`id="f-name-error">Name must be at most 160 characters.<`, `id="f-email-error">Email must be an email address`,
		`id="f-tags-error">Tag 2 must be at most 40 characters.<`, `aria-describedby="f-email-error"`, `value="not-an-email"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("invalid create lacks %s\n%.5000s", want, bad.body)
		}
	}
	wantRequests(t, s, bad, "POST /dashboard/customers", signInReads)
	p = dev.get("/dashboard/customers/new?lang=bn")
	bad = dev.post("/dashboard/customers?lang=bn", url.Values{"csrf": {csrf(t, p)}, "idem": {field(t, idemRE, p)}, "reference": {""}, "email": {"x"}})
	if bad.status != 422 || !strings.Contains(bad.body, `lang="bn"`) || !strings.Contains(bad.body, `id="f-reference-error">রেফারেন্স আবশ্যক।<`) ||
		!strings.Contains(bad.body, `id="f-email-error">ইমেইল একটি ইমেইল ঠিকানা হতে হবে`) {
		t.Errorf("invalid create in Bangla: %d\n%.5000s", bad.status, bad.body)
	}

	// More customers through the API (the list's page is 25): the list is newest first, one
	// Query of a page plus one; the second page has the rest.
	key := s.api.Creds.SandboxKey
	apiCreate := func(body string) string {
		t.Helper()
		r := s.api.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/customers?environment=sandbox", key, body,
			"Idempotency-Key", "cust-test-"+uuid.NewString())
		var rec struct{ ID string }
		if err := json.Unmarshal(r.Body, &rec); err != nil || r.Status != 201 {
			t.Fatalf("API create: %d %s", r.Status, r.Body)
		}
		return rec.ID
	}
	var newest string
	for i := range 26 {
		newest = apiCreate(fmt.Sprintf(`{"reference": "B-%02d", "name": "Bulk %02d"}`, i, i))
	}
	list := dev.get("/dashboard/customers")
	rows := custRowRE.FindAllStringSubmatch(list.body, -1)
	if list.status != 200 || len(rows) != 25 || rows[0][1] != newest || !strings.Contains(list.body, `id="customers-next"`) {
		t.Fatalf("list: %d, %d rows, first %v, want 25 from %s with a next link\n%.3000s", list.status, len(rows), rows[0], newest, list.body)
	}
	wantRequests(t, s, list, "GET /dashboard/customers", signInReads+1)
	next := regexp.MustCompile(`id="customers-next" href="([^"]+)"`).FindStringSubmatch(list.body)
	list2 := dev.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	rows2 := custRowRE.FindAllStringSubmatch(list2.body, -1)
	if len(rows2) != 2 || rows2[1][1] != id || strings.Contains(list2.body, `id="customers-next"`) {
		t.Errorf("second page: %d rows %v, want the last bulk customer and C-100, no next link", len(rows2), rows2)
	}
	wantRequests(t, s, list2, "GET /dashboard/customers", signInReads+1)

	// Search: by name, case-insensitive, in both languages.
	found := dev.get("/dashboard/customers?q=" + url.QueryEscape("রহিম"))
	if rows := custRowRE.FindAllStringSubmatch(found.body, -1); len(rows) != 1 || rows[0][1] != id {
		t.Errorf("search for the name: %v\n%.3000s", rows, found.body)
	}
	found = dev.get("/dashboard/customers?lang=bn&q=BULK%2007")
	if rows := custRowRE.FindAllStringSubmatch(found.body, -1); len(rows) != 1 || !strings.Contains(found.body, "“bulk 07”") && !strings.Contains(found.body, "“BULK 07”") ||
		!strings.Contains(found.body, "গ্রাহক") || !strings.Contains(found.body, `name="lang" value="bn"`) {
		t.Errorf("search in Bangla: %d rows\n%.3000s", len(rows), found.body)
	}
	if p := dev.get("/dashboard/customers?q=" + strings.Repeat("q", 129)); p.status != 422 || !strings.Contains(p.body, `id="f-q-error"`) ||
		!strings.Contains(p.body, `id="error-summary"`) {
		t.Errorf("search of 129 characters: %d", p.status)
	}
	if p := dev.get("/dashboard/customers?cursor=nope"); p.status != 400 {
		t.Errorf("a cursor no page gave: %d", p.status)
	}

	// The customer's invoices, linking to the invoices' pages; amounts in taka, both languages.
	invoice := func(ref string, amount int) string {
		t.Helper()
		r := s.api.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/invoices?environment=sandbox", key,
			fmt.Sprintf(`{"reference": %q, "customer_id": %q, "items": [{"title": "Tea", "quantity": 2, "unit_amount_minor": %d}]}`, ref, id, amount),
			"Idempotency-Key", "cust-test-"+uuid.NewString())
		var rec struct{ ID string }
		if err := json.Unmarshal(r.Body, &rec); err != nil || r.Status != 201 {
			t.Fatalf("invoice create: %d %s", r.Status, r.Body)
		}
		return rec.ID
	}
	inv1 := invoice("INV-1", 5000)
	inv2 := invoice("INV-2", 125050)
	if r := s.api.Do(t, "POST", "/v1/workspaces/"+ws+"/documents/invoices/"+inv2+"/issue?environment=sandbox", key, ""); r.Status != 200 {
		t.Fatalf("issue: %d %s", r.Status, r.Body)
	}
	apiCreate(`{"reference": "OTHER"}`) // another customer's invoices are not listed
	one = dev.get("/dashboard/customers/" + id)
	// The invoices read as cards on a phone: each row leads with the invoice's link.
	invRows := regexp.MustCompile(`<tr id="invoice-([0-9a-f-]{36})"><td data-label="Invoice"><a href="(/dashboard/invoices/[0-9a-f-]{36})">`).FindAllStringSubmatch(one.body, -1)
	if len(invRows) != 2 || invRows[0][1] != inv2 || invRows[1][1] != inv1 || invRows[0][2] != "/dashboard/invoices/"+inv2 {
		t.Errorf("the customer's invoices: %v, want %s then %s\n%.5000s", invRows, inv2, inv1, one.body)
	}
	for _, want := range []string{"৳2,501.00", "৳100.00", ">Issued<", ">Draft<"} {
		if !strings.Contains(one.body, want) {
			t.Errorf("the customer's invoices lack %s", want)
		}
	}
	wantRequests(t, s, one, "GET /dashboard/customers/{documentID}", signInReads+2)
	bn := dev.get("/dashboard/customers/" + id + "?lang=bn")
	for _, want := range []string{"৳২,৫০১.০০", "৳১০০.০০", "ইস্যু করা", "এই গ্রাহকের ইনভয়েস", `href="/dashboard/invoices/` + inv2 + `?lang=bn"`} {
		if !strings.Contains(bn.body, want) {
			t.Errorf("the customer's page in Bangla lacks %s", want)
		}
	}

	// Edit: the form holds the stored values; the save is a merge patch at the version read.
	edit := dev.get("/dashboard/customers/" + id + "/edit")
	if edit.status != 200 || field(t, versionRE, edit) != "1" || !strings.Contains(edit.body, `value="rahim@shop.example.com.bd"`) ||
		!strings.Contains(edit.body, "\nline one\r\nline two</textarea>") && !strings.Contains(edit.body, "\nline one\nline two</textarea>") {
		t.Fatalf("edit page: %d\n%.4000s", edit.status, edit.body)
	}
	wantRequests(t, s, edit, "GET /dashboard/customers/{documentID}/edit", signInReads+2)
	ef := url.Values{"csrf": {csrf(t, edit)}, "idem": {field(t, idemRE, edit)}, "version": {"1"}, "reference": {"C-100"},
		"name": {"Rahim Store"}, "email": {"rahim@shop.example.com.bd"}, "phone": {""}, "tags": {"wholesale"},
		"description": {"Buys tea"}, "notes": {"line one"}, "private_notes": {"pays late"}}
	saved := dev.noFollow("/dashboard/customers/"+id+"/edit", ef)
	if saved.status != 303 || saved.header.Get("Location") != "/dashboard/customers/"+id+"?notice=saved" {
		t.Fatalf("edit: %d %q\n%.3000s", saved.status, saved.header.Get("Location"), saved.body)
	}
	_, n := requests(t, s, saved)
	if n != signInReads+2 { // the customer read, its update (no key or history to copy out yet)
		t.Errorf("edit: %d DynamoDB requests, want %d", n, signInReads+2)
	}
	one = dev.get("/dashboard/customers/" + id)
	if !strings.Contains(one.body, `id="customer-name">Rahim Store<`) || !strings.Contains(one.body, `id="customer-phone">None<`) ||
		!strings.Contains(one.body, "version 2") {
		t.Errorf("after the edit:\n%.4000s", one.body)
	}

	// A conflict: the developer's form was read at version 2; the API changes the customer
	// (version 3) before it is sent. The form comes back (409) with the entries, the stored
	// values beside them and the new version; sent again, it saves.
	edit = dev.get("/dashboard/customers/" + id + "/edit")
	if r := s.api.Do(t, "PATCH", "/v1/workspaces/"+ws+"/documents/customers/"+id+"?environment=sandbox", key, `{"name": "Karim Traders"}`,
		"Idempotency-Key", "cust-test-"+uuid.NewString()); r.Status != 200 {
		t.Fatalf("API edit: %d %s", r.Status, r.Body)
	}
	ef.Set("csrf", csrf(t, edit))
	ef.Set("idem", field(t, idemRE, edit))
	ef.Set("version", field(t, versionRE, edit))
	ef.Set("name", "Rahim & Sons")
	conflict := dev.post("/dashboard/customers/"+id+"/edit", ef)
	if conflict.status != 409 || !strings.Contains(conflict.body, `id="conflict"`) || !strings.Contains(conflict.body, "Karim Traders") ||
		!strings.Contains(conflict.body, `value="Rahim &amp; Sons"`) || field(t, versionRE, conflict) != "3" {
		t.Fatalf("conflict: %d\n%.5000s", conflict.status, conflict.body)
	}
	// The edit's read of the customer and of its Idempotency-Key (an earlier edit's key was
	// moved out of the item), refused at expected_version without a write; then the get that
	// shows the stored values (the customer and a page of one invoice).
	wantRequests(t, s, conflict, "POST /dashboard/customers/{documentID}/edit", signInReads+4)
	ef.Set("csrf", csrf(t, conflict))
	ef.Set("idem", field(t, idemRE, conflict))
	ef.Set("version", "3")
	if p := dev.post("/dashboard/customers/"+id+"/edit", ef); p.status != 200 || !strings.Contains(p.body, `id="customer-name">Rahim &amp; Sons<`) {
		t.Errorf("saved after the review: %d\n%.3000s", p.status, p.body)
	}
	// An invalid edit: beside the field, nothing saved.
	edit = dev.get("/dashboard/customers/" + id + "/edit")
	ef.Set("csrf", csrf(t, edit))
	ef.Set("idem", field(t, idemRE, edit))
	ef.Set("version", field(t, versionRE, edit))
	ef.Set("reference", "")
	if p := dev.post("/dashboard/customers/"+id+"/edit", ef); p.status != 422 || !strings.Contains(p.body, `id="f-reference-error"`) {
		t.Errorf("invalid edit: %d", p.status)
	}

	// A form without its version or with a malformed Idempotency-Key is a bad request (400).
	edit = dev.get("/dashboard/customers/" + id + "/edit")
	ef.Set("csrf", csrf(t, edit))
	ef.Set("reference", "C-100")
	ef.Del("version")
	if p := dev.post("/dashboard/customers/"+id+"/edit", ef); p.status != 400 {
		t.Errorf("edit without a version: %d", p.status)
	}
	ef.Set("version", field(t, versionRE, edit))
	ef.Set("idem", "short")
	if p := dev.post("/dashboard/customers/"+id+"/edit", ef); p.status != 400 {
		t.Errorf("edit with a malformed Idempotency-Key: %d", p.status)
	}
	if p := dev.post("/dashboard/customers", url.Values{"csrf": {csrf(t, edit)}, "reference": {"NO-KEY"}}); p.status != 400 {
		t.Errorf("create without an Idempotency-Key: %d", p.status)
	}

	// Members the form does not show (set through the API) are kept by an edit and listed.
	odd := apiCreate(`{"reference": "ODD", "max_uses": 5, "due_at": "2026-12-31T18:00:00+06:00"}`)
	edit = dev.get("/dashboard/customers/" + odd + "/edit")
	if p := dev.post("/dashboard/customers/"+odd+"/edit", url.Values{"csrf": {csrf(t, edit)}, "idem": {field(t, idemRE, edit)},
		"version": {"1"}, "reference": {"ODD-2"}}); p.status != 200 || !strings.Contains(p.body, `id="customer-other"`) ||
		!strings.Contains(p.body, "<code>max_uses</code>") || !strings.Contains(p.body, "2026-12-31T18:00:00&#43;06:00") {
		t.Errorf("an edit of a customer with other members: %d\n%.4000s", p.status, mainOf(p.body))
	}

	// A viewer sees everything and can change nothing: the server refuses (403).
	vl := viewer.get("/dashboard/customers")
	if vl.status != 200 || strings.Contains(vl.body, `id="new-customer"`) {
		t.Errorf("viewer's list: %d (new-customer link shown: %v)", vl.status, strings.Contains(vl.body, `id="new-customer"`))
	}
	vo := viewer.get("/dashboard/customers/" + id)
	if vo.status != 200 || strings.Contains(vo.body, `id="edit-customer"`) || !strings.Contains(vo.body, `id="customer-invoices"`) {
		t.Errorf("viewer's customer page: %d", vo.status)
	}
	for _, path := range []string{"/dashboard/customers/new", "/dashboard/customers/" + id + "/edit"} {
		if p := viewer.get(path); p.status != 403 {
			t.Errorf("viewer GET %s: %d", path, p.status)
		}
	}
	vt := csrf(t, vl) // the sign-out form's token: the viewer's own
	if p := viewer.post("/dashboard/customers", url.Values{"csrf": {vt}, "idem": {"viewer-idem-key-0001"}, "reference": {"V-1"}}); p.status != 403 {
		t.Errorf("viewer creates: %d", p.status)
	}
	if p := viewer.post("/dashboard/customers/"+id+"/edit", url.Values{"csrf": {vt}, "idem": {"viewer-idem-key-0002"}, "version": {"4"},
		"reference": {"V-2"}}); p.status != 403 {
		t.Errorf("viewer edits: %d", p.status)
	}
	if p := dev.get("/dashboard/customers?q=v-"); len(custRowRE.FindAllString(p.body, -1)) != 0 {
		t.Error("a viewer's refused post created or changed a customer")
	}
	// A forged token is refused too.
	if p := dev.post("/dashboard/customers", url.Values{"csrf": {"forged"}, "idem": {"forged-idem-key-0001"}, "reference": {"F-1"}}); p.status != 403 {
		t.Errorf("forged token create: %d", p.status)
	}

	// Another workspace's owner: the customer is not found (404), read or edit; nor is an id
	// that is not one.
	other := uuid.NewString()
	if _, err := s.api.Operator(t).CreateWorkspace(ctx, other, "Other shop"); err != nil {
		t.Fatal(err)
	}
	stranger := s.memberIn(t, other, "owner@other.example.com.bd", auth.RoleOwner)
	if p := stranger.get("/dashboard/customers/" + id); p.status != 404 {
		t.Errorf("another workspace's customer: %d", p.status)
	}
	se := stranger.get("/dashboard/customers/new")
	if p := stranger.post("/dashboard/customers/"+id+"/edit", url.Values{"csrf": {csrf(t, se)}, "idem": {field(t, idemRE, se)},
		"version": {"4"}, "reference": {"X"}}); p.status != 404 {
		t.Errorf("another workspace's customer edited: %d", p.status)
	}
	if p := stranger.get("/dashboard/customers"); len(custRowRE.FindAllString(p.body, -1)) != 0 {
		t.Error("another workspace lists this workspace's customers")
	}
	if p := dev.get("/dashboard/customers/not-a-customer"); p.status != 404 {
		t.Errorf("an id that is not a UUID: %d", p.status)
	}
	if p := dev.get("/dashboard/customers/" + inv1); p.status != 404 {
		t.Errorf("an invoice's id as a customer: %d", p.status)
	}

	// Live: the environment stays in the URL; a live customer is not a sandbox one.
	p = dev.get("/dashboard/customers/new?env=live")
	if !strings.Contains(p.body, `action="/dashboard/customers?env=live"`) {
		t.Fatalf("live form's action:\n%.3000s", p.body)
	}
	live := dev.noFollow("/dashboard/customers?env=live", url.Values{"csrf": {csrf(t, p)}, "idem": {field(t, idemRE, p)}, "reference": {"LIVE-1"}})
	liveLoc := live.header.Get("Location")
	if live.status != 303 || !strings.HasSuffix(liveLoc, "?notice=created&env=live") {
		t.Fatalf("live create: %d %q", live.status, liveLoc)
	}
	liveID := strings.TrimPrefix(strings.TrimSuffix(liveLoc, "?notice=created&env=live"), "/dashboard/customers/")
	if p := dev.get("/dashboard/customers/" + liveID); p.status != 404 {
		t.Errorf("a live customer in sandbox: %d", p.status)
	}
	if p := dev.get("/dashboard/customers?env=live"); len(custRowRE.FindAllString(p.body, -1)) != 1 || !strings.Contains(p.body, `name="env" value="live"`) {
		t.Errorf("the live list:\n%.3000s", p.body)
	}

	// Without a session: to the sign-in page.
	if p := s.browser(t).get("/dashboard/customers"); !strings.Contains(p.url, "/dashboard/sign-in") {
		t.Errorf("signed out: %d at %s", p.status, p.url)
	}
}

// mainOf is a page's main element (what a failure shows).
func mainOf(body string) string {
	if i := strings.Index(body, `<main`); i >= 0 {
		return body[i:]
	}
	return body
}
