package localgw

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// echo returns a handler that answers with the event it received as JSON and names itself in X-Function.
func echo(name string) Handler {
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		b, err := json.Marshal(req)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 200,
			Headers:    map[string]string{"Content-Type": "application/json", "X-Function": name},
			Body:       string(b),
		}, nil
	}
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) function() string { return r.header.Get("X-Function") }

func (r result) event(t *testing.T) events.APIGatewayV2HTTPRequest {
	t.Helper()
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(r.body, &ev); err != nil {
		t.Fatalf("response body is not an echoed event: %v\n%s", err, r.body)
	}
	return ev
}

func newServer(t *testing.T, routes []Route, handlers map[string]Handler, opts Options) *httptest.Server {
	t.Helper()
	g, err := New(routes, handlers, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, srv *httptest.Server, method, target string, body io.Reader, header http.Header) result {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+target, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return result{status: resp.StatusCode, header: resp.Header, body: b}
}

func get(t *testing.T, srv *httptest.Server, target string) result {
	t.Helper()
	return do(t, srv, http.MethodGet, target, nil, nil)
}

func assertGatewayError(t *testing.T, r result, status int, message string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d (body %s)", r.status, status, r.body)
	}
	if want := `{"message":"` + message + `"}`; string(r.body) != want {
		t.Errorf("body = %s, want %s", r.body, want)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if r.header.Get("Apigw-Requestid") == "" {
		t.Error("missing Apigw-Requestid header")
	}
}

func handlersFor(routes []Route) map[string]Handler {
	hs := map[string]Handler{}
	for _, r := range routes {
		hs[r.Function] = echo(r.Function)
	}
	return hs
}

var precedenceRoutes = []Route{
	{Method: "ANY", Path: "$default", Function: "Default"},
	{Method: "GET", Path: "/v1/things/{proxy+}", Function: "GetGreedy"},
	{Method: "ANY", Path: "/v1/things/{proxy+}", Function: "AnyGreedy"},
	{Method: "GET", Path: "/v1/things/special/{proxy+}", Function: "SpecialGreedy"},
	{Method: "GET", Path: "/v1/things/{id}", Function: "GetParam"},
	{Method: "ANY", Path: "/v1/things/{id}", Function: "AnyParam"},
	{Method: "GET", Path: "/v1/things/{id}/{sub}", Function: "TwoParams"},
	{Method: "GET", Path: "/v1/things/{id}/detail", Function: "ParamLiteral"},
	{Method: "GET", Path: "/v1/things/list", Function: "GetExact"},
	{Method: "ANY", Path: "/v1/things/list", Function: "AnyExact"},
	{Method: "ANY", Path: "/v1/things/mixed", Function: "AnyMixedExact"},
	{Method: "GET", Path: "/v1/{kind}/mixed", Function: "GetMixedParam"},
	{Method: "POST", Path: "/v1/payment/create", Function: "Create"},
	{Method: "GET", Path: "/", Function: "Root"},
}

func TestRoutePrecedence(t *testing.T) {
	srv := newServer(t, precedenceRoutes, handlersFor(precedenceRoutes), Options{})
	tests := []struct {
		method, path, function, routeKey string
		params                           map[string]string
	}{
		{"GET", "/v1/things/list", "GetExact", "GET /v1/things/list", nil},
		{"DELETE", "/v1/things/list", "AnyExact", "ANY /v1/things/list", nil},
		{"GET", "/v1/things/42", "GetParam", "GET /v1/things/{id}", map[string]string{"id": "42"}},
		{"PUT", "/v1/things/42", "AnyParam", "ANY /v1/things/{id}", map[string]string{"id": "42"}},
		{"GET", "/v1/things/42/detail", "ParamLiteral", "GET /v1/things/{id}/detail", map[string]string{"id": "42"}},
		{"GET", "/v1/things/42/other", "TwoParams", "GET /v1/things/{id}/{sub}", map[string]string{"id": "42", "sub": "other"}},
		{"GET", "/v1/things/a/b/c", "GetGreedy", "GET /v1/things/{proxy+}", map[string]string{"proxy": "a/b/c"}},
		{"POST", "/v1/things/a/b/c", "AnyGreedy", "ANY /v1/things/{proxy+}", map[string]string{"proxy": "a/b/c"}},
		{"GET", "/v1/things/special/x/y", "SpecialGreedy", "GET /v1/things/special/{proxy+}", map[string]string{"proxy": "x/y"}},
		// An exact ANY route beats a GET route with a variable.
		{"GET", "/v1/things/mixed", "AnyMixedExact", "ANY /v1/things/mixed", nil},
		{"GET", "/v1/other/mixed", "GetMixedParam", "GET /v1/{kind}/mixed", map[string]string{"kind": "other"}},
		{"POST", "/v1/payment/create", "Create", "POST /v1/payment/create", nil},
		{"GET", "/", "Root", "GET /", nil},
		// Method mismatch falls through to $default.
		{"GET", "/v1/payment/create", "Default", "$default", nil},
		// Trailing slash is not folded; empty variables do not match.
		{"POST", "/v1/payment/create/", "Default", "$default", nil},
		{"GET", "/v1/things/", "Default", "$default", nil},
		{"GET", "/nowhere", "Default", "$default", nil},
		// Matching is case-sensitive.
		{"POST", "/V1/payment/create", "Default", "$default", nil},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.path, nil, nil)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if got := r.function(); got != tc.function {
				t.Fatalf("function = %q, want %q", got, tc.function)
			}
			ev := r.event(t)
			if ev.RouteKey != tc.routeKey || ev.RequestContext.RouteKey != tc.routeKey {
				t.Errorf("routeKey = %q / %q, want %q", ev.RouteKey, ev.RequestContext.RouteKey, tc.routeKey)
			}
			if !reflect.DeepEqual(ev.PathParameters, tc.params) {
				t.Errorf("pathParameters = %v, want %v", ev.PathParameters, tc.params)
			}
		})
	}
}

