package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

func start(t *testing.T) *localapi.TestAPI {
	t.Helper()
	return localapi.StartTestAPI(t, localapi.Options{})
}

var keySeq atomic.Int64

// idemKey returns a fresh Idempotency-Key.
func idemKey() string { return fmt.Sprintf("intent-test-key-%012d", keySeq.Add(1)) }

type source struct {
	Kind            string `json:"kind"`
	DocumentID      string `json:"document_id"`
	DocumentVersion int64  `json:"document_version"`
	Quantity        int64  `json:"quantity"`
}

type snapshot struct {
	DocumentID string `json:"document_id"`
	Kind       string `json:"kind"`
	Version    int64  `json:"version"`
	Reference  string `json:"reference"`
	Items      []struct {
		Title           string `json:"title"`
		Quantity        int64  `json:"quantity"`
		UnitAmountMinor int64  `json:"unit_amount_minor"`
	} `json:"items"`
	TaxMinor        int64 `json:"tax_minor"`
	FeeMinor        int64 `json:"fee_minor"`
	ShippingMinor   int64 `json:"shipping_minor"`
	DiscountMinor   int64 `json:"discount_minor"`
	UnitAmountMinor int64 `json:"unit_amount_minor"`
	Quantity        int64 `json:"quantity"`
	TotalMinor      int64 `json:"total_minor"`
	PaidMinor       int64 `json:"paid_minor"`
}

