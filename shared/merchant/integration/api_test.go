package integration_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/openapi"
)

type contextResp struct {
	WorkspaceID  string   `json:"workspace_id"`
	MerchantName string   `json:"merchant_name"`
	Environment  string   `json:"environment"`
	KeyID        string   `json:"key_id"`
	Scopes       []string `json:"scopes"`
	Release      struct {
		Payments string `json:"payments"`
	} `json:"release"`
}

// contractFields returns the MerchantContext schema's required properties, sorted.
func contractFields(t *testing.T) []string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Required   []string       `yaml:"required"`
				Properties map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	s, ok := doc.Components.Schemas["MerchantContext"]
	if !ok || len(s.Required) != len(s.Properties) {
		t.Fatalf("contract MerchantContext: required %v, %d properties", s.Required, len(s.Properties))
	}
	out := slices.Clone(s.Required)
	sort.Strings(out)
	return out
}

func keyRecord(t *testing.T, a *localapi.TestAPI, key string) *auth.KeyRecord {
	t.Helper()
	_, hash, err := auth.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := a.Store.GetKey(context.Background(), hash)
	if err != nil || rec == nil {
		t.Fatalf("key record: %v %v", rec, err)
	}
	return rec
}

func scopeStrings(ss []auth.Scope) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// get calls the endpoint with key and checks the 200 body against the key's record: the
// contract's fields exactly, nothing secret, one DynamoDB request (the key's GetItem; every
// call here is the first of its key in this function instance, so the key cache is cold).
func get(t *testing.T, a *localapi.TestAPI, key string) contextResp {
	t.Helper()
	res := a.Do(t, "GET", "/v1/merchant/context", key, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &raw); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for k := range raw {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	if want := contractFields(t); !slices.Equal(fields, want) {
		t.Errorf("fields %v, want the contract's %v", fields, want)
	}
	var release map[string]any
	if err := json.Unmarshal(raw["release"], &release); err != nil || len(release) != 1 || release["payments"] != "sandbox-only" {
		t.Errorf("release %s, want exactly {\"payments\":\"sandbox-only\"}", raw["release"])
	}
	rec := keyRecord(t, a, key)
	body := string(res.Body)
	for name, secret := range map[string]string{"key": key, "key hash": rec.Hash, "key hint": rec.Hint,
		"key secret part": key[strings.LastIndexByte(key, '_')+1:]} {
		if secret != "" && strings.Contains(body, secret) {
			t.Errorf("the response carries the %s: %s", name, body)
		}
	}
	var c contextResp
	if err := json.Unmarshal(res.Body, &c); err != nil {
		t.Fatal(err)
	}
	if c.WorkspaceID != a.Creds.WorkspaceID || c.WorkspaceID != rec.WorkspaceID || c.KeyID != rec.KeyID || c.KeyID == "" ||
		c.MerchantName != rec.WorkspaceName || c.MerchantName == "" || c.Environment != string(rec.Environment) ||
		!slices.Equal(c.Scopes, scopeStrings(rec.Scopes)) {
		t.Errorf("context %+v, key record %+v", c, rec)
	}
	if got := apitest.DDBRequests(t, a, res); got != 1 {
		t.Errorf("context made %d DynamoDB requests, want 1 (key GetItem)", got)
	}
	line := apitest.LogLine(t, a, res)
	if line["function"] != "merchant" || line["workspace_id"] != a.Creds.WorkspaceID || line["key_id"] != rec.KeyID {
		t.Errorf("log line %v", line)
	}
	return c
}

func TestMerchantContext(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})

	sandbox := get(t, a, a.Creds.SandboxKey)
	if sandbox.Environment != "sandbox" || sandbox.MerchantName != "Demo merchant (local)" ||
		!slices.Equal(sandbox.Scopes, scopeStrings(localapi.FullScopes)) {
		t.Errorf("sandbox key context %+v", sandbox)
	}
	// Any scope will do: the read-only key describes itself, with its own id and scopes.
	ro := get(t, a, a.Creds.ReadonlyKey)
	if ro.Environment != "sandbox" || ro.KeyID == sandbox.KeyID || !slices.Equal(ro.Scopes, scopeStrings(localapi.ReadonlyScopes)) {
		t.Errorf("read-only key context %+v", ro)
	}
	// A live key works here (it is no payment operation) and says it is live.
	live := get(t, a, a.Creds.LiveKey)
	if live.Environment != "live" || live.KeyID == sandbox.KeyID || live.WorkspaceID != sandbox.WorkspaceID {
		t.Errorf("live key context %+v", live)
	}
	// The payments release rule is what the payment operations enforce: the live key gets 403.
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.LiveKey, `{"amount": 10}`)
	apitest.Envelope(t, res, http.StatusForbidden, "SCOPE_OR_ENVIRONMENT_DENIED")
}

