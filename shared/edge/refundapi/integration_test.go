package refundapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/refund"
)

// clock is the stack's clock: the test steps it past a refund's due_by.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

type refundResp struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	WorkspaceID       string            `json:"workspace_id"`
	PaymentID         string            `json:"payment_id"`
	AmountMinor       int64             `json:"amount_minor"`
	Status            string            `json:"status"`
	Note              string            `json:"note"`
	Metadata          map[string]string `json:"metadata"`
	RequestedBy       string            `json:"requested_by"`
	DueBy             *time.Time        `json:"due_by"`
	Overdue           bool              `json:"overdue"`
	ProviderReference string            `json:"provider_reference"`
	ReturnedAt        *time.Time        `json:"returned_at"`
	Version           int64             `json:"version"`
	History           []struct {
		Status string    `json:"status"`
		At     time.Time `json:"at"`
		By     string    `json:"by"`
	} `json:"history"`
}

type listResp struct {
	Items      []refundResp `json:"items"`
	NextCursor *string      `json:"next_cursor"`
}

type errResp struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode[T any](t *testing.T, res *localapi.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Body, err)
	}
	return v
}

var keySeq atomic.Int64

func idemKey() string { return fmt.Sprintf("refund-test-key-%012d", keySeq.Add(1)) }

// env is one test's stack: the seeded workspace, keys of each refund scope, and a second
// workspace.
type env struct {
	a                           *localapi.TestAPI
	clock                       *clock
	ws                          string
	writeKey, approveKey, other string
	otherWS, otherKey           string
}

func start(t *testing.T) *env { return startWith(t, nil, nil) }

// startWith starts the API in process (emu nil: the stack's clock is the test's) or under
// the Runtime Interface Emulator running the functions' real bootstraps, with env added to
// the functions' environment.
func startWith(t *testing.T, emu *rie.Options, fnEnv map[string]string) *env {
	t.Helper()
	c := &clock{}
	opts := localapi.Options{Now: c.now, Env: fnEnv}
	if emu != nil {
		opts.Now, c = nil, nil
		opts.Emulator = emu
	}
	a := localapi.StartTestAPI(t, opts)
	ctx := context.Background()
	op := a.Operator(t)
	issue := func(ws string, scopes ...auth.Scope) string {
		k, err := op.IssueKey(ctx, ws, auth.Sandbox, scopes, "refund test")
		if err != nil {
			t.Fatal(err)
		}
		return k.Plaintext
	}
	e := &env{a: a, clock: c, ws: a.Creds.WorkspaceID}
	e.writeKey = issue(e.ws, auth.RefundsWrite)
	e.approveKey = issue(e.ws, auth.RefundsApprove)
	e.other = issue(e.ws, auth.RefundsApprove)
	e.otherWS = "0b7e0000-0000-4000-8000-0000000000aa"
	if _, err := op.CreateWorkspace(ctx, e.otherWS, "Other shop"); err != nil {
		t.Fatal(err)
	}
	e.otherKey = issue(e.otherWS, auth.PaymentsWrite, auth.PaymentsRead, auth.RefundsWrite, auth.RefundsApprove)
	return e
}

func (e *env) refunds(ws string) string { return "/v1/workspaces/" + ws + "/refunds" }

