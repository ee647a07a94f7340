package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

func api(t *testing.T) *localapi.TestAPI {
	t.Helper()
	// Each test gets its own stack: tests stay independent and run in parallel safely.
	return localapi.StartTestAPI(t, localapi.Options{})
}

type createResp struct {
	InvoiceID  string `json:"invoice_id"`
	Status     string `json:"status"`
	PaymentURL string `json:"payment_url"`
}

type verifyResp struct {
	InvoiceID          string     `json:"invoice_id"`
	Status             string     `json:"status"`
	AmountMinor        int64      `json:"amount_minor"`
	Currency           string     `json:"currency"`
	Reference          string     `json:"reference"`
	Environment        string     `json:"environment"`
	FirstVerifiedAt    *time.Time `json:"first_verified_at"`
	PreviouslyVerified bool       `json:"previously_verified"`
	Match              *bool      `json:"match"`
	Mismatches         *[]string  `json:"mismatches"`
}

func decode[T any](t *testing.T, res *localapi.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Body, err)
	}
	return v
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// paymentItems counts the payment items in the table (a Scan is fine in a test).
func paymentItems(t *testing.T, a *localapi.TestAPI) int {
	t.Helper()
	out, err := a.Stack.DDB.Scan(context.Background(), &dynamodb.ScanInput{
		TableName:        aws.String(a.Store.Table),
		FilterExpression: aws.String("begins_with(pk, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: "PAY#"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

func TestCreateThenVerify(t *testing.T) {
	t.Parallel()
	a := api(t)
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey,
		`{"amount": 150.5, "reference": "order-1001", "redirect_url": "https://shop.com.bd/thanks",
		  "customer_name": "Rahim Uddin", "customer_phone": "+880 1712-345678", "metadata": {"cart": [1, 2]}}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	c := decode[createResp](t, res)
	if !uuidPattern.MatchString(c.InvoiceID) || c.Status != "PENDING" {
		t.Fatalf("create response %+v", c)
	}
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(a.URL) + `/v1/public/checkout/[A-Za-z0-9_-]{43}$`).MatchString(c.PaymentURL) {
		t.Fatalf("payment_url %q", c.PaymentURL)
	}
	if got := apitest.DDBRequests(t, a, res); got != 2 {
		t.Errorf("create made %d DynamoDB requests, want 2 (key GetItem + payment PutItem)", got)
	}
	var raw map[string]any
	_ = json.Unmarshal(res.Body, &raw)
	if len(raw) != 3 {
		t.Errorf("create response has %d fields, want exactly invoice_id, status, payment_url: %s", len(raw), res.Body)
	}

	// Verify needs payments:read only: the read-only key suffices.
	res = a.Do(t, "POST", "/v1/payment/verify", a.Creds.ReadonlyKey, `{"invoice_id": "`+c.InvoiceID+`"}`)
	if res.Status != http.StatusOK {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	v := decode[verifyResp](t, res)
	if v.InvoiceID != c.InvoiceID || v.Status != "PENDING" || v.AmountMinor != 15050 || v.Currency != "BDT" ||
		v.Reference != "order-1001" || v.Environment != "sandbox" || v.FirstVerifiedAt != nil || v.PreviouslyVerified {
		t.Fatalf("verify response %+v", v)
	}
	if v.Match != nil || v.Mismatches != nil {
		t.Errorf("match/mismatches present without expected: %s", res.Body)
	}
	if got := apitest.DDBRequests(t, a, res); got != 2 {
		t.Errorf("verify made %d DynamoDB requests, want 2 (key GetItem + payment GetItem)", got)
	}
	line := apitest.LogLine(t, a, res)
	if line["workspace_id"] != a.Creds.WorkspaceID || line["function"] != "payment-verify" || line["status"] != float64(200) {
		t.Errorf("log line %v", line)
	}
	if strings.Contains(a.Logs.String(), a.Creds.SandboxKey) || strings.Contains(a.Logs.String(), a.Creds.ReadonlyKey) {
		t.Error("an API key appears in the log")
	}
}

func TestCreateGeneratesReferenceAndAmounts(t *testing.T) {
	t.Parallel()
	a := api(t)
	cases := []struct {
		amount string
		paisa  int64
	}{{"1", 100}, {"0.01", 1}, {"150.50", 15050}, {"1.5e2", 15000}, {"1000000000", 100000000000}, {"999999999.99", 99999999999}}
	for _, c := range cases {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": `+c.amount+`}`)
		if res.Status != http.StatusCreated {
			t.Fatalf("amount %s: %d %s", c.amount, res.Status, res.Body)
		}
		id := decode[createResp](t, res).InvoiceID
		v := decode[verifyResp](t, a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id":"`+id+`"}`))
		if v.AmountMinor != c.paisa {
			t.Errorf("amount %s stored as %d paisa, want %d", c.amount, v.AmountMinor, c.paisa)
		}
		if !regexp.MustCompile(`^ref_[0-9a-z]{20}$`).MatchString(v.Reference) {
			t.Errorf("generated reference %q", v.Reference)
		}
	}
}

func TestCreateIdempotency(t *testing.T) {
	t.Parallel()
	a := api(t)
	const key = "order-1001-attempt-0001"
	body := `{"amount": 150.5, "reference": "order-1001", "metadata": {"b": 1, "a": "x"}}`
	first := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if first.Status != http.StatusCreated || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first create: %d %v %s", first.Status, first.Header, first.Body)
	}
	// The same request, re-serialised (member order, spacing, 150.50): the same 201, replayed.
	again := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey,
		`{"metadata":{"a":"x","b":1},"reference":"order-1001","amount":150.50}`, "Idempotency-Key", key)
	if again.Status != http.StatusCreated || string(again.Body) != string(first.Body) {
		t.Fatalf("replay: %d %s, want the first response %s", again.Status, again.Body, first.Body)
	}
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Error("replay lacks Idempotent-Replayed: true")
	}
	if got := apitest.DDBRequests(t, a, again); got > 3 {
		t.Errorf("replay made %d DynamoDB requests, want at most 3 (2 on DynamoDB itself, which returns ALL_OLD)", got)
	}
	// Same key, different body: 409, nothing created.
	for _, changed := range []string{
		`{"amount": 150.51, "reference": "order-1001", "metadata": {"b": 1, "a": "x"}}`,
		`{"amount": 150.5, "reference": "order-1002", "metadata": {"b": 1, "a": "x"}}`,
		`{"amount": 150.5, "reference": "order-1001"}`,
	} {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, changed, "Idempotency-Key", key)
		apitest.Envelope(t, res, http.StatusConflict, "IDEMPOTENCY_KEY_REUSED")
		if apitest.Retryable(t, res) {
			t.Error("a reused key with a different body must not be retryable")
		}
	}
	if n := paymentItems(t, a); n != 1 {
		t.Fatalf("%d payments stored, want 1", n)
	}
	// Without the header every call creates a new payment.
	a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body)
	a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body)
	if n := paymentItems(t, a); n != 3 {
		t.Fatalf("%d payments stored, want 3", n)
	}
	// Keys are scoped to the workspace: another workspace's same key is a different payment.
	otherKey := newWorkspaceKey(t, a, auth.Sandbox, auth.PaymentsWrite, auth.PaymentsRead)
	other := a.Do(t, "POST", "/v1/payment/create", otherKey, body, "Idempotency-Key", key)
	if other.Status != http.StatusCreated || decode[createResp](t, other).InvoiceID == decode[createResp](t, first).InvoiceID {
		t.Fatalf("other workspace with the same key: %d %s", other.Status, other.Body)
	}
}

