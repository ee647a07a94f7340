package integration_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/document/boundcases"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

func start(t *testing.T) *localapi.TestAPI {
	t.Helper()
	return localapi.StartTestAPI(t, localapi.Options{})
}

var keySeq atomic.Int64

// idemKey returns a fresh Idempotency-Key.
func idemKey() string { return fmt.Sprintf("test-key-%012d", keySeq.Add(1)) }

func docs(a *localapi.TestAPI, kind string) string {
	return "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/" + kind
}

type record struct {
	ID          string          `json:"id"`
	WorkspaceID string          `json:"workspace_id"`
	Environment string          `json:"environment"`
	Kind        string          `json:"kind"`
	Reference   string          `json:"reference"`
	Status      string          `json:"status"`
	Version     int64           `json:"version"`
	Body        json.RawMessage `json:"body"`
	AmountMinor *int64          `json:"amount_minor"`
	PaidMinor   *int64          `json:"paid_minor"`
	CustomerID  *string         `json:"customer_id"`
	PublicToken string          `json:"public_token"`
	History     []struct {
		Version int64  `json:"version"`
		Status  string `json:"status"`
		Action  string `json:"action"`
	} `json:"history"`
	Payments []any `json:"payments"`
}

type listResult struct {
	Items      []record       `json:"items"`
	NextCursor *string        `json:"next_cursor"`
	Delivery   []any          `json:"delivery"`
	Activity   map[string]any `json:"activity"`
}

func decode[T any](t *testing.T, res *localapi.Result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Body, err)
	}
	return v
}

// create posts a document and requires 201.
func create(t *testing.T, a *localapi.TestAPI, kind, body string) record {
	t.Helper()
	res := a.Do(t, "POST", docs(a, kind)+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
	if res.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
	}
	return decode[record](t, res)
}

// Every bound of the body, one passing and one failing value at each edge, over real HTTP.
func TestBodyBoundsOverHTTP(t *testing.T) {
	t.Parallel()
	a := start(t)
	customer := create(t, a, "customers", `{"reference": "cust-for-bounds"}`)
	kinds := []string{"customers", "invoices", "payment-links"}
	for _, c := range boundCases {
		ks := c.Kinds
		if ks == nil {
			ks = kinds
		}
		for _, kind := range ks {
			valid := strings.ReplaceAll(c.Valid, boundcases.BoundsCustomerID, customer.ID)
			invalid := strings.ReplaceAll(c.Invalid, boundcases.BoundsCustomerID, customer.ID)
			res := a.Do(t, "POST", docs(a, kind)+"?environment=sandbox", a.Creds.SandboxKey, valid, "Idempotency-Key", idemKey())
			if res.Status != http.StatusCreated {
				t.Errorf("%s (%s): valid body refused: %d %s\n%s", c.Name, kind, res.Status, res.Body, valid)
				continue
			}
			res = a.Do(t, "POST", docs(a, kind)+"?environment=sandbox", a.Creds.SandboxKey, invalid, "Idempotency-Key", idemKey())
			if res.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s (%s): invalid body: %d %s\n%s", c.Name, kind, res.Status, res.Body, invalid)
				continue
			}
			msg := apitest.Envelope(t, res, http.StatusUnprocessableEntity, "VALIDATION_FAILED")
			if !strings.Contains(msg, c.Path+": ") || !strings.Contains(msg, c.Rule) {
				t.Errorf("%s (%s): message %q should name %s and %q", c.Name, kind, msg, c.Path, c.Rule)
			}
		}
	}
}

