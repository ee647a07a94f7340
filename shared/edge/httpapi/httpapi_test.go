package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/smithy-go"

	"github.com/takapay/payments/shared/edge/httpapi"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
)

var correlationRE = regexp.MustCompile(`^[a-f0-9]{24}$`)

const (
	secretAuth = "Bearer sk_sandbox_SECRETsecretSECRETsecretSECRETsecretSECRETs7Xy9Q2"
	secretBody = `{"customer_email":"very.private.person@example.com","card":"4111111111111111"}`
)

func event(method, path, body string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	return events.APIGatewayV2HTTPRequest{
		RouteKey: method + " " + path,
		RawPath:  path,
		Headers:  headers,
		Body:     body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RequestID:  "req-123",
			DomainName: "api.example.com",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method,
				Path:   path,
			},
		},
	}
}

// invoke runs h through an Adapter for ev and returns the response and the log output.
func invoke(t *testing.T, a httpapi.Adapter, h web.HandlerFunc, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	a.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	out, err := a.Lambda("test-fn", h)(context.Background(), ev)
	if err != nil {
		t.Fatalf("Lambda handler returned a Go error: %v", err)
	}
	return out, &logs
}

// logLine parses the single log line in buf.
func logLine(t *testing.T, buf *bytes.Buffer) map[string]any {
	t.Helper()
	text := strings.TrimSuffix(buf.String(), "\n")
	if text == "" || strings.Contains(text, "\n") {
		t.Fatalf("want exactly one log line, got %q", buf.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("log line is not JSON: %v: %s", err, text)
	}
	return m
}

// envelope asserts body is exactly {"error":{code,message,retryable,correlation_id}}.
func envelope(t *testing.T, out events.APIGatewayV2HTTPResponse) apierr.EnvelopeBody {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out.Body), &top); err != nil {
		t.Fatalf("body is not JSON: %v: %q", err, out.Body)
	}
	if len(top) != 1 || top["error"] == nil {
		t.Fatalf("body top level keys wrong: %s", out.Body)
	}
	var inner map[string]any
	if err := json.Unmarshal(top["error"], &inner); err != nil {
		t.Fatalf("error member is not an object: %s", out.Body)
	}
	keys := make([]string, 0, len(inner))
	for k := range inner {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"code", "correlation_id", "message", "retryable"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("envelope keys = %v, want %v", keys, want)
	}
	var env apierr.Envelope
	if err := json.Unmarshal([]byte(out.Body), &env); err != nil {
		t.Fatal(err)
	}
	if cid := out.Headers[httpapi.CorrelationHeader]; env.Error.CorrelationID != cid || !correlationRE.MatchString(cid) {
		t.Errorf("envelope correlation_id %q, header %q: want equal and 24 hex chars", env.Error.CorrelationID, cid)
	}
	return env.Error
}