// newWorkspaceKey creates another workspace and returns a key for it.
func newWorkspaceKey(t *testing.T, a *localapi.TestAPI, env auth.Environment, scopes ...auth.Scope) string {
	t.Helper()
	op := &operator.Operator{Store: a.Store}
	ws, err := op.CreateWorkspace(context.Background(), "", "Other merchant")
	if err != nil {
		t.Fatal(err)
	}
	k, err := op.IssueKey(context.Background(), ws.ID, env, scopes, "test")
	if err != nil {
		t.Fatal(err)
	}
	return k.Plaintext
}

func TestConcurrentCreatesWithOneKeyMakeOnePayment(t *testing.T) {
	t.Parallel()
	a := api(t)
	const n = 100
	var wg sync.WaitGroup
	results := make([]*localapi.Result, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey,
				`{"amount": 2500, "reference": "race-1"}`, "Idempotency-Key", "race-key-0123456789")
		}()
	}
	close(start)
	wg.Wait()
	ids := map[string]int{}
	for _, r := range results {
		switch r.Status {
		case http.StatusCreated:
			ids[decode[createResp](t, r).InvoiceID]++
		default:
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("responses name %d different invoices, want 1: %v", len(ids), ids)
	}
	if got := paymentItems(t, a); got != 1 {
		t.Fatalf("%d payments stored, want exactly 1", got)
	}
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	a := api(t)
	cases := []struct {
		name, body string
		headers    []string
		status     int
		code       string
		mention    []string
	}{
		{"malformed JSON", `{"amount": 1`, nil, 400, "MALFORMED_REQUEST", []string{"JSON"}},
		{"empty body", ``, nil, 400, "MALFORMED_REQUEST", nil},
		{"not an object", `[1]`, nil, 422, "VALIDATION_FAILED", []string{"body"}},
		{"three decimals", `{"amount": 1.234}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount", "two decimal"}},
		{"zero", `{"amount": 0}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount"}},
		{"negative", `{"amount": -5}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount"}},
		{"string amount", `{"amount": "150"}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount", "string"}},
		{"null amount", `{"amount": null}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount", "required"}},
		{"too large", `{"amount": 1000000000.01}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount"}},
		{"typo field", `{"amount": 1, "redirect_uri": "https://shop.com.bd"}`, nil, 422, "VALIDATION_FAILED", []string{"body.redirect_uri"}},
		{"metadata service IP", `{"amount": 1, "webhook_url": "https://169.254.169.254/latest/meta-data"}`, nil, 422, "VALIDATION_FAILED", []string{"body.webhook_url"}},
		{"loopback", `{"amount": 1, "redirect_url": "https://127.0.0.1/x"}`, nil, 422, "VALIDATION_FAILED", []string{"body.redirect_url"}},
		{"localhost not allowed outside make dev", `{"amount": 1, "cancel_url": "http://localhost:8080/c"}`, nil, 422, "VALIDATION_FAILED", []string{"body.cancel_url"}},
		{"plain http", `{"amount": 1, "redirect_url": "http://shop.com.bd/x"}`, nil, 422, "VALIDATION_FAILED", []string{"https"}},
		{"credentials in URL", `{"amount": 1, "redirect_url": "https://u:p@shop.com.bd/x"}`, nil, 422, "VALIDATION_FAILED", []string{"body.redirect_url"}},
		{"long reference", `{"amount": 1, "reference": "` + strings.Repeat("r", 129) + `"}`, nil, 422, "VALIDATION_FAILED", []string{"body.reference", "128"}},
		{"bad email", `{"amount": 1, "customer_email": "nope"}`, nil, 422, "VALIDATION_FAILED", []string{"body.customer_email"}},
		{"metadata not object", `{"amount": 1, "metadata": [1]}`, nil, 422, "VALIDATION_FAILED", []string{"body.metadata"}},
		{"duplicate member", `{"amount": 1, "amount": 1000}`, nil, 422, "VALIDATION_FAILED", []string{"body.amount"}},
		{"short idempotency key", `{"amount": 1}`, []string{"Idempotency-Key", "short"}, 400, "MALFORMED_REQUEST", []string{"Idempotency-Key"}},
		{"bad idempotency key char", `{"amount": 1}`, []string{"Idempotency-Key", "order 1001 attempt 1"}, 400, "MALFORMED_REQUEST", []string{"Idempotency-Key"}},
		{"too large body", `{"amount": 1, "metadata": {"x": "` + strings.Repeat("a", 70000) + `"}}`, nil, 413, "REQUEST_TOO_LARGE", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, c.body, c.headers...)
			msg := apitest.Envelope(t, res, c.status, c.code)
			for _, m := range c.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q does not mention %q", msg, m)
				}
			}
		})
	}
	if n := paymentItems(t, a); n != 0 {
		t.Fatalf("%d payments stored by invalid requests", n)
	}
}

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	a := api(t)
	revoked := newWorkspaceKey(t, a, auth.Sandbox, auth.PaymentsWrite)
	_, hash, _ := auth.ParseKey(revoked)
	if err := a.Store.RevokeKey(context.Background(), hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	// A well-formed key that was never issued.
	unknown, _, _ := auth.NewKey(auth.Sandbox)
	create, verify := "/v1/payment/create", "/v1/payment/verify"
	body := `{"amount": 10}`
	vbody := `{"invoice_id": "0190a8d2-0000-7000-8000-000000000000"}`
	cases := []struct {
		name, path, key, body string
		header                []string
		status                int
		code                  string
	}{
		{"missing key", create, "", body, nil, 401, "INVALID_API_KEY"},
		{"basic auth", create, "", body, []string{"Authorization", "Basic dXNlcjpwYXNz"}, 401, "INVALID_API_KEY"},
		{"garbage key", create, "sk_sandbox_garbage", body, nil, 401, "INVALID_API_KEY"},
		{"unknown key", create, unknown, body, nil, 401, "INVALID_API_KEY"},
		{"revoked key", verify, revoked, vbody, nil, 401, "INVALID_API_KEY"},
		{"read-only key cannot create", create, a.Creds.ReadonlyKey, body, nil, 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
		{"live key cannot create", create, a.Creds.LiveKey, body, nil, 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
		{"live key cannot verify", verify, a.Creds.LiveKey, vbody, nil, 403, "SCOPE_OR_ENVIRONMENT_DENIED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := a.Do(t, "POST", c.path, c.key, c.body, c.header...)
			msg := apitest.Envelope(t, res, c.status, c.code)
			if c.key == a.Creds.LiveKey && !strings.Contains(msg, "sandbox") {
				t.Errorf("live refusal should say the release is sandbox-only: %q", msg)
			}
			line := apitest.LogLine(t, a, res)
			if line["error_code"] != c.code {
				t.Errorf("log line error_code = %v", line["error_code"])
			}
		})
	}
	if n := paymentItems(t, a); n != 0 {
		t.Fatalf("%d payments stored by refused requests", n)
	}
	// Malformed keys are refused without touching DynamoDB.
	res := a.Do(t, "POST", create, "sk_sandbox_garbage", body)
	if got := apitest.DDBRequests(t, a, res); got != 0 {
		t.Errorf("a malformed key cost %d DynamoDB requests, want 0", got)
	}
}

func TestKeyStoreUnavailable(t *testing.T) {
	t.Parallel()
	a := api(t)
	a.Stack.Dynamo.Stop()
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 10}`)
	apitest.Envelope(t, res, http.StatusServiceUnavailable, "AUTH_SERVICE_UNAVAILABLE")
	if !apitest.Retryable(t, res) {
		t.Error("AUTH_SERVICE_UNAVAILABLE must be retryable")
	}
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
}

func TestVerifyIsolationAndErrors(t *testing.T) {
	t.Parallel()
	a := api(t)
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 10}`)
	id := decode[createResp](t, res).InvoiceID
	other := newWorkspaceKey(t, a, auth.Sandbox, auth.PaymentsRead)
	foreign := a.Do(t, "POST", "/v1/payment/verify", other, `{"invoice_id": "`+id+`"}`)
	missing := a.Do(t, "POST", "/v1/payment/verify", other, `{"invoice_id": "0190a8d2-0000-7000-8000-000000000000"}`)
	m1 := apitest.Envelope(t, foreign, http.StatusNotFound, "NOT_FOUND")
	m2 := apitest.Envelope(t, missing, http.StatusNotFound, "NOT_FOUND")
	if m1 != m2 {
		t.Errorf("another workspace's payment is distinguishable from a missing one: %q vs %q", m1, m2)
	}
	for _, c := range []struct{ body, mention string }{
		{`{"invoice_id": "not-a-uuid"}`, "body.invoice_id"},
		{`{}`, "body.invoice_id"},
		{`{"invoice_id": 5}`, "body.invoice_id"},
		{`{"invoice_id": "` + id + `", "extra": 1}`, "body.extra"},
		{`{"invoice_id": "` + id + `", "expected": {"amount_minor": 1000}}`, "body.expected.currency"},
		{`{"invoice_id": "` + id + `", "expected": {"amount_minor": 10.5, "currency": "BDT", "reference": "r"}}`, "body.expected.amount_minor"},
	} {
		res := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, c.body)
		if msg := apitest.Envelope(t, res, http.StatusUnprocessableEntity, "VALIDATION_FAILED"); !strings.Contains(msg, c.mention) {
			t.Errorf("%s: message %q does not name %s", c.body, msg, c.mention)
		}
	}
	// Upper-case UUIDs are the same invoice.
	res = a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "`+strings.ToUpper(id)+`"}`)
	if res.Status != http.StatusOK || decode[verifyResp](t, res).InvoiceID != id {
		t.Fatalf("upper-case invoice id: %d %s", res.Status, res.Body)
	}
}

// complete marks a payment COMPLETED directly in the table, standing in for the hosted
// checkout's sandbox outcome (a later issue) so verify's completed branch can be tested now.
func complete(t *testing.T, a *localapi.TestAPI, invoiceID string) {
	t.Helper()
	_, err := a.Stack.DDB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                aws.String(a.Store.Table),
		Key:                      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + invoiceID}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
		UpdateExpression:         aws.String("SET #s = :c"),
		ConditionExpression:      aws.String("#s = :p"),
		ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":c": &types.AttributeValueMemberS{Value: "COMPLETED"},
			":p": &types.AttributeValueMemberS{Value: "PENDING"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVerifyExpectedAndFirstVerification(t *testing.T) {
	t.Parallel()
	a := api(t)
	id := decode[createResp](t, a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey,
		`{"amount": 1500, "reference": "order-77"}`)).InvoiceID
	verify := func(expected string) (*localapi.Result, verifyResp) {
		body := `{"invoice_id": "` + id + `"`
		if expected != "" {
			body += `, "expected": ` + expected
		}
		res := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, body+"}")
		if res.Status != http.StatusOK {
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
		return res, decode[verifyResp](t, res)
	}
	exact := `{"amount_minor": 150000, "currency": "BDT", "reference": "order-77"}`

	// PENDING: even a perfect order match is not a match.
	_, v := verify(exact)
	if v.Match == nil || *v.Match || fmt.Sprint(*v.Mismatches) != "[status]" {
		t.Fatalf("pending verify: match=%v mismatches=%v", v.Match, v.Mismatches)
	}
	if v.FirstVerifiedAt != nil {
		t.Fatal("a PENDING verify must not record a first verification")
	}

	complete(t, a, id)
	res, first := verify(exact)
	if first.Status != "COMPLETED" || first.Match == nil || !*first.Match || len(*first.Mismatches) != 0 {
		t.Fatalf("completed exact verify: %+v", first)
	}
	if first.FirstVerifiedAt == nil || first.PreviouslyVerified {
		t.Fatalf("first completed verify: first_verified_at=%v previously_verified=%v", first.FirstVerifiedAt, first.PreviouslyVerified)
	}
	if got := apitest.DDBRequests(t, a, res); got != 3 {
		t.Errorf("first completed verify made %d DynamoDB requests, want 3 (key, payment, one conditional update)", got)
	}
	res, second := verify(`{"amount_minor": 15000, "currency": "bdt", "reference": "order-78"}`)
	if !second.PreviouslyVerified || !second.FirstVerifiedAt.Equal(*first.FirstVerifiedAt) {
		t.Fatalf("second verify: previously_verified=%v first_verified_at=%v (first was %v)", second.PreviouslyVerified, second.FirstVerifiedAt, first.FirstVerifiedAt)
	}
	if *second.Match || fmt.Sprint(*second.Mismatches) != "[amount_minor currency reference]" {
		t.Fatalf("mismatch verify: match=%v mismatches=%v", *second.Match, *second.Mismatches)
	}
	if got := apitest.DDBRequests(t, a, res); got != 2 {
		t.Errorf("later verify made %d DynamoDB requests, want 2", got)
	}
}

func TestConcurrentFirstVerifications(t *testing.T) {
	t.Parallel()
	a := api(t)
	id := decode[createResp](t, a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 5}`)).InvoiceID
	complete(t, a, id)
	const n = 20
	out := make([]verifyResp, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "`+id+`"}`)
			out[i] = decode[verifyResp](t, res)
		}()
	}
	wg.Wait()
	firsts := 0
	for _, v := range out {
		if !v.PreviouslyVerified {
			firsts++
		}
		if v.FirstVerifiedAt == nil || !v.FirstVerifiedAt.Equal(*out[0].FirstVerifiedAt) {
			t.Fatalf("responses disagree on first_verified_at: %v vs %v", v.FirstVerifiedAt, out[0].FirstVerifiedAt)
		}
	}
	if firsts != 1 {
		t.Fatalf("%d responses claim to be the first verification, want exactly 1", firsts)
	}
}

// With the per-instance key cache (production's default), a warm instance serves a merchant's
// create with one PutItem and verify with one GetItem: the key is read once per TTL.
func TestWarmInstanceOneRequestPerCall(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"KEY_CACHE_TTL_MS": "60000"}})
	key := a.Creds.SandboxKey
	var id string
	for i := range 3 {
		res := a.Do(t, "POST", "/v1/payment/create", key, fmt.Sprintf(`{"amount": 10, "reference": "warm-%d"}`, i))
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		want := 1
		if i == 0 {
			want = 2 // cold: the key, then the payment
		}
		if n := apitest.DDBRequests(t, a, res); n != want {
			t.Errorf("create %d made %d DynamoDB requests, want %d", i, n, want)
		}
		id = decode[createResp](t, res).InvoiceID
	}
	for i := range 2 {
		res := a.Do(t, "POST", "/v1/payment/verify", key, `{"invoice_id": "`+id+`"}`)
		if res.Status != 200 {
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
		want := 1
		if i == 0 {
			want = 2 // another function, another instance: its own cold cache
		}
		if n := apitest.DDBRequests(t, a, res); n != want {
			t.Errorf("verify %d made %d DynamoDB requests, want %d", i, n, want)
		}
	}
}
