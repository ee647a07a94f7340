package ratelimit_test

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

// rateItems counts the rate-limit buckets in the table (a Scan is fine in a test).
func rateItems(t *testing.T, a *localapi.TestAPI) int {
	t.Helper()
	out, err := a.Stack.DDB.Scan(t.Context(), &dynamodb.ScanInput{
		TableName:        aws.String(a.Store.Table),
		FilterExpression: aws.String("begins_with(pk, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: "RATE#"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

// logIndex reads the request log lines once, by correlation id (apitest's per-response lookup
// decodes the whole log each time, too slow for hundreds of requests).
type logIndex map[string]map[string]any

func readLogs(a *localapi.TestAPI) logIndex {
	idx := logIndex{}
	for _, l := range a.Logs.Lines() {
		if id, _ := l["correlation_id"].(string); l["msg"] == "request" && id != "" {
			idx[id] = l
		}
	}
	return idx
}

// cost returns a response's DynamoDB requests besides lease writes, and its lease writes.
// ops excludes the lease writes and the write recording the key's last use (its first
// request in the hour on the instance: keyUse).
func (idx logIndex) cost(t *testing.T, res *localapi.Result) (ops, leases, keyUse int) {
	t.Helper()
	l := idx[res.Header.Get("X-Correlation-Id")]
	total, ok1 := l["ddb_requests"].(float64)
	lw, ok2 := l["ddb_lease_requests"].(float64)
	ku, ok3 := l["ddb_key_use_requests"].(float64)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("no request log line with ddb_requests, ddb_lease_requests and ddb_key_use_requests for %s: %v", res.Header.Get("X-Correlation-Id"), l)
	}
	return int(total - lw - ku), int(lw), int(ku)
}

func unknownKey(t *testing.T) string {
	t.Helper()
	k, _, err := auth.NewKey(auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func verifyBody() string { return `{"invoice_id": "` + uuid.NewString() + `"}` }

// issue makes a second workspace with a sandbox key.
func issue(t *testing.T, a *localapi.TestAPI, name string, scopes ...auth.Scope) (string, string) {
	t.Helper()
	op := &operator.Operator{Store: a.Store}
	ws, err := op.CreateWorkspace(t.Context(), "", name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := op.IssueKey(t.Context(), ws.ID, auth.Sandbox, scopes, "server")
	if err != nil {
		t.Fatal(err)
	}
	return ws.ID, k.Plaintext
}

// A workspace that spends its budget gets 429 RATE_LIMITED with Retry-After on every
// credentialed operation (the budget is shared by the function instances), while another
// workspace, the same workspace's live environment and its dashboard sessions are unaffected;
// a flood of well-formed unknown keys spends nobody's budget and costs one GetItem each.
func TestWorkspaceLimitOverHTTP(t *testing.T) {
	t.Parallel()
	const burst, lease = 20, 10 // and 1 request per second: Retry-After is 10 s
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{
		"WORKSPACE_RATE_LIMIT": "1", "WORKSPACE_RATE_BURST": strconv.Itoa(burst), "WORKSPACE_RATE_LEASE": strconv.Itoa(lease),
		"AUTH_FAILURES_PER_CLIENT": "0", // this test shows the budget needs no per-address limit
	}})
	wsB, keyB := issue(t, a, "Other merchant", auth.PaymentsRead)

	// 1. 300 requests with well-formed keys nobody issued: 401, one GetItem each, no lease.
	var wg sync.WaitGroup
	results := make([]*localapi.Result, 300)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(results); i += 6 {
				results[i] = a.Do(t, "POST", "/v1/payment/verify", unknownKey(t), verifyBody())
			}
		}()
	}
	wg.Wait()
	for _, res := range results {
		apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")
	}
	if n := rateItems(t, a); n != 0 {
		t.Fatalf("the flood of unknown keys created %d rate buckets", n)
	}

	// 2. The merchant still has its whole burst, then 429 with Retry-After.
	start := time.Now()
	admitted := 0
	var merchant []*localapi.Result
	var first429 *localapi.Result
	for range 3 * burst {
		if first429 != nil && len(merchant) >= admitted+6 {
			break // the first refusal and five answered locally
		}
		res := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, verifyBody())
		merchant = append(merchant, res)
		switch res.Status {
		case http.StatusNotFound: // authenticated, admitted, no such payment
			if first429 == nil {
				admitted++
			}
		case http.StatusTooManyRequests:
			if first429 == nil {
				first429 = res
			}
		default:
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
	}
	elapsed := time.Since(start)
	if first429 == nil {
		t.Fatalf("no 429 in %d requests with a burst of %d", 3*burst, burst)
	}
	if bound := burst + int(math.Ceil(elapsed.Seconds())) + lease; admitted < burst || admitted > bound {
		t.Fatalf("%d admitted before the first 429, want at least the burst %d and at most %d", admitted, burst, bound)
	}
	apitest.Envelope(t, first429, http.StatusTooManyRequests, "RATE_LIMITED")
	if !apitest.Retryable(t, first429) || first429.Header.Get("Retry-After") != "10" {
		t.Errorf("429: retryable %v, Retry-After %q; want true, 10", apitest.Retryable(t, first429), first429.Header.Get("Retry-After"))
	}

	// 3. The budget is the workspace's, not the instance's: payment create and documents run in
	// other function instances, which have leased nothing yet, and are refused too. (Two
	// leases of 10 at one request a second fill the bucket until 10 s after the merchant's
	// first request; this normally runs within a second of it, and is only asserted while the
	// bucket is sure to be full.)
	create := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 10}`)
	docs := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/customers?environment="
	list := a.Do(t, "GET", docs+"sandbox", a.Creds.SandboxKey, "")
	if since := time.Since(start); since < 9*time.Second {
		apitest.Envelope(t, create, http.StatusTooManyRequests, "RATE_LIMITED")
		if create.Header.Get("Retry-After") != "10" {
			t.Errorf("create: Retry-After %q", create.Header.Get("Retry-After"))
		}
		apitest.Envelope(t, list, http.StatusTooManyRequests, "RATE_LIMITED")
	} else {
		t.Logf("other instances not checked: %v after the first request the bucket may have room again", since)
	}

	// 4. Unaffected: another workspace (its whole burst), the same workspace's live environment
	// and its dashboard session.
	for i := range burst {
		if res := a.Do(t, "POST", "/v1/payment/verify", keyB, verifyBody()); res.Status != http.StatusNotFound {
			t.Fatalf("workspace %s request %d: %d %s", wsB, i, res.Status, res.Body)
		}
	}
	if res := a.Do(t, "GET", docs+"live", a.Creds.LiveKey, ""); res.Status != http.StatusOK {
		t.Errorf("live key of the limited workspace: %d %s", res.Status, res.Body)
	}
	if res := a.Do(t, "GET", docs+"sandbox", "", "", "Cookie", auth.SessionCookie+"="+a.Creds.SessionToken); res.Status != http.StatusOK {
		t.Errorf("dashboard session of the limited workspace: %d %s", res.Status, res.Body)
	}
	// Buckets: A sandbox, B sandbox, A live, A dashboard.
	if n := rateItems(t, a); n != 4 {
		t.Errorf("%d rate buckets, want 4", n)
	}

	// 5. What it cost, from the log lines: an unknown key one GetItem and no lease; the
	// merchant's requests one GetItem each (a refused one nothing more), plus lease writes:
	// one or two per lease, one for the refusal; later refusals are answered locally.
	logs := readLogs(a)
	for _, res := range results {
		if ops, leases, keyUse := logs.cost(t, res); ops != 1 || leases != 0 || keyUse != 0 {
			t.Fatalf("an unknown key cost %d DynamoDB requests, %d lease writes and %d last-use writes, want 1, 0 and 0", ops, leases, keyUse)
		}
	}
	leaseWrites, keyUseWrites := 0, 0
	for _, res := range merchant {
		ops, leases, keyUse := logs.cost(t, res)
		leaseWrites += leases
		keyUseWrites += keyUse
		if want := map[int]int{http.StatusNotFound: 2, http.StatusTooManyRequests: 1}[res.Status]; ops != want {
			t.Errorf("verify %d made %d DynamoDB requests besides leases, want %d", res.Status, ops, want)
		}
	}
	if keyUseWrites != 1 {
		t.Errorf("the merchant's key recorded its last use %d times, want once", keyUseWrites)
	}
	if max := 2*(admitted/lease+1) + 2*(1+int(elapsed/(10*time.Second))); leaseWrites > max {
		t.Errorf("%d lease writes for %d admitted requests, want at most %d", leaseWrites, admitted, max)
	}
	t.Logf("%d admitted, %d lease writes (%.2f per admitted request) in %v", admitted, leaseWrites,
		float64(leaseWrites)/float64(admitted), elapsed)
}

// With FailuresPerClient, an address that keeps failing authentication is refused before any
// lookup in that instance (valid keys from it too, until the minute ends); other instances
// are unaffected.
func TestFailedAuthenticationsPerAddress(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"AUTH_FAILURES_PER_CLIENT": "5"}})
	for range 5 {
		res := a.Do(t, "POST", "/v1/payment/verify", unknownKey(t), verifyBody())
		apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")
	}
	res := a.Do(t, "POST", "/v1/payment/verify", unknownKey(t), verifyBody())
	apitest.Envelope(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
	if n := apitest.DDBRequests(t, a, res); n != 0 {
		t.Errorf("a refused address cost %d DynamoDB requests, want 0", n)
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("Retry-After %q, want 1..60", res.Header.Get("Retry-After"))
	}
	apitest.Envelope(t, a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, verifyBody()), http.StatusTooManyRequests, "RATE_LIMITED")
	if res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 10}`); res.Status != http.StatusCreated {
		t.Errorf("create (another instance): %d %s", res.Status, res.Body)
	}
}