// The dashboard's form pages sit beside a document's page: /dashboard/invoices/new (literal)
// must win over /dashboard/invoices/{documentID} whatever the order the routes come in, as
// API Gateway picks the most specific route, even when the two are different functions.
func TestLiteralBeatsVariableSibling(t *testing.T) {
	routes := []Route{
		{Method: "GET", Path: "/dashboard/invoices/{documentID}", Function: "DocPage"},
		{Method: "GET", Path: "/dashboard/invoices/{documentID}/edit", Function: "EditForm"},
		{Method: "GET", Path: "/dashboard/invoices/new", Function: "NewForm"},
		{Method: "POST", Path: "/dashboard/invoices/{documentID}/{action}", Function: "Command"},
		{Method: "POST", Path: "/dashboard/invoices/{documentID}/issue", Function: "Issue"},
	}
	for _, order := range [][]Route{routes, {routes[4], routes[3], routes[2], routes[1], routes[0]}} {
		srv := newServer(t, order, handlersFor(order), Options{})
		for _, tc := range []struct{ method, path, function string }{
			{"GET", "/dashboard/invoices/new", "NewForm"},
			{"GET", "/dashboard/invoices/0192", "DocPage"},
			{"GET", "/dashboard/invoices/new/edit", "EditForm"},
			{"POST", "/dashboard/invoices/0192/issue", "Issue"},
			{"POST", "/dashboard/invoices/0192/cancel", "Command"},
		} {
			r := do(t, srv, tc.method, tc.path, nil, nil)
			if r.status != 200 || r.function() != tc.function {
				t.Errorf("%s %s: %d from %q, want %q", tc.method, tc.path, r.status, r.function(), tc.function)
			}
		}
	}
}

