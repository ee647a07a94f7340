// Package apitest holds assertions shared by the integration tests that drive the local API
// over real HTTP (see localapi.StartTestAPI).
package apitest

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/local/localapi"
)

// CorrelationPattern is the correlation id format of the error envelope.
var CorrelationPattern = regexp.MustCompile(`^[a-f0-9]{24}$`)

// Envelope asserts res is an error with the given status and code in exactly the spec's
// envelope — one property "error" holding exactly code, message, retryable and correlation_id —
// with the correlation id also in the X-Correlation-Id header. It returns the message.
func Envelope(tb testing.TB, res *localapi.Result, status int, code string) string {
	tb.Helper()
	if res.Status != status {
		tb.Fatalf("status = %d, want %d; body %s", res.Status, status, res.Body)
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &outer); err != nil {
		tb.Fatalf("error body is not JSON: %v: %s", err, res.Body)
	}
	if len(outer) != 1 || outer["error"] == nil {
		tb.Fatalf("envelope must have exactly one property, error: %s", res.Body)
	}
	var inner map[string]any
	if err := json.Unmarshal(outer["error"], &inner); err != nil {
		tb.Fatalf("error is not an object: %s", res.Body)
	}
	keys := make([]string, 0, len(inner))
	for k := range inner {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "code,correlation_id,message,retryable" {
		tb.Fatalf("error properties = %v, want exactly code, correlation_id, message, retryable", keys)
	}
	if inner["code"] != code {
		tb.Fatalf("code = %v, want %s; body %s", inner["code"], code, res.Body)
	}
	if _, ok := inner["retryable"].(bool); !ok {
		tb.Fatalf("retryable is not a boolean: %s", res.Body)
	}
	msg, _ := inner["message"].(string)
	if msg == "" {
		tb.Fatalf("message is empty: %s", res.Body)
	}
	cid, _ := inner["correlation_id"].(string)
	if !CorrelationPattern.MatchString(cid) {
		tb.Fatalf("correlation_id %q does not match %s", cid, CorrelationPattern)
	}
	if h := res.Header.Get("X-Correlation-Id"); h != cid {
		tb.Fatalf("X-Correlation-Id header %q != body correlation_id %q", h, cid)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		tb.Fatalf("Content-Type = %q", ct)
	}
	return msg
}

// Retryable returns the envelope's retryable flag.
func Retryable(tb testing.TB, res *localapi.Result) bool {
	tb.Helper()
	var env struct {
		Error struct {
			Retryable bool `json:"retryable"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil {
		tb.Fatal(err)
	}
	return env.Error.Retryable
}

// LogLine returns the request log line of a response (by its correlation id), failing the
// test if the service did not write exactly that line.
func LogLine(tb testing.TB, api *localapi.TestAPI, res *localapi.Result) map[string]any {
	tb.Helper()
	cid := res.Header.Get("X-Correlation-Id")
	line := api.Logs.Request(cid)
	if line == nil {
		tb.Fatalf("no request log line with correlation_id %q", cid)
	}
	return line
}

// DDBRequests returns how many DynamoDB requests the operation made: the log line's
// ddb_requests less its ddb_lease_requests, the rate limiter's lease writes, which fall on
// whichever request finds its instance's tokens spent (about one in WORKSPACE_RATE_LEASE; see
// LeaseRequests), and less its ddb_key_use_requests, the write recording an API key's last
// use, which falls on a key's first request in an hour on an instance (see KeyUseRequests).
func DDBRequests(tb testing.TB, api *localapi.TestAPI, res *localapi.Result) int {
	tb.Helper()
	line := LogLine(tb, api, res)
	n, ok := line["ddb_requests"].(float64)
	if !ok {
		tb.Fatalf("log line has no ddb_requests")
	}
	return int(n) - LeaseRequests(tb, api, res) - KeyUseRequests(tb, api, res)
}

// KeyUseRequests returns how many of the request's DynamoDB requests recorded its API key's
// last use (the log line's ddb_key_use_requests: 0 or 1).
func KeyUseRequests(tb testing.TB, api *localapi.TestAPI, res *localapi.Result) int {
	tb.Helper()
	n, ok := LogLine(tb, api, res)["ddb_key_use_requests"].(float64)
	if !ok {
		tb.Fatalf("log line has no ddb_key_use_requests")
	}
	return int(n)
}

// LeaseRequests returns how many of the request's DynamoDB requests were rate-limit lease
// writes (the log line's ddb_lease_requests).
func LeaseRequests(tb testing.TB, api *localapi.TestAPI, res *localapi.Result) int {
	tb.Helper()
	n, ok := LogLine(tb, api, res)["ddb_lease_requests"].(float64)
	if !ok {
		tb.Fatalf("log line has no ddb_lease_requests")
	}
	return int(n)
}

// ItemSize is the size DynamoDB counts for an item (the 400 KB limit and write units):
// attribute names and values in bytes, numbers by their significant digits, and 3 bytes per
// list or map plus 1 per element.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(v.Value), "0")
		return (len(digits)+1)/2 + 1
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	}
	return 0
}
