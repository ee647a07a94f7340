package dashboard

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// The payments, webhooks and customers pages' golden files hold each page's <main> in both
// languages (testdata/golden/money/*.html, a folder of their own, since each page family's
// golden test checks that every file of its folder is one of its cases; go test -run
// TestGoldenMoney -update rewrites them). The page's shell around main (head, top bar, navigation, footer) is render.go's and
// is not part of these files.
var moneyGolden = pagetest.Golden{Dir: filepath.Join("testdata", "golden", "money")}

// moneyAt is the pages' fixed "now": 28 November 2026, 10:30 in Dhaka.
var moneyAt = time.Date(2026, 11, 28, 4, 30, 0, 0, time.UTC)

const (
	payID    = "8e60c1d2-4b7a-4f0e-9a51-2c3d4e5f6a7b"
	longRef  = "order-very-long-reference-without-spaces-0123456789-abcdefghijklmnop"
	custID   = "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b"
	invoice1 = "11111111-2222-4333-8444-555555555555"
)

func init() { UseMessages(PaymentsMessages(), WebhooksMessages(), CustomersMessages()) }

// moneyReq is a GET of path by the seeded owner (role) in language l, with query.
func moneyReq(l page.Lang, role auth.Role, path string, query map[string]string) *req {
	q := map[string]string{page.QueryParam: string(l)}
	for k, v := range query {
		q[k] = v
	}
	return &req{
		Request: &web.Request{Method: "GET", Path: path, Query: q, PathParams: map[string]string{}},
		lang:    page.Choice{Lang: l, Explicit: true},
		viewer: &viewer{user: SessionUser{UserID: "u-1", Email: "owner@shop.example.com.bd"},
			ws: Membership{WorkspaceID: "ws-1", WorkspaceName: "Rahim Store", Role: role}, csrf: "csrf-token-1"},
	}
}

// mainOfPage is the page's <main> element.
func mainOfPage(t *testing.T, res *web.Response) string {
	t.Helper()
	body := string(res.Raw)
	i, j := strings.Index(body, "<main"), strings.Index(body, "</main>")
	if i < 0 || j < i {
		t.Fatalf("no <main> in\n%s", body)
	}
	return body[i:j+len("</main>")] + "\n"
}

func moneyIntent(id, ref string, st payment.Status, amount money.Paisa, kind payment.SourceKind, ago time.Duration) *intent.Intent {
	at := moneyAt.Add(-ago)
	return &intent.Intent{ID: id, Status: st, AmountMinor: amount, Reference: ref, CreatedAt: at, UpdatedAt: at,
		ExpiresAt: at.Add(30 * time.Minute), Source: payment.Source{Kind: kind}, History: []intent.HistoryEntry{{Status: payment.Pending, OccurredAt: at}}}
}

// moneyList is a page of payments, one of each status, and a next page.
func moneyList() *intent.ListResult {
	next := payID
	return &intent.ListResult{NextCursor: &next, Items: []*intent.Intent{
		moneyIntent("a0000000-0000-4000-8000-000000000001", longRef, payment.Completed, 15000000, payment.SourceStandalone, time.Minute),
		moneyIntent("a0000000-0000-4000-8000-000000000002", "শাড়ি-১", payment.Pending, 250000, payment.SourceInvoice, time.Hour),
		moneyIntent("a0000000-0000-4000-8000-000000000003", "order-3", payment.Failed, 9999, payment.SourcePaymentLinks, 26*time.Hour),
		moneyIntent("a0000000-0000-4000-8000-000000000004", "order-4", payment.Cancelled, 100, payment.SourceStandalone, 50*time.Hour),
		moneyIntent("a0000000-0000-4000-8000-000000000005", "order-5", payment.Expired, 123456789, payment.SourceStandalone, 800*time.Hour),
	}}
}

// paidIntent is a completed payment paid with bKash, its webhook delivered after a 503.
func paidIntent() *intent.Intent {
	it := moneyIntent(payID, "order-hook", payment.Completed, 150050, payment.SourceInvoice, time.Hour)
	it.Source.DocumentID = invoice1
	it.Lock = &intent.Lock{Route: "bkash", PayerMasked: "017•••••678", At: it.CreatedAt.Add(2 * time.Minute)}
	it.History = append(it.History, intent.HistoryEntry{Status: payment.Completed, OccurredAt: it.CreatedAt.Add(3 * time.Minute)})
	verified := it.CreatedAt.Add(4 * time.Minute)
	it.FirstVerifiedAt = &verified
	it.Delivery = &payment.Delivery{EventID: "e0000000-0000-4000-8000-00000000000e", Kind: "payment.completed", Status: payment.DeliveryDelivered,
		Attempts: 2, AttemptLog: []payment.Attempt{
			{At: it.CreatedAt.Add(3 * time.Minute), HTTPStatus: 503, DurationMS: 1200, Error: "HTTP 503"},
			{At: it.CreatedAt.Add(5 * time.Minute), HTTPStatus: 204, DurationMS: 85},
		}}
	return it
}

