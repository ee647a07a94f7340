// Package httpapi adapts API Gateway HTTP API (payload 2.0) events to the service's handlers:
// correlation ids, body decoding and limits, the error envelope, security headers, panic
// recovery and exactly one structured log line per request. Every function uses it, so a
// handler never builds an error response by hand and never returns a Go error to Lambda.
package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/obs"
)

// CorrelationHeader is the response header that carries the request's correlation id.
const CorrelationHeader = "X-Correlation-Id"

// DefaultMaxBody is the largest request body a JSON operation accepts (64 KiB).
const DefaultMaxBody = 64 << 10

// Request is an incoming request with its body decoded and its correlation id assigned.
type Request struct {
	Event         events.APIGatewayV2HTTPRequest
	Body          []byte
	CorrelationID string
	Received      time.Time
}

// Header returns the first value of a request header (names are case-insensitive).
func (r *Request) Header(name string) string {
	if v, ok := r.Event.Headers[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range r.Event.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// HasHeader reports whether the request carries the header at all (even empty).
func (r *Request) HasHeader(name string) bool {
	if _, ok := r.Event.Headers[strings.ToLower(name)]; ok {
		return true
	}
	for k := range r.Event.Headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// Method is the request's HTTP method.
func (r *Request) Method() string { return r.Event.RequestContext.HTTP.Method }

// Path is the request's raw path.
func (r *Request) Path() string {
	if r.Event.RawPath != "" {
		return r.Event.RawPath
	}
	return r.Event.RequestContext.HTTP.Path
}

// Response is what a handler returns: a status, headers and a body (JSON-encoded unless Raw is set).
type Response struct {
	Status  int
	Headers map[string]string
	JSON    any
	Raw     []byte
}

// JSON returns a JSON response.
func JSON(status int, v any) *Response { return &Response{Status: status, JSON: v} }

// HandlerFunc handles one request. Returned errors become envelopes (see apierr.As).
type HandlerFunc func(ctx context.Context, r *Request) (*Response, error)

// LambdaHandler is the signature lambda.Start accepts for HTTP API payload 2.0.
type LambdaHandler func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Adapter holds what every function shares when serving requests.
type Adapter struct {
	Logger  *slog.Logger
	MaxBody int
}

// Lambda wraps a handler into a Lambda handler named for the log line.
func (a Adapter) Lambda(name string, h HandlerFunc) LambdaHandler {
	logger := a.Logger
	if logger == nil {
		logger = slog.Default()
	}
	maxBody := a.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		ctx, stats := obs.WithStats(ctx)
		req := &Request{Event: ev, CorrelationID: NewCorrelationID(), Received: time.Now()}
		resp, err := serve(ctx, req, maxBody, h)
		out, errCode, cause := render(req, resp, err)
		logLine(ctx, logger, name, req, out.StatusCode, errCode, cause, stats)
		return out, nil
	}
}

func serve(ctx context.Context, req *Request, maxBody int, h HandlerFunc) (resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, apierr.Wrap(apierr.Internal, fmt.Errorf("panic: %v\n%s", p, debug.Stack()),
				"internal error; retry later")
		}
	}()
	body := []byte(req.Event.Body)
	if req.Event.IsBase64Encoded {
		decoded, derr := base64.StdEncoding.DecodeString(req.Event.Body)
		if derr != nil {
			return nil, apierr.New(apierr.MalformedRequest, "request body is not valid base64")
		}
		body = decoded
	}
	if len(body) > maxBody {
		return nil, apierr.New(apierr.RequestTooLarge, "request body exceeds %d bytes", maxBody)
	}
	req.Body = body
	return h(ctx, req)
}

func render(req *Request, resp *Response, err error) (events.APIGatewayV2HTTPResponse, apierr.Code, error) {
	if resp == nil && err == nil {
		err = apierr.Wrap(apierr.Internal, errors.New("handler returned neither a response nor an error"), "internal error; retry later")
	}
	headers := map[string]string{
		CorrelationHeader:           req.CorrelationID,
		"Cache-Control":             "no-store",
		"X-Content-Type-Options":    "nosniff",
		"Content-Type":              "application/json; charset=utf-8",
		"Strict-Transport-Security": "max-age=63072000; includeSubDomains",
	}
	if err != nil {
		e := apierr.As(err)
		body, _ := marshal(e.Envelope(req.CorrelationID))
		for k, v := range e.Headers {
			headers[k] = v
		}
		if e.Code.Retryable() && e.Code.Status() >= 500 {
			headers["Retry-After"] = "1"
		}
		return events.APIGatewayV2HTTPResponse{StatusCode: e.Status(), Headers: headers, Body: string(body)}, e.Code, e.Cause
	}
	for k, v := range resp.Headers {
		headers[k] = v
	}
	body := resp.Raw
	if body == nil && resp.JSON != nil {
		var merr error
		body, merr = marshal(resp.JSON)
		if merr != nil {
			return render(req, nil, apierr.Wrap(apierr.Internal, merr, "internal error; retry later"))
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: headers, Body: string(body)}, "", nil
}

func logLine(ctx context.Context, logger *slog.Logger, name string, req *Request, status int, code apierr.Code, cause error, stats *obs.Stats) {
	attrs := []slog.Attr{
		slog.String("correlation_id", req.CorrelationID),
		slog.String("function", name),
		slog.String("method", req.Method()),
		slog.String("route", req.Event.RouteKey),
		slog.String("path", req.Path()),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(time.Since(req.Received).Microseconds())/1000),
		slog.Int("ddb_requests", stats.Total("dynamodb")),
		slog.String("request_id", req.Event.RequestContext.RequestID),
	}
	if code != "" {
		attrs = append(attrs, slog.String("error_code", string(code)))
	}
	if cause != nil {
		attrs = append(attrs, slog.String("cause", cause.Error()))
	}
	attrs = append(attrs, stats.Attrs()...)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	logger.LogAttrs(ctx, level, "request", attrs...)
}

// NewCorrelationID returns 24 lower-case hex characters (96 random bits).
func NewCorrelationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// marshal encodes JSON without HTML escaping (bodies are JSON, never embedded in HTML).
func marshal(v any) ([]byte, error) { return Marshal(v) }

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