func TestCreateRecordAndIdempotency(t *testing.T) {
	t.Parallel()
	a := start(t)
	url := docs(a, "customers") + "?environment=sandbox"
	body := `{"reference": "C-1", "name": "Rahim Uddin", "email": "rahim@shop.com.bd", "tags": ["vip"]}`
	key := idemKey()
	first := a.Do(t, "POST", url, a.Creds.SandboxKey, body, "Idempotency-Key", key)
	if first.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	rec := decode[record](t, first)
	if rec.WorkspaceID != a.Creds.WorkspaceID || rec.Environment != "sandbox" || rec.Kind != "customers" ||
		rec.Reference != "C-1" || rec.Status != "active" || rec.Version != 1 || rec.PaidMinor == nil || *rec.PaidMinor != 0 ||
		rec.AmountMinor != nil || rec.CustomerID != nil || rec.Payments == nil || len(rec.Payments) != 0 ||
		len(rec.History) != 1 || rec.History[0].Version != 1 || rec.History[0].Status != "active" {
		t.Fatalf("record %s", first.Body)
	}
	if got := apitest.DDBRequests(t, a, first); got != 3 {
		t.Errorf("create made %d DynamoDB requests, want 3 (key, idempotency PutItem, document PutItem)", got)
	}
	// Same key, same body re-serialised: the same 201.
	again := a.Do(t, "POST", url, a.Creds.SandboxKey,
		`{"tags":["vip"],"email":"rahim@shop.com.bd","name":"Rahim Uddin","reference":"C-1"}`, "Idempotency-Key", key)
	if again.Status != http.StatusCreated || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s (first %s)", again.Status, again.Body, first.Body)
	}
	apitest.Envelope(t, a.Do(t, "POST", url, a.Creds.SandboxKey, `{"reference": "C-2"}`, "Idempotency-Key", key), 409, "IDEMPOTENCY_KEY_REUSED")
	apitest.Envelope(t, a.Do(t, "POST", url, a.Creds.SandboxKey, body), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "POST", url, a.Creds.SandboxKey, body, "Idempotency-Key", "short"), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "POST", url, a.Creds.SandboxKey, `{"reference": "C-3"`, "Idempotency-Key", idemKey()), 400, "MALFORMED_REQUEST")
	list := decode[listResult](t, a.Do(t, "GET", url, a.Creds.SandboxKey, ""))
	if len(list.Items) != 1 {
		t.Fatalf("%d customers after one create and its replays", len(list.Items))
	}

	// Concurrent creates with one key make one document.
	key = idemKey()
	var wg sync.WaitGroup
	ids := make([]string, 20)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.Do(t, "POST", url, a.Creds.SandboxKey, `{"reference": "C-race"}`, "Idempotency-Key", key)
			if res.Status == http.StatusCreated {
				ids[i] = decode[record](t, res).ID
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id == "" || id != ids[0] {
			t.Fatalf("concurrent creates with one key: ids %v", ids)
		}
	}
	list = decode[listResult](t, a.Do(t, "GET", url+"&q=c-race", a.Creds.SandboxKey, ""))
	if len(list.Items) != 1 {
		t.Fatalf("%d documents from 20 concurrent creates with one key", len(list.Items))
	}
}