// fakeKeys and fakeWebhooks answer the webhooks page's two reads.
type fakeKeys struct {
	Keys
	secrets []WebhookSecret
}

func (k fakeKeys) ListWebhookSecrets(context.Context, string, auth.Environment) ([]WebhookSecret, error) {
	return k.secrets, nil
}

type fakeWebhooks struct {
	Webhooks
	deliveries []WebhookDelivery
}

func (w fakeWebhooks) RecentDeliveries(context.Context, string, auth.Environment) ([]WebhookDelivery, error) {
	return w.deliveries, nil
}

func moneyDeliveries() []WebhookDelivery {
	return []WebhookDelivery{
		{InvoiceID: "a0000000-0000-4000-8000-000000000003", EventID: "e1", Kind: "payment.failed", Status: "failed", Attempts: 10, LastHTTPStatus: 500, At: moneyAt.Add(-time.Hour)},
		{InvoiceID: "a0000000-0000-4000-8000-000000000002", EventID: "e2", Kind: "payment.completed", Status: "retrying", Attempts: 1, At: moneyAt.Add(-2 * time.Hour)},
		{InvoiceID: "a0000000-0000-4000-8000-000000000004", EventID: "e3", Kind: "payment.cancelled", Status: "pending", At: moneyAt.Add(-3 * time.Hour)},
		{InvoiceID: payID, EventID: "e4", Kind: "payment.completed", Status: "delivered", Attempts: 2, LastHTTPStatus: 204, At: moneyAt.Add(-4 * time.Hour)},
		{InvoiceID: payID, RefundID: "b0000000-0000-7000-8000-000000000001", EventID: "e5", Kind: "refund.approved", Status: "delivered", Attempts: 1, LastHTTPStatus: 200, At: moneyAt.Add(-5 * time.Hour)},
	}
}