type intentResp struct {
	ID          string    `json:"id"`
	Object      string    `json:"object"`
	WorkspaceID string    `json:"workspace_id"`
	Environment string    `json:"environment"`
	Status      string    `json:"status"`
	AmountMinor int64     `json:"amount_minor"`
	Currency    string    `json:"currency"`
	Reference   string    `json:"reference"`
	Source      source    `json:"source"`
	Snapshot    *snapshot `json:"snapshot"`
	PaymentURL  string    `json:"payment_url"`
	ExpiresAt   time.Time `json:"expires_at"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	History     []struct {
		Status     string    `json:"status"`
		OccurredAt time.Time `json:"occurred_at"`
	} `json:"history"`
	Metadata json.RawMessage `json:"metadata"`
}

type listResp struct {
	Items      []intentResp `json:"items"`
	NextCursor *string      `json:"next_cursor"`
}

func decode[T any](t *testing.T, res *localapi.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Body, err)
	}
	return v
}

func docs(a *localapi.TestAPI, kind string) string {
	return "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/" + kind
}

// newDocument creates a document and runs its lifecycle command (issue, publish; "" for
// none), returning its id.
func newDocument(t *testing.T, a *localapi.TestAPI, kind, body, command string) string {
	t.Helper()
	res := a.Do(t, "POST", docs(a, kind)+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
	if res.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
	}
	var rec struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(res.Body, &rec)
	if command != "" {
		if res := a.Do(t, "POST", docs(a, kind)+"/"+rec.ID+"/"+command+"?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", command, kind, res.Status, res.Body)
		}
	}
	return rec.ID
}

// issuedInvoice is an issued invoice: 2 × 500.00 + 1 × 250.50 = 125050, tax 1000, fee 500,
// shipping 2000, discount 550: total 128000 paisa.
func issuedInvoice(t *testing.T, a *localapi.TestAPI) string {
	t.Helper()
	return newDocument(t, a, "invoices", `{"reference": "INV-7", "items": [
		{"title": "Saree", "quantity": 2, "unit_amount_minor": 50000},
		{"title": "Blouse", "quantity": 1, "unit_amount_minor": 25050}],
		"tax_minor": 1000, "fee_minor": 500, "shipping_minor": 2000, "discount_minor": 550}`, "issue")
}

const invoiceTotal = 128000

func createIntent(t *testing.T, a *localapi.TestAPI, key, body string) (intentResp, *localapi.Result) {
	t.Helper()
	res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if res.Status != http.StatusCreated {
		t.Fatalf("create intent %s: %d %s", body, res.Status, res.Body)
	}
	return decode[intentResp](t, res), res
}

// pay locks a route and plays the sandbox approve on an intent's checkout (the payer's JSON API).
func pay(t *testing.T, a *localapi.TestAPI, paymentURL, outcome string) *localapi.Result {
	t.Helper()
	u, err := url.Parse(paymentURL)
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Do(t, "POST", u.Path+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); res.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", res.Status, res.Body)
	}
	return a.Do(t, "POST", u.Path+"/notices/"+outcome, "", "")
}

func TestStandaloneIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	key := idemKey()
	body := `{"amount": 150.50, "reference": "order-77", "metadata": {"cart": 9}, "expires_in_minutes": 10}`
	it, res := createIntent(t, a, key, body)
	if it.Object != "payment_intent" || it.WorkspaceID != a.Creds.WorkspaceID || it.Environment != "sandbox" ||
		it.Status != "PENDING" || it.AmountMinor != 15050 || it.Currency != "BDT" || it.Reference != "order-77" ||
		it.Source.Kind != "standalone" || it.Source.DocumentID != "" || it.Snapshot != nil ||
		!strings.HasPrefix(it.PaymentURL, a.URL+"/v1/public/checkout/") || string(it.Metadata) != `{"cart":9}` ||
		len(it.History) != 1 || it.History[0].Status != "PENDING" || it.ExpiresAt.Sub(it.CreatedAt) != 10*time.Minute {
		t.Fatalf("intent = %s", res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("standalone create made %d DynamoDB requests, want 2 (key GetItem + conditional PutItem)", n)
	}

	// Same key, same request: the same 201, marked as a replay. Another body: 409.
	res = a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "true" || decode[intentResp](t, res).ID != it.ID {
		t.Fatalf("replay: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": 151}`, "Idempotency-Key", key), 409, "IDEMPOTENCY_KEY_REUSED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": 0}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": `, "Idempotency-Key", idemKey()), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.ReadonlyKey, body, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.LiveKey, body, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", "", body, "Idempotency-Key", idemKey()), 401, "INVALID_API_KEY")

	// GET: one Query (payment and snapshot together) after the key. A payments:read key gets
	// no payment_url (TestReadOnlyCallersGetNoPaymentURL).
	res = a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.ReadonlyKey, "")
	if g := decode[intentResp](t, res); res.Status != http.StatusOK || g.ID != it.ID || g.PaymentURL != "" {
		t.Fatalf("get: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("get made %d DynamoDB requests, want 2 (key GetItem + one Query)", n)
	}
	apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents/not-a-uuid", a.Creds.ReadonlyKey, ""), 404, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.LiveKey, ""), 404, "NOT_FOUND")

	// One id space: payment create's payment is an intent, and verify answers for any intent.
	res = a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 20, "reference": "hosted-1"}`)
	var created struct {
		InvoiceID string `json:"invoice_id"`
	}
	_ = json.Unmarshal(res.Body, &created)
	hosted := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+created.InvoiceID, a.Creds.SandboxKey, ""))
	if hosted.ID != created.InvoiceID || hosted.AmountMinor != 2000 || hosted.Source.Kind != "standalone" {
		t.Fatalf("hosted payment as an intent: %+v", hosted)
	}
	res = a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "`+it.ID+`"}`)
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"amount_minor":15050`) {
		t.Fatalf("verify of an intent: %d %s", res.Status, res.Body)
	}

	// Intents are immutable: no PATCH, PUT or DELETE.
	for _, m := range []string{"PATCH", "PUT", "DELETE"} {
		res := a.Do(t, m, "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, `{"amount": 1}`)
		if res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s intent: %d %s, want 405", m, res.Status, res.Body)
		}
	}
}

func TestLinkedInvoiceIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	key := idemKey()
	body := `{"document_id": "` + inv + `", "redirect_url": "https://shop.com.bd/paid"}`
	it, res := createIntent(t, a, key, body)
	if it.AmountMinor != invoiceTotal || it.Reference != "INV-7" || it.Source.Kind != "invoices" || it.Source.DocumentID != inv ||
		it.Source.DocumentVersion != 2 || it.Snapshot == nil {
		t.Fatalf("linked intent = %s", res.Body)
	}
	s := it.Snapshot
	if s.DocumentID != inv || s.Kind != "invoices" || s.Version != 2 || s.Reference != "INV-7" || len(s.Items) != 2 ||
		s.Items[1].Title != "Blouse" || s.TaxMinor != 1000 || s.FeeMinor != 500 || s.ShippingMinor != 2000 ||
		s.DiscountMinor != 550 || s.TotalMinor != invoiceTotal || s.PaidMinor != 0 || s.Quantity != 1 {
		t.Fatalf("snapshot = %+v", s)
	}
	if n := apitest.DDBRequests(t, a, res); n != 5 {
		t.Errorf("linked create made %d DynamoDB requests, want 5 (key, document BatchGetItem, the invoice's live-intent UpdateItem, intent PutItem, snapshot PutItem)", n)
	}
	// A replay answers the same intent with its snapshot.
	res = a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s", res.Status, res.Body)
	}
	if r := decode[intentResp](t, res); r.ID != it.ID || r.Snapshot == nil || r.Snapshot.TotalMinor != invoiceTotal {
		t.Fatalf("replay = %s", res.Body)
	}

	// The client never names the amount of a linked intent; quantity is a payment link's.
	v := apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+inv+`", "amount": 1}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(v, "body.amount") {
		t.Errorf("amount with document_id: %s", v)
	}
	v = apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+inv+`", "quantity": 2}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(v, "body.quantity") {
		t.Errorf("quantity on an invoice: %s", v)
	}
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+inv+`", "reference": "mine"}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")

	// A draft invoice cannot be paid; neither can a customer or another workspace's document.
	draft := newDocument(t, a, "invoices", `{"reference": "INV-8", "amount_minor": 5000}`, "")
	v = apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+draft+`"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	if !strings.Contains(v, "draft") {
		t.Errorf("draft invoice: %s", v)
	}
	cust := newDocument(t, a, "customers", `{"reference": "CUST-1", "name": "Rahim"}`, "")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+cust+`"}`, "Idempotency-Key", idemKey()), 404, "NOT_FOUND")
	b := start(t)
	apitest.Envelope(t, b.Do(t, "POST", "/v1/payment-intents", b.Creds.SandboxKey,
		`{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey()), 404, "NOT_FOUND")

	// Cancelling the invoice afterwards changes nothing in the intent.
	if res := a.Do(t, "POST", docs(a, "invoices")+"/"+inv+"/cancel?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel invoice: %d %s", res.Status, res.Body)
	}
	after := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, ""))
	if after.AmountMinor != it.AmountMinor || after.Reference != it.Reference || after.Source != it.Source ||
		after.Snapshot == nil || after.Snapshot.Items[0] != it.Snapshot.Items[0] || after.Snapshot.Version != 2 || after.Status != "PENDING" {
		t.Fatalf("intent after the invoice was cancelled: %+v", after)
	}
	// ...and a new intent for the cancelled invoice is refused, naming the state.
	v = apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+inv+`"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	if !strings.Contains(v, "cancelled") {
		t.Errorf("cancelled invoice: %s", v)
	}
	// The replay of the create that succeeded still answers it.
	res = a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if res.Status != http.StatusCreated || decode[intentResp](t, res).ID != it.ID {
		t.Fatalf("replay after the invoice was cancelled: %d %s", res.Status, res.Body)
	}
}

func TestLinkedPaymentLinkIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	link := newDocument(t, a, "payment-links", `{"reference": "LINK-1", "amount_minor": 50000, "max_quantity": 3}`, "publish")
	it, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`", "quantity": 2}`)
	if it.AmountMinor != 100000 || it.Source.Kind != "payment-links" || it.Source.Quantity != 2 ||
		it.Snapshot == nil || it.Snapshot.UnitAmountMinor != 50000 || it.Snapshot.Quantity != 2 || it.Snapshot.TotalMinor != 100000 {
		t.Fatalf("link intent = %+v", it)
	}
	one, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`"}`)
	if one.AmountMinor != 50000 || one.Source.Quantity != 1 {
		t.Fatalf("default quantity: %+v", one)
	}
	v := apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+link+`", "quantity": 4}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(v, "body.quantity") || !strings.Contains(v, "3") {
		t.Errorf("quantity above max_quantity: %s", v)
	}

	// Editing the link's price afterwards changes nothing in the existing intent.
	res := a.Do(t, "PATCH", docs(a, "payment-links")+"/"+link+"?environment=sandbox", a.Creds.SandboxKey,
		`{"amount_minor": 70000}`, "Idempotency-Key", idemKey())
	if res.Status != http.StatusOK {
		t.Fatalf("edit link: %d %s", res.Status, res.Body)
	}
	after := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, ""))
	if after.AmountMinor != 100000 || after.Snapshot.UnitAmountMinor != 50000 || after.Source.DocumentVersion != it.Source.DocumentVersion {
		t.Fatalf("intent after the link was edited: %+v", after)
	}
	next, _ := createIntent(t, a, idemKey(), `{"document_id": "`+link+`"}`)
	if next.AmountMinor != 70000 || next.Source.DocumentVersion != it.Source.DocumentVersion+1 {
		t.Fatalf("intent after the edit: %+v", next)
	}
	// An archived link cannot be paid.
	if res := a.Do(t, "POST", docs(a, "payment-links")+"/"+link+"/archive?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("archive: %d %s", res.Status, res.Body)
	}
	v = apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey,
		`{"document_id": "`+link+`"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	if !strings.Contains(v, "archived") {
		t.Errorf("archived link: %s", v)
	}
}

