package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// signIn signs the seeded owner (or anyone with the sandbox passphrase) in with a new browser.
func (s *stack) signIn(t *testing.T, email, password string) *browser {
	t.Helper()
	b := s.browser(t)
	p := b.get("/dashboard/sign-in")
	p = b.post("/dashboard/sign-in", url.Values{"csrf": {csrf(t, p)}, "email": {email}, "password": {password}})
	if p.status != 200 || !strings.HasSuffix(p.url, "/dashboard") {
		t.Fatalf("sign in %s: %d at %s", email, p.status, p.url)
	}
	return b
}

// ddb is the page request's DynamoDB request count, from its request log line.
func (s *stack) ddb(t *testing.T, p *page) int {
	t.Helper()
	line := s.api.Logs.Request(p.header.Get("X-Correlation-Id"))
	if line == nil {
		t.Fatalf("no log line for %s", p.url)
	}
	n, _ := line["ddb_requests"].(float64)
	return int(n)
}

// startPaymentsStack is startStack with webhook URLs on localhost allowed (the test receivers).
func startPaymentsStack(t *testing.T) *stack {
	t.Helper()
	devstack.RequireServers(t)
	ses := devstack.StartTestSES(t)
	api := localapi.StartTestAPI(t, localapi.Options{Localhost: true, AllowLocalhostURLs: true,
		Env: map[string]string{"SES_ENDPOINT": ses.Endpoint, "MAIL_FROM": "Takapay <no-reply@takapay.localhost>"}})
	return &stack{api: api, ses: ses}
}

// rowRE finds the list's rows: each row's id is "payment-" and the payment's id (the table
// leads with the reference, amount, status and date; the id is its last column).
var rowRE = regexp.MustCompile(`<tr id="payment-([0-9a-f-]{36})">`)