func TestEnvironmentScopesAndIsolation(t *testing.T) {
	t.Parallel()
	a := start(t)
	rec := create(t, a, "customers", `{"reference": "iso-1"}`)
	one := docs(a, "customers") + "/" + rec.ID
	apitest.Envelope(t, a.Do(t, "GET", one, a.Creds.SandboxKey, ""), 400, "INVALID_ENVIRONMENT")
	apitest.Envelope(t, a.Do(t, "GET", one+"?environment=prod", a.Creds.SandboxKey, ""), 400, "INVALID_ENVIRONMENT")
	// A sandbox key in the live environment, a live key in sandbox.
	apitest.Envelope(t, a.Do(t, "GET", one+"?environment=live", a.Creds.SandboxKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "GET", one+"?environment=sandbox", a.Creds.LiveKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	// The live environment has its own documents: the sandbox one is not there.
	apitest.Envelope(t, a.Do(t, "GET", one+"?environment=live", a.Creds.LiveKey, ""), 404, "NOT_FOUND")
	// Read-only key: read yes, write no.
	if res := a.Do(t, "GET", one+"?environment=sandbox", a.Creds.ReadonlyKey, ""); res.Status != 200 {
		t.Fatalf("read-only get: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, a.Do(t, "POST", docs(a, "customers")+"?environment=sandbox", a.Creds.ReadonlyKey, `{"reference":"x"}`, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "PATCH", one+"?environment=sandbox", a.Creds.ReadonlyKey, `{"name":"x"}`, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")

	// Another workspace: its key on our workspace's path, and on its own path for our id.
	op := &operator.Operator{Store: a.Store}
	ws, err := op.CreateWorkspace(t.Context(), "", "Other")
	if err != nil {
		t.Fatal(err)
	}
	other, err := op.IssueKey(t.Context(), ws.ID, auth.Sandbox, []auth.Scope{auth.DocumentsRead, auth.DocumentsWrite}, "other")
	if err != nil {
		t.Fatal(err)
	}
	m1 := apitest.Envelope(t, a.Do(t, "GET", one+"?environment=sandbox", other.Plaintext, ""), 404, "NOT_FOUND")
	m2 := apitest.Envelope(t, a.Do(t, "GET", docs(a, "customers")+"?environment=sandbox", other.Plaintext, ""), 404, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "GET", "/v1/workspaces/"+ws.ID+"/documents/customers/"+rec.ID+"?environment=sandbox", other.Plaintext, ""), 404, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "GET", "/v1/workspaces/0190a8d2-0000-7000-8000-000000000000/documents/customers?environment=sandbox", a.Creds.SandboxKey, ""), 404, "NOT_FOUND")
	if m1 != m2 {
		t.Errorf("a foreign workspace path answers differently for a list and a get: %q vs %q", m1, m2)
	}
	list := decode[listResult](t, a.Do(t, "GET", "/v1/workspaces/"+ws.ID+"/documents/customers?environment=sandbox", other.Plaintext, ""))
	if len(list.Items) != 0 {
		t.Fatalf("another workspace lists %d of our documents", len(list.Items))
	}
	// Not deployed commands and unknown ids.
	apitest.Envelope(t, a.Do(t, "POST", docs(a, "invoices")+"/"+rec.ID+"/send?environment=sandbox", a.Creds.SandboxKey, ""), 404, "NOT_DEPLOYED")
	apitest.Envelope(t, a.Do(t, "POST", docs(a, "customers")+"/commands/export?environment=sandbox", a.Creds.SandboxKey, ""), 404, "NOT_DEPLOYED")
	apitest.Envelope(t, a.Do(t, "GET", docs(a, "customers")+"/not-a-uuid?environment=sandbox", a.Creds.SandboxKey, ""), 404, "NOT_FOUND")
	apitest.Envelope(t, a.Do(t, "GET", docs(a, "invoices")+"/"+rec.ID+"?environment=sandbox", a.Creds.SandboxKey, ""), 404, "NOT_FOUND")
}

func TestEditMergePatchVersionsAndReplay(t *testing.T) {
	t.Parallel()
	a := start(t)
	rec := create(t, a, "customers", `{"reference": "E-1", "name": "Karim", "phone": "+8801712345678", "tags": ["a", "b"]}`)
	url := docs(a, "customers") + "/" + rec.ID + "?environment=sandbox"
	key := idemKey()
	patch := `{"name": "Karim Ahmed", "phone": null, "tags": ["c"], "expected_version": 1}`
	res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, patch, "Idempotency-Key", key)
	if res.Status != 200 {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	got := decode[record](t, res)
	var body map[string]any
	_ = json.Unmarshal(got.Body, &body)
	if got.Version != 2 || body["name"] != "Karim Ahmed" || body["phone"] != nil || fmt.Sprint(body["tags"]) != "[c]" ||
		body["reference"] != "E-1" || body["expected_version"] != nil {
		t.Fatalf("patched record %s", res.Body)
	}
	if len(got.History) != 2 || got.History[1].Version != 2 || got.History[1].Action != "edit" {
		t.Fatalf("history %+v", got.History)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("edit made %d DynamoDB requests, want 3 (key, GetItem, UpdateItem)", n)
	}
	// Replay: same key and patch → same result, no new version.
	res = a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"expected_version":1,"tags":["c"],"phone":null,"name":"Karim Ahmed"}`, "Idempotency-Key", key)
	if res.Status != 200 || decode[record](t, res).Version != 2 || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replayed patch: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"name": "Other"}`, "Idempotency-Key", key), 409, "IDEMPOTENCY_KEY_REUSED")
	// Stale expected_version.
	apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"name": "X", "expected_version": 1}`, "Idempotency-Key", idemKey()), 409, "VERSION_CONFLICT")
	// The merged body is validated in full; removing the required reference fails.
	msg := apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"reference": null}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(msg, "body.reference") {
		t.Errorf("message %q", msg)
	}
	msg = apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"tags": ["`+strings.Repeat("t", 41)+`"]}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(msg, "body.tags[0]") {
		t.Errorf("message %q", msg)
	}
	apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"name": "X"}`), 400, "MALFORMED_REQUEST")
	apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `[1]`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	// Without expected_version the edit applies to the current version.
	res = a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"notes": "line one\nline two"}`, "Idempotency-Key", idemKey())
	if res.Status != 200 || decode[record](t, res).Version != 3 {
		t.Fatalf("patch without expected_version: %d %s", res.Status, res.Body)
	}
	// The first edit's key moves from the document to its own item (one BatchWriteItem)...
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("second edit made %d DynamoDB requests, want 4 (key, GetItem, BatchWriteItem, UpdateItem)", n)
	}
	// ...so later edits also look their key up there while such a key is retained.
	res = a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"notes": "line three"}`, "Idempotency-Key", idemKey())
	if n := apitest.DDBRequests(t, a, res); res.Status != 200 || n != 5 {
		t.Errorf("third edit: %d, %d DynamoDB requests, want 200 and 5 (key, GetItem, edit-key GetItem, BatchWriteItem, UpdateItem)", res.Status, n)
	}
	// The first key, now in its own item, is still a replay.
	res = a.Do(t, "PATCH", url, a.Creds.SandboxKey, patch, "Idempotency-Key", key)
	if res.Status != 200 || decode[record](t, res).Version != 4 || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay of a moved-out key: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("a replay made %d DynamoDB requests, want 3 (key, GetItem, edit-key GetItem)", n)
	}
}