func TestNotFoundWithoutDefault(t *testing.T) {
	routes := []Route{{Method: "POST", Path: "/v1/payment/create", Function: "Create"}}
	srv := newServer(t, routes, handlersFor(routes), Options{})
	assertGatewayError(t, get(t, srv, "/v1/payment/create"), 404, "Not Found")
	assertGatewayError(t, get(t, srv, "/elsewhere"), 404, "Not Found")
	assertGatewayError(t, do(t, srv, "POST", "/v1/payment/create/", nil, nil), 404, "Not Found")
	if r := do(t, srv, "POST", "/v1/payment/create", nil, nil); r.status != 200 || r.function() != "Create" {
		t.Fatalf("POST create: %d %q", r.status, r.function())
	}
}

func TestPathParametersUnescaped(t *testing.T) {
	routes := []Route{
		{Method: "GET", Path: "/v1/public/checkout/{token}", Function: "Checkout"},
		{Method: "GET", Path: "/v1/files/{proxy+}", Function: "Files"},
	}
	srv := newServer(t, routes, handlersFor(routes), Options{})

	ev := get(t, srv, "/v1/public/checkout/a%2Fb%20c%3F").event(t)
	if got := ev.PathParameters["token"]; got != "a/b c?" {
		t.Errorf("token = %q, want %q", got, "a/b c?")
	}
	if ev.RawPath != "/v1/public/checkout/a%2Fb%20c%3F" {
		t.Errorf("rawPath = %q", ev.RawPath)
	}
	if ev.RequestContext.HTTP.Path != "/v1/public/checkout/a/b c?" {
		t.Errorf("http.path = %q", ev.RequestContext.HTTP.Path)
	}

	ev = get(t, srv, "/v1/files/dir%20one/f%C3%BCr.txt").event(t)
	if got := ev.PathParameters["proxy"]; got != "dir one/für.txt" {
		t.Errorf("proxy = %q", got)
	}
}

