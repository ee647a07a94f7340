package contract

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/takapay/payments/shared/openapi"
)

// openapi.yaml is a valid OpenAPI 3.1 document (the library's OAS 3.1 meta-schema check).
func TestContractIsValidOpenAPI31(t *testing.T) {
	d, err := libopenapi.NewDocument(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if v := d.GetVersion(); !strings.HasPrefix(v, "3.1") {
		t.Fatalf("openapi %s, want 3.1", v)
	}
	v, errs := validator.NewValidator(d)
	if errs != nil {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Fatalf("openapi.yaml is not a valid OpenAPI 3.1 document:\n%s", strings.Join(describe(verrs), "\n"))
	}
}

const cid = "0123456789abcdef01234567"

func errorBody(code string) string {
	return `{"error":{"code":"` + code + `","message":"m","retryable":false,"correlation_id":"` + cid + `"}}`
}

func jsonHeader(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "X-Correlation-Id": {cid}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// Response accepts what the contract documents and names what it does not.
func TestResponse(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	token := strings.Repeat("A", 43)
	for _, tc := range []struct {
		name           string
		method, path   string
		status         int
		header         http.Header
		body           string
		wantProblemHas string // "" when the response conforms
	}{
		{"documented", "GET", "/healthz", 200, jsonHeader(), `{"status":"ok"}`, ""},
		{"undocumented status", "GET", "/healthz", 418, jsonHeader(), `{"status":"ok"}`, "'418' does not exist"},
		{"additional property", "GET", "/healthz", 200, jsonHeader(), `{"status":"ok","x":1}`, "additional properties"},
		{"wrong content type", "GET", "/healthz", 200, html, `ok`, "content type"},
		{"error envelope", "GET", "/v1/merchant/context", 401, jsonHeader(), errorBody("INVALID_API_KEY"), ""},
		{"error envelope member missing", "GET", "/v1/merchant/context", 401, jsonHeader(), `{"error":{"code":"INVALID_API_KEY"}}`, "missing properties"},
		{"unknown error code", "GET", "/v1/merchant/context", 401, jsonHeader(), errorBody("NOPE"), "enum"},
		{"Retry-After not an integer", "GET", "/v1/merchant/context", 429, jsonHeader("Retry-After", "soon"), errorBody("RATE_LIMITED"), "retry-after"},
		{"format asserted", "GET", "/v1/payment-intents", 200, jsonHeader(), `{"items":[],"next_cursor":"not-a-uuid"}`, "uuid"},
		{"page", "GET", "/v1/public/checkout/" + token, 200, html, `<!doctype html>`, ""},
		{"page where only JSON is documented", "GET", "/v1/merchant/context", 200, html, `<!doctype html>`, "content type"},
		{"303 without a body", "POST", "/v1/public/checkout/" + token + "/lock", 303, http.Header{"Location": {"/x"}}, ``, ""},
		{"303 with a body", "POST", "/v1/public/checkout/" + token + "/lock", 303, html, `<a href="/x">See Other</a>`, "without content"},
		{"not deployed", "POST", "/v1/device/pair", 404, jsonHeader(), errorBody("NOT_DEPLOYED"), ""},
		{"not deployed, other code", "POST", "/v1/device/pair", 404, jsonHeader(), errorBody("NOT_FOUND"), "want NOT_DEPLOYED"},
		{"unknown path", "GET", "/nope", 404, jsonHeader(), errorBody("NOT_FOUND"), ""},
		{"unknown path, other status", "GET", "/nope", 500, jsonHeader(), errorBody("INTERNAL_ERROR"), "answers 404"},
		{"other method", "DELETE", "/healthz", 405, jsonHeader("Allow", "GET"), errorBody("METHOD_NOT_ALLOWED"), ""},
		{"other method without Allow", "DELETE", "/healthz", 405, jsonHeader(), errorBody("METHOD_NOT_ALLOWED"), "Allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := strings.Join(c.Response(tc.method, tc.path, tc.status, tc.header, []byte(tc.body)), "\n")
			switch {
			case tc.wantProblemHas == "" && problems != "":
				t.Errorf("conforming response rejected:\n%s", problems)
			case tc.wantProblemHas != "" && !strings.Contains(strings.ToLower(problems), strings.ToLower(tc.wantProblemHas)):
				t.Errorf("problems %q, want one mentioning %q", problems, tc.wantProblemHas)
			}
		})
	}
}

// The verify answers admit no member the contract does not name (unevaluatedProperties).
func TestVerifyAnswersAreClosed(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const id = "7d3f1c2a-5b6e-4f80-9a1b-2c3d4e5f6a7b"
	verify := `{"invoice_id":"` + id + `","status":"COMPLETED","amount_minor":100,"currency":"BDT","reference":"r","environment":"sandbox",` +
		`"created_at":"2026-01-01T00:00:00Z","first_verified_at":null,"previously_verified":false,"refunded_minor":0,"refundable_minor":100`
	intent := verify + `,"intent_id":"` + id + `","source":{"kind":"standalone"}`
	for _, tc := range []struct {
		path, body string
		ok         bool
	}{
		{"/v1/payment/verify", verify + `}`, true},
		{"/v1/payment/verify", verify + `,"extra":1}`, false},
		{"/v1/payment/verify", verify + `,"intent_id":"` + id + `"}`, false},
		{"/v1/payment-intents/" + id + "/verify-transaction", intent + `}`, true},
		{"/v1/payment-intents/" + id + "/verify-transaction", intent + `,"extra":1}`, false},
	} {
		problems := c.Response("POST", tc.path, 200, jsonHeader(), []byte(tc.body))
		if (len(problems) == 0) != tc.ok {
			t.Errorf("POST %s %s: problems %v, want ok=%v", tc.path, tc.body, problems, tc.ok)
		}
	}
}