func TestConcurrentEditsWithOneExpectedVersion(t *testing.T) {
	t.Parallel()
	a := start(t)
	rec := create(t, a, "customers", `{"reference": "race-edit"}`)
	url := docs(a, "customers") + "/" + rec.ID + "?environment=sandbox"
	const n = 50
	statuses := make([]int, n)
	codes := make([]string, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, fmt.Sprintf(`{"name": "writer %d", "expected_version": 1}`, i), "Idempotency-Key", idemKey())
			statuses[i] = res.Status
			if res.Status != 200 {
				var env struct {
					Error struct{ Code string } `json:"error"`
				}
				_ = json.Unmarshal(res.Body, &env)
				codes[i] = env.Error.Code
			}
		}()
	}
	close(gate)
	wg.Wait()
	won := 0
	for i, s := range statuses {
		switch {
		case s == 200:
			won++
		case s == 409 && codes[i] == "VERSION_CONFLICT":
		default:
			t.Errorf("writer %d: %d %s", i, s, codes[i])
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d concurrent edits with expected_version 1 won, want exactly 1", won, n)
	}
	final := decode[listResult](t, a.Do(t, "GET", url, a.Creds.SandboxKey, "")).Items[0]
	if final.Version != 2 || len(final.History) != 2 {
		t.Fatalf("final version %d with %d history entries, want 2 and 2", final.Version, len(final.History))
	}
}