func TestEventConversion(t *testing.T) {
	routes := []Route{{Method: "POST", Path: "/v1/payment/create", Function: "Create"}}
	srv := newServer(t, routes, handlersFor(routes), Options{Stage: "local"})

	h := http.Header{}
	h.Add("X-Multi", "one")
	h.Add("X-Multi", "two")
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("User-Agent", "localgw-test/1.0")
	h.Add("Cookie", "session=abc; theme=dark")
	h.Add("Cookie", "lang=bn")
	h.Set("X-Forwarded-For", "203.0.113.9")
	body := `{"amount":100.5}`
	before := time.Now()
	r := do(t, srv, "POST", "/v1/payment/create?b=2&a=1&a=3&e=&sp=x+y%26z", strings.NewReader(body), h)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	ev := r.event(t)

	if ev.Version != "2.0" {
		t.Errorf("version = %q", ev.Version)
	}
	if ev.RawPath != "/v1/payment/create" {
		t.Errorf("rawPath = %q", ev.RawPath)
	}
	if ev.RawQueryString != "b=2&a=1&a=3&e=&sp=x+y%26z" {
		t.Errorf("rawQueryString = %q", ev.RawQueryString)
	}
	wantQuery := map[string]string{"a": "1,3", "b": "2", "e": "", "sp": "x y&z"}
	if !reflect.DeepEqual(ev.QueryStringParameters, wantQuery) {
		t.Errorf("queryStringParameters = %v, want %v", ev.QueryStringParameters, wantQuery)
	}
	if ev.PathParameters != nil {
		t.Errorf("pathParameters = %v, want nil", ev.PathParameters)
	}
	if want := []string{"session=abc", "theme=dark", "lang=bn"}; !reflect.DeepEqual(ev.Cookies, want) {
		t.Errorf("cookies = %q, want %q", ev.Cookies, want)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := net.SplitHostPort(host)
	for name, want := range map[string]string{
		"x-multi":           "one,two",
		"content-type":      "application/json; charset=utf-8",
		"user-agent":        "localgw-test/1.0",
		"host":              host,
		"content-length":    "16",
		"x-forwarded-for":   "203.0.113.9, 127.0.0.1",
		"x-forwarded-proto": "http",
		"x-forwarded-port":  port,
	} {
		if got, ok := ev.Headers[name]; !ok || got != want {
			t.Errorf("header %q = %q (present %v), want %q", name, got, ok, want)
		}
	}
	for name := range ev.Headers {
		if name != strings.ToLower(name) {
			t.Errorf("header name %q is not lower-case", name)
		}
	}
	if _, ok := ev.Headers["cookie"]; ok {
		t.Error("cookie header was not removed")
	}
	if !strings.HasPrefix(ev.Headers["x-amzn-trace-id"], "Root=1-") {
		t.Errorf("x-amzn-trace-id = %q", ev.Headers["x-amzn-trace-id"])
	}
	if ev.Body != body || ev.IsBase64Encoded {
		t.Errorf("body = %q base64=%v, want plain %q", ev.Body, ev.IsBase64Encoded, body)
	}

	rc := ev.RequestContext
	if rc.AccountID != AccountID || rc.APIID != APIID || rc.Stage != "local" {
		t.Errorf("accountId/apiId/stage = %q/%q/%q", rc.AccountID, rc.APIID, rc.Stage)
	}
	if rc.DomainName != host || rc.DomainPrefix != "127.0.0.1" {
		t.Errorf("domainName/domainPrefix = %q/%q", rc.DomainName, rc.DomainPrefix)
	}
	if rc.RequestID == "" || rc.RequestID != r.header.Get("Apigw-Requestid") {
		t.Errorf("requestId = %q, Apigw-Requestid = %q", rc.RequestID, r.header.Get("Apigw-Requestid"))
	}
	wantHTTP := events.APIGatewayV2HTTPRequestContextHTTPDescription{
		Method: "POST", Path: "/v1/payment/create", Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "localgw-test/1.0",
	}
	if rc.HTTP != wantHTTP {
		t.Errorf("http = %+v, want %+v", rc.HTTP, wantHTTP)
	}
	if rc.TimeEpoch < before.UnixMilli()-1000 || rc.TimeEpoch > time.Now().UnixMilli()+1000 {
		t.Errorf("timeEpoch = %d", rc.TimeEpoch)
	}
	if ts, err := time.Parse(requestTimeLayout, rc.Time); err != nil || ts.Unix() != rc.TimeEpoch/1000 {
		t.Errorf("time = %q (%v), timeEpoch %d", rc.Time, err, rc.TimeEpoch)
	}
}

func TestEventWithoutOptionalParts(t *testing.T) {
	routes := []Route{{Method: "GET", Path: "/healthz", Function: "Health"}}
	srv := newServer(t, routes, handlersFor(routes), Options{})
	r := get(t, srv, "/healthz")
	ev := r.event(t)
	if ev.Cookies != nil || ev.QueryStringParameters != nil || ev.PathParameters != nil {
		t.Errorf("cookies/query/path = %v/%v/%v, want all nil", ev.Cookies, ev.QueryStringParameters, ev.PathParameters)
	}
	if ev.Body != "" || ev.IsBase64Encoded {
		t.Errorf("body = %q base64=%v", ev.Body, ev.IsBase64Encoded)
	}
	if ev.RequestContext.Stage != "$default" {
		t.Errorf("stage = %q", ev.RequestContext.Stage)
	}
	if ev.RequestContext.HTTP.SourceIP != "127.0.0.1" || ev.Headers["x-forwarded-for"] != "127.0.0.1" {
		t.Errorf("sourceIp = %q, x-forwarded-for = %q", ev.RequestContext.HTTP.SourceIP, ev.Headers["x-forwarded-for"])
	}
	if r2 := get(t, srv, "/healthz"); r2.event(t).RequestContext.RequestID == ev.RequestContext.RequestID {
		t.Error("request ids are not unique")
	}
}

func TestBodyEncoding(t *testing.T) {
	routes := []Route{{Method: "POST", Path: "/upload", Function: "Upload"}}
	srv := newServer(t, routes, handlersFor(routes), Options{})
	binary := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}
	tests := []struct {
		contentType string
		body        []byte
		base64      bool
	}{
		{"application/json", []byte(`{"a":1}`), false},
		{"application/problem+json", []byte(`{"a":1}`), false},
		{"text/plain; charset=utf-8", []byte("hello"), false},
		{"application/xml", []byte("<a/>"), false},
		{"application/x-www-form-urlencoded", []byte("a=1&b=2"), false},
		{"application/javascript", []byte("x()"), false},
		{"", []byte("no type"), false},
		{"application/octet-stream", binary, true},
		{"image/png", binary, true},
		{"application/pdf", []byte("%PDF-1.4"), true},
		// Invalid UTF-8 cannot travel as a JSON string, so it is base64 even when textual.
		{"text/plain", binary, true},
	}
	for _, tc := range tests {
		t.Run(tc.contentType, func(t *testing.T) {
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			ev := do(t, srv, "POST", "/upload", bytes.NewReader(tc.body), h).event(t)
			if ev.IsBase64Encoded != tc.base64 {
				t.Fatalf("isBase64Encoded = %v, want %v", ev.IsBase64Encoded, tc.base64)
			}
			got := []byte(ev.Body)
			if tc.base64 {
				var err error
				if got, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got, tc.body) {
				t.Errorf("body = %q, want %q", got, tc.body)
			}
		})
	}
}

