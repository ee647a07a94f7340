package takapay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const (
	refundWS = "11111111-1111-4111-8111-111111111111"
	refundID = "22222222-2222-4222-8222-222222222222"
	refundJS = `{"id":"` + refundID + `","object":"refund","workspace_id":"` + refundWS + `","environment":"sandbox",` +
		`"payment_id":"33333333-3333-4333-8333-333333333333","amount_minor":20000,"currency":"BDT","status":"REQUESTED",` +
		`"reason":"goods_returned","requested_by":"merchant","history":[{"status":"REQUESTED","at":"2026-11-29T03:00:00Z","by":"key_1"}],` +
		`"version":1,"created_at":"2026-11-29T03:00:00Z","updated_at":"2026-11-29T03:00:00Z"}`
)

// A create sends the workspace's path, the key's environment and one Idempotency-Key on every
// attempt; the body is the contract's RefundCreate.
func TestRefundCreate(t *testing.T) {
	s := newServer(t, answer{status: 503, body: errBody("SERVICE_UNAVAILABLE", true)}, answer{status: 201, body: refundJS})
	c, _ := testClient(t, s.URL, Options{WorkspaceID: refundWS})
	amount, note := 20000, "শাড়ি ফেরত"
	r, err := c.Refunds().Create(context.Background(), RefundCreate{PaymentId: mustUUID(t, "33333333-3333-4333-8333-333333333333"),
		AmountMinor: &amount, Reason: GoodsReturned, Note: &note}, WithIdempotencyKey("order-2001-refund-0001"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Id.String() != refundID || r.Status != RefundStatusValueREQUESTED || r.AmountMinor != 20000 {
		t.Errorf("refund %+v", r)
	}
	if len(s.keys) != 2 || s.keys[0] != "order-2001-refund-0001" || s.keys[1] != s.keys[0] || s.bodies[0] != s.bodies[1] {
		t.Errorf("keys %q bodies %q", s.keys, s.bodies)
	}
	if want := `{"amount_minor":20000,"note":"শাড়ি ফেরত","payment_id":"33333333-3333-4333-8333-333333333333","reason":"goods_returned"}`; s.bodies[0] != want {
		t.Errorf("body %s, want %s", s.bodies[0], want)
	}
	if ct := s.headers[0].Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// Each transition posts its body to its own path with the environment, sends no
// Idempotency-Key, and a refusal is a typed *APIError.
func TestRefundTransitions(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" key="+r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "/cancel") {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, errBody("STATE_CONFLICT", false))
			return
		}
		io.WriteString(w, refundJS)
	}))
	t.Cleanup(srv.Close)
	c, _ := testClient(t, srv.URL, Options{WorkspaceID: refundWS})
	ctx := context.Background()
	v, note, reason, trx := 2, "Parcel checked", "Not ours", "TRX9BC4D2E1"
	steps := []func() (*Refund, error){
		func() (*Refund, error) { return c.Refunds().Review(ctx, refundID, RefundTransition{Note: &note}) },
		func() (*Refund, error) {
			return c.Refunds().Approve(ctx, refundID, RefundTransition{ExpectedVersion: &v})
		},
		func() (*Refund, error) { return c.Refunds().Reject(ctx, refundID, RefundReject{Reason: reason}) },
		func() (*Refund, error) {
			return c.Refunds().ReportReturned(ctx, refundID, RefundReportReturned{ProviderReference: trx})
		},
		func() (*Refund, error) { return c.Refunds().Get(ctx, refundID) },
	}
	for i, step := range steps {
		if _, err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	_, err := c.Refunds().Cancel(ctx, refundID, RefundTransition{})
	if e := AsAPIError(err); e == nil || e.Status != 409 || e.Code != "STATE_CONFLICT" || e.Attempts != 1 {
		t.Errorf("cancel from the wrong status: %v", err)
	}
	p := "/v1/workspaces/" + refundWS + "/refunds/" + refundID
	want := []string{
		"POST " + p + `/review?environment=sandbox {"note":"Parcel checked"} key=`,
		"POST " + p + `/approve?environment=sandbox {"expected_version":2} key=`,
		"POST " + p + `/reject?environment=sandbox {"reason":"Not ours"} key=`,
		"POST " + p + `/report-returned?environment=sandbox {"provider_reference":"TRX9BC4D2E1"} key=`,
		"GET " + p + "?environment=sandbox  key=",
		"POST " + p + "/cancel?environment=sandbox {} key=",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if _, err := c.Refunds().Approve(ctx, "not-a-uuid", RefundTransition{}); err == nil || len(seen) != len(want) {
		t.Errorf("a refund id that is not a UUID was sent (%v)", err)
	}
}

// All pages with the filters and each page's next_cursor until it is null, an empty filtered
// page included; List refuses a status the contract does not name before sending anything.
func TestRefundsAllPagesWithFilters(t *testing.T) {
	const c1, c2 = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("cursor") {
		case "":
			io.WriteString(w, `{"items":[`+refundJS+`],"next_cursor":"`+c1+`"}`)
		case c1:
			io.WriteString(w, `{"items":[],"next_cursor":"`+c2+`"}`)
		default:
			io.WriteString(w, `{"items":[`+refundJS+`],"next_cursor":null}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := testClient(t, srv.URL, Options{WorkspaceID: refundWS})
	n := 0
	for r, err := range c.Refunds().All(context.Background(), RefundListOptions{Status: "APPROVED", Overdue: true, Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Id.String() != refundID {
			t.Errorf("refund %v", r.Id)
		}
		n++
	}
	want := []string{
		"environment=sandbox&status=APPROVED&overdue=true&limit=10",
		"environment=sandbox&status=APPROVED&overdue=true&cursor=" + c1 + "&limit=10",
		"environment=sandbox&status=APPROVED&overdue=true&cursor=" + c2 + "&limit=10",
	}
	if n != 2 || strings.Join(queries, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d refunds after the queries\n%s\nwant\n%s", n, strings.Join(queries, "\n"), strings.Join(want, "\n"))
	}
	if _, err := c.Refunds().List(context.Background(), RefundListOptions{Status: "PENDING_CLAIM"}); err == nil || len(queries) != 3 {
		t.Errorf("an unknown status was sent (%v)", err)
	}
}

func mustUUID(t *testing.T, s string) RefundPaymentID {
	t.Helper()
	id, err := parseID("id", s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