func TestInvoicesAmountsCustomersAndLifecycle(t *testing.T) {
	t.Parallel()
	a := start(t)
	cust := create(t, a, "customers", `{"reference": "cust-1", "name": "Rahim"}`)
	invURL := docs(a, "invoices") + "?environment=sandbox"
	items := `"items": [{"title": "Shirt", "quantity": 2, "unit_amount_minor": 50000}, {"title": "Cap", "quantity": 1, "unit_amount_minor": 20000}]`
	inv := create(t, a, "invoices", `{"reference": "INV-1", "customer_id": "`+strings.ToUpper(cust.ID)+`", `+items+`, "tax_minor": 6000, "shipping_minor": 5000, "fee_minor": 1000, "discount_minor": 2000}`)
	if inv.Status != "draft" || inv.AmountMinor == nil || *inv.AmountMinor != 130000 || inv.CustomerID == nil || *inv.CustomerID != cust.ID || len(inv.PublicToken) != 43 {
		t.Fatalf("invoice %+v", inv)
	}
	msg := apitest.Envelope(t, a.Do(t, "POST", invURL, a.Creds.SandboxKey, `{"reference": "INV-2", `+items+`, "amount_minor": 125000}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(msg, "body.amount_minor") || !strings.Contains(msg, "120000") {
		t.Errorf("disagreeing amount: %q", msg)
	}
	// A client amount that agrees is accepted.
	if ok := create(t, a, "invoices", `{"reference": "INV-2b", `+items+`, "amount_minor": 120000}`); *ok.AmountMinor != 120000 {
		t.Fatalf("agreeing amount: %+v", ok)
	}
	msg = apitest.Envelope(t, a.Do(t, "POST", invURL, a.Creds.SandboxKey, `{"reference": "INV-3", "customer_id": "0190a8d2-0000-7000-8000-000000000000"}`, "Idempotency-Key", idemKey()), 422, "VALIDATION_FAILED")
	if !strings.Contains(msg, "body.customer_id") {
		t.Errorf("unknown customer: %q", msg)
	}
	// A customer's get carries its invoices in activity.invoices.
	inv2 := create(t, a, "invoices", `{"reference": "INV-4", "customer_id": "`+cust.ID+`"}`)
	got := decode[listResult](t, a.Do(t, "GET", docs(a, "customers")+"/"+cust.ID+"?environment=sandbox", a.Creds.SandboxKey, ""))
	invs, _ := got.Activity["invoices"].([]any)
	if len(got.Items) != 1 || got.Items[0].ID != cust.ID || len(invs) != 2 || got.Delivery == nil {
		t.Fatalf("customer get: %+v", got)
	}
	if first, _ := invs[0].(map[string]any); first["id"] != inv2.ID {
		t.Errorf("activity.invoices is not newest first: %v", invs)
	}
	got = decode[listResult](t, a.Do(t, "GET", docs(a, "customers")+"/"+cust.ID+"?environment=sandbox&limit=1", a.Creds.SandboxKey, ""))
	if invs, _ = got.Activity["invoices"].([]any); len(invs) != 1 || got.NextCursor == nil {
		t.Fatalf("activity page of 1: %+v", got)
	}
	got = decode[listResult](t, a.Do(t, "GET", docs(a, "customers")+"/"+cust.ID+"?environment=sandbox&limit=1&cursor="+*got.NextCursor, a.Creds.SandboxKey, ""))
	if invs, _ = got.Activity["invoices"].([]any); len(invs) != 1 || invs[0].(map[string]any)["id"] != inv.ID || got.NextCursor != nil {
		t.Fatalf("activity second page: %+v", got)
	}

	// Lifecycle: draft → issued → cancelled; wrong states are 409.
	one := docs(a, "invoices") + "/" + inv.ID
	do := func(action string) *localapi.Result {
		return a.Do(t, "POST", one+"/"+action+"?environment=sandbox", a.Creds.SandboxKey, "")
	}
	if n := apitest.DDBRequests(t, a, a.Do(t, "GET", one+"?environment=sandbox", a.Creds.SandboxKey, "")); n != 2 {
		t.Errorf("invoice get made %d DynamoDB requests, want 2 (key, GetItem)", n)
	}
	if n := apitest.DDBRequests(t, a, a.Do(t, "GET", docs(a, "customers")+"/"+cust.ID+"?environment=sandbox", a.Creds.SandboxKey, "")); n != 3 {
		t.Errorf("customer get made %d DynamoDB requests, want 3 (key, GetItem, invoices Query)", n)
	}
	res := do("issue")
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("issue made %d DynamoDB requests, want 3 (key, GetItem, UpdateItem)", n)
	}
	if res.Status != 200 || decode[record](t, res).Status != "issued" || decode[record](t, res).Version != 2 {
		t.Fatalf("issue: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, do("issue"), 409, "STATE_CONFLICT")
	apitest.Envelope(t, a.Do(t, "PATCH", one+"?environment=sandbox", a.Creds.SandboxKey, `{"notes": "x"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	res = do("cancel")
	rec := decode[record](t, res)
	if res.Status != 200 || rec.Status != "cancelled" || rec.Version != 3 || len(rec.History) != 3 || rec.History[2].Action != "cancel" {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, do("cancel"), 409, "STATE_CONFLICT")
	apitest.Envelope(t, a.Do(t, "POST", one+"/issue?environment=sandbox", a.Creds.SandboxKey, `{"expected_version": 1}`), 409, "VERSION_CONFLICT")

	// Payment links: draft → active → archived; archive of a draft is 409; archived is frozen.
	link := create(t, a, "payment-links", `{"reference": "LINK-1", "amount_minor": 50000, "max_uses": 10}`)
	lone := docs(a, "payment-links") + "/" + link.ID
	apitest.Envelope(t, a.Do(t, "POST", lone+"/archive?environment=sandbox", a.Creds.SandboxKey, ""), 409, "STATE_CONFLICT")
	for _, step := range []struct{ action, status string }{{"publish", "active"}, {"archive", "archived"}} {
		res := a.Do(t, "POST", lone+"/"+step.action+"?environment=sandbox", a.Creds.SandboxKey, "")
		if res.Status != 200 || decode[record](t, res).Status != step.status {
			t.Fatalf("%s: %d %s", step.action, res.Status, res.Body)
		}
	}
	apitest.Envelope(t, a.Do(t, "PATCH", lone+"?environment=sandbox", a.Creds.SandboxKey, `{"name": "x"}`, "Idempotency-Key", idemKey()), 409, "STATE_CONFLICT")
	apitest.Envelope(t, a.Do(t, "POST", lone+"/publish?environment=sandbox", a.Creds.SandboxKey, `{"bogus": 1}`), 422, "VALIDATION_FAILED")
}

// Racing lifecycle commands on one invoice: exactly one wins.
func TestConcurrentTransitions(t *testing.T) {
	t.Parallel()
	a := start(t)
	inv := create(t, a, "invoices", `{"reference": "race-inv"}`)
	one := docs(a, "invoices") + "/" + inv.ID
	const n = 20
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = a.Do(t, "POST", one+"/issue?environment=sandbox", a.Creds.SandboxKey, "").Status
		}()
	}
	wg.Wait()
	if won := slices.Index(statuses, 200); won < 0 || slices.Index(statuses[won+1:], 200) >= 0 {
		t.Fatalf("statuses %v: want exactly one 200", statuses)
	}
	for _, s := range statuses {
		if s != 200 && s != 409 {
			t.Fatalf("statuses %v", statuses)
		}
	}
	final := decode[listResult](t, a.Do(t, "GET", one+"?environment=sandbox", a.Creds.SandboxKey, "")).Items[0]
	if final.Version != 2 || final.Status != "issued" {
		t.Fatalf("final %+v", final)
	}
}

// Cursor walk over 250 records, with and without q: every record exactly once, newest first,
// and filtered pages are full while matches remain.
func TestCursorWalk(t *testing.T) {
	t.Parallel()
	a := start(t)
	const total = 250
	want := map[string]bool{}
	wantQ := map[string]bool{}
	var order []string
	for i := range total {
		name := "Karim"
		if i%3 == 0 {
			name = "RAHIM"
		}
		rec := create(t, a, "customers", fmt.Sprintf(`{"reference": "W-%03d", "name": "%s %03d"}`, i, name, i))
		want[rec.ID] = true
		if name == "RAHIM" {
			wantQ[rec.ID] = true
		}
		order = append([]string{rec.ID}, order...)
	}
	walk := func(q string, limit int) []string {
		var seen []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > total {
				t.Fatal("cursor walk does not end")
			}
			url := docs(a, "customers") + fmt.Sprintf("?environment=sandbox&limit=%d", limit)
			if q != "" {
				url += "&q=" + q
			}
			if cursor != "" {
				url += "&cursor=" + cursor
			}
			res := a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")
			if res.Status != 200 {
				t.Fatalf("list: %d %s", res.Status, res.Body)
			}
			page := decode[listResult](t, res)
			for _, r := range page.Items {
				seen = append(seen, r.ID)
			}
			if page.NextCursor == nil {
				return seen
			}
			if len(page.Items) != limit {
				t.Fatalf("a page with a next_cursor has %d items, want a full page of %d", len(page.Items), limit)
			}
			cursor = *page.NextCursor
		}
	}
	check := func(name string, seen []string, want map[string]bool) {
		got := map[string]bool{}
		for _, id := range seen {
			if got[id] {
				t.Fatalf("%s: %s listed twice", name, id)
			}
			if !want[id] {
				t.Fatalf("%s: %s should not be listed", name, id)
			}
			got[id] = true
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d of %d records listed", name, len(got), len(want))
		}
	}
	all := walk("", 25)
	check("no q", all, want)
	if !slices.Equal(all, order) {
		t.Fatal("list is not newest first")
	}
	check("q=rahim", walk("rahim", 25), wantQ)
	check("q=w-1 (reference)", walk("w-1", 7), func() map[string]bool {
		m := map[string]bool{}
		for i, id := range order {
			if idx := total - 1 - i; idx >= 100 && idx < 200 {
				m[id] = true
			}
		}
		return m
	}())
	// Default page size and request count.
	res := a.Do(t, "GET", docs(a, "customers")+"?environment=sandbox", a.Creds.SandboxKey, "")
	if page := decode[listResult](t, res); len(page.Items) != document.DefaultPageSize || page.NextCursor == nil {
		t.Fatalf("default page: %d items", len(page.Items))
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("a list page made %d DynamoDB requests, want 2 (key, Query)", n)
	}
	for _, bad := range []string{"&limit=0", "&limit=101", "&limit=x", "&cursor=nope", "&q=" + strings.Repeat("q", 129)} {
		apitest.Envelope(t, a.Do(t, "GET", docs(a, "customers")+"?environment=sandbox"+bad, a.Creds.SandboxKey, ""), 422, "VALIDATION_FAILED")
	}
}

