package dashboard_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/payment"
)

// The overview's figures and the export over the local gateway on dynalite: payments seeded
// in the store (completed, pending, linked to an invoice, with a failing delivery) in two
// environments of the seeded workspace and in another workspace, the functions' clock fixed.

type seededPayment struct {
	id         string
	ws         string
	env        auth.Environment
	status     payment.Status
	amount     money.Paisa
	created    time.Time
	finished   time.Time
	reference  string
	source     payment.Source
	outbox     *payment.Delivery
	lockRoute  string
	wantExport bool
}

func seedPayment(t *testing.T, a *localapi.TestAPI, s seededPayment) {
	t.Helper()
	p := &payment.Payment{InvoiceID: s.id, WorkspaceID: s.ws, Environment: s.env, Status: s.status, AmountMinor: s.amount,
		Currency: "BDT", Reference: s.reference, CheckoutHash: []byte{1}, RequestHash: "00", CreatedAt: s.created,
		UpdatedAt: s.created, ExpiresAt: s.created.Add(12 * time.Hour), Source: s.source, Outbox: s.outbox, LockRoute: s.lockRoute}
	if !s.finished.IsZero() {
		f := s.finished
		p.FinishedAt, p.LockedAt = &f, &f
	}
	if _, err := a.Store.CreatePayment(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// sessionClient sends requests with a session cookie and no automatic gzip.
type sessionClient struct {
	t      *testing.T
	a      *localapi.TestAPI
	cookie string
	c      *http.Client
}

func (c *sessionClient) get(path string, headers ...string) (*http.Response, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.a.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: "takapay_session", Value: c.cookie})
	req.Header.Set("Accept", "text/html")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.c.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// requests is the DynamoDB requests of a response, from its log line.
func (c *sessionClient) requests(res *http.Response) int {
	c.t.Helper()
	return apitest.DDBRequests(c.t, c.a, &localapi.Result{Header: res.Header})
}

// seededID is a seeded payment's id.
func seededID(n string) string { return "0195f3a4-5555-7000-8000-0000000000" + n }

// overviewPayments are the payments the overview and export tests seed in the workspace ws
// (and in another one), around now.
func overviewPayments(ws string, now time.Time) []seededPayment {
	other := "0195f3a4-0000-7000-8000-0000000000ff"
	today := export.DayStart(now)
	weekStart := today.AddDate(0, 0, -6)
	return []seededPayment{
		// Today: completed, its delivery failing (gave up after 12 attempts, last answer 500).
		{id: seededID("01"), ws: ws, env: auth.Sandbox, status: payment.Completed, amount: 15050, created: today.Add(time.Hour),
			finished: today.Add(time.Hour + time.Minute), reference: "অর্ডার ১, শাড়ি", lockRoute: "bkash", wantExport: true,
			outbox: &payment.Delivery{EventID: "evt_1", Kind: "payment.completed", Status: payment.DeliveryFailed, Attempts: 12,
				LastHTTPStatus: 500, CreatedAt: today.Add(time.Hour), NextAttemptAt: today.Add(time.Hour)}},
		// Today: an invoice's intent, completed; its reference would be a formula.
		{id: seededID("02"), ws: ws, env: auth.Sandbox, status: payment.Completed, amount: 20000, created: today.Add(2 * time.Hour),
			finished: today.Add(2*time.Hour + time.Minute), reference: `=HYPERLINK("http://evil.example")`, wantExport: true,
			source: payment.Source{Kind: payment.SourceInvoice, DocumentID: "0195f3a4-6666-7000-8000-000000000001", DocumentVersion: 1}},
		// Created yesterday, completed today (counts today: the completion's day).
		{id: seededID("03"), ws: ws, env: auth.Sandbox, status: payment.Completed, amount: 100, created: today.Add(-time.Hour),
			finished: today.Add(time.Minute), reference: "late", wantExport: true},
		// Two days ago.
		{id: seededID("04"), ws: ws, env: auth.Sandbox, status: payment.Completed, amount: 100000, created: today.AddDate(0, 0, -2),
			finished: today.AddDate(0, 0, -2).Add(time.Minute), reference: "line one\nline two", wantExport: true},
		// Pending today: not completed.
		{id: seededID("05"), ws: ws, env: auth.Sandbox, status: payment.Pending, amount: 5000, created: today.Add(3 * time.Hour),
			reference: "waiting", wantExport: true},
		// Completed just before the 7 days began: outside the figures and the export's range.
		{id: seededID("06"), ws: ws, env: auth.Sandbox, status: payment.Completed, amount: 99900, created: weekStart.Add(-2 * time.Hour),
			finished: weekStart.Add(-time.Hour), reference: "old"},
		// Live, and another workspace: never in the sandbox's figures or export.
		{id: seededID("07"), ws: ws, env: auth.Live, status: payment.Completed, amount: 777700, created: today.Add(time.Hour),
			finished: today.Add(time.Hour + time.Minute), reference: "live one"},
		{id: seededID("08"), ws: other, env: auth.Sandbox, status: payment.Completed, amount: 333300, created: today.Add(time.Hour),
			finished: today.Add(time.Hour + time.Minute), reference: "not yours"},
	}
}

func TestOverviewAndExportOverTheGateway(t *testing.T) {
	devstack.RequireServers(t)
	// 15:00 in Dhaka: the Dhaka day began 15 hours ago.
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	a := localapi.StartTestAPI(t, localapi.Options{Now: func() time.Time { return now }})
	ws := a.Creds.WorkspaceID
	today := export.DayStart(now)
	pays := overviewPayments(ws, now)
	for _, p := range pays {
		seedPayment(t, a, p)
	}
	owner := &sessionClient{t: t, a: a, cookie: a.Creds.SessionToken, c: &http.Client{Timeout: 30 * time.Second,
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}

	// The overview in the sandbox: today 3 (৳351.50), 7 days 4 (৳1,351.50).
	res, body := owner.get("/dashboard")
	page := string(body)
	if res.StatusCode != 200 {
		t.Fatalf("overview: %d\n%.3000s", res.StatusCode, page)
	}
	section := func(page, id string) string {
		i := strings.Index(page, `id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no #%s in\n%.4000s", id, page)
		}
		j := strings.Index(page[i:], "</section>")
		if j < 0 {
			j = strings.Index(page[i:], "</table>")
		}
		if j < 0 {
			j = len(page) - i
		}
		return page[i : i+j]
	}
	for _, c := range []struct{ id, count, amount string }{{"stats-today", ">3<", "৳351.50"}, {"stats-week", ">4<", "৳1,351.50"}} {
		s := section(page, c.id)
		if !strings.Contains(s, c.count) || !strings.Contains(s, c.amount) {
			t.Errorf("#%s: want %s and %s in %s", c.id, c.count, c.amount, s)
		}
	}
	latest := section(page, "latest-payments")
	for _, p := range pays {
		in := strings.Contains(latest, `href="/dashboard/payments/`+p.id+`"`)
		if want := p.ws == ws && p.env == auth.Sandbox; in != want {
			t.Errorf("latest payments: %s (%s %s) shown %v", p.id, p.ws, p.env, in)
		}
	}
	failing := section(page, "failing-deliveries")
	if !strings.Contains(failing, seededID("01")) || !strings.Contains(failing, "500") || strings.Contains(failing, seededID("02")) {
		t.Errorf("failing deliveries: %s", failing)
	}
	if !strings.Contains(section(page, "env-switch"), `href="/dashboard?env=live"`) {
		t.Errorf("no link to live in the switch")
	}
	// Requests: the session, user, memberships and workspace names (4), then the payments
	// newest first down to 24 h before the 7 days (a Query and a BatchGetItem: 6 payments),
	// then, fewer than 10 found, the older ones (a Query that finds none).
	if n := owner.requests(res); n != 4+3 {
		t.Errorf("overview: %d DynamoDB requests, want 7", n)
	}

	// Live: the live payment only, the environment kept in the page's links.
	res, body = owner.get("/dashboard?env=live")
	page = string(body)
	if s := section(page, "stats-today"); !strings.Contains(s, ">1<") || !strings.Contains(s, "৳7,777.00") {
		t.Errorf("live today: %s", s)
	}
	if l := section(page, "latest-payments"); !strings.Contains(l, seededID("07")) || strings.Contains(l, seededID("01")) {
		t.Errorf("live latest: %s", l)
	}
	if !strings.Contains(page, `href="/dashboard/payments/`+seededID("07")+`?env=live"`) || !strings.Contains(page, `href="/dashboard/export?env=live"`) {
		t.Errorf("live links lose env=live")
	}

	// Bangla: Bangla digits and words.
	_, body = owner.get("/dashboard?lang=bn")
	if s := section(string(body), "stats-week"); !strings.Contains(s, "৳১,৩৫১.৫০") || !strings.Contains(string(body), "সম্পন্ন পেমেন্ট") {
		t.Errorf("Bangla overview: %s", s)
	}

	// The export form, both languages.
	for _, lang := range []string{"en", "bn"} {
		res, body = owner.get("/dashboard/export?lang=" + lang)
		p := string(body)
		for _, want := range []string{`id="export-form"`, `id="export-from"`, `id="export-to"`, `id="export-submit"`,
			`action="/dashboard/export.csv"`, `value="` + now.In(export.Dhaka).Format("2006-01-02") + `"`} {
			if !strings.Contains(p, want) {
				t.Errorf("export page (%s) lacks %s", lang, want)
			}
		}
		if lang == "bn" && !strings.Contains(p, "CSV ডাউনলোড") {
			t.Errorf("Bangla export page")
		}
	}

	// The CSV of the last three days (Dhaka): exactly the sandbox's payments created then.
	from, to := today.AddDate(0, 0, -3).Format("2006-01-02"), today.Format("2006-01-02")
	res, body = owner.get("/dashboard/export.csv?from=" + from + "&to=" + to)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != export.ContentType || res.Header.Get("Content-Encoding") != "" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="takapay-payments-sandbox-`+from+`-to-`+to+`.csv"` {
		t.Fatalf("export: %d %v\n%.2000s", res.StatusCode, res.Header, body)
	}
	if n := owner.requests(res); n != 4+2+1 {
		t.Errorf("export: %d DynamoDB requests, want 7 (session 4, a Query, a BatchGetItem, the activity record)", n)
	}
	plain := body
	if !bytes.HasPrefix(plain, []byte(export.BOM)) {
		t.Fatal("no BOM")
	}
	recs, err := csv.NewReader(bytes.NewReader(export.TrimBOM(plain))).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, plain)
	}
	var got, want []string
	refs := map[string]string{}
	for _, r := range recs[1:] {
		got = append(got, r[0])
		refs[r[0]] = r[11]
	}
	for _, p := range pays {
		if p.wantExport {
			want = append(want, p.id)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, []string{seededID("04"), seededID("03"), seededID("01"), seededID("02"), seededID("05")}) {
		t.Errorf("export rows (oldest first) %v, want the set %v", got, want)
	}
	if refs[seededID("01")] != "অর্ডার ১, শাড়ি" || refs[seededID("02")] != `'=HYPERLINK("http://evil.example")` || refs[seededID("04")] != "line one\nline two" {
		t.Errorf("references: %q", refs)
	}
	for _, raw := range []string{`"অর্ডার ১, শাড়ি"`, `"'=HYPERLINK(""http://evil.example"")"`, "\"line one\r\nline two\""} {
		if !bytes.Contains(plain, []byte(raw)) {
			t.Errorf("CSV lacks %q (RFC 4180 quoting)", raw)
		}
	}

	// gzip when accepted: the same file.
	res, body = owner.get("/dashboard/export.csv?from="+from+"&to="+to, "Accept-Encoding", "gzip, deflate")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip export: %v", res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain) {
		t.Errorf("gunzipped export differs:\n%s\n---\n%s", unzipped, plain)
	}

	// Live: its one payment.
	_, body = owner.get("/dashboard/export.csv?env=live&from=" + from + "&to=" + to)
	if !bytes.Contains(body, []byte(seededID("07"))) || bytes.Contains(body, []byte(seededID("01"))) || bytes.Count(body, []byte("\r\n")) != 2 {
		t.Errorf("live export:\n%s", body)
	}

	// Bad ranges: 422 with the problem next to its field.
	for q, field := range map[string]string{"from=2026-13-01&to=" + to: "export-from", "from=" + to + "&to=" + from: "export-to",
		"from=" + from + "&to=2099-01-01": "export-to"} {
		res, body = owner.get("/dashboard/export.csv?" + q)
		if res.StatusCode != 422 || !strings.Contains(string(body), `id="`+field+`-error"`) ||
			!strings.Contains(string(body), `aria-describedby="`+field+`-error export-hint"`) {
			t.Errorf("export?%s: %d, no error at #%s", q, res.StatusCode, field)
		}
	}

	// A viewer may export too (read-only: it changes nothing); the export is in the activity log.
	op := a.Operator(t)
	ctx := context.Background()
	u, err := op.CreateUser(ctx, "viewer@shop.example.com.bd")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Grant(ctx, u.ID, ws, auth.RoleViewer); err != nil {
		t.Fatal(err)
	}
	sess, err := op.CreateSession(ctx, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	viewer := &sessionClient{t: t, a: a, cookie: sess.Token, c: owner.c}
	if res, body := viewer.get("/dashboard/export.csv?from=" + from + "&to=" + to); res.StatusCode != 200 || !bytes.Equal(body, plain) ||
		bytes.Contains(body, []byte("payment_url")) || bytes.Contains(body, []byte("/checkout/")) {
		t.Errorf("viewer's export: %d, or it carries a payer's checkout link", res.StatusCode)
	}
	if res, body := viewer.get("/dashboard"); res.StatusCode != 200 || !strings.Contains(string(body), `id="stats-today"`) {
		t.Errorf("viewer's overview: %d", res.StatusCode)
	}
	res, body = owner.get("/dashboard/activity")
	if act := string(body); strings.Count(act, "Payments exported") < 3 || !strings.Contains(act, "viewer@shop.example.com.bd") {
		t.Errorf("activity: %d\n%.3000s", res.StatusCode, act)
	}
	// Without a session: to sign in.
	anon := &sessionClient{t: t, a: a, c: owner.c}
	if res, _ := anon.get("/dashboard/export.csv?from=" + from + "&to=" + to); res.StatusCode != 303 {
		t.Errorf("export without a session: %d", res.StatusCode)
	}
}