func TestRequestTooLarge(t *testing.T) {
	routes := []Route{{Method: "POST", Path: "/upload", Function: "Upload"}}
	srv := newServer(t, routes, handlersFor(routes), Options{MaxBodyBytes: 1024})

	if r := do(t, srv, "POST", "/upload", bytes.NewReader(make([]byte, 1024)), nil); r.status != 200 {
		t.Fatalf("body at the limit: status %d", r.status)
	}
	assertGatewayError(t, do(t, srv, "POST", "/upload", bytes.NewReader(make([]byte, 1025)), nil), 413, "Request Entity Too Large")

	// Without a Content-Length (chunked) the limit is enforced while reading.
	chunked := io.MultiReader(strings.NewReader(strings.Repeat("x", 1000)), strings.NewReader(strings.Repeat("y", 1000)))
	assertGatewayError(t, do(t, srv, "POST", "/upload", struct{ io.Reader }{chunked}, nil), 413, "Request Entity Too Large")

	g, err := New(nil, nil, Options{})
	if err != nil || g.maxBody != DefaultMaxBodyBytes {
		t.Errorf("default max body = %d (%v), want %d", g.maxBody, err, DefaultMaxBodyBytes)
	}
}

func TestHandlerFailures(t *testing.T) {
	handlers := map[string]Handler{
		"Err": func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "ignored"}, errors.New("boom")
		},
		"Panic": func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			panic("kaboom")
		},
		"BadBase64": func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "not base64!", IsBase64Encoded: true}, nil
		},
		"BadStatus": func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 42}, nil
		},
	}
	var routes []Route
	for name := range handlers {
		routes = append(routes, Route{Method: "GET", Path: "/" + strings.ToLower(name), Function: name})
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slogToBuffer(&logs, &mu)
	srv := newServer(t, routes, handlers, Options{Logger: logger})
	for _, rt := range routes {
		t.Run(rt.Function, func(t *testing.T) {
			assertGatewayError(t, get(t, srv, rt.Path), 500, "Internal Server Error")
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"boom", "kaboom", "base64", "invalid status code 42"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs do not mention %q:\n%s", want, logs.String())
		}
	}
}

func TestHandlerTimeout(t *testing.T) {
	release := make(chan struct{})
	handlers := map[string]Handler{
		"Slow": func(ctx context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			<-release
			return events.APIGatewayV2HTTPResponse{StatusCode: 200}, nil
		},
		"Deadline": func(ctx context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			dl, ok := ctx.Deadline()
			lc, lok := lambdacontext.FromContext(ctx)
			if !ok || time.Until(dl) <= 0 || time.Until(dl) > time.Minute || !lok || lc.AwsRequestID == "" ||
				!strings.HasSuffix(lc.InvokedFunctionArn, ":function:Deadline") {
				return events.APIGatewayV2HTTPResponse{StatusCode: 418}, nil
			}
			return events.APIGatewayV2HTTPResponse{StatusCode: 204}, nil
		},
	}
	routes := []Route{
		{Method: "GET", Path: "/slow", Function: "Slow"},
		{Method: "GET", Path: "/deadline", Function: "Deadline"},
	}
	srv := newServer(t, routes, handlers, Options{HandlerTimeout: 30 * time.Second})
	if r := get(t, srv, "/deadline"); r.status != 204 {
		t.Fatalf("deadline/lambdacontext check: status %d", r.status)
	}

	srv = newServer(t, routes, handlers, Options{HandlerTimeout: 50 * time.Millisecond})
	defer close(release)
	assertGatewayError(t, get(t, srv, "/slow"), 500, "Internal Server Error")
}

func TestResponseConversion(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 0xff}
	responses := map[string]events.APIGatewayV2HTTPResponse{
		"Cookies": {
			StatusCode: 201,
			Headers:    map[string]string{"content-type": "text/plain", "x-single": "1", "x-both": "from-headers"},
			MultiValueHeaders: map[string][]string{
				"X-Multi": {"a", "b"},
				"x-both":  {"from-multi"},
			},
			Cookies: []string{"session=abc; Path=/; HttpOnly", "theme=dark; Max-Age=60"},
			Body:    "created",
		},
		"Binary":    {StatusCode: 200, Headers: map[string]string{"Content-Type": "image/png"}, Body: base64.StdEncoding.EncodeToString(png), IsBase64Encoded: true},
		"ZeroCode":  {Body: `{"ok":true}`},
		"NoContent": {StatusCode: 204},
	}
	handlers := map[string]Handler{}
	var routes []Route
	for name, resp := range responses {
		handlers[name] = func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return resp, nil
		}
		routes = append(routes, Route{Method: "GET", Path: "/" + strings.ToLower(name), Function: name})
	}
	srv := newServer(t, routes, handlers, Options{})

	r := get(t, srv, "/cookies")
	if r.status != 201 || string(r.body) != "created" {
		t.Fatalf("cookies: %d %q", r.status, r.body)
	}
	if got, want := r.header.Values("Set-Cookie"), []string{"session=abc; Path=/; HttpOnly", "theme=dark; Max-Age=60"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Set-Cookie = %q, want %q", got, want)
	}
	if got := r.header.Values("X-Multi"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("X-Multi = %q", got)
	}
	if got := r.header.Values("X-Both"); !reflect.DeepEqual(got, []string{"from-multi"}) {
		t.Errorf("X-Both = %q", got)
	}
	if r.header.Get("X-Single") != "1" || r.header.Get("Content-Type") != "text/plain" {
		t.Errorf("X-Single = %q, Content-Type = %q", r.header.Get("X-Single"), r.header.Get("Content-Type"))
	}

	r = get(t, srv, "/binary")
	if r.status != 200 || !bytes.Equal(r.body, png) || r.header.Get("Content-Type") != "image/png" {
		t.Errorf("binary: %d %q %q", r.status, r.body, r.header.Get("Content-Type"))
	}

	r = get(t, srv, "/zerocode")
	if r.status != 200 || string(r.body) != `{"ok":true}` || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("zero status: %d %q %q", r.status, r.body, r.header.Get("Content-Type"))
	}

	r = get(t, srv, "/nocontent")
	if r.status != 204 || len(r.body) != 0 || r.header.Get("Content-Type") != "" {
		t.Errorf("no content: %d %q %q", r.status, r.body, r.header.Get("Content-Type"))
	}
}