// A search reads at most dynamo.SearchQueryBudget Queries per request: with the matches
// spread past that many reads, the first page is short (here two of its matches, then the
// budget ends) with a next_cursor, and following the cursors finds every match exactly once.
func TestSearchReadBudget(t *testing.T) {
	t.Parallel()
	a := start(t)
	perQuery := 100 // a filtered Query reads max(limit+1, 100) items
	// mk creates n customers named name, 8 at a time (their order among themselves is not known).
	mk := func(n int, name string) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				create(t, a, "customers", fmt.Sprintf(`{"reference": "B-%04d", "name": "%s"}`, i, name))
			}()
		}
		wg.Wait()
	}
	// Oldest first: three matches, then enough non-matching customers that the next match
	// lies within the budget and the three oldest beyond it.
	budgetItems := dynamo.SearchQueryBudget * perQuery
	var want []string // newest first
	var old []string  // one at a time: their ids order them
	for i := range 3 {
		old = append(old, create(t, a, "customers", fmt.Sprintf(`{"reference": "B-OLD-%d", "name": "Needle Old"}`, i)).ID)
	}
	mk(budgetItems/2, "Hay")
	mid := create(t, a, "customers", `{"reference": "B-MID", "name": "Needle Mid"}`).ID
	mk(budgetItems/2, "Hay")
	newest := create(t, a, "customers", `{"reference": "B-NEW", "name": "Needle New"}`).ID
	want = append(want, newest, mid)
	want = append(want, old[2], old[1], old[0])

	list := func(limit int, cursor string) (listResult, int) {
		url := docs(a, "customers") + fmt.Sprintf("?environment=sandbox&q=needle&limit=%d", limit)
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		res := a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")
		if res.Status != 200 {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		return decode[listResult](t, res), apitest.DDBRequests(t, a, res)
	}
	for _, limit := range []int{25, 2, 1} {
		var seen []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatalf("limit %d: the cursor walk does not end", limit)
			}
			page, n := list(limit, cursor)
			if n > 1+dynamo.SearchQueryBudget {
				t.Fatalf("limit %d page %d: %d DynamoDB requests, want at most %d (key + %d Queries)",
					limit, pages, n, 1+dynamo.SearchQueryBudget, dynamo.SearchQueryBudget)
			}
			if pages == 0 && limit == 25 && (len(page.Items) != 2 || page.NextCursor == nil) {
				t.Fatalf("first page: %d items, next_cursor %v; want the 2 matches within the budget and a next_cursor",
					len(page.Items), page.NextCursor)
			}
			for _, r := range page.Items {
				seen = append(seen, r.ID)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if !slices.Equal(seen, want) {
			t.Fatalf("limit %d: listed %v, want every match once, newest first: %v", limit, seen, want)
		}
	}
}