func moneyCustomer(id, ref string, body string, ago time.Duration) *document.Record {
	at := moneyAt.Add(-ago)
	return &document.Record{ID: id, Kind: document.Customers, Reference: ref, Version: 2, Body: json.RawMessage(body), CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
}

func moneyCustomers() []*document.Record {
	return []*document.Record{
		moneyCustomer(custID, "C-100", `{"reference":"C-100","name":"Rahim <Store>","email":"accounts.department.rahim.general.store@shop.example.com.bd","phone":"01712345678"}`, time.Hour),
		moneyCustomer("0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2c", "C-101", `{"reference":"C-101","name":"করিম ট্রেডার্স"}`, 30*time.Hour),
	}
}

// moneyPages renders every golden case in both languages.
func moneyPages(t *testing.T) map[string]string {
	t.Helper()
	s := &Service{Now: func() time.Time { return moneyAt },
		Keys:     fakeKeys{secrets: []WebhookSecret{{ID: "whs_0123456789abcdef0123456789abcdef", CreatedAt: moneyAt.Add(-48 * time.Hour), Current: true}}},
		Webhooks: fakeWebhooks{deliveries: moneyDeliveries()}}
	ps := &Payments{Service: s}
	pages := map[string]string{}
	for _, l := range []page.Lang{page.EN, page.BN} {
		add := func(name string, res *web.Response) { pages[name+"-"+string(l)] = mainOfPage(t, res) }
		add("payments-list", ps.paymentsPage(moneyReq(l, auth.RoleOwner, "/dashboard/payments", nil), 200, &form{values: map[string]string{}}, moneyList()))
		f := &form{values: map[string]string{"status": "FAILED"}}
		add("payments-empty", ps.paymentsPage(moneyReq(l, auth.RoleOwner, "/dashboard/payments", map[string]string{"status": "FAILED"}), 200, f, &intent.ListResult{}))
		r := moneyReq(l, auth.RoleOwner, "/dashboard/payments", map[string]string{"from": "2026-02-31", "status": "PAID"})
		f = &form{values: map[string]string{"from": "2026-02-31", "status": "PAID"}}
		listFilters(r, f)
		add("payments-invalid", ps.paymentsPage(r, 422, f, nil))
		add("payment-completed", ps.detailPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/payments/"+payID, map[string]string{"notice": "resent"}), 200, paidIntent(), nil))
		pending := moneyIntent(payID, "order-pending", payment.Pending, 9999, payment.SourceStandalone, time.Minute)
		add("payment-pending", ps.detailPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/payments/"+payID, nil), 200, pending, nil))
		wr := moneyReq(l, auth.RoleOwner, "/dashboard/webhooks", nil)
		res, err := s.webhooksPage(context.Background(), wr, 200, &form{values: map[string]string{"url": "https://shop.example.com.bd/hooks"}},
			&TestEvent{EventID: "e0000000-0000-4000-8000-00000000000f", Host: "shop.example.com.bd", Signatures: 1, HTTPStatus: 204, Duration: 85 * time.Millisecond}, "")
		if err != nil {
			t.Fatal(err)
		}
		add("deliveries", res)
		s.Webhooks = fakeWebhooks{}
		res, err = s.webhooksPage(context.Background(), moneyReq(l, auth.RoleViewer, "/dashboard/webhooks", nil), 200, nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		s.Webhooks = fakeWebhooks{deliveries: moneyDeliveries()}
		add("deliveries-none-viewer", res)
		next := "c2"
		add("customers-list", s.customersPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/customers", nil), 200, &form{values: map[string]string{}},
			&document.ListResult{Items: moneyCustomers(), NextCursor: &next}, map[string]string{}))
		add("customers-empty", s.customersPage(moneyReq(l, auth.RoleViewer, "/dashboard/customers", map[string]string{"q": "nobody"}), 200,
			&form{values: map[string]string{"q": "nobody"}}, &document.ListResult{}, map[string]string{"q": "nobody"}))
		total := int64(250100)
		inv := &document.Record{ID: invoice1, Kind: document.Invoices, Reference: "INV-1", Status: "issued", AmountMinor: &total, PaidMinor: 100000, CreatedAt: moneyAt}
		c := moneyCustomer(custID, "C-100", `{"reference":"C-100","name":"Rahim","notes":"line one\nline two","max_uses":5}`, time.Hour)
		add("customer", s.customerPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/customers/"+custID, map[string]string{"notice": "saved"}),
			&document.ListResult{Items: []*document.Record{c}, Activity: map[string]any{"invoices": []*document.Record{inv}}}))
		cf := &custForm{form: &form{values: map[string]string{"email": "not-an-email", "notes": "a\nb"}}, idem: "idem-1"}
		cf.fail("reference", t2(string(l), "dash.customers.rule.required", "field", t2(string(l), "dash.customers.field.reference")))
		add("customer-new-invalid", s.custFormPage(moneyReq(l, auth.RoleDeveloper, "/dashboard/customers/new", nil), 422, cf))
	}
	return pages
}

func TestGoldenMoney(t *testing.T) {
	moneyGolden.CheckAll(t, moneyPages(t))
}

var (
	headRE = regexp.MustCompile(`<th scope="col"[^>]*>([^<]*)</th>`)
	pillRE = regexp.MustCompile(`<span class="pill pill-([a-z]+)" data-status="([A-Z_]+)">([^<]+)</span>`)
)

// tableOf is the table with id in page.
func tableOf(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<table class="cards" id="`+id+`">`)
	if i < 0 {
		t.Fatalf("no table %s in\n%s", id, page)
	}
	return page[i : i+strings.Index(page[i:], "</table>")]
}

// A list leads with what a shop owner reads first, ids last, on a phone and on a desktop
// alike (the columns' order is the cards' order).
func TestMoneyListsLeadWithReferenceAmountStatusDate(t *testing.T) {
	pages := moneyPages(t)
	for _, c := range []struct{ page, table, want string }{
		{"payments-list-en", "payments-table", "Reference|Amount|Status|Created|Source|Payment id"},
		{"payments-list-bn", "payments-table", "রেফারেন্স|পরিমাণ|অবস্থা|তৈরি|উৎস|পেমেন্ট আইডি"},
		{"customer-en", "customer-invoices", "Invoice|Total|Status|Created|Paid"},
		{"customers-list-en", "customers-table", "Reference|Name|Email|Phone|Created"},
		{"deliveries-en", "recent-deliveries", "Event|Status|Time|Attempts|Last HTTP code|Payment"},
	} {
		table := tableOf(t, pages[c.page], c.table)
		var got []string
		for _, m := range headRE.FindAllStringSubmatch(table, -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s #%s columns: %v, want %s", c.page, c.table, got, c.want)
		}
		// Every cell names its column on a phone (the card's label).
		if n, m := strings.Count(table, "<td "), strings.Count(table, `<td data-label="`)+strings.Count(table, `<td class="num" data-label="`); n != m || n == 0 {
			t.Errorf("%s: %d cells, %d labelled", c.page, n, m)
		}
	}
	// The payments' first row: reference, amount as the language writes it, status, date,
	// source, id last.
	table := tableOf(t, pages["payments-list-en"], "payments-table")
	row := table[strings.Index(table, `<tr id="payment-a0000000-0000-4000-8000-000000000001">`):]
	row = row[:strings.Index(row, "</tr>")]
	order := []string{longRef, `<span class="money">`, `data-status="COMPLETED"`, `<time datetime="2026-11-28T04:29:00Z">28 November 2026, 10:29</time>`,
		"Standalone", `<code class="long">a0000000-0000-4000-8000-000000000001</code>`}
	last := -1
	for _, w := range order {
		i := strings.Index(row, w)
		if i <= last {
			t.Fatalf("the first row lacks %q after the cells before it:\n%s", w, row)
		}
		last = i
	}
}

// Every payment status is a pill of its own colour and its own words, in both languages;
// deliveries and invoices too.
func TestMoneyStatusPills(t *testing.T) {
	pages := moneyPages(t)
	for _, l := range []string{"en", "bn"} {
		tones, words := map[string]string{}, map[string]string{}
		for _, m := range pillRE.FindAllStringSubmatch(tableOf(t, pages["payments-list-"+l], "payments-table"), -1) {
			tones[m[2]], words[m[2]] = m[1], m[3]
		}
		want := map[string]string{"COMPLETED": "good", "PENDING": "waiting", "FAILED": "bad", "CANCELLED": "off", "EXPIRED": "off"}
		seen := map[string]bool{}
		for st, tone := range want {
			if tones[st] != tone {
				t.Errorf("%s: %s is a %q pill, want %q", l, st, tones[st], tone)
			}
			if w := words[st]; w == "" || w != t2(l, "dash.pay.status."+st) || seen[w] {
				t.Errorf("%s: %s reads %q (the words of each status differ)", l, st, w)
			}
			seen[words[st]] = true
		}
		// Cancelled and expired share a colour: their words tell them apart.
		if words["CANCELLED"] == words["EXPIRED"] {
			t.Errorf("%s: cancelled and expired read alike", l)
		}
		for _, st := range []string{"FAILED", "RETRYING", "PENDING", "DELIVERED"} {
			if !strings.Contains(pages["deliveries-"+l], `data-status="`+st+`"`) {
				t.Errorf("%s: the deliveries have no %s pill", l, st)
			}
		}
	}
	if p := pages["payment-completed-en"]; !strings.Contains(p, `id="payment-status"><span class="pill pill-good" data-status="COMPLETED">Completed</span>`) {
		t.Errorf("the payment's status is no pill")
	}
}

func t2(l, key string, args ...string) string { return t(page.Lang(l), key, args...) }

// Amounts, dates, brands and forms as the page's language writes them: one date format on a
// page (no ISO date beside "28 November 2026"), the date filters' hint in words, bKash as
// bKash, "1 attempt", and novalidate on a Bangla page's forms (the browser's own messages are
// English).
func TestMoneyPagesWords(t *testing.T) {
	pages := moneyPages(t)
	iso := regexp.MustCompile(`>[^<]*\b20[0-9][0-9]-[01][0-9]-[0-3][0-9]\b[^<]*<`)
	for name, p := range pages {
		if m := iso.FindString(p); m != "" {
			t.Errorf("%s shows an ISO date: %s", name, m)
		}
		// A form with a field the browser would check (a one-button action form has none).
		for _, form := range strings.Split(p, "<form ")[1:] {
			form = form[:strings.Index(form, "</form>")]
			if !strings.Contains(form, `class="field"`) {
				continue
			}
			start := form[:strings.Index(form, ">")]
			if nov := strings.Contains(start, " novalidate"); nov != strings.HasSuffix(name, "-bn") {
				t.Errorf("%s: a form's novalidate is %v: <form %s>", name, nov, start)
			}
		}
	}
	for _, c := range []struct{ page, want string }{
		{"payment-completed-en", "Payer chose bKash (017•••••678)"},
		{"payment-completed-bn", "পরিশোধকারী bKash বেছে নিয়েছেন"},
		{"payment-completed-en", `<span class="money">৳1,500.50</span>`},
		{"payment-completed-bn", `<span class="money">৳১,৫০০.৫০</span>`},
		{"payment-completed-en", "payment.completed: delivered after 2 attempts."},
		{"deliveries-en", "signed with 1 secret. Event:"},
		{"payments-list-en", `type="date"`},
		{"payments-list-en", "Choose a day from the calendar."},
		{"payments-list-bn", "ক্যালেন্ডার থেকে একটি দিন বেছে নিন।"},
		{"payments-empty-en", `<details class="fold" id="payments-filters-fold" open>`},
		{"payments-invalid-bn", `<details class="fold" id="payments-filters-fold" open>`},
		{"payments-list-en", `<details class="fold" id="payments-filters-fold"><summary>`},
	} {
		if !strings.Contains(pages[c.page], c.want) {
			t.Errorf("%s lacks %s", c.page, c.want)
		}
	}
}