func TestMerchantContextNeedsAValidKey(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})

	res := a.Do(t, "GET", "/v1/merchant/context", "", "")
	apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")
	if got := apitest.DDBRequests(t, a, res); got != 0 {
		t.Errorf("no key: %d DynamoDB requests, want 0", got)
	}
	res = a.Do(t, "GET", "/v1/merchant/context", "tk_sandbox_not-a-key", "")
	apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")

	// A well-formed key nobody issued: looked up once, refused.
	plain, _, err := auth.NewKey(auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	res = a.Do(t, "GET", "/v1/merchant/context", plain, "")
	apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")
	if got := apitest.DDBRequests(t, a, res); got != 1 {
		t.Errorf("unknown key: %d DynamoDB requests, want 1", got)
	}

	// A revoked key (never used by this function, so no instance has it cached).
	op := &operator.Operator{Store: a.Store}
	issued, err := op.IssueKey(context.Background(), a.Creds.WorkspaceID, auth.Sandbox, localapi.ReadonlyScopes, "to revoke")
	if err != nil {
		t.Fatal(err)
	}
	if err := op.RevokeKey(context.Background(), a.Creds.WorkspaceID, keyRecord(t, a, issued.Plaintext).KeyID); err != nil {
		t.Fatal(err)
	}
	res = a.Do(t, "GET", "/v1/merchant/context", issued.Plaintext, "")
	apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")

	// A dashboard session is no bearer key.
	res = a.Do(t, "GET", "/v1/merchant/context", "", "", "Cookie", "takapay_session="+a.Creds.SessionToken)
	apitest.Envelope(t, res, http.StatusUnauthorized, "INVALID_API_KEY")

	// GET only: another method is 405 naming GET (the $default fallback reads the contract).
	res = a.Do(t, "POST", "/v1/merchant/context", a.Creds.SandboxKey, "{}")
	if msg := apitest.Envelope(t, res, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"); !strings.Contains(msg, "allowed: GET") {
		t.Errorf("405 message %q", msg)
	}
}

// A key's first request in an hour on an instance records its last use with one more write,
// reported apart on the log line (ddb_key_use_requests) so operation budgets stay exact; the
// next request of the same key writes nothing, and the record carries the day.
func TestKeyLastUseIsOneWriteAnHour(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
	if rec := keyRecord(t, a, a.Creds.SandboxKey); rec.LastUsedAt != nil {
		t.Fatalf("a seeded key has last_used_at %v before any use", rec.LastUsedAt)
	}
	first := a.Do(t, "GET", "/v1/merchant/context", a.Creds.SandboxKey, "")
	second := a.Do(t, "GET", "/v1/merchant/context", a.Creds.SandboxKey, "")
	if first.Status != http.StatusOK || second.Status != http.StatusOK {
		t.Fatalf("status %d, %d", first.Status, second.Status)
	}
	if n := apitest.KeyUseRequests(t, a, first); n != 1 {
		t.Errorf("first request of the key made %d last-use writes, want 1", n)
	}
	if n := apitest.KeyUseRequests(t, a, second); n != 0 {
		t.Errorf("second request of the key made %d last-use writes, want 0", n)
	}
	if got := apitest.DDBRequests(t, a, first) + apitest.KeyUseRequests(t, a, first); got != 2 {
		t.Errorf("first request made %d DynamoDB requests in all, want 2 (key GetItem, last-use UpdateItem)", got)
	}
	rec := keyRecord(t, a, a.Creds.SandboxKey)
	if rec.LastUsedAt == nil || time.Since(*rec.LastUsedAt) > time.Minute {
		t.Errorf("last_used_at %v after a use, want about now", rec.LastUsedAt)
	}
}