// paid makes a COMPLETED sandbox payment of taka (the checkout's lock and approval notice).
func (e *env) paid(t *testing.T, key, taka string) string {
	t.Helper()
	res := e.a.Do(t, "POST", "/v1/payment/create", key, `{"amount": `+taka+`}`)
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create payment: %d %s", res.Status, res.Body)
	}
	u, _ := url.Parse(c.PaymentURL)
	for _, step := range []struct{ path, body string }{{u.Path + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {u.Path + "/notices/approve", ""}} {
		if r := e.a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	return c.InvoiceID
}

func (e *env) create(t *testing.T, key, ikey, body string) *localapi.Result {
	t.Helper()
	return e.a.Do(t, "POST", e.refunds(e.ws)+"?environment=sandbox", key, body, "Idempotency-Key", ikey)
}

func (e *env) act(t *testing.T, key, id, action, body string) *localapi.Result {
	t.Helper()
	return e.a.Do(t, "POST", e.refunds(e.ws)+"/"+id+"/"+action+"?environment=sandbox", key, body)
}

func want(t *testing.T, res *localapi.Result, status int, code string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	if code != "" {
		if got := decode[errResp](t, res).Error.Code; got != code {
			t.Fatalf("code %s, want %s: %s", got, code, res.Body)
		}
	}
}

// pastDue makes a refund's due_by pass: the stack's clock steps 3 days on, or under the
// emulator (whose functions keep the system clock) the stored due_by moves back 3 days.
func (e *env) pastDue(t *testing.T, id string) {
	t.Helper()
	if e.clock != nil {
		e.clock.step(3*24*time.Hour + time.Minute)
		return
	}
	past := time.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000000000Z")
	if _, err := e.a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(e.a.Store.Table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "REFUND#" + e.ws + "#sandbox"},
			"sk": &types.AttributeValueMemberS{Value: id}},
		UpdateExpression:          aws.String("SET due_by = :t"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: past}},
	}); err != nil {
		t.Fatal(err)
	}
}