func TestPaymentsPages(t *testing.T) {
	s := startPaymentsStack(t)
	api := s.api
	ctx := context.Background()
	key := api.Creds.SandboxKey
	seq := 0
	create := func(body string) string {
		t.Helper()
		seq++
		res := api.Do(t, "POST", "/v1/payment-intents", key, body, "Idempotency-Key", fmt.Sprintf("dash-payments-%06d", seq))
		if res.Status != 201 {
			t.Fatalf("create %s: %d %s", body, res.Status, res.Body)
		}
		var it struct {
			ID         string `json:"id"`
			PaymentURL string `json:"payment_url"`
		}
		_ = json.Unmarshal(res.Body, &it)
		return it.ID + " " + it.PaymentURL
	}

	// A receiver that fails once, then takes the event.
	var calls atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	if _, err := api.Operator(t).IssueWebhookSecret(ctx, api.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	hooked := strings.Fields(create(`{"amount": 1500.50, "reference": "order-hook", "webhook_url": "` + rc.URL + `/hooks"}`))
	var ids []string // oldest first
	ids = append(ids, hooked[0])
	for i := range 27 {
		ids = append(ids, strings.Fields(create(fmt.Sprintf(`{"amount": %d, "reference": "order-%d"}`, 10+i, i)))[0])
	}
	pending := ids[len(ids)-1]

	// The payer pays the hooked one: locked, approved.
	u, _ := url.Parse(hooked[1])
	if res := api.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); res.Status != 200 {
		t.Fatalf("lock: %d %s", res.Status, res.Body)
	}
	if res := api.Do(t, "POST", u.Path+"/notices/approve", "", ""); res.Status != 200 {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	// The real sender, twice: 503, then 204; each attempt logged with the same write.
	p, err := api.Store.GetPayment(ctx, hooked[0])
	if err != nil || p.Outbox == nil {
		t.Fatalf("paid payment: %+v %v", p, err)
	}
	sender := registry.WebhookSender(api.Deps["WebhookSenderFunction"])
	for range 2 {
		sender.Deliver(ctx, webhook.Message{InvoiceID: hooked[0], EventID: p.Outbox.EventID})
	}
	p, _ = api.Store.GetPayment(ctx, hooked[0])
	if log := p.Outbox.AttemptLog; p.Outbox.Status != payment.DeliveryDelivered || len(log) != 2 || log[0].HTTPStatus != 503 ||
		log[1].HTTPStatus != 204 || log[0].At.IsZero() || log[1].DurationMS < 0 {
		t.Fatalf("attempt log after 503 then 204: %+v", p.Outbox)
	}

	c := api.Creds
	owner := s.signIn(t, c.DashboardEmail, c.DashboardPassword)

	// The list: newest first, 25 a page, then the rest; the page's DynamoDB requests are the
	// session's 4 (session, user, memberships Query, workspace names BatchGetItem) and the
	// list's 2 (GSI3 Query, BatchGetItem); with a cursor one GetItem more.
	list := owner.get("/dashboard/payments")
	rows := rowRE.FindAllStringSubmatch(list.body, -1)
	if list.status != 200 || !strings.Contains(list.body, `id="payments-table"`) || len(rows) != 25 || rows[0][1] != pending {
		t.Fatalf("list: %d, %d rows\n%.3000s", list.status, len(rows), list.body)
	}
	if n := s.ddb(t, list); n != 6 {
		t.Errorf("list page 1 made %d DynamoDB requests, want 6", n)
	}
	next := regexp.MustCompile(`id="payments-next" rel="next" href="([^"]+)"`).FindStringSubmatch(list.body)
	if next == nil {
		t.Fatal("no next page link")
	}
	list2 := owner.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	rows2 := rowRE.FindAllStringSubmatch(list2.body, -1)
	if len(rows2) != 3 || rows2[2][1] != hooked[0] || strings.Contains(list2.body, `id="payments-next"`) {
		t.Fatalf("list page 2: %d rows\n%.3000s", len(rows2), list2.body)
	}
	if n := s.ddb(t, list2); n != 7 {
		t.Errorf("list page 2 made %d DynamoDB requests, want 7", n)
	}

	// Filters: status, reference search, an id search (its page), a Dhaka-day range, source.
	only := func(q string, want ...string) {
		t.Helper()
		p := owner.get("/dashboard/payments?" + q)
		var got []string
		for _, m := range rowRE.FindAllStringSubmatch(p.body, -1) {
			got = append(got, m[1])
		}
		if p.status != 200 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %d %v, want %v", q, p.status, got, want)
		}
	}
	only("status=COMPLETED", hooked[0])
	only("q=order-3", ids[4])
	today := time.Now().In(time.FixedZone("Dhaka", 6*3600)).Format("2006-01-02")
	only("status=COMPLETED&from="+today+"&to="+today, hooked[0])
	only("status=COMPLETED&from=2020-01-01&to=2020-01-31")
	only("source=invoice")
	if p := owner.get("/dashboard/payments?q=" + hooked[0]); !strings.HasSuffix(strings.Split(p.url, "?")[0], "/dashboard/payments/"+hooked[0]) {
		t.Errorf("an id search lands on %s", p.url)
	}
	if p := owner.get("/dashboard/payments?from=yesterday&status=PAID"); p.status != 422 || !strings.Contains(p.body, `id="f-from-error"`) ||
		!strings.Contains(p.body, `id="f-status-error"`) {
		t.Errorf("bad filters: %d", p.status)
	}
	if p := owner.get("/dashboard/payments?cursor=nope"); p.status != 400 {
		t.Errorf("a bad cursor: %d", p.status)
	}

	// The paid payment's page: amount, status, reference, the timeline with the masked
	// payer, and the delivery's attempts; in Bangla too.
	detail := owner.get("/dashboard/payments/" + hooked[0])
	// The status is a pill (colour and words), the route as its brand writes it.
	for _, want := range []string{`id="payment-amount"><span class="money">৳1,500.50`,
		`id="payment-status"><span class="pill pill-good" data-status="COMPLETED">Completed`,
		`id="payment-reference">order-hook`, "Payer chose bKash (017•••••678)", `id="deliveries"`, `id="attempts-table"`,
		`data-label="HTTP status">503</td>`, `data-label="HTTP status">204</td>`, `id="resend"`} {
		if !strings.Contains(detail.body, want) {
			t.Errorf("payment page lacks %q", want)
		}
	}
	if strings.Contains(detail.body, "01712345678") || strings.Contains(detail.body, `id="cancel-payment"`) {
		t.Error("payment page shows the payer's number or a cancel button for a completed payment")
	}
	if n := s.ddb(t, detail); n != 6 {
		t.Errorf("payment page made %d DynamoDB requests, want 6 (session 4, the intent's Query, which carries the refund figures, and a COMPLETED payment's refund list: a GetItem of its ledger's ids)", n)
	}
	bn := owner.get("/dashboard/payments/" + hooked[0] + "?lang=bn")
	if bn.status != 200 || !strings.Contains(bn.body, "৳১,৫০০.৫০") || !strings.Contains(bn.body, "সম্পন্ন") || !strings.Contains(bn.body, "৫০৩") {
		t.Errorf("Bangla payment page: %d\n%.2000s", bn.status, bn.body)
	}
	if p := owner.get("/dashboard/payments?lang=bn"); p.status != 200 || !strings.Contains(p.body, "পেমেন্ট, নতুনগুলো আগে") {
		t.Errorf("Bangla list: %d", p.status)
	}

	// A viewer sees the payment and can change nothing: the server refuses.
	team := owner.get("/dashboard/team")
	if p := owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")}, "email": {"viewer@shop.example.com.bd"},
		"role": {"viewer"}}); !strings.Contains(p.url, "notice=invited") {
		t.Fatalf("invite: %d at %s", p.status, p.url)
	}
	invite, _ := s.mailLink(t, "viewer@shop.example.com.bd", "/dashboard/invite", 0)
	viewer := s.signUp(t, "viewer@shop.example.com.bd", "", invite)
	inv := viewer.get(invite)
	if p := viewer.post(actionRE.FindAllStringSubmatch(inv.body, -1)[1][1], url.Values{"csrf": {csrf(t, inv)}}); !strings.Contains(p.body, `id="role">Viewer`) {
		t.Fatalf("viewer joins: %d at %s", p.status, p.url)
	}
	vd := viewer.get("/dashboard/payments/" + hooked[0])
	if vd.status != 200 || strings.Contains(vd.body, `id="resend"`) || !strings.Contains(vd.body, `id="attempts-table"`) {
		t.Errorf("viewer's payment page: %d", vd.status)
	}
	// No page gives a viewer the payer's capability (issue 30 item 1): neither the paid one's
	// checkout token nor a pending one's checkout link.
	if strings.Contains(vd.body, u.Path) || strings.Contains(vd.body, "/v1/public/checkout/") {
		t.Errorf("viewer's payment page carries a checkout link:\n%.3000s", vd.body)
	}
	for _, path := range []string{"/dashboard/payments/" + pending, "/dashboard/payments", "/dashboard/payments?status=PENDING"} {
		if vp := viewer.get(path); vp.status != 200 || strings.Contains(vp.body, "/v1/public/checkout/") {
			t.Errorf("viewer's %s: %d, or it carries a checkout link", path, vp.status)
		}
	}
	vtok := csrf(t, vd)
	if p := viewer.post("/dashboard/payments/"+hooked[0]+"/resend", url.Values{"csrf": {vtok}, "event_id": {p.Outbox.EventID}}); p.status != 403 {
		t.Errorf("viewer resends: %d", p.status)
	}
	if p := viewer.post("/dashboard/payments/"+pending+"/cancel", url.Values{"csrf": {vtok}}); p.status != 403 {
		t.Errorf("viewer cancels: %d", p.status)
	}

	// Another workspace's owner: 404 for the page, the cancel and the resend.
	other := s.signUp(t, "other@elsewhere.example.com.bd", "Elsewhere", "")
	if p := other.get("/dashboard/payments/" + hooked[0]); p.status != 404 {
		t.Errorf("another workspace's payment page: %d", p.status)
	}
	otok := csrf(t, other.get("/dashboard"))
	if p := other.post("/dashboard/payments/"+pending+"/cancel", url.Values{"csrf": {otok}}); p.status != 404 {
		t.Errorf("another workspace cancels: %d", p.status)
	}
	if p := other.post("/dashboard/payments/"+hooked[0]+"/resend", url.Values{"csrf": {otok}, "event_id": {p.Outbox.EventID}}); p.status != 404 {
		t.Errorf("another workspace resends: %d", p.status)
	}

	// A developer (the least role that may) resends (webhook.Resend: pending, due now) and
	// cancels the pending one.
	team = owner.get("/dashboard/team")
	if p := owner.post("/dashboard/team/invites", url.Values{"csrf": {csrf(t, team)}, "once": {once(t, team, "/dashboard/team/invites")}, "email": {"dev@shop.example.com.bd"},
		"role": {"developer"}}); !strings.Contains(p.url, "notice=invited") {
		t.Fatalf("invite: %d at %s", p.status, p.url)
	}
	devInvite, _ := s.mailLink(t, "dev@shop.example.com.bd", "/dashboard/invite", 0)
	dev := s.signUp(t, "dev@shop.example.com.bd", "", devInvite)
	inv = dev.get(devInvite)
	if p := dev.post(actionRE.FindAllStringSubmatch(inv.body, -1)[1][1], url.Values{"csrf": {csrf(t, inv)}}); !strings.Contains(p.body, `id="role">Developer`) {
		t.Fatalf("developer joins: %d at %s", p.status, p.url)
	}
	detail = dev.get("/dashboard/payments/" + hooked[0])
	if !strings.Contains(detail.body, `id="resend"`) {
		t.Fatal("no resend button for a developer")
	}
	dtok := csrf(t, detail)
	if r := dev.post("/dashboard/payments/"+hooked[0]+"/resend", url.Values{"csrf": {dtok}, "event_id": {"00000000-0000-4000-8000-000000000000"}}); r.status != 409 {
		t.Errorf("resend of another event: %d", r.status)
	}
	if r := dev.post("/dashboard/payments/"+hooked[0]+"/resend", url.Values{"csrf": {dtok}, "event_id": {p.Outbox.EventID}}); r.status != 200 ||
		!strings.Contains(r.url, "notice=resent") {
		t.Fatalf("resend: %d at %s", r.status, r.url)
	}
	q, _ := api.Store.GetPayment(ctx, hooked[0])
	if q.Outbox.Status != payment.DeliveryPending || !strings.Contains(q.Outbox.Detail, "resent by the dashboard (dev@shop.example.com.bd)") || len(q.Outbox.AttemptLog) != 2 {
		t.Errorf("after resend: %+v", q.Outbox)
	}
	pd := dev.get("/dashboard/payments/" + pending)
	if !strings.Contains(pd.body, `id="cancel-payment"`) {
		t.Fatal("no cancel button on a pending sandbox payment")
	}
	if r := dev.post("/dashboard/payments/"+pending+"/cancel", url.Values{"csrf": {csrf(t, pd)}}); r.status != 200 ||
		!strings.Contains(r.body, `data-status="CANCELLED"`) || !strings.Contains(r.url, "notice=cancelled") {
		t.Fatalf("cancel: %d at %s", r.status, r.url)
	}

	// The contract's view of the same delivery: the API's intent get carries the attempt log
	// (the test API checks every answer against openapi.yaml).
	res := api.Do(t, "GET", "/v1/payment-intents/"+hooked[0], api.Creds.ReadonlyKey, "")
	var got struct {
		Delivery struct {
			AttemptLog []struct {
				HTTPStatus int `json:"http_status"`
			} `json:"attempt_log"`
		} `json:"delivery"`
	}
	if err := json.Unmarshal(res.Body, &got); err != nil || res.Status != 200 || len(got.Delivery.AttemptLog) != 2 ||
		got.Delivery.AttemptLog[1].HTTPStatus != 204 {
		t.Errorf("the API's delivery: %d %s", res.Status, res.Body)
	}

	// The item's size: with 2 logged attempts, with 10 (8 more answered 503 after 10 s), and
	// with 10 that got no answer, each with the longest error kept.
	sizes := []int{itemSize(t, api, hooked[0])}
	record := func(n int, code int, errText string) {
		for i := range n {
			q, _ := api.Store.GetPayment(ctx, hooked[0])
			log := q.Outbox.LogAttempt(payment.Attempt{At: time.Now(), HTTPStatus: code, DurationMS: 10000, Error: errText})
			if err := api.Store.RecordAttempt(ctx, hooked[0], q.Outbox.EventID, q.Outbox.Attempts+1, payment.DeliveryPending, code,
				"HTTP 503", log, false, time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatalf("attempt %d: %v", i, err)
			}
		}
	}
	record(8, 503, "")
	sizes = append(sizes, itemSize(t, api, hooked[0]))
	record(10, 0, strings.Repeat("dial tcp: lookup hooks.example.com.bd: no such host ", 2))
	sizes = append(sizes, itemSize(t, api, hooked[0]))
	q, _ = api.Store.GetPayment(ctx, hooked[0])
	if len(q.Outbox.AttemptLog) != payment.AttemptLogSize || len(q.Outbox.AttemptLog[9].Error) != payment.AttemptErrorMax {
		t.Errorf("attempt log: %d entries, last error %q", len(q.Outbox.AttemptLog), q.Outbox.AttemptLog[9].Error)
	}
	t.Logf("payment item (webhook_url, paid, resent): %d bytes with 2 logged attempts, %d with 10 answered, %d with 10 unanswered (longest errors)",
		sizes[0], sizes[1], sizes[2])
}

