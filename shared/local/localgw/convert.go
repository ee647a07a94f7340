package localgw

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// AccountID is the AWS account id reported in requestContext.accountId and in function ARNs.
const AccountID = "000000000000"

// APIID is the API id reported in requestContext.apiId.
const APIID = "local"

// requestTimeLayout is the format of requestContext.time, e.g. "21/Apr/2020:15:08:21 +0000".
const requestTimeLayout = "02/Jan/2006:15:04:05 -0700"

// gatewayMessages are the bodies API Gateway itself returns for its errors.
var gatewayMessages = map[int]string{
	http.StatusBadRequest:            "Bad Request",
	http.StatusNotFound:              "Not Found",
	http.StatusRequestEntityTooLarge: "Request Entity Too Large",
	http.StatusInternalServerError:   "Internal Server Error",
}

// writeGatewayError writes a gateway-generated error such as 404 {"message":"Not Found"}.
func writeGatewayError(w http.ResponseWriter, status int) {
	body := `{"message":"` + gatewayMessages[status] + `"}`
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// readBody reads the request body, returning a non-zero gateway status if it cannot be accepted.
func (g *Gateway) readBody(r *http.Request) ([]byte, int) {
	if r.ContentLength > g.maxBody {
		return nil, http.StatusRequestEntityTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, 0
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, g.maxBody+1))
	if err != nil {
		return nil, http.StatusBadRequest
	}
	if int64(len(body)) > g.maxBody {
		return nil, http.StatusRequestEntityTooLarge
	}
	return body, 0
}

// hopByHop lists request headers that a proxy does not forward.
var hopByHop = map[string]bool{
	"connection":        true,
	"keep-alive":        true,
	"proxy-connection":  true,
	"te":                true,
	"trailer":           true,
	"transfer-encoding": true,
	"upgrade":           true,
}

// buildEvent converts r into the payload 2.0 event for rt.
func (g *Gateway) buildEvent(r *http.Request, rt *route, params map[string]string, body []byte, requestID string, now time.Time) events.APIGatewayV2HTTPRequest {
	sourceIP := r.RemoteAddr
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		sourceIP = host
	}

	headers := make(map[string]string, len(r.Header)+4)
	var cookies []string
	for name, values := range r.Header {
		lname := strings.ToLower(name)
		switch {
		case lname == "cookie":
			for _, v := range values {
				for _, c := range strings.Split(v, ";") {
					if c = strings.TrimSpace(c); c != "" {
						cookies = append(cookies, c)
					}
				}
			}
			continue
		case hopByHop[lname]:
			continue
		}
		if prev, ok := headers[lname]; ok {
			// Two spellings of one name (only possible for non-canonical keys).
			headers[lname] = prev + "," + strings.Join(values, ",")
		} else {
			headers[lname] = strings.Join(values, ",")
		}
	}
	headers["host"] = r.Host
	if len(body) > 0 {
		headers["content-length"] = strconv.Itoa(len(body))
	}
	if xff := headers["x-forwarded-for"]; xff != "" {
		headers["x-forwarded-for"] = xff + ", " + sourceIP
	} else {
		headers["x-forwarded-for"] = sourceIP
	}
	proto, port := "http", "80"
	if r.TLS != nil {
		proto, port = "https", "443"
	}
	if p := localPort(r); p != "" {
		port = p
	}
	headers["x-forwarded-proto"] = proto
	headers["x-forwarded-port"] = port
	if headers["x-amzn-trace-id"] == "" {
		headers["x-amzn-trace-id"] = fmt.Sprintf("Root=1-%08x-%s", now.Unix(), randomHex(12))
	}

	var query map[string]string
	if r.URL.RawQuery != "" {
		// ParseQuery keeps the well-formed pairs even when it reports an error.
		values, _ := url.ParseQuery(r.URL.RawQuery)
		if len(values) > 0 {
			query = make(map[string]string, len(values))
			for k, v := range values {
				query[k] = strings.Join(v, ",")
			}
		}
	}

	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              rt.key,
		RawPath:               r.URL.EscapedPath(),
		RawQueryString:        r.URL.RawQuery,
		Cookies:               cookies,
		Headers:               headers,
		QueryStringParameters: query,
		PathParameters:        params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     rt.key,
			AccountID:    AccountID,
			Stage:        g.stage,
			RequestID:    requestID,
			APIID:        APIID,
			DomainName:   r.Host,
			DomainPrefix: domainPrefix(r.Host),
			Time:         now.UTC().Format(requestTimeLayout),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    r.Method,
				Path:      r.URL.Path,
				Protocol:  r.Proto,
				SourceIP:  sourceIP,
				UserAgent: r.UserAgent(),
			},
		},
	}
	if len(body) > 0 {
		if isTextual(r.Header.Get("Content-Type")) && utf8.Valid(body) {
			ev.Body = string(body)
		} else {
			ev.Body = base64.StdEncoding.EncodeToString(body)
			ev.IsBase64Encoded = true
		}
	}
	return ev
}