// refundItems is every refund, refund key and payment item of the table as text, to show a
// refusal wrote nothing.
func (e *env) refundItems(t *testing.T) string {
	t.Helper()
	var rows []string
	in := &dynamodb.ScanInput{TableName: aws.String(e.a.Store.Table)}
	for {
		out, err := e.a.Stack.DDB.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			b, _ := json.Marshal(it)
			s := string(b)
			if strings.Contains(s, `"REFUND`) || strings.Contains(s, `"PAY#`) {
				rows = append(rows, s)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

func TestRefundWorkflowThroughTheAPI(t *testing.T) { workflow(t, start(t)) }

// TestRefundWorkflowEmulated is the same through RefundsFunction's real bootstrap under the
// Runtime Interface Emulator, as `make dev` serves it.
func TestRefundWorkflowEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the functions' bootstraps: not under -short")
	}
	workflow(t, startWith(t, &rie.Options{PoolSize: 1}, nil))
}

// TestDueDaysComeFromTheTemplate: RefundsFunction's REFUND_DUE_DAYS is the template's
// RefundDueDays (3 by default), and another value moves due_by.
func TestDueDaysComeFromTheTemplate(t *testing.T) {
	e := startWith(t, nil, map[string]string{"REFUND_DUE_DAYS": "10"})
	env, err := localapi.FunctionEnv(e.a.Stack, "RefundsFunction", localapi.Options{})
	if err != nil || env["REFUND_DUE_DAYS"] != "3" {
		t.Fatalf("template REFUND_DUE_DAYS = %q (%v), want the parameter's default 3", env["REFUND_DUE_DAYS"], err)
	}
	pay := e.paid(t, e.a.Creds.SandboxKey, "10")
	r := decode[refundResp](t, e.create(t, e.writeKey, idemKey(), `{"payment_id":"`+pay+`","reason":"not_delivered"}`))
	ap := decode[refundResp](t, e.act(t, e.approveKey, r.ID, "approve", ""))
	at := ap.History[len(ap.History)-1].At
	if ap.DueBy == nil || !ap.DueBy.Equal(at.AddDate(0, 0, 10)) {
		t.Fatalf("due_by %v, approved at %v: want 10 days later", ap.DueBy, at)
	}
}

func workflow(t *testing.T, e *env) {
	pay := e.paid(t, e.a.Creds.SandboxKey, "100")
	ikey := idemKey()
	body := `{"payment_id":"` + pay + `","amount_minor":4000,"reason":"goods_returned","note":"<b>box</b> & co","metadata":{"order":"A-1"}}`
	res := e.create(t, e.writeKey, ikey, body)
	want(t, res, http.StatusCreated, "")
	r := decode[refundResp](t, res)
	if r.Status != "REQUESTED" || r.AmountMinor != 4000 || r.RequestedBy != "merchant" || r.PaymentID != pay || r.Metadata["order"] != "A-1" {
		t.Fatalf("created %+v", r)
	}
	if !strings.Contains(string(res.Body), `"note":"<b>box</b> & co"`) {
		t.Errorf("the note is not kept verbatim in the JSON: %s", res.Body)
	}
	// A replay answers the same refund and creates nothing.
	before := e.refundItems(t)
	again := e.create(t, e.writeKey, ikey, body)
	want(t, again, http.StatusCreated, "")
	if decode[refundResp](t, again).ID != r.ID || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s %v", again.Body, again.Header)
	}
	// The same key with another body: 409, nothing written.
	other := strings.Replace(body, "<b>box</b>", "other", 1)
	want(t, e.create(t, e.writeKey, ikey, other), http.StatusConflict, "IDEMPOTENCY_KEY_REUSED")
	if after := e.refundItems(t); after != before {
		t.Errorf("a replay or a reused key wrote:\n%s\n---\n%s", before, after)
	}

	res = e.act(t, e.writeKey, r.ID, "review", `{"note":"looking"}`)
	want(t, res, http.StatusOK, "")
	if got := decode[refundResp](t, res); got.Status != "IN_REVIEW" || got.Version != 2 {
		t.Fatalf("review: %+v", got)
	}
	// A stale expected_version is 409 VERSION_CONFLICT.
	want(t, e.act(t, e.approveKey, r.ID, "approve", `{"expected_version":1}`), http.StatusConflict, "VERSION_CONFLICT")
	res = e.act(t, e.approveKey, r.ID, "approve", `{"expected_version":2}`)
	want(t, res, http.StatusOK, "")
	ap := decode[refundResp](t, res)
	last := ap.History[len(ap.History)-1]
	if ap.Status != "APPROVED" || ap.DueBy == nil || !ap.DueBy.Equal(last.At.AddDate(0, 0, 3)) || last.Status != "APPROVED" {
		t.Fatalf("approve: due_by %v, approved at %v (%+v)", ap.DueBy, last.At, ap)
	}
	// Repeating approve answers the refund as it is; a wrong-status action names the status.
	before = e.refundItems(t)
	want(t, e.act(t, e.approveKey, r.ID, "approve", ""), http.StatusOK, "")
	res = e.act(t, e.writeKey, r.ID, "review", "")
	want(t, res, http.StatusConflict, "STATE_CONFLICT")
	if !strings.Contains(decode[errResp](t, res).Error.Message, "APPROVED") {
		t.Errorf("wrong-status message does not name the status: %s", res.Body)
	}
	if after := e.refundItems(t); after != before {
		t.Errorf("a repeat or a refusal wrote")
	}
	// overdue=true lists it once due_by has passed.
	list := e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&overdue=true", e.a.Creds.ReadonlyKey, "")
	want(t, list, http.StatusOK, "")
	if n := len(decode[listResp](t, list).Items); n != 0 {
		t.Fatalf("overdue before due_by: %d", n)
	}
	e.pastDue(t, r.ID)
	list = e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&overdue=true", e.a.Creds.ReadonlyKey, "")
	if l := decode[listResp](t, list); len(l.Items) != 1 || l.Items[0].ID != r.ID || !l.Items[0].Overdue {
		t.Fatalf("overdue list: %s", list.Body)
	}
	res = e.act(t, e.writeKey, r.ID, "report-returned", `{"provider_reference":"BKA9XK2Q1Z"}`)
	want(t, res, http.StatusOK, "")
	if got := decode[refundResp](t, res); got.Status != "RETURNED" || got.ProviderReference != "BKA9XK2Q1Z" || got.ReturnedAt == nil || got.Overdue {
		t.Fatalf("report-returned: %+v", got)
	}
	get := e.a.Do(t, "GET", e.refunds(e.ws)+"/"+r.ID+"?environment=sandbox", e.a.Creds.ReadonlyKey, "")
	want(t, get, http.StatusOK, "")
	if h := decode[refundResp](t, get).History; len(h) != 4 || h[0].By == "" || h[3].Status != "RETURNED" {
		t.Fatalf("history %+v", h)
	}
}