// itemSize is the payment item's size as DynamoDB counts it (apitest.ItemSize).
func itemSize(t *testing.T, api *localapi.TestAPI, id string) int {
	t.Helper()
	out, err := api.Store.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(api.Store.Table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}}})
	if err != nil {
		t.Fatal(err)
	}
	return apitest.ItemSize(out.Item)
}

// 10,000 payments over 10 Dhaka days: a day's page and a page deep into it by cursor cost the
// same requests as with 28 payments (the day is the index's key condition), and a status
// filter stays within its read budget.
func TestPaymentsListAt10000(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 payments")
	}
	s := startStack(t, nil)
	api := s.api
	ctx := context.Background()
	dhaka := time.FixedZone("Dhaka", 6*3600)
	day0 := time.Date(2026, 5, 1, 0, 0, 0, 0, dhaka)
	const n, days = 10000, 10
	seedStart := time.Now()
	ids := make(chan int)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			var err error
			for i := range ids {
				if err != nil {
					continue
				}
				at := day0.Add(time.Duration(i) * (days * 24 * time.Hour / n)).UTC()
				id, _ := payment.NewInvoiceID()
				st := payment.Pending
				if i%4 == 0 {
					st = payment.Completed
				}
				_, err = api.Store.CreatePayment(ctx, &payment.Payment{InvoiceID: id, WorkspaceID: api.Creds.WorkspaceID,
					Environment: auth.Sandbox, Status: st, AmountMinor: 1000, Currency: payment.Currency,
					Reference: fmt.Sprintf("bulk-%05d", i), CreatedAt: at, UpdatedAt: at, ExpiresAt: at.Add(30 * time.Minute),
					CheckoutHash: []byte("0123456789abcdef0123456789abcdef"), RequestHash: "00"})
			}
			errs <- err
		}()
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d payments in %s", n, time.Since(seedStart).Round(time.Millisecond))

	c := api.Creds
	owner := s.signIn(t, c.DashboardEmail, c.DashboardPassword)
	day := day0.AddDate(0, 0, 4).Format("2006-01-02") // 1,000 payments that day
	start := time.Now()
	p := owner.get("/dashboard/payments?from=" + day + "&to=" + day)
	first := time.Since(start)
	rows := rowRE.FindAllStringSubmatch(p.body, -1)
	if p.status != 200 || len(rows) != 25 || !strings.Contains(p.body, "bulk-04999") {
		t.Fatalf("day page: %d, %d rows", p.status, len(rows))
	}
	if got := s.ddb(t, p); got != 6 {
		t.Errorf("day page made %d DynamoDB requests, want 6", got)
	}
	var deep time.Duration
	for hop := range 10 {
		next := regexp.MustCompile(`id="payments-next" rel="next" href="([^"]+)"`).FindStringSubmatch(p.body)
		if next == nil {
			t.Fatalf("no next link after %d hops", hop)
		}
		start = time.Now()
		p = owner.get(strings.ReplaceAll(next[1], "&amp;", "&"))
		deep = time.Since(start)
		if got := s.ddb(t, p); got != 7 || len(rowRE.FindAllStringSubmatch(p.body, -1)) != 25 {
			t.Errorf("hop %d: %d requests, %d rows", hop, got, len(rowRE.FindAllStringSubmatch(p.body, -1)))
		}
	}
	if !strings.Contains(p.body, "bulk-04749") || !strings.Contains(p.body, "bulk-04725") { // page 11: 25 × 10 after the newest
		t.Errorf("page 11 of the day does not hold bulk-04749 to bulk-04725")
	}
	start = time.Now()
	p = owner.get("/dashboard/payments?status=COMPLETED&from=" + day + "&to=" + day)
	filtered := time.Since(start)
	// 1 in 4 is COMPLETED: the page's two rounds of 25 keys (its budget: what a page shows plus
	// one page) find about 12, and an "Older payments" link goes on.
	if got := s.ddb(t, p); p.status != 200 || got != 4+2*2 || !strings.Contains(p.body, `id="payments-next"`) {
		t.Errorf("status-filtered day page: %d, %d requests (want 8: the session's 4, 2 rounds of a Query and a BatchGetItem)", p.status, got)
	}
	t.Logf("10,000 payments: a day's first page %s (6 requests), its 11th page by cursor %s (7), COMPLETED that day %s (%d requests, %d rows)",
		first.Round(time.Millisecond), deep.Round(time.Millisecond), filtered.Round(time.Millisecond), s.ddb(t, p),
		len(rowRE.FindAllStringSubmatch(p.body, -1)))
}