// return_url is where a payer is sent after paying a payment link, so a create or an edit
// holds it to a payment's redirect_url rules (urlcheck): https and a public host name, 422
// naming body.return_url and the rule otherwise; http://localhost only on a stack started with
// ALLOW_LOCALHOST_URLS. A body stored before the rule still reads, and an edit that keeps its
// return_url must fix it.
func TestReturnURLFollowsRedirectRules(t *testing.T) {
	t.Parallel()
	a := start(t)
	bad := map[string]string{
		"http://shop.com.bd/thanks":      "must use https",
		"http://localhost:8080/back":     "must use https",
		"https://localhost/back":         "must not point to localhost",
		"https://127.0.0.1/back":         "must not be an IP address",
		"https://[::1]/back":             "must not be an IP address",
		"https://10.0.0.7/back":          "must not be an IP address",
		"https://shop/back":              "must use a fully qualified public host name",
		"https://shop.internal/back":     "must not use a reserved or internal domain",
		"https://user:pw@shop.com.bd/ok": "must not contain credentials",
	}
	refused := func(res *localapi.Result, rule string) {
		t.Helper()
		msg := apitest.Envelope(t, res, http.StatusUnprocessableEntity, "VALIDATION_FAILED")
		if !strings.Contains(msg, "body.return_url: "+rule) {
			t.Errorf("message %q should name body.return_url and %q", msg, rule)
		}
	}
	for _, kind := range []string{"payment-links", "invoices"} {
		for u, rule := range bad {
			res := a.Do(t, "POST", docs(a, kind)+"?environment=sandbox", a.Creds.SandboxKey,
				fmt.Sprintf(`{"reference": "R-1", "amount_minor": 100, "return_url": %q}`, u), "Idempotency-Key", idemKey())
			refused(res, rule)
		}
	}
	link := create(t, a, "payment-links", `{"reference": "R-2", "amount_minor": 100, "return_url": "https://shop.com.bd/thanks?order=1"}`)
	one := docs(a, "payment-links") + "/" + link.ID + "?environment=sandbox"
	for u, rule := range bad {
		refused(a.Do(t, "PATCH", one, a.Creds.SandboxKey, fmt.Sprintf(`{"return_url": %q}`, u), "Idempotency-Key", idemKey()), rule)
	}
	if got := decode[listResult](t, a.Do(t, "GET", one, a.Creds.SandboxKey, "")).Items[0]; got.Version != 1 {
		t.Fatalf("a refused edit made version %d", got.Version)
	}

	// A link stored before the rule (its body written directly) still reads; an edit of
	// another member validates the merged body, so it names the stored return_url.
	_, err := a.Store.DB.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(a.Store.Table),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "DOC#" + a.Creds.WorkspaceID + "#sandbox#payment-links"},
			"sk": &types.AttributeValueMemberS{Value: link.ID},
		},
		UpdateExpression:          aws.String("SET body = :b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberS{Value: `{"reference":"R-2","amount_minor":100,"return_url":"http://shop.com.bd/old"}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Do(t, "GET", one, a.Creds.SandboxKey, ""); res.Status != 200 {
		t.Fatalf("a stored link with an http return_url does not read: %d %s", res.Status, res.Body)
	}
	refused(a.Do(t, "PATCH", one, a.Creds.SandboxKey, `{"name": "New name"}`, "Idempotency-Key", idemKey()), "must use https")
	res := a.Do(t, "PATCH", one, a.Creds.SandboxKey, `{"name": "New name", "return_url": "https://shop.com.bd/new"}`, "Idempotency-Key", idemKey())
	if res.Status != 200 {
		t.Fatalf("an edit that fixes return_url: %d %s", res.Status, res.Body)
	}

	// The local stack (ALLOW_LOCALHOST_URLS=true) also takes http://localhost, as for redirect_url.
	dev := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	for _, u := range []string{"http://localhost:8080/back", "http://127.0.0.1:3000/back", "https://shop.com.bd/thanks"} {
		res := dev.Do(t, "POST", docs(dev, "payment-links")+"?environment=sandbox", dev.Creds.SandboxKey,
			fmt.Sprintf(`{"reference": "R-3", "amount_minor": 100, "return_url": %q}`, u), "Idempotency-Key", idemKey())
		if res.Status != http.StatusCreated {
			t.Errorf("local stack, return_url %s: %d %s", u, res.Status, res.Body)
		}
	}
	refused(dev.Do(t, "POST", docs(dev, "payment-links")+"?environment=sandbox", dev.Creds.SandboxKey,
		`{"reference": "R-4", "amount_minor": 100, "return_url": "http://shop.com.bd/thanks"}`, "Idempotency-Key", idemKey()), "must use https")
}