func TestRefundRefusalsWriteNothing(t *testing.T) {
	e := start(t)
	pay := e.paid(t, e.a.Creds.SandboxKey, "10")
	otherPay := e.paid(t, e.otherKey, "10")
	first := decode[refundResp](t, e.create(t, e.writeKey, idemKey(), `{"payment_id":"`+pay+`","amount_minor":600,"reason":"duplicate"}`))
	otherRefund := e.a.Do(t, "POST", e.refunds(e.otherWS)+"?environment=sandbox", e.otherKey, `{"payment_id":"`+otherPay+`","reason":"other"}`, "Idempotency-Key", idemKey())
	want(t, otherRefund, http.StatusCreated, "")
	otherID := decode[refundResp](t, otherRefund).ID
	before := e.refundItems(t)
	p := `"payment_id":"` + pay + `"`
	for _, c := range []struct {
		name, key, body string
		status          int
		code, names     string
	}{
		{"negative", e.writeKey, `{` + p + `,"amount_minor":-5,"reason":"other"}`, 422, "VALIDATION_FAILED", "body.amount_minor"},
		{"zero", e.writeKey, `{` + p + `,"amount_minor":0,"reason":"other"}`, 422, "VALIDATION_FAILED", "body.amount_minor"},
		{"fractional", e.writeKey, `{` + p + `,"amount_minor":1.5,"reason":"other"}`, 422, "VALIDATION_FAILED", "body.amount_minor"},
		{"string amount", e.writeKey, `{` + p + `,"amount_minor":"100","reason":"other"}`, 422, "VALIDATION_FAILED", "body.amount_minor"},
		{"more than refundable", e.writeKey, `{` + p + `,"amount_minor":500,"reason":"other"}`, 409, "STATE_CONFLICT", "400 paisa (refundable_minor)"},
		{"unknown reason", e.writeKey, `{` + p + `,"reason":"changed_mind"}`, 422, "VALIDATION_FAILED", "body.reason"},
		{"256-character note", e.writeKey, `{` + p + `,"reason":"other","note":"` + strings.Repeat("ন", 256) + `"}`, 422, "VALIDATION_FAILED", "body.note"},
		{"unknown member", e.writeKey, `{` + p + `,"reason":"other","amount":1}`, 422, "VALIDATION_FAILED", "body.amount"},
		{"malformed JSON", e.writeKey, `{` + p + `,"reason":`, 400, "MALFORMED_REQUEST", ""},
		{"another workspace's payment", e.writeKey, `{"payment_id":"` + otherPay + `","reason":"other"}`, 404, "NOT_FOUND", ""},
		{"payments:read cannot create", e.a.Creds.ReadonlyKey, `{` + p + `,"reason":"other"}`, 403, "SCOPE_OR_ENVIRONMENT_DENIED", ""},
		{"refunds:approve cannot create", e.approveKey, `{` + p + `,"reason":"other"}`, 403, "SCOPE_OR_ENVIRONMENT_DENIED", ""},
	} {
		res := e.create(t, c.key, idemKey(), c.body)
		if res.Status != c.status || decode[errResp](t, res).Error.Code != c.code || !strings.Contains(string(res.Body), c.names) {
			t.Errorf("%s: %d %s, want %d %s naming %q", c.name, res.Status, res.Body, c.status, c.code, c.names)
		}
	}
	// Live is refused like every live money path.
	live := e.a.Do(t, "POST", e.refunds(e.ws)+"?environment=live", e.a.Creds.LiveKey, `{`+p+`,"reason":"other"}`, "Idempotency-Key", idemKey())
	if live.Status != 403 {
		t.Errorf("live create: %d %s", live.Status, live.Body)
	}
	for _, c := range []struct {
		name, key, id, action, body string
		status                      int
		code                        string
	}{
		{"refunds:write cannot approve", e.writeKey, first.ID, "approve", "", 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
		{"refunds:approve cannot review", e.approveKey, first.ID, "review", "", 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
		{"payments:read cannot cancel", e.a.Creds.ReadonlyKey, first.ID, "cancel", "", 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
		{"another workspace's refund", e.approveKey, otherID, "approve", "", 404, "NOT_FOUND"},
		{"not a uuid", e.approveKey, "nope", "approve", "", 404, "NOT_FOUND"},
		{"reject without a reason", e.approveKey, first.ID, "reject", "{}", 422, "VALIDATION_FAILED"},
		{"report-returned from REQUESTED", e.writeKey, first.ID, "report-returned", `{"provider_reference":"TRX1"}`, 409, "STATE_CONFLICT"},
		{"returned_at in the future", e.writeKey, first.ID, "report-returned", `{"provider_reference":"TRX1","returned_at":"2999-01-01T00:00:00Z"}`, 422, "VALIDATION_FAILED"},
		{"a review body with a reason", e.writeKey, first.ID, "review", `{"reason":"x"}`, 422, "VALIDATION_FAILED"},
	} {
		res := e.act(t, c.key, c.id, c.action, c.body)
		if res.Status != c.status || decode[errResp](t, res).Error.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, res.Status, res.Body, c.status, c.code)
		}
	}
	if get := e.a.Do(t, "GET", e.refunds(e.ws)+"/"+otherID+"?environment=sandbox", e.a.Creds.SandboxKey, ""); get.Status != 404 {
		t.Errorf("another workspace's refund: %d", get.Status)
	}
	if after := e.refundItems(t); after != before {
		t.Errorf("a refusal wrote:\n%s\n---\n%s", before, after)
	}
	// The payer's view of the rule: 400 left refundable after 600, named in the 409.
	res := e.create(t, e.writeKey, idemKey(), `{`+p+`,"reason":"other"}`)
	want(t, res, http.StatusCreated, "")
	if got := decode[refundResp](t, res).AmountMinor; got != 400 {
		t.Errorf("default amount %d, want the 400 still refundable", got)
	}
}

func TestTwoPersonRuleAndPaging(t *testing.T) {
	e := start(t)
	pay := e.paid(t, e.a.Creds.SandboxKey, "100")
	if err := e.a.Store.PutRefundPolicy(context.Background(), e.ws, refund.Policy{TwoPersonMinor: 2000}); err != nil {
		t.Fatal(err)
	}
	// The seeded sandbox key carries both refund scopes: it asks, and may not approve its own.
	big := decode[refundResp](t, e.create(t, e.a.Creds.SandboxKey, idemKey(), `{"payment_id":"`+pay+`","amount_minor":2000,"reason":"other"}`))
	small := decode[refundResp](t, e.create(t, e.a.Creds.SandboxKey, idemKey(), `{"payment_id":"`+pay+`","amount_minor":1999,"reason":"other"}`))
	before := e.refundItems(t)
	want(t, e.act(t, e.a.Creds.SandboxKey, big.ID, "approve", ""), http.StatusConflict, "STATE_CONFLICT")
	if after := e.refundItems(t); after != before {
		t.Errorf("the two-person refusal wrote")
	}
	want(t, e.act(t, e.other, big.ID, "approve", ""), http.StatusOK, "")
	want(t, e.act(t, e.a.Creds.SandboxKey, small.ID, "approve", ""), http.StatusOK, "")
	ids := map[string]bool{big.ID: true, small.ID: true}
	for range 3 {
		r := decode[refundResp](t, e.create(t, e.writeKey, idemKey(), `{"payment_id":"`+pay+`","amount_minor":100,"reason":"other"}`))
		ids[r.ID] = true
	}
	// Cursor paging, newest first, every refund once; payment_id pages the same through the ledger.
	for _, filter := range []string{"", "&payment_id=" + pay} {
		seen := map[string]bool{}
		var prev string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			res := e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&limit=2"+filter+cursor, e.a.Creds.ReadonlyKey, "")
			want(t, res, http.StatusOK, "")
			l := decode[listResp](t, res)
			for _, it := range l.Items {
				if seen[it.ID] || prev != "" && it.ID > prev {
					t.Fatalf("%q: %s repeated or out of order", filter, it.ID)
				}
				seen[it.ID], prev = true, it.ID
			}
			if l.NextCursor == nil {
				break
			}
			cursor = "&cursor=" + *l.NextCursor
		}
		if len(seen) != len(ids) {
			t.Errorf("%q: listed %d refunds, made %d", filter, len(seen), len(ids))
		}
	}
	res := e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&status=APPROVED", e.a.Creds.ReadonlyKey, "")
	if l := decode[listResp](t, res); len(l.Items) != 2 {
		t.Errorf("status=APPROVED listed %d, want 2", len(l.Items))
	}
	want(t, e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&overdue=maybe", e.a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")
	want(t, e.a.Do(t, "GET", e.refunds(e.ws)+"?environment=sandbox&cursor=x", e.a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")
}
