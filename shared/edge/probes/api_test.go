package probes_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/openapi"
)

func start(t *testing.T) *localapi.TestAPI {
	t.Helper()
	return localapi.StartTestAPI(t, localapi.Options{})
}

func TestHealthzAndReadyz(t *testing.T) {
	t.Parallel()
	a := start(t)
	res := a.Do(t, "GET", "/healthz", "", "")
	if res.Status != 200 || string(res.Body) != `{"status":"ok"}` {
		t.Fatalf("healthz: %d %s", res.Status, res.Body)
	}
	if apitest.DDBRequests(t, a, res) != 0 {
		t.Error("healthz must not call dependencies")
	}
	res = a.Do(t, "GET", "/readyz", "", "")
	if res.Status != 200 {
		t.Fatalf("readyz: %d %s", res.Status, res.Body)
	}
	var rd struct {
		Status string `json:"status"`
		Checks map[string]struct {
			OK bool `json:"ok"`
		} `json:"checks"`
		Environments map[string]struct {
			FinanciallyReady bool   `json:"financially_ready"`
			Reason           string `json:"reason"`
		} `json:"environments"`
	}
	if err := json.Unmarshal(res.Body, &rd); err != nil {
		t.Fatal(err)
	}
	if rd.Status != "ready" || !rd.Checks["table"].OK || !rd.Checks["webhook_queue"].OK {
		t.Fatalf("readyz body %s", res.Body)
	}
	if !rd.Environments["sandbox"].FinanciallyReady || rd.Environments["live"].FinanciallyReady || rd.Environments["live"].Reason == "" {
		t.Fatalf("per-environment readiness %s", res.Body)
	}
}

func TestReadyzNotReady(t *testing.T) {
	t.Parallel()
	for _, dep := range []string{"table", "webhook_queue"} {
		t.Run(dep, func(t *testing.T) {
			t.Parallel()
			a := start(t)
			if dep == "table" {
				a.Stack.Dynamo.Stop()
			} else {
				a.Stack.SQS.Stop()
			}
			res := a.Do(t, "GET", "/readyz", "", "")
			msg := apitest.Envelope(t, res, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
			if !strings.Contains(msg, dep) {
				t.Errorf("message %q does not name %s", msg, dep)
			}
			if !apitest.Retryable(t, res) {
				t.Error("not-ready must be retryable")
			}
		})
	}
}

var param = regexp.MustCompile(`\{[^}]+\}`)

// Every published operation this release does not deploy answers 404 NOT_DEPLOYED in the
// envelope, whatever auth is sent (none here), and never a 500 or a bare gateway body.
func TestEveryUndeployedPathAnswersNotDeployed(t *testing.T) {
	t.Parallel()
	a := start(t)
	ops, err := openapi.Operations()
	if err != nil {
		t.Fatal(err)
	}
	undeployed := 0
	for _, op := range ops {
		if op.Deployed {
			continue
		}
		undeployed++
		path := param.ReplaceAllString(op.Path, "0190a8d2-0000-7000-8000-000000000001")
		res := a.Do(t, op.Method, path, "", "")
		msg := apitest.Envelope(t, res, http.StatusNotFound, "NOT_DEPLOYED")
		if !strings.Contains(msg, op.Path) {
			t.Errorf("%s %s: message %q does not name the path", op.Method, path, msg)
		}
	}
	// A floor, so that a broken contract parse cannot pass by checking nothing; it drops as
	// operations get deployed (103 published; 68 undeployed once payment intents and the
	// public document routes shipped; 59 once the refunds shipped: the merchant's eight
	// operations and the payer's request).
	if undeployed < 59 {
		t.Fatalf("only %d of %d operations checked as undeployed", undeployed, len(ops))
	}
}

func TestUnknownPathsAndMethods(t *testing.T) {
	t.Parallel()
	a := start(t)
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/", 404, "NOT_FOUND"},
		{"GET", "/v2/payment/create", 404, "NOT_FOUND"},
		{"POST", "/v1/payment/create/", 404, "NOT_FOUND"},
		{"POST", "/v1/payment/creat", 404, "NOT_FOUND"},
		{"DELETE", "/v1/payment/verify", 405, "METHOD_NOT_ALLOWED"},
		{"GET", "/v1/payment/create", 405, "METHOD_NOT_ALLOWED"},
		{"POST", "/healthz", 405, "METHOD_NOT_ALLOWED"},
		{"PUT", "/v1/workspaces/w1/refunds", 405, "METHOD_NOT_ALLOWED"},
		{"GET", "/v1/workspaces/w1/refunds/r1/extra", 404, "NOT_FOUND"},
	} {
		res := a.Do(t, c.method, c.path, "", "")
		apitest.Envelope(t, res, c.status, c.code)
		if c.status == 405 && res.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", c.method, c.path)
		}
	}
}
