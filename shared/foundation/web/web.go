// Package web is the plain-Go shape of an HTTP exchange that the domain handlers see: a
// Request already decoded from whatever carried it (API Gateway's payload 2.0 in production,
// see package httpapi), a Response, and Routes, the literal table with which each function
// declares its operations by the template's route key.
//
// It imports nothing of AWS or Lambda, so the domain packages (payment, document, checkout,
// webhook) can serve requests without knowing how they arrive.
package web

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// Request is one incoming request with its body decoded and its correlation id assigned.
type Request struct {
	// Method is the HTTP method.
	Method string
	// RouteKey is the template route that matched ("POST /v1/payment/create"); log this, never Path.
	RouteKey string
	// Path is the raw request path. It may carry a bearer token (checkout and public document
	// links): never log it.
	Path string
	// PathParams are the route's {name} values.
	PathParams map[string]string
	// Query holds the query string parameters (the last value of a repeated name).
	Query map[string]string
	// Headers are the request headers as received; look them up with Header (case-insensitive).
	Headers map[string]string
	// Cookies are the request's cookies, one "name=value" each.
	Cookies []string
	// Body is the decoded request body.
	Body []byte
	// SourceIP is the client address the gateway saw.
	SourceIP string
	// Host is the domain name the request was sent to.
	Host string
	// BaseURL is the API's public origin without a trailing slash (PUBLIC_BASE_URL, or the
	// domain the request arrived at over https): where payment_url and other links point.
	BaseURL string
	// CorrelationID is the request's 24-hex id, echoed in X-Correlation-Id and in errors.
	CorrelationID string
	// Received is when the request arrived.
	Received time.Time
}

// Header returns the first value of a request header (names are case-insensitive).
func (r *Request) Header(name string) string {
	v, _ := r.lookup(name)
	return v
}

// HasHeader reports whether the request carries the header at all (even empty).
func (r *Request) HasHeader(name string) bool {
	_, ok := r.lookup(name)
	return ok
}

func (r *Request) lookup(name string) (string, bool) {
	if v, ok := r.Headers[strings.ToLower(name)]; ok {
		return v, true
	}
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Response is what a handler returns: a status, headers and a body (JSON-encoded unless Raw is set).
type Response struct {
	Status  int
	Headers map[string]string
	JSON    any
	Raw     []byte
	// Binary sends Raw as it is, not as text: base64-encoded in the gateway's response
	// (payload 2.0's isBase64Encoded), which a gzip body or an image needs.
	Binary bool
	// Cookies are Set-Cookie values, one cookie each (payload 2.0's cookies: a map of headers
	// cannot carry two Set-Cookie headers).
	Cookies []string
}

// JSON returns a JSON response.
func JSON(status int, v any) *Response { return &Response{Status: status, JSON: v} }

// HandlerFunc handles one request. A returned error becomes the error envelope at the edge
// (an *apierr.Error as it is; a dependency that could not be reached, 503; anything else, 500).
type HandlerFunc func(ctx context.Context, r *Request) (*Response, error)

// Routes maps each template route key ("POST /v1/payment/create") to its handler. Every HTTP
// function declares its routes as one literal Routes table.
type Routes map[string]HandlerFunc

// Marshal encodes compact JSON without HTML escaping of <, > and &.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MergePatchMediaType is RFC 7396's media type, what JSON merge-patch clients send with PATCH.
const MergePatchMediaType = "application/merge-patch+json"

// JSONBody is a handler whose operation takes a JSON request body (the contract lists only
// application/json): a body sent with another Content-Type (text/plain, a form) is refused
// with 400 MALFORMED_REQUEST before the handler reads it. A body without a Content-Type is
// read as JSON, as before. A POST does not take application/merge-patch+json: its body is a
// resource or a command, not a patch.
func JSONBody(h HandlerFunc) HandlerFunc { return typedBody(h, "application/json") }

// MergePatchBody is a PATCH handler whose body is a JSON merge patch (RFC 7396): it takes
// application/merge-patch+json as well as application/json (any parameters, any case), and
// refuses any other Content-Type as JSONBody does (400 MALFORMED_REQUEST).
func MergePatchBody(h HandlerFunc) HandlerFunc {
	return typedBody(h, "application/json", MergePatchMediaType)
}

// typedBody refuses a body whose Content-Type is none of types before h reads it.
func typedBody(h HandlerFunc, types ...string) HandlerFunc {
	want := strings.Join(types, " or ")
	return func(ctx context.Context, r *Request) (*Response, error) {
		if len(r.Body) > 0 && r.HasHeader("Content-Type") && !isMediaType(r.Header("Content-Type"), types) {
			return nil, apierr.New(apierr.MalformedRequest, "Content-Type must be %s, not %q", want, r.Header("Content-Type"))
		}
		return h(ctx, r)
	}
}

// IsJSONMediaType reports whether a Content-Type value is application/json (any parameters,
// any case).
func IsJSONMediaType(v string) bool { return isMediaType(v, []string{"application/json"}) }

// isMediaType reports whether a Content-Type value's media type (parameters dropped, any case)
// is one of types.
func isMediaType(v string, types []string) bool {
	mt, _, _ := strings.Cut(v, ";")
	mt = strings.TrimSpace(mt)
	for _, t := range types {
		if strings.EqualFold(mt, t) {
			return true
		}
	}
	return false
}
