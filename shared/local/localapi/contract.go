package localapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/contract"
)

// Every response a test gets from the local API is checked against the OpenAPI contract
// (package contract): its status must be documented for the operation the method and path
// name, its body must satisfy the schema of that status and content type, and requests that
// no operation takes must get the fallback's 404 NOT_FOUND or 405. A response that does not
// conform fails the test with tb.Errorf.
//
// Two places check, so that each response is checked exactly once:
//   - TestAPI.Do checks each response it receives, every redirect hop included, against the
//     test that sent it (contractTransport);
//   - the server checks the responses to every other client — browsers, tests' own
//     http.Clients — against the test that started the API (contractHandler). Do marks its
//     requests with checkedHeader, which the server strips before the gateway sees them.

// checkedHeader marks a request whose response the client checks itself.
const checkedHeader = "X-Localapi-Contract-Checked"

// maxReportedBody bounds how much of a body a failure quotes (a page's head is enough).
const (
	maxReportedBody = 4096
	maxReportedPage = 300
)

func loadContract(tb testing.TB) *contract.Contract {
	tb.Helper()
	c, err := contract.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// checkResponse reports a response that does not conform to the contract.
func checkResponse(tb testing.TB, c *contract.Contract, who, method, path string, status int, header http.Header, body []byte) {
	tb.Helper()
	if path == "/dashboard" || strings.HasPrefix(path, "/dashboard/") {
		return // the dashboard's pages are for browsers, not operations of the JSON API (shared/edge/dashboard's tests check them)
	}
	problems := c.Response(method, path, status, header, body)
	if len(problems) == 0 {
		return
	}
	shown, max := body, maxReportedBody
	if strings.HasPrefix(header.Get("Content-Type"), "text/html") {
		max = maxReportedPage
	}
	if len(shown) > max {
		shown = append(shown[:max:max], "…"...)
	}
	tb.Errorf("%s: %s %s answered %d (Content-Type %q), which openapi.yaml does not allow:\n\t%s\n\tbody: %s",
		who, method, path, status, header.Get("Content-Type"), strings.Join(problems, "\n\t"), shown)
}

// contractTransport checks each response Do receives from the local API.
type contractTransport struct {
	tb       testing.TB
	contract *contract.Contract
	host     string
	// base sends the request (nil: http.DefaultTransport).
	base http.RoundTripper
}

func (t *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ours := req.URL.Host == t.host
	if ours {
		req = req.Clone(req.Context())
		req.Header.Set(checkedHeader, "1")
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || !ours {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	checkResponse(t.tb, t.contract, "contract", req.Method, req.URL.Path, resp.StatusCode, resp.Header, body)
	return resp, nil
}

// contractHandler checks the responses of next to requests Do did not send.
func contractHandler(tb testing.TB, c *contract.Contract, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(checkedHeader) != "" {
			r.Header.Del(checkedHeader)
			next.ServeHTTP(w, r)
			return
		}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
			rec.header = w.Header().Clone()
		}
		checkResponse(tb, c, fmt.Sprintf("contract (client %s)", r.UserAgent()), r.Method, r.URL.Path, rec.status, rec.header, rec.body.Bytes())
	})
}

// recorder passes a response through and keeps its status, headers and body.
type recorder struct {
	http.ResponseWriter
	status int
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
		r.header = r.ResponseWriter.Header().Clone()
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
