package dashboard_test

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/refund"
)

var (
	refundIdemRE    = regexp.MustCompile(`name="idem" value="([0-9a-f-]{36})"`)
	refundRowRE     = regexp.MustCompile(`<tr id="payment-refunds-([0-9a-f-]{36})">`)
	refundVersionRE = regexp.MustCompile(`name="expected_version" value="([0-9]+)"`)
	refundLocRE     = regexp.MustCompile(`/dashboard/refunds/([0-9a-f-]{36})`)
)

// paidPayment makes a COMPLETED sandbox payment of amount taka through the API and the
// payer's checkout, and returns its id.
func paidPayment(t *testing.T, a *localapi.TestAPI, ref, amount string) string {
	t.Helper()
	res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": `+amount+`, "reference": "`+ref+`"}`, "Idempotency-Key", "refund-dash-"+ref)
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := jsonField(t, res.Body, "id")
	u, _ := url.Parse(jsonField(t, res.Body, "payment_url"))
	if r := a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != 200 {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", u.Path+"/notices/approve", "", ""); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	return id
}

// refundForm is the Refund form's fields on a payment's page, with the given values.
func refundForm(t *testing.T, p *page, amount, reason, note string) url.Values {
	t.Helper()
	m := refundIdemRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no Refund form on %s (%d):\n%.3000s", p.url, p.status, p.body)
	}
	return url.Values{"csrf": {csrf(t, p)}, "idem": {m[1]}, "amount": {amount}, "reason": {reason}, "note": {note}}
}

// actionForm is a refund action's fields from the refund's page (its csrf and version).
func actionForm(t *testing.T, p *page, kv ...string) url.Values {
	t.Helper()
	m := refundVersionRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no action form on %s (%d):\n%.3000s", p.url, p.status, p.body)
	}
	v := url.Values{"csrf": {csrf(t, p)}, "expected_version": {m[1]}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func wantIn(t *testing.T, what string, p *page, status int, parts ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: %d at %s, want %d:\n%.3000s", what, p.status, p.url, status, p.body)
	}
	for _, s := range parts {
		if !strings.Contains(p.body, s) {
			t.Errorf("%s: no %q on the page:\n%.3000s", what, s, p.body)
		}
	}
}

