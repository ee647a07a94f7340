package localapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/rie"
)

// hungCreates sends n payment creates at once to the emulated API while DynamoDB hangs
// (dynalite SIGSTOPped) and returns the answers and how many the create function's pool
// throttled meanwhile.
func hungCreates(t *testing.T, ro rie.Options, n int) ([]*localapi.Result, int64) {
	t.Helper()
	a := localapi.StartTestAPI(t, localapi.Options{Emulator: &ro, Env: map[string]string{"KEY_CACHE_TTL_MS": "60000"}})
	key := a.Creds.SandboxKey
	warm := a.Do(t, "POST", "/v1/payment/create", key, `{"amount": 100, "reference": "hang-0"}`, "Idempotency-Key", "hang-key-00000000")
	if warm.Status != 201 {
		t.Fatalf("create: %d %s", warm.Status, warm.Body)
	}
	pool := a.Emulated.Pools["PaymentCreateFunction"]
	before := pool.Throttled()
	if err := a.Stack.Dynamo.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stack.Dynamo.Resume() })
	results := make([]*localapi.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = gatewayDo(t, a.URL+"/v1/payment/create", key, fmt.Sprintf(`{"amount": 100, "reference": "hang-%d"}`, i+1),
				fmt.Sprintf("hang-key-%08d", i+1))
		}()
	}
	wg.Wait()
	return results, pool.Throttled() - before
}

// gatewayDo posts body as a client of the API and returns the answer unchecked by the
// contract (openapi.yaml describes the functions' answers; a throttle is API Gateway's own
// answer, which the caller checks itself: sort503).
func gatewayDo(t *testing.T, url, key, body, idemKey string) *localapi.Result {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idemKey)
	req.Header.Set("X-Localapi-Contract-Checked", "1") // this test checks every answer itself
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return &localapi.Result{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return &localapi.Result{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// sort503 checks each answer is the 503 envelope (retryable, Retry-After) or the throttle
// answer, and counts the throttle answers.
func sort503(t *testing.T, results []*localapi.Result) (envelopes, throttles int) {
	t.Helper()
	for i, r := range results {
		switch r.Status {
		case http.StatusServiceUnavailable:
			var env struct {
				Error struct {
					Code      string `json:"code"`
					Retryable bool   `json:"retryable"`
				} `json:"error"`
			}
			if json.Unmarshal(r.Body, &env) != nil || !env.Error.Retryable || r.Header.Get("Retry-After") == "" ||
				env.Error.Code != "SERVICE_UNAVAILABLE" && env.Error.Code != "AUTH_SERVICE_UNAVAILABLE" {
				t.Errorf("client %d: 503 %s, want the retryable envelope with Retry-After", i, r.Body)
			}
			envelopes++
		case http.StatusInternalServerError:
			// API Gateway's answer for a throttled Lambda invocation (the Lambda API rejected it).
			if string(r.Body) != `{"message":"Internal Server Error"}` {
				t.Errorf("client %d: 500 %s", i, r.Body)
			}
			throttles++
		default:
			t.Errorf("client %d: %d %s, want 503 or the throttle answer", i, r.Status, r.Body)
		}
	}
	return envelopes, throttles
}

// The case under the real bootstraps with make dev's defaults: 16 clients at once
// while DynamoDB hangs. The create function may have 20 instances (its reserved concurrency in
// template.yaml), so each client gets an instance of its own and the function's own 503
// envelope before its deadline: no request waits for an instance, none is throttled, no bare
// 500.
func TestHungDynamoEmulatedEveryClientGets503(t *testing.T) {
	results, throttled := hungCreates(t, rie.Options{}, 16)
	envelopes, throttles := sort503(t, results)
	if envelopes != 16 || throttles != 0 || throttled != 0 {
		t.Errorf("%d envelopes, %d throttle answers (pool throttled %d), want 16 envelopes", envelopes, throttles, throttled)
	}
}

// With a cap of 4 (POOL_SIZE=4), 16 clients while DynamoDB hangs: the clients beyond the cap
// are throttled at once — every 500 is a throttle the pool counted, none a request that waited
// for an instance until its timeout — and the others get the 503 envelope.
func TestHungDynamoEmulatedBeyondTheCapIsThrottled(t *testing.T) {
	results, throttled := hungCreates(t, rie.Options{PoolSize: 4}, 16)
	envelopes, throttles := sort503(t, results)
	if throttles == 0 || int64(throttles) != throttled || envelopes == 0 || envelopes+throttles != 16 {
		t.Errorf("%d envelopes, %d throttle answers, pool throttled %d: want every 500 a counted throttle, and some 503s", envelopes, throttles, throttled)
	}
	t.Logf("%d envelopes, %d throttled", envelopes, throttles)
}
