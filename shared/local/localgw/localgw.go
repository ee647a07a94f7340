// Package localgw is a local stand-in for API Gateway HTTP API (payload
// format 2.0): it serves real HTTP requests by converting them into
// events.APIGatewayV2HTTPRequest values, calling the Lambda handler functions
// in-process and converting their events.APIGatewayV2HTTPResponse back.
//
// It is used by `make dev` and the integration tests, where SAM CLI and
// Docker are unavailable. It follows the deployed gateway as closely as is
// practical; the known differences are listed on Gateway.
package localgw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// DefaultRoutePath is the path (and route key) of the catch-all route.
const DefaultRoutePath = "$default"

// AnyMethod is the Route.Method that matches every HTTP method.
const AnyMethod = "ANY"

// DefaultMaxBodyBytes is the request body limit used when Options.MaxBodyBytes is not positive (10 MiB, the HTTP API payload quota).
const DefaultMaxBodyBytes int64 = 10 << 20

// Handler is the signature of a Lambda handler invoked by an HTTP API with payload format 2.0.
type Handler func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Route is one HTTP API route: a method and path template bound to a function by name.
//
// Method is an upper-case HTTP method or "ANY". Path is a template such as
// "/v1/payment/create", "/v1/public/checkout/{token}" or "/v1/things/{proxy+}"
// (a greedy variable, allowed only as the last segment), or "$default", which
// matches any method. Function is the name (the SAM logical id) of the handler.
type Route struct {
	Method   string
	Path     string
	Function string
	// Timeout, when positive, replaces Options.HandlerTimeout for this route's invocations
	// (the function's template Timeout).
	Timeout time.Duration
}

// Key returns the HTTP API route key, e.g. "POST /v1/payment/create" or "$default".
func (r Route) Key() string {
	if r.Path == DefaultRoutePath {
		return DefaultRoutePath
	}
	return r.Method + " " + r.Path
}

// Options configures a Gateway; the zero value is valid.
type Options struct {
	// Stage is reported in requestContext.stage (default "$default"). It is
	// only a label: URLs are never expected to carry a stage prefix.
	Stage string
	// MaxBodyBytes is the largest accepted request body; a larger one gets
	// 413 {"message":"Request Entity Too Large"}. Zero or negative means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Logger receives one record per request and the details of gateway
	// errors; nil discards them.
	Logger *slog.Logger
	// HandlerTimeout, when positive, is the context deadline given to each
	// invocation, like a Lambda function timeout. A handler still running at
	// the deadline is abandoned (it keeps running in its goroutine) and the
	// client gets 500 {"message":"Internal Server Error"}, as with a timed-out
	// Lambda function.
	HandlerTimeout time.Duration
}

// segment kinds, ordered from most to least specific.
const (
	segLiteral = iota
	segParam
	segGreedy
)

type segment struct {
	kind  int
	value string // literal text or parameter name
}

// route is a validated Route with its parsed template and handler.
type route struct {
	Route
	key       string
	isDefault bool
	anyMethod bool
	segs      []segment
	class     int // segLiteral: no variables, segParam: {param} only, segGreedy: has {name+}
	literals  int
	handler   Handler
}

// Gateway is an http.Handler that emulates an API Gateway HTTP API in front of in-process Lambda handlers.
//
// Route selection follows HTTP API: routes without variables beat routes
// with {param} segments, which beat routes with a greedy {name+} segment;
// among those, more literal segments win, then a specific method beats ANY,
// then (left to right) a literal segment beats a variable one. "$default" is
// used only when nothing else matches; with no match and no "$default" the
// response is 404 {"message":"Not Found"}. Matching is case-sensitive, on
// the escaped path split on "/", with no trailing-slash folding; variable
// values are URL-unescaped. A {param} never matches an empty segment and a
// greedy variable needs at least one character.
//
// Known differences from the deployed gateway: requestContext.domainName is
// the request's Host header including any port (so handlers can build local
// URLs); rawPath is the path as sent (still percent-encoded, whereas the
// deployed HTTP API has been seen to decode it) and requestContext.http.path
// is the decoded path; the stage is never part of the URL; x-forwarded-proto
// is "http" (or "https" when served over TLS) and x-forwarded-port is the
// local listening port; hop-by-hop request headers (Connection, Keep-Alive,
// TE, Trailer, Transfer-Encoding, Upgrade, Proxy-Connection) are not passed
// on; a response without Content-Type but with a body is given
// "application/json". No authorizers, CORS, throttling or stage variables are
// emulated.
type Gateway struct {
	routes     []*route // sorted by precedence, $default excluded
	defRoute   *route
	stage      string
	maxBody    int64
	log        *slog.Logger
	timeout    time.Duration
	listRoutes []Route
}