// intentItems counts the payment items of the table (a Scan is fine in a test).
func intentItems(t *testing.T, a *localapi.TestAPI) int {
	t.Helper()
	out, err := a.Stack.DDB.Scan(context.Background(), &dynamodb.ScanInput{
		TableName:        aws.String(a.Store.Table),
		FilterExpression: aws.String("begins_with(pk, :p) AND sk = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: "PAY#"},
			":s": &types.AttributeValueMemberS{Value: "PAY"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

func TestConcurrentCreatesMakeOneIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	key := idemKey()
	body := `{"document_id": "` + inv + `"}`
	const n = 100
	ids := make([]string, n)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
			statuses[i] = res.Status
			var it intentResp
			_ = json.Unmarshal(res.Body, &it)
			ids[i] = it.ID
		}()
	}
	wg.Wait()
	for i := range n {
		if statuses[i] != http.StatusCreated || ids[i] != ids[0] {
			t.Fatalf("create %d: %d %s (first %s)", i, statuses[i], ids[i], ids[0])
		}
	}
	if got := intentItems(t, a); got != 1 {
		t.Fatalf("%d intents after 100 concurrent creates with one key, want 1", got)
	}
}

type verification struct {
	InvoiceID          string     `json:"invoice_id"`
	IntentID           string     `json:"intent_id"`
	Status             string     `json:"status"`
	AmountMinor        int64      `json:"amount_minor"`
	Currency           string     `json:"currency"`
	Reference          string     `json:"reference"`
	Environment        string     `json:"environment"`
	CreatedAt          time.Time  `json:"created_at"`
	FirstVerifiedAt    *time.Time `json:"first_verified_at"`
	PreviouslyVerified bool       `json:"previously_verified"`
	Match              *bool      `json:"match"`
	Mismatches         *[]string  `json:"mismatches"`
	Source             *source    `json:"source"`
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVerifyTransactionAgreesWithVerify(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	linked, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	standalone, _ := createIntent(t, a, idemKey(), `{"amount": 99.99, "reference": "order-5"}`)
	expected := func(it intentResp) string {
		return fmt.Sprintf(`{"expected": {"amount_minor": %d, "currency": "BDT", "reference": %q}}`, it.AmountMinor, it.Reference)
	}
	check := func(it intentResp, wantStatus string, wantMatch bool) {
		t.Helper()
		vt := a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/verify-transaction", a.Creds.ReadonlyKey, expected(it))
		if vt.Status != http.StatusOK {
			t.Fatalf("verify-transaction: %d %s", vt.Status, vt.Body)
		}
		vr := a.Do(t, "POST", "/v1/payment/verify", a.Creds.ReadonlyKey,
			strings.Replace(expected(it), "{", `{"invoice_id": "`+it.ID+`", `, 1))
		got, want := decode[verification](t, vt), decode[verification](t, vr)
		if got.IntentID != it.ID || got.Source == nil || got.Source.Kind != it.Source.Kind || want.Source != nil {
			t.Fatalf("verify-transaction extras: %s", vt.Body)
		}
		got.IntentID, got.Source = "", nil
		if got.Status != wantStatus || got.Match == nil || *got.Match != wantMatch {
			t.Errorf("verify-transaction of %s: %s", it.ID, vt.Body)
		}
		// Field for field the same answer; the one difference allowed is that the first call
		// to see COMPLETED records the first verification, so the second is a repeat.
		if wantStatus == "COMPLETED" && (got.PreviouslyVerified || !want.PreviouslyVerified) {
			t.Errorf("first verification: verify-transaction previously_verified %v, verify %v", got.PreviouslyVerified, want.PreviouslyVerified)
		}
		got.PreviouslyVerified, want.PreviouslyVerified = false, false
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("verify-transaction and verify disagree:\n %s\n %s", g, w)
		}
	}
	for _, it := range []intentResp{linked, standalone} {
		check(it, "PENDING", false)
		if res := pay(t, a, it.PaymentURL, "approve"); res.Status != http.StatusOK {
			t.Fatalf("approve: %d %s", res.Status, res.Body)
		}
		check(it, "COMPLETED", true)
	}
	// Without a body it answers the status; with a malformed one 400; live is refused.
	res := a.Do(t, "POST", "/v1/payment-intents/"+linked.ID+"/verify-transaction", a.Creds.SandboxKey, "")
	if v := decode[verification](t, res); res.Status != http.StatusOK || v.Status != "COMPLETED" || v.Match != nil || !v.PreviouslyVerified {
		t.Fatalf("verify-transaction without body: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("verify-transaction made %d DynamoDB requests, want 2 (key + one Query)", n)
	}
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+linked.ID+"/verify-transaction", a.Creds.SandboxKey, `{"expected":`), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+linked.ID+"/verify-transaction", a.Creds.SandboxKey, `{"expected": {"amount_minor": 1}}`), 422, "VALIDATION_FAILED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+linked.ID+"/verify-transaction", a.Creds.LiveKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
}

func TestCancel(t *testing.T) {
	t.Parallel()
	a := start(t)
	it, _ := createIntent(t, a, idemKey(), `{"amount": 10}`)
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.SandboxKey, `{"amount": 1}`), 422, "VALIDATION_FAILED")
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.ReadonlyKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	res := a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.SandboxKey, "")
	c := decode[intentResp](t, res)
	if res.Status != http.StatusOK || c.Status != "CANCELLED" || len(c.History) != 2 || c.History[1].Status != "CANCELLED" || c.AmountMinor != 1000 {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("cancel made %d DynamoDB requests, want 3 (key, Query, conditional UpdateItem)", n)
	}
	// Cancelling again is the same success; a completed intent cannot be cancelled.
	res = a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.SandboxKey, "{}")
	if res.Status != http.StatusOK || decode[intentResp](t, res).Status != "CANCELLED" {
		t.Fatalf("second cancel: %d %s", res.Status, res.Body)
	}
	paid, _ := createIntent(t, a, idemKey(), `{"amount": 10}`)
	pay(t, a, paid.PaymentURL, "approve")
	v := apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents/"+paid.ID+"/cancel", a.Creds.SandboxKey, ""), 409, "STATE_CONFLICT")
	if !strings.Contains(v, "completed") {
		t.Errorf("cancel of a completed intent: %s", v)
	}
	// The payer's page shows the cancellation.
	u, _ := url.Parse(it.PaymentURL)
	if res := a.Do(t, "GET", u.Path, "", ""); !strings.Contains(string(res.Body), `"CANCELLED"`) {
		t.Errorf("checkout view after cancel: %s", res.Body)
	}
}

