// Package httpapi is the HTTP edge: it adapts API Gateway HTTP API (payload 2.0) events to the
// plain web.Request the handlers see and their answers back — correlation ids, body decoding
// and limits, routing by route key, the error envelope (errors are classified here, once),
// security headers, panic recovery and exactly one structured log line per request. Every
// function uses it, so a handler never builds an error envelope by hand and never returns a
// Go error to Lambda.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
)

// CorrelationHeader is the response header that carries the request's correlation id.
const CorrelationHeader = "X-Correlation-Id"

// DefaultMaxBody is the largest request body a JSON operation accepts (64 KiB).
const DefaultMaxBody = 64 << 10

// LambdaHandler is the signature lambda.Start accepts for HTTP API payload 2.0.
type LambdaHandler func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// DefaultDeadlineMargin is how long before the invocation's deadline a request's own deadline
// falls: time to classify the failure, write the envelope and the log line.
const DefaultDeadlineMargin = time.Second

// Adapter holds what every function shares when serving requests.
type Adapter struct {
	Logger  *slog.Logger
	MaxBody int
	// DeadlineMargin (DefaultDeadlineMargin when 0) ends each request's context that long
	// before the invocation's deadline, so a hung dependency becomes a 503 envelope while
	// Lambda still waits for the answer, never API Gateway's bare 5xx.
	DeadlineMargin time.Duration
	// PublicBaseURL is the API's configured public origin (PUBLIC_BASE_URL); empty means
	// https:// and the domain each request arrived at.
	PublicBaseURL string
	// ErrorPage, when set, may render an error as a page for a request that wants one (the
	// hosted checkout's browsers); it returns nil to leave the JSON envelope.
	ErrorPage func(r *web.Request, e *apierr.Error) *web.Response
}

// Routes serves a function's route table: each event goes to the handler of its route key.
func (a Adapter) Routes(name string, routes web.Routes) LambdaHandler {
	return a.Lambda(name, func(ctx context.Context, r *web.Request) (*web.Response, error) {
		h, ok := routes[r.RouteKey]
		if !ok {
			return nil, apierr.New(apierr.NotFound, "no such endpoint")
		}
		return h(ctx, r)
	})
}

// Lambda wraps one handler into a Lambda handler named for the log line.
func (a Adapter) Lambda(name string, h web.HandlerFunc) LambdaHandler {
	logger := a.Logger
	if logger == nil {
		logger = slog.Default()
	}
	maxBody := a.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	margin := a.DeadlineMargin
	if margin <= 0 {
		margin = DefaultDeadlineMargin
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if deadline, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin))
			defer cancel()
		}
		ctx, stats := obs.WithStats(ctx)
		req := NewRequest(ev, a.PublicBaseURL)
		resp, err := serve(ctx, ev, req, maxBody, h)
		out, errCode, cause := a.render(req, resp, err)
		logLine(ctx, logger, name, req, ev.RequestContext.RequestID, out.StatusCode, errCode, cause, stats)
		return out, nil
	}
}

// NewRequest turns a payload 2.0 event into the plain request the handlers see (the body is
// decoded by the adapter, which also enforces its size).
func NewRequest(ev events.APIGatewayV2HTTPRequest, publicBaseURL string) *web.Request {
	path := ev.RawPath
	if path == "" {
		path = ev.RequestContext.HTTP.Path
	}
	base := strings.TrimRight(publicBaseURL, "/")
	if base == "" {
		base = "https://" + ev.RequestContext.DomainName
	}
	return &web.Request{
		Method:        ev.RequestContext.HTTP.Method,
		RouteKey:      ev.RouteKey,
		Path:          path,
		PathParams:    ev.PathParameters,
		Query:         ev.QueryStringParameters,
		Headers:       ev.Headers,
		Cookies:       ev.Cookies,
		SourceIP:      ev.RequestContext.HTTP.SourceIP,
		Host:          ev.RequestContext.DomainName,
		BaseURL:       base,
		CorrelationID: NewCorrelationID(),
		Received:      time.Now(),
	}
}

func serve(ctx context.Context, ev events.APIGatewayV2HTTPRequest, req *web.Request, maxBody int, h web.HandlerFunc) (resp *web.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, apierr.Wrap(apierr.Internal, fmt.Errorf("panic: %v\n%s", p, debug.Stack()),
				"internal error; retry later")
		}
	}()
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		decoded, derr := base64.StdEncoding.DecodeString(ev.Body)
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

func (a Adapter) render(req *web.Request, resp *web.Response, err error) (events.APIGatewayV2HTTPResponse, apierr.Code, error) {
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
		e := Classify(err)
		if a.ErrorPage != nil {
			if page := a.ErrorPage(req, e); page != nil {
				out, _, _ := a.render(req, page, nil)
				return out, e.Code, e.Cause
			}
		}
		body, _ := web.Marshal(e.Envelope(req.CorrelationID))
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
		body, merr = web.Marshal(resp.JSON)
		if merr != nil {
			return a.render(req, nil, apierr.Wrap(apierr.Internal, merr, "internal error; retry later"))
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	out := events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: headers, Body: string(body), Cookies: resp.Cookies}
	if resp.Binary || !utf8.Valid(body) {
		// Binary (a gzip stream, a PNG): the payload is JSON, so the body travels base64 and
		// API Gateway decodes it for the client.
		out.Body, out.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return out, "", nil
}

// logLine writes the request's one log line. It names the route key, never the path: a path
// may carry a bearer token (checkout and public document links).
func logLine(ctx context.Context, logger *slog.Logger, name string, req *web.Request, requestID string, status int, code apierr.Code, cause error, stats *obs.Stats) {
	attrs := []slog.Attr{
		slog.String("correlation_id", req.CorrelationID),
		slog.String("function", name),
		slog.String("method", req.Method),
		slog.String("route", req.RouteKey),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(time.Since(req.Received).Microseconds())/1000),
		slog.Int("ddb_requests", stats.Total("dynamodb")),
		// Of those, the rate limiter's lease writes (about one per lease of tokens).
		slog.Int("ddb_lease_requests", stats.Total("ratelimit")),
		// And the write recording an API key's last use (at most one per key per hour).
		slog.Int("ddb_key_use_requests", stats.Total(obs.KeyUseService)),
		slog.String("request_id", requestID),
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

// Classify turns a handler's error into the client's error, once for every function: an
// *apierr.Error as it is; a write DynamoDB refused because the item would pass its 400 KB
// limit 413 REQUEST_TOO_LARGE, not retryable; a dependency that could not be reached or
// throttled us (DynamoDB, SQS, a deadline) 503 SERVICE_UNAVAILABLE, retryable; anything else
// 500 INTERNAL_ERROR. The cause is kept for the log line only.
func Classify(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	if awsx.IsItemTooLarge(err) {
		return apierr.Wrap(apierr.RequestTooLarge, err,
			"the record this request would store is larger than the database allows (400 KB per item); store less data (shorter texts, fewer items, fields or options)")
	}
	if awsx.IsUnavailable(err) {
		return apierr.Wrap(apierr.ServiceUnavailable, err,
			"a service this request depends on is unavailable; retry shortly (with the same Idempotency-Key where one was sent)")
	}
	return apierr.As(err)
}