// The dashboard's refunds through the real door on dynalite: who may do what (a viewer sees no
// form and is refused a POST; a developer creates and cancels but cannot approve; an admin
// reviews, approves, rejects and reports returned), one Refund form = one refund (a double
// submit, a refusal, a cross-site post), the page's version (a stale page gets the 409 message),
// the two-person setting, another workspace's refunds and payments (404), and every action in
// the activity log.
func TestRefundPages(t *testing.T) {
	s := startPaymentsStack(t)
	a := s.api
	pay := paidPayment(t, a, "refund-dash-1", "100")
	payPath := "/dashboard/payments/" + pay
	owner := s.sessionBrowser(t, a.Creds.SessionToken)
	viewer := s.member(t, "viewer@refunds.example.com.bd", auth.RoleViewer)
	dev := s.member(t, "dev@refunds.example.com.bd", auth.RoleDeveloper)
	admin := s.member(t, "admin@refunds.example.com.bd", auth.RoleAdmin)

	// A viewer sees the ledger and no form; a POST is refused and writes nothing.
	p := viewer.get(payPath + "?lang=en")
	wantIn(t, "viewer's payment page", p, 200, `id="ledger-refundable"`, "৳100.00")
	if strings.Contains(p.body, `id="refund-form"`) {
		t.Error("a viewer is offered the Refund form")
	}
	if p := viewer.post(payPath+"/refunds", url.Values{"csrf": {csrf(t, p)}, "idem": {"0196f000-0000-7000-8000-000000000001"},
		"amount": {"1"}, "reason": {"duplicate"}}); p.status != 403 {
		t.Errorf("a viewer's refund POST: %d", p.status)
	}

	// The developer's form: bad input names its field and writes nothing.
	p = dev.get(payPath + "?lang=en")
	wantIn(t, "developer's payment page", p, 200, `id="refund-form"`, `value="100.00"`)
	form := refundForm(t, p, "12.345", "whim", "")
	p = dev.post(payPath+"/refunds", form)
	wantIn(t, "a bad refund", p, 422, `href="#f-amount"`, `href="#f-reason"`)
	p = dev.post(payPath+"/refunds?lang=en", refundForm(t, dev.get(payPath+"?lang=en"), "100.01", "duplicate", ""))
	wantIn(t, "more than refundable", p, 409, `href="#f-amount"`, "at most ৳100.00")
	// A cross-site post and one without the CSRF token create nothing.
	form = refundForm(t, dev.get(payPath), "10.50", "not_delivered", "<b>parcel</b> lost")
	if p := dev.post(payPath+"/refunds", form, "Origin", "https://evil.example.com", "Sec-Fetch-Site", "cross-site"); p.status != 403 {
		t.Errorf("a cross-site refund POST: %d", p.status)
	}
	noCSRF := url.Values{}
	for k, v := range form {
		noCSRF[k] = v
	}
	noCSRF.Del("csrf")
	if p := dev.post(payPath+"/refunds", noCSRF); p.status != 403 {
		t.Errorf("a refund POST without its CSRF token: %d", p.status)
	}
	// One submission, sent twice: one refund.
	loc := dev.twice(payPath+"/refunds", form)
	if !strings.Contains(loc, "notice=refund_created") {
		t.Errorf("a refund created lands on %s", loc)
	}
	p = dev.get(payPath + "?lang=en")
	rows := refundRowRE.FindAllStringSubmatch(p.body, -1)
	if len(rows) != 1 {
		t.Fatalf("%d refunds after one form sent twice (and three refused)", len(rows))
	}
	wantIn(t, "after the refund", p, 200, "৳89.50")
	first := rows[0][1]
	ledger, err := (&refund.Service{Store: a.Store}).Ledger(t.Context(), refund.Scope{WorkspaceID: a.Creds.WorkspaceID, Environment: auth.Sandbox}, pay)
	if err != nil || ledger.Promised != 1050 {
		t.Fatalf("the payment's ledger after one refund: %+v %v", ledger, err)
	}

	// The refund's page: the note escaped; the developer may cancel, not approve.
	rp := "/dashboard/refunds/" + first
	p = dev.get(rp + "?lang=en")
	wantIn(t, "developer's refund page", p, 200, "&lt;b&gt;parcel&lt;/b&gt; lost", `id="refund-cancel-form"`)
	if strings.Contains(p.body, `id="refund-approve-form"`) || strings.Contains(p.body, `id="refund-review-form"`) {
		t.Error("a developer is offered approve or review")
	}
	if p := dev.post(rp+"/approve", actionForm(t, p)); p.status != 403 {
		t.Errorf("a developer's approve: %d", p.status)
	}
	if p := viewer.post(rp+"/cancel", actionForm(t, dev.get(rp), "csrf", csrf(t, viewer.get(rp)))); p.status != 403 {
		t.Errorf("a viewer's cancel: %d", p.status)
	}

	// The admin reviews, approves (due_by set), and reports it returned with a TrxID.
	p = admin.get(rp + "?lang=en")
	wantIn(t, "admin's refund page", p, 200, `id="refund-review-form"`, `id="refund-approve-form"`, `id="refund-reject-form"`)
	wantIn(t, "review", admin.post(rp+"/review?lang=en", actionForm(t, p)), 200, "In review")
	p = admin.get(rp + "?lang=en")
	wantIn(t, "approve", admin.post(rp+"/approve?lang=en", actionForm(t, p, "note", "ok")), 200, "Approved", `id="refund-due"`)
	p = admin.get(rp + "?lang=en")
	wantIn(t, "report returned without the TrxID", admin.post(rp+"/report-returned?lang=en", actionForm(t, p)), 422, `href="#f-report-returned-provider_reference"`)
	wantIn(t, "report returned in the future", admin.post(rp+"/report-returned?lang=en", actionForm(t, p, "provider_reference", "TRX1", "returned_on", "2999-01-01")), 422,
		`href="#f-report-returned-returned_on"`)
	wantIn(t, "report returned", admin.post(rp+"/report-returned?lang=en", actionForm(t, p, "provider_reference", "BKA9X7Y6Z5")), 200, "Returned", "BKA9X7Y6Z5")
	wantIn(t, "the payment after the return", dev.get(payPath+"?lang=en"), 200, `id="ledger-refunded"><span class="money">৳10.50`)

	// A stale page: the developer cancels a second refund while the admin's page shows it
	// requested; the admin's reject gets the 409 message and nothing changes.
	loc = dev.twice(payPath+"/refunds", refundForm(t, dev.get(payPath), "5", "duplicate", ""))
	p = dev.get(payPath)
	second := ""
	for _, m := range refundRowRE.FindAllStringSubmatch(p.body, -1) {
		if m[1] != first {
			second = m[1]
		}
	}
	stale := admin.get("/dashboard/refunds/" + second + "?lang=en")
	wantIn(t, "the developer's cancel", dev.post("/dashboard/refunds/"+second+"/cancel?lang=en", actionForm(t, dev.get("/dashboard/refunds/"+second))), 200, "Cancelled")
	wantIn(t, "a stale reject", admin.post("/dashboard/refunds/"+second+"/reject?lang=en", actionForm(t, stale, "reason", "no")), 409,
		`id="refund-problem"`, "changed since you opened the page")

	// The two-person setting: owners and admins only; at or above it, the asker cannot approve.
	p = owner.get("/dashboard/refunds?lang=en")
	wantIn(t, "owner's refunds page", p, 200, `id="refund-policy-form"`)
	if p := dev.post("/dashboard/refunds", url.Values{"csrf": {csrf(t, dev.get("/dashboard/refunds"))}, "two_person": {"1"}}); p.status != 403 {
		t.Errorf("a developer sets the two-person amount: %d", p.status)
	}
	wantIn(t, "a bad two-person amount", owner.post("/dashboard/refunds?lang=en", url.Values{"csrf": {csrf(t, p)}, "two_person": {"-5"}}), 422, `href="#f-two_person"`)
	wantIn(t, "the two-person amount", owner.post("/dashboard/refunds?lang=en", url.Values{"csrf": {csrf(t, p)}, "two_person": {"৳ ৫"}}), 200,
		"Refunds of ৳5.00 or more need an approver")
	admin.twice(payPath+"/refunds", refundForm(t, admin.get(payPath), "6", "order_cancelled", ""))
	var mine string
	for _, m := range refundRowRE.FindAllStringSubmatch(admin.get(payPath).body, -1) {
		if m[1] != first && m[1] != second {
			mine = m[1]
		}
	}
	p = admin.get("/dashboard/refunds/" + mine + "?lang=en")
	wantIn(t, "the asker's own refund", p, 200, `id="two-person"`)
	wantIn(t, "the asker approves", admin.post("/dashboard/refunds/"+mine+"/approve?lang=en", actionForm(t, p)), 409, "someone other than who asked for it")
	p = owner.get("/dashboard/refunds/" + mine + "?lang=en")
	wantIn(t, "a second approver", owner.post("/dashboard/refunds/"+mine+"/approve?lang=en", actionForm(t, p)), 200, "Approved")

	// The queue lists every refund; a status filter keeps one status.
	wantIn(t, "the queue", viewer.get("/dashboard/refunds?lang=en"), 200, first, second, mine)
	p = viewer.get("/dashboard/refunds?lang=en&status=CANCELLED")
	if !strings.Contains(p.body, second) || strings.Contains(p.body, "refunds-table-"+first) || strings.Contains(p.body, `id="refund-policy-form"`) {
		t.Errorf("the cancelled filter, as a viewer:\n%.3000s", p.body)
	}
	if p := viewer.get("/dashboard/refunds?status=PENDING_CLAIM"); p.status != 400 {
		t.Errorf("an internal status as a filter: %d", p.status)
	}

	// What each page costs (the request log's DynamoDB count), stated in docs/dashboard.md.
	for _, c := range []struct {
		name, path string
		max        int
	}{
		{"payment page with 3 refunds", payPath, 9},
		{"refunds queue", "/dashboard/refunds", 8},
		{"refunds filtered", "/dashboard/refunds?status=APPROVED", 7},
		{"refund page", "/dashboard/refunds/" + first, 8},
	} {
		p := owner.get(c.path)
		n := s.ddb(t, p)
		t.Logf("%s: %d DynamoDB requests", c.name, n)
		if p.status != 200 || n > c.max {
			t.Errorf("%s: %d, %d DynamoDB requests (at most %d)", c.name, p.status, n, c.max)
		}
	}

	// Another workspace sees none of it.
	ctx := t.Context()
	other, err := a.Operator(t).CreateWorkspace(ctx, "", "Other Refunds Ltd")
	if err != nil {
		t.Fatal(err)
	}
	stranger := s.memberIn(t, other.ID, "owner@other-refunds.example.com.bd", auth.RoleOwner)
	if p := stranger.get("/dashboard/refunds/" + first); p.status != 404 {
		t.Errorf("another workspace's refund: %d", p.status)
	}
	sp := stranger.get("/dashboard/refunds")
	if strings.Contains(sp.body, first) {
		t.Error("another workspace lists this workspace's refunds")
	}
	if p := stranger.post("/dashboard/refunds/"+mine+"/cancel", url.Values{"csrf": {csrf(t, sp)}, "expected_version": {"2"}}); p.status != 404 {
		t.Errorf("cancelling another workspace's refund: %d", p.status)
	}
	if p := stranger.post(payPath+"/refunds", url.Values{"csrf": {csrf(t, sp)}, "idem": {refundIdemRE.FindStringSubmatch(dev.get(payPath).body)[1]},
		"amount": {"1"}, "reason": {"duplicate"}}); p.status != 404 {
		t.Errorf("refunding another workspace's payment: %d", p.status)
	}

	// Every action is in the activity log, in both languages' words.
	act := owner.get("/dashboard/activity?lang=en")
	for _, w := range []string{"Refund asked for", "Refund put in review", "Refund approved", "Refund reported returned", "Refund cancelled", "Two-person refund amount changed"} {
		if !strings.Contains(act.body, w) {
			t.Errorf("the activity log has no %q", w)
		}
	}
	if n := strings.Count(act.body, "Refund asked for"); n != 3 {
		t.Errorf("%d refunds asked for in the log, want 3 (a double submit records once)", n)
	}
	if act := owner.get("/dashboard/activity?lang=bn"); !strings.Contains(act.body, "রিফান্ড অনুমোদিত") {
		t.Error("the Bangla activity log has no refund words")
	}
	_ = loc

	// The refunds CSV: every refund asked for today, reasons in both languages, formula-safe.
	today := time.Now().In(export.Dhaka).Format(export.DayLayout)
	csvPage := viewer.get("/dashboard/export.csv?what=refunds&from=" + today + "&to=" + today)
	if csvPage.status != 200 || !strings.Contains(csvPage.header.Get("Content-Disposition"), "takapay-refunds-sandbox-") {
		t.Fatalf("refunds CSV: %d %v\n%.2000s", csvPage.status, csvPage.header, csvPage.body)
	}
	recs, err := csv.NewReader(strings.NewReader(string(export.TrimBOM([]byte(csvPage.body))))).ReadAll()
	if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != strings.Join(export.RefundHeader, ",") {
		t.Fatalf("refunds CSV records (%v): %q", err, recs)
	}
	if !strings.Contains(csvPage.body, "Paid twice") || !strings.Contains(csvPage.body, "দুবার পরিশোধ") || !strings.Contains(csvPage.body, "BKA9X7Y6Z5") {
		t.Errorf("refunds CSV:\n%s", csvPage.body)
	}
	if p := viewer.get("/dashboard/export.csv?what=secrets&from=" + today + "&to=" + today); p.status != 422 {
		t.Errorf("an export of something else: %d", p.status)
	}
	if act := owner.get("/dashboard/activity?lang=en"); !strings.Contains(act.body, "sandbox refunds "+today) {
		t.Error("the refunds export is not in the activity log")
	}
}

// jsonField is a string member of a JSON object.
func jsonField(t *testing.T, body []byte, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	v, _ := m[name].(string)
	return v
}
