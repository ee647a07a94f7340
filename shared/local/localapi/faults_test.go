package localapi_test

import (
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
// the same Idempotency-Key then creates one payment, replayed, never two.
func TestHungDynamoAnswers503BeforeTheDeadline(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
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
	}{
		{"create", "POST", "/v1/payment/create", key, `{"amount": 250, "reference": "fault-2"}`, []string{"Idempotency-Key", "fault-key-0000000002"}},
		{"verify", "POST", "/v1/payment/verify", key, `{"invoice_id": "` + created.InvoiceID + `"}`, nil},
		{"checkout page", "GET", page, "", "", nil},
		{"documents list", "GET", "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/invoices?environment=sandbox", key, "", nil},
		{"readyz", "GET", "/readyz", "", "", nil},
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
		if env.Error.Code != "SERVICE_UNAVAILABLE" && env.Error.Code != "AUTH_SERVICE_UNAVAILABLE" {
			t.Errorf("%s: code %s", c.name, env.Error.Code)
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
	if r := a.Do(t, "GET", "/readyz", "", ""); r.Status != 200 {
		// readyz caches its answer for 5 s; a stale 503 is allowed, a wrong one is not.
		apitest.Envelope(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	}
}