func TestNewErrors(t *testing.T) {
	h := map[string]Handler{"F": echo("F"), "G": echo("G"), "Nil": nil}
	tests := []struct {
		name   string
		routes []Route
		want   string
	}{
		{"missing handler", []Route{{Method: "GET", Path: "/a", Function: "Missing"}}, `no handler for function "Missing"`},
		{"nil handler", []Route{{Method: "GET", Path: "/a", Function: "Nil"}}, `no handler for function "Nil"`},
		{"duplicate", []Route{{Method: "GET", Path: "/a", Function: "F"}, {Method: "GET", Path: "/a", Function: "G"}}, "duplicates"},
		{"duplicate case-insensitive method", []Route{{Method: "get", Path: "/a", Function: "F"}, {Method: "GET", Path: "/a", Function: "G"}}, "duplicates"},
		{"duplicate variable names", []Route{{Method: "GET", Path: "/a/{x}", Function: "F"}, {Method: "GET", Path: "/a/{y}", Function: "G"}}, "duplicates"},
		{"duplicate default", []Route{{Method: "ANY", Path: "$default", Function: "F"}, {Method: "GET", Path: "$default", Function: "G"}}, "duplicates"},
		{"empty method", []Route{{Path: "/a", Function: "F"}}, "empty method"},
		{"bad method", []Route{{Method: "GE T", Path: "/a", Function: "F"}}, "malformed method"},
		{"relative path", []Route{{Method: "GET", Path: "a", Function: "F"}}, "must start with"},
		{"greedy not last", []Route{{Method: "GET", Path: "/{proxy+}/a", Function: "F"}}, "last segment"},
		{"partial variable", []Route{{Method: "GET", Path: "/a{id}", Function: "F"}}, "whole segment"},
		{"empty variable", []Route{{Method: "GET", Path: "/a/{}", Function: "F"}}, "malformed variable"},
		{"repeated variable", []Route{{Method: "GET", Path: "/{a}/{a}", Function: "F"}}, "duplicate variable"},
		{"empty segment", []Route{{Method: "GET", Path: "/a//b", Function: "F"}}, "empty segment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.routes, h, Options{})
			if err == nil {
				t.Fatalf("New succeeded with routes %v", g.Routes())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}

	// Different methods, or a method and ANY, on one path are fine.
	if _, err := New([]Route{
		{Method: "GET", Path: "/a", Function: "F"},
		{Method: "POST", Path: "/a", Function: "F"},
		{Method: "ANY", Path: "/a", Function: "G"},
	}, h, Options{}); err != nil {
		t.Errorf("New: %v", err)
	}
}

func TestRoutesSorted(t *testing.T) {
	g, err := New(precedenceRoutes, handlersFor(precedenceRoutes), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := g.Routes()
	if len(got) != len(precedenceRoutes) {
		t.Fatalf("Routes() has %d routes, want %d", len(got), len(precedenceRoutes))
	}
	if got[len(got)-1].Path != DefaultRoutePath {
		t.Errorf("last route = %v, want $default", got[len(got)-1])
	}
	for i := 1; i < len(got)-1; i++ {
		a, b := got[i-1], got[i]
		if a.Path > b.Path || (a.Path == b.Path && a.Method > b.Method) {
			t.Errorf("Routes() not sorted at %d: %v before %v", i, a, b)
		}
	}
	got[0].Function = "mutated"
	if g.Routes()[0].Function == "mutated" {
		t.Error("Routes() exposes internal state")
	}
	if k := (Route{Method: "POST", Path: "/v1/payment/create"}).Key(); k != "POST /v1/payment/create" {
		t.Errorf("Key() = %q", k)
	}
}

func TestConcurrentRequests(t *testing.T) {
	routes := []Route{{Method: "GET", Path: "/v1/items/{id}", Function: "Item"}}
	srv := newServer(t, routes, handlersFor(routes), Options{HandlerTimeout: 10 * time.Second})
	var wg sync.WaitGroup
	ids := make(chan string, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", srv.URL+"/v1/items/"+strings.Repeat("x", i+1), nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var ev events.APIGatewayV2HTTPRequest
			if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
				t.Error(err)
				return
			}
			if ev.PathParameters["id"] != strings.Repeat("x", i+1) {
				t.Errorf("id = %q", ev.PathParameters["id"])
			}
			ids <- ev.RequestContext.RequestID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("duplicate request id %q", id)
		}
		seen[id] = true
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func slogToBuffer(buf *bytes.Buffer, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{mu: mu, w: buf}, nil))
}