// The measured cost of the limit: lease writes per request with the default burst and lease,
// three function instances sharing one workspace's bucket, four concurrent callers.
func TestLeaseCostPerRequest(t *testing.T) {
	t.Parallel()
	// A rate no test machine reaches, so that nothing is refused and only the leasing shows.
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"WORKSPACE_RATE_LIMIT": "1000000"}})
	docs := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/customers?environment=sandbox"
	const perCaller = 150
	var mu sync.Mutex
	var all []*localapi.Result
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perCaller {
				var res *localapi.Result
				want := http.StatusNotFound
				switch i % 3 {
				case 0:
					res = a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, verifyBody())
				case 1:
					res, want = a.Do(t, "GET", docs, a.Creds.SandboxKey, ""), http.StatusOK
				default:
					res, want = a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey,
						fmt.Sprintf(`{"amount": 10, "reference": "cost-%d-%d"}`, g, i)), http.StatusCreated
				}
				if res.Status != want {
					t.Errorf("%d %s", res.Status, res.Body)
					return
				}
				mu.Lock()
				all = append(all, res)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	logs := readLogs(a)
	requests, writes := len(all), 0
	for _, res := range all {
		_, leases, _ := logs.cost(t, res)
		writes += leases
	}
	const leaseSize = 20 // WORKSPACE_RATE_LEASE's default
	t.Logf("%d requests, %d lease writes: %.3f DynamoDB writes per request", requests, writes, float64(writes)/float64(requests))
	if min, max := requests/leaseSize, 2*(requests/leaseSize+3); writes < min || writes > max {
		t.Errorf("%d lease writes for %d requests, want %d..%d", writes, requests, min, max)
	}
}