// TestCancelRacesApprove runs the merchant's cancel against the payer's approve on locked
// intents: exactly one of the two wins each race, and the intent ends in the winner's status.
func TestCancelRacesApprove(t *testing.T) {
	t.Parallel()
	a := start(t)
	wins := map[string]int{}
	for range 10 {
		it, _ := createIntent(t, a, idemKey(), `{"amount": 10}`)
		u, _ := url.Parse(it.PaymentURL)
		if res := a.Do(t, "POST", u.Path+"/lock", "", `{"route":"nagad","payer":"01812345678"}`); res.Status != http.StatusOK {
			t.Fatalf("lock: %d %s", res.Status, res.Body)
		}
		var cancel, approve *localapi.Result
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			cancel = a.Do(t, "POST", "/v1/payment-intents/"+it.ID+"/cancel", a.Creds.SandboxKey, "")
		}()
		go func() { defer wg.Done(); approve = a.Do(t, "POST", u.Path+"/notices/approve", "", "") }()
		wg.Wait()
		final := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, "")).Status
		switch {
		case cancel.Status == http.StatusOK && approve.Status == http.StatusConflict && final == "CANCELLED":
			wins["cancel"]++
		case approve.Status == http.StatusOK && cancel.Status == http.StatusConflict && final == "COMPLETED":
			wins["approve"]++
		default:
			t.Fatalf("race: cancel %d %s, approve %d %s, final %s", cancel.Status, cancel.Body, approve.Status, approve.Body, final)
		}
	}
	t.Logf("wins: %v", wins)
}

