package localapi_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

// A hung DynamoDB (dynalite stopped with SIGSTOP: connections are accepted, nothing answers)
// gives every operation a 503 envelope, retryable, with Retry-After, before the function's
// deadline — not the gateway's bare timeout — and the service recovers when it comes back:
// the same Idempotency-Key then creates one payment (and one payment intent), replayed, never
// two.
//
// The key cache is on (as in production) and the payment-create and payment-intent functions
// read the key before the pause, so their requests get past authentication and hang in their
// own reads and writes (SERVICE_UNAVAILABLE), while the functions that never saw the key hang
// in the key lookup (AUTH_SERVICE_UNAVAILABLE): both paths are covered.
func TestHungDynamoAnswers503BeforeTheDeadline(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"KEY_CACHE_TTL_MS": "60000"}})
	key := a.Creds.SandboxKey
	first := a.Do(t, "POST", "/v1/payment/create", key, `{"amount": 100, "reference": "fault-1"}`, "Idempotency-Key", "fault-key-0000000001")
	if first.Status != 201 {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	var created struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(first.Body, &created); err != nil {
		t.Fatal(err)
	}
	page := created.PaymentURL[strings.Index(created.PaymentURL, "/v1/"):]
	// A payment intent to cancel while DynamoDB hangs; the cancel function reads the key once
	// (a cancel of an intent that does not exist) so that its cancel gets past authentication.
	intentRes := a.Do(t, "POST", "/v1/payment-intents", key, `{"amount": 120, "reference": "fault-intent-1"}`, "Idempotency-Key", "fault-intent-key-00000001")
	if intentRes.Status != 201 {
		t.Fatalf("create intent: %d %s", intentRes.Status, intentRes.Body)
	}
	var pending struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(intentRes.Body, &pending); err != nil || pending.ID == "" {
		t.Fatalf("create intent: %v %s", err, intentRes.Body)
	}
	if r := a.Do(t, "POST", "/v1/payment-intents/00000000-0000-4000-8000-000000000000/cancel", key, ""); r.Status != 404 {
		t.Fatalf("cancel of no intent: %d %s", r.Status, r.Body)
	}
	const intentBody = `{"amount": 300, "reference": "fault-intent-2"}`
	const intentKey = "fault-intent-key-00000002"

	if err := a.Stack.Dynamo.Pause(); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := a.Stack.Dynamo.Resume(); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(resume) // before the stack stops, even if the test fails

	// The template gives HTTP functions 10 s; the request deadline falls 1 s before that.
	const deadline = 9 * time.Second
	calls := []struct {
		name, method, path, key, body string
		headers                       []string
		code                          string // the one code allowed ("": either 503 code)
	}{
		{"create", "POST", "/v1/payment/create", key, `{"amount": 250, "reference": "fault-2"}`, []string{"Idempotency-Key", "fault-key-0000000002"}, "SERVICE_UNAVAILABLE"},
		{"verify", "POST", "/v1/payment/verify", key, `{"invoice_id": "` + created.InvoiceID + `"}`, nil, ""},
		{"checkout page", "GET", page, "", "", nil, ""},
		{"documents list", "GET", "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/invoices?environment=sandbox", key, "", nil, ""},
		{"readyz", "GET", "/readyz", "", "", nil, ""},
		// The payment intents, past authentication (their functions read the key above).
		{"intent create", "POST", "/v1/payment-intents", key, intentBody, []string{"Idempotency-Key", intentKey}, "SERVICE_UNAVAILABLE"},
		{"intent list", "GET", "/v1/payment-intents", key, "", nil, "SERVICE_UNAVAILABLE"},
		{"intent cancel", "POST", "/v1/payment-intents/" + pending.ID + "/cancel", key, "", nil, "SERVICE_UNAVAILABLE"},
	}
	results := make([]*localapi.Result, len(calls))
	took := make([]time.Duration, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			results[i] = a.Do(t, c.method, c.path, c.key, c.body, c.headers...)
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	for i, c := range calls {
		r := results[i]
		if r.Status != http.StatusServiceUnavailable {
			t.Errorf("%s with DynamoDB hung: %d %s, want 503", c.name, r.Status, r.Body)
			continue
		}
		var env struct {
			Error struct {
				Code      string `json:"code"`
				Retryable bool   `json:"retryable"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &env); err != nil || !env.Error.Retryable || r.Header.Get("Retry-After") == "" {
			t.Errorf("%s: %s (Retry-After %q), want a retryable envelope with Retry-After", c.name, r.Body, r.Header.Get("Retry-After"))
		}
		apitest.Envelope(t, r, http.StatusServiceUnavailable, env.Error.Code)
		if env.Error.Code != "SERVICE_UNAVAILABLE" && env.Error.Code != "AUTH_SERVICE_UNAVAILABLE" || c.code != "" && env.Error.Code != c.code {
			t.Errorf("%s: code %s, want %s", c.name, env.Error.Code, cmp.Or(c.code, "SERVICE_UNAVAILABLE or AUTH_SERVICE_UNAVAILABLE"))
		}
		if took[i] >= deadline {
			t.Errorf("%s answered after %s, not before the %s request deadline", c.name, took[i], deadline)
		}
		t.Logf("%-15s 503 %s after %s", c.name, env.Error.Code, took[i].Round(10*time.Millisecond))
	}

	resume()
	// Recovery: the same Idempotency-Key creates the payment once and then replays it.
	again := a.Do(t, "POST", "/v1/payment/create", key, `{"amount": 250, "reference": "fault-2"}`, "Idempotency-Key", "fault-key-0000000002")
	replay := a.Do(t, "POST", "/v1/payment/create", key, `{"amount": 250, "reference": "fault-2"}`, "Idempotency-Key", "fault-key-0000000002")
	if again.Status != 201 || replay.Status != 201 || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after recovery: %d %s / %d %s", again.Status, again.Body, replay.Status, replay.Body)
	}
	if string(again.Body) != string(replay.Body) {
		t.Fatalf("the same key gave two answers: %s and %s", again.Body, replay.Body)
	}
	if v := a.Do(t, "POST", "/v1/payment/verify", key, `{"invoice_id": "`+created.InvoiceID+`"}`); v.Status != 200 {
		t.Fatalf("verify after recovery: %d %s", v.Status, v.Body)
	}
	// The intent create with the same key: 201 (a replay already if the create sent during the
	// pause reached dynalite when it resumed), then a replay of the same intent.
	intentAgain := a.Do(t, "POST", "/v1/payment-intents", key, intentBody, "Idempotency-Key", intentKey)
	intentReplay := a.Do(t, "POST", "/v1/payment-intents", key, intentBody, "Idempotency-Key", intentKey)
	if intentAgain.Status != 201 || intentReplay.Status != 201 || intentReplay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("intent create after recovery: %d %s / %d %s", intentAgain.Status, intentAgain.Body, intentReplay.Status, intentReplay.Body)
	}
	var again1, again2 struct {
		ID          string `json:"id"`
		AmountMinor int64  `json:"amount_minor"`
		Reference   string `json:"reference"`
	}
	if json.Unmarshal(intentAgain.Body, &again1) != nil || json.Unmarshal(intentReplay.Body, &again2) != nil ||
		again1.ID == "" || again1 != again2 || again1.AmountMinor != 30000 || again1.Reference != "fault-intent-2" {
		t.Fatalf("the same key gave two intents or a wrong one: %s and %s", intentAgain.Body, intentReplay.Body)
	}
	t.Logf("after recovery: payment create Idempotent-Replayed %q, intent create %q (a replay: the write sent during the pause reached dynalite when it resumed)",
		again.Header.Get("Idempotent-Replayed"), intentAgain.Header.Get("Idempotent-Replayed"))
	// Exactly one intent carries the request: the list (every payment is an intent) holds it
	// once, and besides it only what the test created before and after the pause.
	list := a.Do(t, "GET", "/v1/payment-intents?limit=100", key, "")
	var page1 struct {
		Items []struct {
			ID        string `json:"id"`
			Reference string `json:"reference"`
			Status    string `json:"status"`
		} `json:"items"`
		NextCursor *string `json:"next_cursor"`
	}
	if list.Status != 200 || json.Unmarshal(list.Body, &page1) != nil || page1.NextCursor != nil {
		t.Fatalf("intent list after recovery: %d %s", list.Status, list.Body)
	}
	refs := map[string][]string{}
	for _, it := range page1.Items {
		refs[it.Reference] = append(refs[it.Reference], it.ID)
	}
	if len(refs["fault-intent-2"]) != 1 || refs["fault-intent-2"][0] != again1.ID || len(refs["fault-intent-1"]) != 1 ||
		len(refs["fault-1"]) != 1 || len(refs["fault-2"]) != 1 || len(page1.Items) != 4 {
		t.Fatalf("after recovery the list holds %v, want one intent each for fault-1, fault-2, fault-intent-1 and fault-intent-2", refs)
	}
	// The cancel that answered 503 changed nothing; retried, it cancels.
	if g := a.Do(t, "GET", "/v1/payment-intents/"+pending.ID, key, ""); g.Status != 200 || !strings.Contains(string(g.Body), `"status":"PENDING"`) {
		t.Fatalf("intent after the failed cancel: %d %s", g.Status, g.Body)
	}
	cancel := a.Do(t, "POST", "/v1/payment-intents/"+pending.ID+"/cancel", key, "")
	if cancel.Status != 200 || json.Unmarshal(cancel.Body, &pending) != nil || pending.Status != "CANCELLED" {
		t.Fatalf("cancel after recovery: %d %s", cancel.Status, cancel.Body)
	}
	if r := a.Do(t, "GET", "/readyz", "", ""); r.Status != 200 {
		// readyz caches its answer for 5 s; a stale 503 is allowed, a wrong one is not.
		apitest.Envelope(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	}
}