// isTextual reports whether a request body of this Content-Type is passed as
// plain text (true for an empty Content-Type) rather than base64.
func isTextual(contentType string) bool {
	if strings.TrimSpace(contentType) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, _, _ = strings.Cut(contentType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	switch {
	case strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "+json"),
		strings.HasSuffix(mt, "+xml"):
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/x-www-form-urlencoded", "application/javascript":
		return true
	}
	return false
}

// localPort returns the port of the listener that accepted r, or of its Host header.
func localPort(r *http.Request) string {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(addr.String()); err == nil {
			return port
		}
	}
	if _, port, err := net.SplitHostPort(r.Host); err == nil {
		return port
	}
	return ""
}

// domainPrefix returns the first label of host (without port), or the whole host name for an IP address.
func domainPrefix(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if net.ParseIP(host) != nil {
		return host
	}
	prefix, _, _ := strings.Cut(host, ".")
	return prefix
}

// unescapePath URL-unescapes a path parameter, keeping the raw text if it is malformed.
func unescapePath(raw string) string {
	if v, err := url.PathUnescape(raw); err == nil {
		return v
	}
	return raw
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newRequestID returns a unique API Gateway style request id such as "LV7fzho-PHcEJPw=".
func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.URLEncoding.EncodeToString(b)
}

// newInvocationID returns a UUID v4 used as the Lambda invocation's request id.
func newInvocationID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// errTimeout reports a handler that did not return before Options.HandlerTimeout.
var errTimeout = errors.New("handler timed out")

type invokeResult struct {
	resp events.APIGatewayV2HTTPResponse
	err  error
}

// invoke calls rt's handler like the Lambda runtime would: with a lambdacontext,
// an optional deadline, no cancellation from the client connection, and panics
// turned into errors.
func (g *Gateway) invoke(parent context.Context, rt *route, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	ctx := lambdacontext.NewContext(context.WithoutCancel(parent), &lambdacontext.LambdaContext{
		AwsRequestID:       newInvocationID(),
		InvokedFunctionArn: "arn:aws:lambda:local:" + AccountID + ":function:" + rt.Function,
	})
	timeout := g.timeout
	if rt.Timeout > 0 {
		timeout = rt.Timeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	done := make(chan invokeResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- invokeResult{err: fmt.Errorf("handler panicked: %v\n%s", p, debug.Stack())}
			}
		}()
		resp, err := rt.handler(ctx, ev)
		done <- invokeResult{resp: resp, err: err}
	}()

	select {
	case res := <-done:
		return res.resp, res.err
	case <-ctx.Done():
		select {
		case res := <-done:
			return res.resp, res.err
		default:
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w after %s", errTimeout, timeout)
		}
	}
}

// writeResponse converts a handler response to HTTP, returning the status
// written, or an error (with nothing written) if API Gateway would reject it.
//
// For keys present in both Headers and MultiValueHeaders only the
// MultiValueHeaders values are used (the payload 1.0 merge rule).
func writeResponse(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse) (int, error) {
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	if status < 200 || status > 599 {
		return 0, fmt.Errorf("invalid status code %d", resp.StatusCode)
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			return 0, fmt.Errorf("body is not valid base64: %w", err)
		}
	}

	h := w.Header()
	multi := make(map[string]bool, len(resp.MultiValueHeaders))
	for k, vs := range resp.MultiValueHeaders {
		ck := http.CanonicalHeaderKey(k)
		multi[ck] = true
		for _, v := range vs {
			h.Add(ck, v)
		}
	}
	for k, v := range resp.Headers {
		if ck := http.CanonicalHeaderKey(k); !multi[ck] {
			h.Add(ck, v)
		}
	}
	for _, c := range resp.Cookies {
		h.Add("Set-Cookie", c)
	}
	h.Del("Transfer-Encoding")
	bodyAllowed := status != http.StatusNoContent && status != http.StatusNotModified
	if !bodyAllowed {
		body = nil
		h.Del("Content-Length")
	} else {
		if len(body) > 0 && h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
	return status, nil
}