// New validates the routes and returns a Gateway serving them with the named handlers.
//
// It fails if a route has an empty or malformed method or path, names a
// function with no (or a nil) handler, or has the same method and path as
// another route (paths differing only in variable names count as the same;
// any two "$default" routes are the same).
func New(routes []Route, handlers map[string]Handler, opts Options) (*Gateway, error) {
	g := &Gateway{
		stage:   opts.Stage,
		maxBody: opts.MaxBodyBytes,
		log:     opts.Logger,
		timeout: opts.HandlerTimeout,
	}
	if g.stage == "" {
		g.stage = "$default"
	}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBodyBytes
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}

	seen := make(map[string]Route, len(routes))
	var errs []error
	for _, in := range routes {
		rt, shape, err := compileRoute(in)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h := handlers[in.Function]
		if h == nil {
			errs = append(errs, fmt.Errorf("localgw: route %q: no handler for function %q", rt.key, in.Function))
			continue
		}
		rt.handler = h
		if prev, dup := seen[shape]; dup {
			errs = append(errs, fmt.Errorf("localgw: route %q (function %q) duplicates route %q (function %q)",
				rt.key, in.Function, prev.Key(), prev.Function))
			continue
		}
		seen[shape] = rt.Route
		if rt.isDefault {
			g.defRoute = rt
		} else {
			g.routes = append(g.routes, rt)
		}
		g.listRoutes = append(g.listRoutes, rt.Route)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	sort.SliceStable(g.routes, func(i, j int) bool { return morePrecise(g.routes[i], g.routes[j]) })
	sort.SliceStable(g.listRoutes, func(i, j int) bool {
		a, b := g.listRoutes[i], g.listRoutes[j]
		if (a.Path == DefaultRoutePath) != (b.Path == DefaultRoutePath) {
			return b.Path == DefaultRoutePath
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	return g, nil
}

// Routes returns a copy of the configured routes (with normalised methods), sorted by path then method, "$default" last.
func (g *Gateway) Routes() []Route {
	return append([]Route(nil), g.listRoutes...)
}

// compileRoute validates r and returns its parsed form and the key used to detect duplicates.
func compileRoute(r Route) (*route, string, error) {
	r.Method = strings.ToUpper(strings.TrimSpace(r.Method))
	rt := &route{Route: r}
	if r.Path == DefaultRoutePath {
		if r.Method == "" {
			rt.Method = AnyMethod
		}
		rt.key = DefaultRoutePath
		rt.isDefault = true
		return rt, DefaultRoutePath, validMethod(rt.Route)
	}
	rt.key = r.Key()
	if err := validMethod(r); err != nil {
		return nil, "", err
	}
	rt.anyMethod = r.Method == AnyMethod
	if !strings.HasPrefix(r.Path, "/") {
		return nil, "", fmt.Errorf("localgw: route %q: path must start with \"/\" or be \"$default\"", rt.key)
	}

	var shape strings.Builder
	shape.WriteString(r.Method)
	shape.WriteByte(' ')
	if r.Path == "/" {
		rt.segs = []segment{{kind: segLiteral}}
		rt.literals = 1
		shape.WriteString("/")
		return rt, shape.String(), nil
	}
	names := map[string]bool{}
	parts := strings.Split(r.Path[1:], "/")
	for i, p := range parts {
		shape.WriteByte('/')
		bad := func(why string) (*route, string, error) {
			return nil, "", fmt.Errorf("localgw: route %q: segment %q: %s", rt.key, p, why)
		}
		switch {
		case p == "":
			return bad("empty segment")
		case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
			name := p[1 : len(p)-1]
			seg := segment{kind: segParam}
			if strings.HasSuffix(name, "+") {
				if i != len(parts)-1 {
					return bad("a greedy variable must be the last segment")
				}
				name = strings.TrimSuffix(name, "+")
				seg.kind = segGreedy
			}
			if name == "" || strings.ContainsAny(name, "{}+") {
				return bad("malformed variable name")
			}
			if names[name] {
				return bad("duplicate variable name")
			}
			names[name] = true
			seg.value = name
			rt.segs = append(rt.segs, seg)
			if seg.kind > rt.class {
				rt.class = seg.kind
			}
			if seg.kind == segGreedy {
				shape.WriteString("{+}")
			} else {
				shape.WriteString("{}")
			}
		case strings.ContainsAny(p, "{}"):
			return bad("a variable must be a whole segment")
		default:
			rt.segs = append(rt.segs, segment{kind: segLiteral, value: p})
			rt.literals++
			shape.WriteString(p)
		}
	}
	return rt, shape.String(), nil
}

func validMethod(r Route) error {
	if r.Method == "" {
		return fmt.Errorf("localgw: route %q: empty method", r.Key())
	}
	for _, c := range r.Method {
		if c < 'A' || c > 'Z' {
			return fmt.Errorf("localgw: route %q: malformed method %q", r.Key(), r.Method)
		}
	}
	return nil
}

// morePrecise reports whether a takes precedence over b.
func morePrecise(a, b *route) bool {
	if a.class != b.class {
		return a.class < b.class
	}
	if a.literals != b.literals {
		return a.literals > b.literals
	}
	if a.anyMethod != b.anyMethod {
		return !a.anyMethod
	}
	for i := 0; i < len(a.segs) && i < len(b.segs); i++ {
		if a.segs[i].kind != b.segs[i].kind {
			return a.segs[i].kind < b.segs[i].kind
		}
	}
	return len(a.segs) > len(b.segs)
}

// match reports whether rt matches the method and the escaped path segments,
// returning the unescaped path parameters.
func (rt *route) match(method string, rawSegs []string) (map[string]string, bool) {
	if !rt.anyMethod && rt.Method != method {
		return nil, false
	}
	n := len(rt.segs)
	if len(rawSegs) < n || (rt.class != segGreedy && len(rawSegs) != n) {
		return nil, false
	}
	var params map[string]string
	for i, s := range rt.segs {
		var raw string
		switch s.kind {
		case segLiteral:
			if rawSegs[i] != s.value {
				return nil, false
			}
			continue
		case segParam:
			raw = rawSegs[i]
		case segGreedy:
			raw = strings.Join(rawSegs[i:], "/")
		}
		if raw == "" {
			return nil, false
		}
		if params == nil {
			params = make(map[string]string, len(rt.segs))
		}
		params[s.value] = unescapePath(raw)
	}
	return params, true
}

// selectRoute returns the route for method and escaped path (nil if none) and its path parameters.
func (g *Gateway) selectRoute(method, escapedPath string) (*route, map[string]string) {
	if strings.HasPrefix(escapedPath, "/") {
		rawSegs := strings.Split(escapedPath[1:], "/")
		for _, rt := range g.routes {
			if params, ok := rt.match(method, rawSegs); ok {
				return rt, params
			}
		}
	}
	return g.defRoute, nil
}

// ServeHTTP converts r into a payload 2.0 event, invokes the selected handler and writes its response.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	requestID := newRequestID()
	w.Header().Set("Apigw-Requestid", requestID)
	escapedPath := r.URL.EscapedPath()
	logAttrs := []any{
		slog.String("requestId", requestID),
		slog.String("method", r.Method),
		slog.String("path", escapedPath),
	}
	finish := func(status int) {
		attrs := make([]any, 0, len(logAttrs)+2)
		attrs = append(attrs, logAttrs...)
		attrs = append(attrs, slog.Int("status", status), slog.Duration("duration", time.Since(start)))
		g.log.Info("localgw request", attrs...)
	}

	body, status := g.readBody(r)
	if status != 0 {
		writeGatewayError(w, status)
		finish(status)
		return
	}

	rt, params := g.selectRoute(r.Method, escapedPath)
	if rt == nil {
		writeGatewayError(w, http.StatusNotFound)
		finish(http.StatusNotFound)
		return
	}
	logAttrs = append(logAttrs, slog.String("routeKey", rt.key), slog.String("function", rt.Function))

	event := g.buildEvent(r, rt, params, body, requestID, start)
	resp, err := g.invoke(r.Context(), rt, event)
	if err != nil {
		g.log.Error("localgw: handler failed; responding 500 like API Gateway", append(logAttrs, slog.Any("error", err))...)
		writeGatewayError(w, http.StatusInternalServerError)
		finish(http.StatusInternalServerError)
		return
	}
	status, err = writeResponse(w, resp)
	if err != nil {
		g.log.Error("localgw: malformed handler response; responding 500 like API Gateway", append(logAttrs, slog.Any("error", err))...)
		writeGatewayError(w, http.StatusInternalServerError)
		finish(http.StatusInternalServerError)
		return
	}
	finish(status)
}