func TestListIntents(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	var ids []string
	for i := range 5 {
		it, _ := createIntent(t, a, idemKey(), fmt.Sprintf(`{"amount": %d}`, i+1))
		ids = append(ids, it.ID)
	}
	linked, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	ids = append(ids, linked.ID)
	if res := a.Do(t, "POST", "/v1/payment-intents/"+ids[1]+"/cancel", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatal(res.Status)
	}

	// Newest first, in pages of 4: 4 then 2.
	res := a.Do(t, "GET", "/v1/payment-intents?limit=4", a.Creds.ReadonlyKey, "")
	page := decode[listResp](t, res)
	if res.Status != http.StatusOK || len(page.Items) != 4 || page.NextCursor == nil {
		t.Fatalf("page 1: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("list page made %d DynamoDB requests, want 3 (key, GSI3 Query, BatchGetItem)", n)
	}
	for i, it := range page.Items {
		if it.ID != ids[len(ids)-1-i] {
			t.Fatalf("page 1 item %d = %s, want %s (newest first)", i, it.ID, ids[len(ids)-1-i])
		}
	}
	if page.Items[0].Snapshot == nil || page.Items[0].Snapshot.TotalMinor != invoiceTotal {
		t.Errorf("a linked intent in the list lacks its snapshot: %+v", page.Items[0])
	}
	res = a.Do(t, "GET", "/v1/payment-intents?limit=4&cursor="+*page.NextCursor, a.Creds.ReadonlyKey, "")
	page2 := decode[listResp](t, res)
	if len(page2.Items) != 2 || page2.NextCursor != nil || page2.Items[1].ID != ids[0] {
		t.Fatalf("page 2: %s", res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("list page with a cursor made %d DynamoDB requests, want 4 (key, cursor GetItem, Query, BatchGetItem)", n)
	}

	// Filters.
	byStatus := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?status=CANCELLED", a.Creds.ReadonlyKey, ""))
	if len(byStatus.Items) != 1 || byStatus.Items[0].ID != ids[1] {
		t.Fatalf("status filter: %+v", byStatus)
	}
	byDoc := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents?document_id="+inv, a.Creds.ReadonlyKey, ""))
	if len(byDoc.Items) != 1 || byDoc.Items[0].ID != linked.ID || byDoc.NextCursor != nil {
		t.Fatalf("document filter: %+v", byDoc)
	}
	for _, q := range []string{"limit=0", "limit=101", "status=PAID", "document_id=x", "cursor=nope"} {
		v := apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents?"+q, a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")
		if !strings.Contains(v, "query."+strings.SplitN(q, "=", 2)[0]) {
			t.Errorf("%s: %s", q, v)
		}
	}

	// Another workspace and another environment see none of them, not even by cursor.
	b := start(t)
	if l := decode[listResp](t, b.Do(t, "GET", "/v1/payment-intents", b.Creds.SandboxKey, "")); len(l.Items) != 0 {
		t.Fatalf("other workspace lists %d intents", len(l.Items))
	}
	apitest.Envelope(t, b.Do(t, "GET", "/v1/payment-intents?cursor="+ids[2], b.Creds.SandboxKey, ""), 422, "VALIDATION_FAILED")
	if l := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents", a.Creds.LiveKey, "")); len(l.Items) != 0 {
		t.Fatalf("live lists %d sandbox intents", len(l.Items))
	}
	for _, p := range []string{"", "/cancel", "/verify-transaction"} {
		m := "POST"
		if p == "" {
			m = "GET"
		}
		apitest.Envelope(t, b.Do(t, m, "/v1/payment-intents/"+ids[2]+p, b.Creds.SandboxKey, ""), 404, "NOT_FOUND")
	}
}