func checkCommonHeaders(t *testing.T, out events.APIGatewayV2HTTPResponse) {
	t.Helper()
	want := map[string]string{
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Content-Type":           "application/json; charset=utf-8",
	}
	for k, v := range want {
		if got := out.Headers[k]; got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if !strings.HasPrefix(out.Headers["Strict-Transport-Security"], "max-age=") {
		t.Errorf("Strict-Transport-Security = %q", out.Headers["Strict-Transport-Security"])
	}
	if cid := out.Headers[httpapi.CorrelationHeader]; !correlationRE.MatchString(cid) {
		t.Errorf("%s = %q, want 24 lower-case hex characters", httpapi.CorrelationHeader, cid)
	}
}

func TestSuccess(t *testing.T) {
	var seen *web.Request
	h := func(ctx context.Context, r *web.Request) (*web.Response, error) {
		seen = r
		resp := web.JSON(201, map[string]any{"invoice_id": "abc", "url": "https://x.example/?a=1&b=<2>"})
		resp.Headers = map[string]string{"Location": "/v1/things/abc"}
		return resp, nil
	}
	out, logs := invoke(t, httpapi.Adapter{}, h, event("POST", "/v1/payment/create", `{"amount":1}`,
		map[string]string{"authorization": secretAuth}))
	if out.StatusCode != 201 {
		t.Errorf("status = %d, want 201", out.StatusCode)
	}
	checkCommonHeaders(t, out)
	if out.Headers["Location"] != "/v1/things/abc" {
		t.Errorf("handler header not copied: %v", out.Headers)
	}
	// No HTML escaping: the body is JSON, never embedded in HTML.
	if want := `{"invoice_id":"abc","url":"https://x.example/?a=1&b=<2>"}`; out.Body != want {
		t.Errorf("body = %s, want %s", out.Body, want)
	}
	if out.IsBase64Encoded {
		t.Error("response marked base64")
	}
	if seen == nil {
		t.Fatal("handler not called")
	}
	if string(seen.Body) != `{"amount":1}` {
		t.Errorf("handler saw body %q", seen.Body)
	}
	if seen.CorrelationID != out.Headers[httpapi.CorrelationHeader] {
		t.Errorf("request correlation id %q != header %q", seen.CorrelationID, out.Headers[httpapi.CorrelationHeader])
	}
	if seen.Received.IsZero() {
		t.Error("Received not set")
	}
	if seen.Method != "POST" || seen.Path != "/v1/payment/create" || seen.RouteKey != "POST /v1/payment/create" {
		t.Errorf("Method/Path/RouteKey = %q %q %q", seen.Method, seen.Path, seen.RouteKey)
	}
	if seen.Host != "api.example.com" || seen.BaseURL != "https://api.example.com" {
		t.Errorf("Host/BaseURL = %q %q", seen.Host, seen.BaseURL)
	}
	line := logLine(t, logs)
	if line["msg"] != "request" || line["level"] != "INFO" {
		t.Errorf("log msg/level = %v/%v, want request/INFO", line["msg"], line["level"])
	}
	if line["correlation_id"] != out.Headers[httpapi.CorrelationHeader] {
		t.Errorf("log correlation_id = %v, header %q", line["correlation_id"], out.Headers[httpapi.CorrelationHeader])
	}
	if line["status"] != float64(201) || line["function"] != "test-fn" || line["method"] != "POST" ||
		line["route"] != "POST /v1/payment/create" || line["request_id"] != "req-123" {
		t.Errorf("log line fields wrong: %v", line)
	}
	if _, ok := line["error_code"]; ok {
		t.Errorf("success log line has error_code: %v", line)
	}
	// A path may carry a bearer token (checkout links): the line names the route key only.
	if _, ok := line["path"]; ok {
		t.Errorf("log line carries the request path: %v", line)
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("log line has no numeric duration_ms: %v", line)
	}
}

func TestResponseVariants(t *testing.T) {
	tests := []struct {
		name       string
		resp       *web.Response
		wantStatus int
		wantBody   string
	}{
		{"status 0 means 200", &web.Response{JSON: map[string]int{"a": 1}}, 200, `{"a":1}`},
		{"raw body", &web.Response{Status: 200, Raw: []byte("plain text")}, 200, "plain text"},
		{"raw wins over JSON", &web.Response{Status: 200, Raw: []byte("raw"), JSON: 1}, 200, "raw"},
		{"no body", &web.Response{Status: 204}, 204, ""},
		{"JSON helper", web.JSON(202, []int{1, 2}), 202, `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := invoke(t, httpapi.Adapter{}, func(context.Context, *web.Request) (*web.Response, error) {
				return tt.resp, nil
			}, event("GET", "/x", "", nil))
			if out.StatusCode != tt.wantStatus || out.Body != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", out.StatusCode, out.Body, tt.wantStatus, tt.wantBody)
			}
			checkCommonHeaders(t, out)
		})
	}
}

func TestErrors(t *testing.T) {
	const leaked = "dial tcp 10.1.2.3:8000: password=hunter2"
	big := strings.Repeat("a", httpapi.DefaultMaxBody+1)
	tests := []struct {
		name        string
		ev          events.APIGatewayV2HTTPRequest
		adapter     httpapi.Adapter
		handler     web.HandlerFunc
		wantCalled  bool
		status      int
		code        apierr.Code
		retryable   bool
		msgContains string
		logLevel    string
		logCause    string // substring of the log line's cause; "" means no cause attribute
	}{
		{
			name: "apierr not found",
			ev:   event("POST", "/v1/payment/verify", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return nil, apierr.New(apierr.NotFound, "no payment with this invoice_id")
			},
			wantCalled: true, status: 404, code: apierr.NotFound, msgContains: "no payment with this invoice_id", logLevel: "INFO",
		},
		{
			name: "validation failed",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return nil, apierr.Invalid(apierr.Violation{Path: "body.amount", Rule: "is required"})
			},
			wantCalled: true, status: 422, code: apierr.ValidationFailed, msgContains: "body.amount: is required", logLevel: "INFO",
		},
		{
			name: "wrapped apierr keeps its code",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return nil, fmt.Errorf("layer: %w", apierr.New(apierr.InvalidAPIKey, "invalid API key"))
			},
			wantCalled: true, status: 401, code: apierr.InvalidAPIKey, msgContains: "invalid API key", logLevel: "INFO",
		},
		{
			name: "auth service unavailable",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return nil, apierr.Wrap(apierr.AuthServiceUnavailable, errors.New(leaked), "the key store is unavailable")
			},
			wantCalled: true, status: 503, code: apierr.AuthServiceUnavailable, retryable: true,
			msgContains: "the key store is unavailable", logLevel: "ERROR", logCause: "hunter2",
		},
		{
			name: "plain error",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return nil, errors.New(leaked)
			},
			wantCalled: true, status: 500, code: apierr.Internal, retryable: true,
			msgContains: "internal error", logLevel: "ERROR", logCause: leaked,
		},
		{
			name: "panic with string",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				panic("kaboom " + leaked)
			},
			wantCalled: true, status: 500, code: apierr.Internal, retryable: true,
			msgContains: "internal error", logLevel: "ERROR", logCause: "panic: kaboom",
		},
		{
			name: "panic with error",
			ev:   event("POST", "/x", `{}`, nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				var m map[string]int
				m["x"] = 1 // nil map write
				return nil, nil
			},
			wantCalled: true, status: 500, code: apierr.Internal, retryable: true,
			msgContains: "internal error", logLevel: "ERROR", logCause: "assignment to entry in nil map",
		},
		{
			name: "invalid base64",
			ev: func() events.APIGatewayV2HTTPRequest {
				e := event("POST", "/x", "!!!not base64!!!", nil)
				e.IsBase64Encoded = true
				return e
			}(),
			status: 400, code: apierr.MalformedRequest, msgContains: "base64", logLevel: "INFO",
		},
		{
			name:   "body over DefaultMaxBody",
			ev:     event("POST", "/x", big, nil),
			status: 413, code: apierr.RequestTooLarge, msgContains: fmt.Sprint(httpapi.DefaultMaxBody), logLevel: "INFO",
		},
		{
			name: "decoded base64 body over DefaultMaxBody",
			ev: func() events.APIGatewayV2HTTPRequest {
				e := event("POST", "/x", base64.StdEncoding.EncodeToString([]byte(big)), nil)
				e.IsBase64Encoded = true
				return e
			}(),
			status: 413, code: apierr.RequestTooLarge, logLevel: "INFO",
		},
		{
			name:    "body over custom MaxBody",
			ev:      event("POST", "/x", "0123456789A", nil),
			adapter: httpapi.Adapter{MaxBody: 10},
			status:  413, code: apierr.RequestTooLarge, msgContains: "10 bytes", logLevel: "INFO",
		},
		{
			name: "unencodable JSON response",
			ev:   event("GET", "/x", "", nil),
			handler: func(context.Context, *web.Request) (*web.Response, error) {
				return web.JSON(200, map[string]any{"c": make(chan int)}), nil
			},
			wantCalled: true, status: 500, code: apierr.Internal, retryable: true,
			msgContains: "internal error", logLevel: "ERROR", logCause: "json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := func(ctx context.Context, r *web.Request) (*web.Response, error) {
				called = true
				if tt.handler == nil {
					return web.JSON(200, map[string]string{}), nil
				}
				return tt.handler(ctx, r)
			}
			out, logs := invoke(t, tt.adapter, h, tt.ev)
			if called != tt.wantCalled {
				t.Errorf("handler called = %v, want %v", called, tt.wantCalled)
			}
			if out.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", out.StatusCode, tt.status)
			}
			checkCommonHeaders(t, out)
			env := envelope(t, out)
			if env.Code != tt.code || env.Retryable != tt.retryable {
				t.Errorf("envelope code/retryable = %s/%v, want %s/%v", env.Code, env.Retryable, tt.code, tt.retryable)
			}
			if env.Code.Status() != out.StatusCode {
				t.Errorf("status %d does not match the code table (%d)", out.StatusCode, env.Code.Status())
			}
			if !strings.Contains(env.Message, tt.msgContains) {
				t.Errorf("message %q does not contain %q", env.Message, tt.msgContains)
			}
			for _, secret := range []string{"hunter2", "10.1.2.3", "kaboom", "nil map", "goroutine"} {
				if strings.Contains(out.Body, secret) {
					t.Errorf("response body leaks %q: %s", secret, out.Body)
				}
			}
			wantRetryAfter := ""
			if tt.retryable && tt.status >= 500 {
				wantRetryAfter = "1"
			}
			if got := out.Headers["Retry-After"]; got != wantRetryAfter {
				t.Errorf("Retry-After = %q, want %q", got, wantRetryAfter)
			}
			line := logLine(t, logs)
			if line["msg"] != "request" || line["level"] != tt.logLevel {
				t.Errorf("log msg/level = %v/%v, want request/%s", line["msg"], line["level"], tt.logLevel)
			}
			if line["correlation_id"] != out.Headers[httpapi.CorrelationHeader] {
				t.Errorf("log correlation_id = %v, header %q", line["correlation_id"], out.Headers[httpapi.CorrelationHeader])
			}
			if line["status"] != float64(tt.status) || line["error_code"] != string(tt.code) {
				t.Errorf("log status/error_code = %v/%v, want %d/%s", line["status"], line["error_code"], tt.status, tt.code)
			}
			cause, hasCause := line["cause"].(string)
			if tt.logCause == "" && hasCause {
				t.Errorf("unexpected cause in log: %q", cause)
			}
			if tt.logCause != "" && !strings.Contains(cause, tt.logCause) {
				t.Errorf("log cause %q does not contain %q", cause, tt.logCause)
			}
		})
	}
}

func TestLogDoesNotLeakSecrets(t *testing.T) {
	handlers := map[string]web.HandlerFunc{
		"success": func(context.Context, *web.Request) (*web.Response, error) {
			return web.JSON(201, map[string]string{"ok": "yes"}), nil
		},
		"validation error": func(context.Context, *web.Request) (*web.Response, error) {
			return nil, apierr.Invalid(apierr.Violation{Path: "body.amount", Rule: "is required"})
		},
		"auth error": func(context.Context, *web.Request) (*web.Response, error) {
			return nil, apierr.New(apierr.InvalidAPIKey, "invalid API key")
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			out, logs := invoke(t, httpapi.Adapter{}, h, event("POST", "/v1/payment/create", secretBody,
				map[string]string{"authorization": secretAuth, "content-type": "application/json"}))
			line := logLine(t, logs)
			if line["correlation_id"] != out.Headers[httpapi.CorrelationHeader] {
				t.Errorf("log correlation_id %v != header %q", line["correlation_id"], out.Headers[httpapi.CorrelationHeader])
			}
			text := logs.String()
			for _, secret := range []string{secretAuth, "SECRETsecret", "sk_sandbox_", "very.private.person", "4111111111111111"} {
				if strings.Contains(text, secret) {
					t.Errorf("log line contains %q: %s", secret, text)
				}
			}
		})
	}
}

func TestLogIncludesAnnotations(t *testing.T) {
	h := func(ctx context.Context, r *web.Request) (*web.Response, error) {
		obs.Annotate(ctx, slog.String("workspace_id", "ws_1"))
		return web.JSON(200, nil), nil
	}
	_, logs := invoke(t, httpapi.Adapter{}, h, event("GET", "/x", "", nil))
	line := logLine(t, logs)
	if line["workspace_id"] != "ws_1" {
		t.Errorf("annotation missing from log line: %v", line)
	}
}

func TestErrorHeadersCopied(t *testing.T) {
	h := func(context.Context, *web.Request) (*web.Response, error) {
		e := apierr.New(apierr.MethodNotAllowed, "use POST")
		e.Headers = map[string]string{"Allow": "POST"}
		return nil, e
	}
	out, _ := invoke(t, httpapi.Adapter{}, h, event("GET", "/v1/payment/create", "", nil))
	if out.StatusCode != 405 {
		t.Errorf("status = %d, want 405", out.StatusCode)
	}
	if out.Headers["Allow"] != "POST" {
		t.Errorf("Allow = %q, want POST", out.Headers["Allow"])
	}
	checkCommonHeaders(t, out)
	if env := envelope(t, out); env.Code != apierr.MethodNotAllowed {
		t.Errorf("code = %s", env.Code)
	}
}

func TestBase64Body(t *testing.T) {
	payload := []byte("{\"name\":\"টাকা\",\"bin\":\"\x00\x01\"}")
	var got []byte
	h := func(_ context.Context, r *web.Request) (*web.Response, error) {
		got = r.Body
		return web.JSON(200, map[string]int{}), nil
	}
	ev := event("POST", "/x", base64.StdEncoding.EncodeToString(payload), nil)
	ev.IsBase64Encoded = true
	out, _ := invoke(t, httpapi.Adapter{}, h, ev)
	if out.StatusCode != 200 {
		t.Fatalf("status = %d: %s", out.StatusCode, out.Body)
	}
	if !bytes.Equal(got, payload) {
		t.Errorf("handler body = %q, want decoded %q", got, payload)
	}
}

// A binary response body (a PNG) is not valid UTF-8, so it cannot travel in the payload's JSON
// string: it goes base64 with isBase64Encoded, which API Gateway decodes for the client. Text
// (Bangla included) stays as it is.
func TestBinaryResponseBody(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff")
	for _, tc := range []struct {
		body   []byte
		base64 bool
	}{{png, true}, {[]byte("<p>টাকা</p>"), false}} {
		out, _ := invoke(t, httpapi.Adapter{}, func(context.Context, *web.Request) (*web.Response, error) {
			return &web.Response{Status: 200, Headers: map[string]string{"Content-Type": "image/png"}, Raw: tc.body}, nil
		}, event("GET", "/x", "", nil))
		if out.IsBase64Encoded != tc.base64 {
			t.Fatalf("%q: isBase64Encoded = %v", tc.body, out.IsBase64Encoded)
		}
		got := []byte(out.Body)
		if tc.base64 {
			var err error
			if got, err = base64.StdEncoding.DecodeString(out.Body); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, tc.body) {
			t.Errorf("body %q, want %q", got, tc.body)
		}
	}
}

// A response marked Binary (gzip) goes out base64 even when its bytes happen to be valid UTF-8.
func TestBinaryFlagResponse(t *testing.T) {
	payload := []byte("id,amount\n")
	h := func(context.Context, *web.Request) (*web.Response, error) {
		return &web.Response{Status: 200, Headers: map[string]string{"Content-Type": "application/gzip"}, Raw: payload, Binary: true}, nil
	}
	out, _ := invoke(t, httpapi.Adapter{}, h, event("GET", "/x", "", nil))
	got, err := base64.StdEncoding.DecodeString(out.Body)
	if !out.IsBase64Encoded || err != nil || !bytes.Equal(got, payload) {
		t.Errorf("binary: base64 %v, body %q (%v)", out.IsBase64Encoded, out.Body, err)
	}
}

func TestBodyLimitBoundary(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		b64    bool
		status int
	}{
		{"exactly the limit", httpapi.DefaultMaxBody, false, 200},
		{"one over", httpapi.DefaultMaxBody + 1, false, 413},
		{"base64 exactly the limit", httpapi.DefaultMaxBody, true, 200},
		{"base64 one over", httpapi.DefaultMaxBody + 1, true, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := -1
			h := func(_ context.Context, r *web.Request) (*web.Response, error) {
				n = len(r.Body)
				return web.JSON(200, map[string]int{}), nil
			}
			body := strings.Repeat("x", tt.size)
			if tt.b64 {
				body = base64.StdEncoding.EncodeToString([]byte(body))
			}
			ev := event("POST", "/x", body, nil)
			ev.IsBase64Encoded = tt.b64
			out, _ := invoke(t, httpapi.Adapter{}, h, ev)
			if out.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", out.StatusCode, tt.status)
			}
			if tt.status == 200 && n != tt.size {
				t.Errorf("handler saw %d bytes, want %d", n, tt.size)
			}
			if tt.status != 200 && n != -1 {
				t.Error("handler called for an oversized body")
			}
		})
	}
}

func TestCorrelationIDsDiffer(t *testing.T) {
	h := func(context.Context, *web.Request) (*web.Response, error) { return web.JSON(200, 1), nil }
	lambda := httpapi.Adapter{Logger: slog.New(slog.DiscardHandler)}.Lambda("fn", h)
	seen := map[string]bool{}
	for range 100 {
		out, err := lambda(context.Background(), event("GET", "/x", "", nil))
		if err != nil {
			t.Fatal(err)
		}
		cid := out.Headers[httpapi.CorrelationHeader]
		if !correlationRE.MatchString(cid) || seen[cid] {
			t.Fatalf("correlation id %q malformed or repeated", cid)
		}
		seen[cid] = true
	}
	for range 100 {
		if id := httpapi.NewCorrelationID(); !correlationRE.MatchString(id) {
			t.Fatalf("NewCorrelationID() = %q", id)
		}
	}
}

// Regression (fixed): a handler that returns (nil, nil) made render dereference a nil *Response outside
// serve's recover, so the Lambda invocation panicked (no envelope, no log line) instead of
// answering 500 INTERNAL_ERROR like every other handler fault. (Fails on the original
// httpapi.go; a nil-response guard in render makes it pass.)
func TestNilResponseIsInternalError(t *testing.T) {
	h := func(context.Context, *web.Request) (*web.Response, error) { return nil, nil }
	var logs bytes.Buffer
	lambda := httpapi.Adapter{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}.Lambda("fn", h)
	var (
		out      events.APIGatewayV2HTTPResponse
		err      error
		panicked any
	)
	func() {
		defer func() { panicked = recover() }()
		out, err = lambda(context.Background(), event("GET", "/x", "", nil))
	}()
	if panicked != nil {
		t.Fatalf("Lambda handler panicked on a (nil, nil) handler result: %v", panicked)
	}
	if err != nil {
		t.Fatalf("Lambda handler returned a Go error: %v", err)
	}
	if out.StatusCode != 500 {
		t.Errorf("status = %d, want 500", out.StatusCode)
	}
	if env := envelope(t, out); env.Code != apierr.Internal {
		t.Errorf("code = %s, want INTERNAL_ERROR", env.Code)
	}
	logLine(t, &logs)
}

func TestRequestHeader(t *testing.T) {
	r := &web.Request{Headers: map[string]string{
		"authorization":   "Bearer a",
		"Idempotency-Key": "k1",
		"X-EMPTY":         "",
	}}
	tests := []struct {
		name    string
		want    string
		present bool
	}{
		{"authorization", "Bearer a", true},
		{"Authorization", "Bearer a", true},
		{"AUTHORIZATION", "Bearer a", true},
		{"idempotency-key", "k1", true},
		{"IDEMPOTENCY-KEY", "k1", true},
		{"Idempotency-Key", "k1", true},
		{"x-empty", "", true},
		{"X-Empty", "", true},
		{"missing", "", false},
		{"authorizatio", "", false},
	}
	for _, tt := range tests {
		if got := r.Header(tt.name); got != tt.want {
			t.Errorf("Header(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if got := r.HasHeader(tt.name); got != tt.present {
			t.Errorf("HasHeader(%q) = %v, want %v", tt.name, got, tt.present)
		}
	}
	empty := &web.Request{}
	if empty.Header("a") != "" || empty.HasHeader("a") {
		t.Error("nil header map should have no headers")
	}
}

func TestNewRequest(t *testing.T) {
	ev := event("POST", "/raw/path", "", map[string]string{"x-a": "1"})
	ev.RequestContext.HTTP.Path = "/ctx/path"
	ev.RequestContext.HTTP.SourceIP = "203.0.113.9"
	ev.PathParameters = map[string]string{"token": "t"}
	ev.QueryStringParameters = map[string]string{"environment": "sandbox"}
	ev.Cookies = []string{"a=b"}
	r := httpapi.NewRequest(ev, "")
	if r.Path != "/raw/path" || r.Method != "POST" || r.RouteKey != "POST /raw/path" {
		t.Errorf("Path/Method/RouteKey = %q %q %q", r.Path, r.Method, r.RouteKey)
	}
	if r.PathParams["token"] != "t" || r.Query["environment"] != "sandbox" || r.Header("X-A") != "1" ||
		len(r.Cookies) != 1 || r.SourceIP != "203.0.113.9" || r.Host != "api.example.com" {
		t.Errorf("request fields not carried over: %+v", r)
	}
	if r.BaseURL != "https://api.example.com" {
		t.Errorf("BaseURL = %q, want https:// and the request's domain", r.BaseURL)
	}
	if !correlationRE.MatchString(r.CorrelationID) || r.Received.IsZero() {
		t.Errorf("CorrelationID %q / Received %v", r.CorrelationID, r.Received)
	}
	if got := httpapi.NewRequest(ev, "https://pay.example.com.bd/").BaseURL; got != "https://pay.example.com.bd" {
		t.Errorf("configured BaseURL = %q, want it without the trailing slash", got)
	}
	ev.RawPath = ""
	if got := httpapi.NewRequest(ev, "").Path; got != "/ctx/path" {
		t.Errorf("Path = %q, want the request context path when RawPath is empty", got)
	}
}

func TestRoutesDispatchByRouteKey(t *testing.T) {
	var called []string
	routes := web.Routes{
		"GET /a": func(context.Context, *web.Request) (*web.Response, error) {
			called = append(called, "a")
			return web.JSON(200, 1), nil
		},
		"POST /a": func(context.Context, *web.Request) (*web.Response, error) {
			called = append(called, "post a")
			return web.JSON(201, 2), nil
		},
		"$default": func(context.Context, *web.Request) (*web.Response, error) {
			called = append(called, "default")
			return web.JSON(404, 3), nil
		},
	}
	var logs bytes.Buffer
	h := httpapi.Adapter{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}.Routes("fn", routes)
	for _, tt := range []struct {
		ev     events.APIGatewayV2HTTPRequest
		status int
	}{
		{event("GET", "/a", "", nil), 200},
		{event("POST", "/a", "", nil), 201},
		{events.APIGatewayV2HTTPRequest{RouteKey: "$default", RawPath: "/zzz"}, 404},
	} {
		out, _ := h(context.Background(), tt.ev)
		if out.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.ev.RouteKey, out.StatusCode, tt.status)
		}
	}
	if strings.Join(called, ",") != "a,post a,default" {
		t.Errorf("handlers called: %v", called)
	}
	// A route key the table does not have is a 404 envelope, never a panic or a 500.
	out, _ := h(context.Background(), event("DELETE", "/a", "", nil))
	if env := envelope(t, out); out.StatusCode != 404 || env.Code != apierr.NotFound {
		t.Errorf("unknown route key: %d %s", out.StatusCode, out.Body)
	}
}

// Errors are classified once, at the edge: a dependency that cannot be reached is a
// retryable 503 whatever handler returned it; anything unknown a 500.
func TestClassify(t *testing.T) {
	netErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	tests := []struct {
		name string
		err  error
		code apierr.Code
	}{
		{"api error kept", apierr.New(apierr.StateConflict, "x"), apierr.StateConflict},
		{"wrapped api error kept", fmt.Errorf("op: %w", apierr.New(apierr.NotFound, "x")), apierr.NotFound},
		{"network error", fmt.Errorf("get item: %w", netErr), apierr.ServiceUnavailable},
		{"deadline", fmt.Errorf("put: %w", context.DeadlineExceeded), apierr.ServiceUnavailable},
		{"throttled", &smithy.GenericAPIError{Code: "ThrottlingException", Fault: smithy.FaultServer}, apierr.ServiceUnavailable},
		{"validation bug", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, apierr.Internal},
		{"item too large (put)", &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "PutItem", Err: &smithy.GenericAPIError{
			Code: "ValidationException", Message: "Item size has exceeded the maximum allowed size", Fault: smithy.FaultClient}}, apierr.RequestTooLarge},
		{"item too large (update)", fmt.Errorf("update: %w", &smithy.GenericAPIError{
			Code: "ValidationException", Message: "Item size to update has exceeded the maximum allowed size", Fault: smithy.FaultClient}), apierr.RequestTooLarge},
		{"plain error", errors.New("boom"), apierr.Internal},
	}
	for _, tt := range tests {
		e := httpapi.Classify(tt.err)
		if e.Code != tt.code {
			t.Errorf("%s: code %s, want %s", tt.name, e.Code, tt.code)
		}
		if tt.code == apierr.ServiceUnavailable && (!e.Code.Retryable() || e.Cause == nil) {
			t.Errorf("%s: 503 must be retryable and keep its cause for the log", tt.name)
		}
		if tt.code == apierr.RequestTooLarge && (e.Status() != 413 || e.Code.Retryable() || e.Cause == nil) {
			t.Errorf("%s: an item over DynamoDB's limit must be a non-retryable 413 that keeps its cause", tt.name)
		}
	}
	out, _ := invoke(t, httpapi.Adapter{}, func(context.Context, *web.Request) (*web.Response, error) {
		return nil, fmt.Errorf("get item: %w", netErr)
	}, event("GET", "/x", "", nil))
	if env := envelope(t, out); out.StatusCode != 503 || env.Code != apierr.ServiceUnavailable || !env.Retryable || out.Headers["Retry-After"] == "" {
		t.Errorf("unreachable store: %d %s %v", out.StatusCode, out.Body, out.Headers)
	}
}

// ErrorPage lets a function render classified errors as pages for the requests it chooses;
// returning nil leaves the envelope.
func TestErrorPage(t *testing.T) {
	a := httpapi.Adapter{ErrorPage: func(r *web.Request, e *apierr.Error) *web.Response {
		if r.Header("Accept") != "text/html" {
			return nil
		}
		return &web.Response{Status: e.Status(), Headers: map[string]string{"Content-Type": "text/html"}, Raw: []byte("<p>" + string(e.Code) + "</p>")}
	}}
	h := func(context.Context, *web.Request) (*web.Response, error) {
		return nil, &net.OpError{Op: "dial", Err: errors.New("refused")}
	}
	out, _ := invoke(t, a, h, event("GET", "/x", "", map[string]string{"accept": "text/html"}))
	if out.StatusCode != 503 || out.Body != "<p>SERVICE_UNAVAILABLE</p>" || out.Headers["Content-Type"] != "text/html" {
		t.Errorf("page: %d %q %v", out.StatusCode, out.Body, out.Headers)
	}
	if !correlationRE.MatchString(out.Headers[httpapi.CorrelationHeader]) {
		t.Error("an error page lost the correlation header")
	}
	out, _ = invoke(t, a, h, event("GET", "/x", "", nil))
	if env := envelope(t, out); env.Code != apierr.ServiceUnavailable {
		t.Errorf("envelope: %s", out.Body)
	}
}