// A create that stops between the payment's write and its snapshot's leaves an intent whose
// snapshot is missing: it still reads (without a snapshot, never a 500), and the client's retry
// of the same request writes the snapshot the payment names.
func TestCreateStoppedBeforeItsSnapshotIsRepairedByTheRetry(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	key := idemKey()
	body := `{"document_id": "` + inv + `"}`
	it, _ := createIntent(t, a, key, body)
	snaps := func() []string {
		out, err := a.Stack.DDB.Query(context.Background(), &dynamodb.QueryInput{
			TableName:              aws.String(a.Store.Table),
			KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :snap)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk":   &types.AttributeValueMemberS{Value: "PAY#" + it.ID},
				":snap": &types.AttributeValueMemberS{Value: "SNAP#"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		var sks []string
		for _, item := range out.Items {
			sks = append(sks, item["sk"].(*types.AttributeValueMemberS).Value)
		}
		return sks
	}
	before := snaps()
	if len(before) != 1 {
		t.Fatalf("snapshot items after create: %v", before)
	}
	// The process died after the payment's PutItem: no snapshot item.
	if _, err := a.Stack.DDB.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
		TableName: aws.String(a.Store.Table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + it.ID},
			"sk": &types.AttributeValueMemberS{Value: before[0]}},
	}); err != nil {
		t.Fatal(err)
	}
	res := a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, "")
	if got := decode[intentResp](t, res); res.Status != http.StatusOK || got.Snapshot != nil || got.AmountMinor != invoiceTotal {
		t.Fatalf("get without its snapshot: %d %s", res.Status, res.Body)
	}
	// A different request under the key is refused and writes nothing.
	other := issuedInvoice(t, a)
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"document_id": "`+other+`"}`, "Idempotency-Key", key), 409, "IDEMPOTENCY_KEY_REUSED")
	if got := snaps(); len(got) != 0 {
		t.Fatalf("a refused create wrote snapshot items: %v", got)
	}
	// The retry of the same request restores it.
	res = a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if got := decode[intentResp](t, res); res.Status != http.StatusCreated || got.Snapshot == nil || got.Snapshot.TotalMinor != invoiceTotal {
		t.Fatalf("retry: %d %s", res.Status, res.Body)
	}
	if got := snaps(); len(got) != 1 || got[0] != before[0] {
		t.Fatalf("snapshot items after the retry: %v, want %v", got, before)
	}
	if got := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+it.ID, a.Creds.SandboxKey, "")); got.Snapshot == nil || mustJSON(t, got.Snapshot) != mustJSON(t, it.Snapshot) {
		t.Fatalf("snapshot after the repair: %+v, want %+v", got.Snapshot, it.Snapshot)
	}
}

// A merchant may set the language of the payer's pages: locale bn or en on a standalone or a
// linked create, stored (as "lc", a short attribute) and shown on the intent; without it, or
// with "auto", the intent says "auto" and stores nothing. The checkout then speaks it unless
// the payer's ?lang says otherwise.
func TestIntentLocale(t *testing.T) {
	t.Parallel()
	a := start(t)
	type localeResp struct {
		Locale     string `json:"locale"`
		ID         string `json:"id"`
		PaymentURL string `json:"payment_url"`
	}
	create := func(body string) localeResp {
		t.Helper()
		res := a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
		if res.Status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", body, res.Status, res.Body)
		}
		return decode[localeResp](t, res)
	}
	stored := func(id string) (string, bool) {
		t.Helper()
		item := rawPaymentItem(t, a, context.Background(), id)
		if _, long := item["locale"]; long {
			t.Errorf("%s: the locale is stored under a long name", id)
		}
		v, ok := item["lc"].(*types.AttributeValueMemberS)
		if !ok {
			return "", false
		}
		return v.Value, true
	}
	bn := create(`{"amount": 10, "locale": "bn"}`)
	if lc, ok := stored(bn.ID); bn.Locale != "bn" || lc != "bn" || !ok {
		t.Errorf("locale bn: shown %q, stored %q %v", bn.Locale, lc, ok)
	}
	for _, body := range []string{`{"amount": 10}`, `{"amount": 10, "locale": "auto"}`} {
		it := create(body)
		if _, ok := stored(it.ID); it.Locale != "auto" || ok {
			t.Errorf("%s: shown %q, stored: %v", body, it.Locale, ok)
		}
	}
	// The locale costs its four bytes ("lc", "bn") and no more: a payment item stays small.
	plain := create(`{"amount": 10, "reference": "same-length"}`)
	withBN := create(`{"amount": 10, "reference": "same-length", "locale": "bn"}`)
	ctx := context.Background()
	// (Both are in the expiry index under a shard whose number has 1 to 3 digits, by the id.)
	size := func(id string) int {
		item := rawPaymentItem(t, a, ctx, id)
		delete(item, "gsi2pk")
		return apitest.ItemSize(item)
	}
	if d := size(withBN.ID) - size(plain.ID); d != 4 {
		t.Errorf("locale bn adds %d bytes to the payment item, want 4", d)
	}
	linked := create(`{"document_id": "` + issuedInvoice(t, a) + `", "locale": "en"}`)
	if lc, _ := stored(linked.ID); linked.Locale != "en" || lc != "en" {
		t.Errorf("linked locale en: shown %q, stored %q", linked.Locale, lc)
	}
	got := a.Do(t, "GET", "/v1/payment-intents/"+bn.ID, a.Creds.SandboxKey, "")
	if r := decode[localeResp](t, got); r.Locale != "bn" {
		t.Errorf("get: locale %q", r.Locale)
	}
	v := apitest.Envelope(t, a.Do(t, "POST", "/v1/payment-intents", a.Creds.SandboxKey, `{"amount": 10, "locale": "bangla"}`,
		"Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(v, "body.locale") {
		t.Errorf("bad locale: %s", v)
	}

	// The checkout: the merchant's locale before the browser's, the payer's ?lang before both.
	u, _ := url.Parse(bn.PaymentURL)
	for _, c := range []struct {
		query, accept, want string
	}{
		{"", "en-US,en", `<html lang="bn">`},
		{"?lang=en", "bn", `<html lang="en">`},
		{"?lang=xx", "en", `<html lang="bn">`},
	} {
		res := a.Do(t, "GET", u.Path+c.query, "", "", "Accept", "text/html", "Accept-Language", c.accept)
		if res.Status != http.StatusOK || !strings.Contains(string(res.Body), c.want) {
			t.Errorf("checkout %s (Accept-Language %s): %d, want %s", c.query, c.accept, res.Status, c.want)
		}
	}
}

// The created range (the index query's key condition), source and reference filters, and the
// lock on the resource.
func TestListIntentFilters(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := issuedInvoice(t, a)
	var made []intentResp
	for i := range 4 {
		it, _ := createIntent(t, a, idemKey(), fmt.Sprintf(`{"amount": %d, "reference": "order-%d"}`, i+1, i%2))
		made = append(made, it)
	}
	linked, _ := createIntent(t, a, idemKey(), `{"document_id": "`+inv+`"}`)
	list := func(q string) (listResp, *localapi.Result) {
		t.Helper()
		res := a.Do(t, "GET", "/v1/payment-intents?"+q, a.Creds.ReadonlyKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", q, res.Status, res.Body)
		}
		return decode[listResp](t, res), res
	}
	ids := func(l listResp) []string {
		var out []string
		for _, it := range l.Items {
			out = append(out, it.ID)
		}
		return out
	}
	want := func(q string, wantIDs ...string) {
		t.Helper()
		l, _ := list(q)
		if got := ids(l); strings.Join(got, ",") != strings.Join(wantIDs, ",") || l.NextCursor != nil {
			t.Errorf("%s: %v (next %v), want %v", q, got, l.NextCursor, wantIDs)
		}
	}
	at := func(tm time.Time) string { return url.QueryEscape(tm.Format(time.RFC3339Nano)) }
	// made[1] <= created_at < made[3]: made[2], made[1], newest first.
	q := "created_gte=" + at(made[1].CreatedAt) + "&created_lt=" + at(made[3].CreatedAt)
	want(q, made[2].ID, made[1].ID)
	_, res := list(q)
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("a created range made %d DynamoDB requests, want 3 (key, GSI3 Query, BatchGetItem)", n)
	}
	// A range in Dhaka time (+06:00) is the same instant.
	want("created_gte="+at(made[3].CreatedAt.In(time.FixedZone("BDT", 6*3600))), linked.ID, made[3].ID)
	want("created_lt="+at(made[1].CreatedAt), made[0].ID)
	want("source=invoices", linked.ID)
	want("source=payment-links")
	want("source=standalone", made[3].ID, made[2].ID, made[1].ID, made[0].ID)
	want("reference=order-1", made[3].ID, made[1].ID)
	want("reference=order-1&created_lt="+at(made[3].CreatedAt), made[1].ID)
	want("reference=INV-7&source=invoices", linked.ID)

	// Paging a range: the cursor stays inside it; a cursor outside the range is 422.
	l, _ := list(q + "&limit=1")
	if len(l.Items) != 1 || l.NextCursor == nil || l.Items[0].ID != made[2].ID {
		t.Fatalf("range page 1: %+v", l)
	}
	l, res = list(q + "&limit=1&cursor=" + *l.NextCursor)
	if len(l.Items) != 1 || l.Items[0].ID != made[1].ID {
		t.Fatalf("range page 2: %+v", l)
	}
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("a range page with a cursor made %d DynamoDB requests, want 4", n)
	}
	apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents?"+q+"&cursor="+linked.ID, a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")

	for _, bad := range []string{"created_gte=yesterday", "created_lt=2026-13-01T00:00:00Z", "source=invoice", "reference=",
		"created_lt=" + at(made[0].CreatedAt) + "&created_gte=" + at(made[1].CreatedAt)} {
		v := apitest.Envelope(t, a.Do(t, "GET", "/v1/payment-intents?"+bad, a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")
		name := strings.SplitN(bad, "=", 2)[0]
		if strings.Contains(bad, "&") {
			name = "created_lt"
		}
		if !strings.Contains(v, "query."+name) {
			t.Errorf("%s: %s", bad, v)
		}
	}

	// A locked intent shows its route and the payer masked.
	pay(t, a, made[0].PaymentURL, "approve")
	res = a.Do(t, "GET", "/v1/payment-intents/"+made[0].ID, a.Creds.ReadonlyKey, "")
	var got struct {
		Status string `json:"status"`
		Lock   *struct {
			Route       string    `json:"route"`
			PayerMasked string    `json:"payer_masked"`
			At          time.Time `json:"at"`
		} `json:"lock"`
	}
	if err := json.Unmarshal(res.Body, &got); err != nil || got.Lock == nil || got.Lock.Route != "bkash" ||
		got.Lock.PayerMasked != "017•••••678" || got.Lock.At.IsZero() || strings.Contains(string(res.Body), "01712345678") {
		t.Errorf("locked intent: %s", res.Body)
	}
}
