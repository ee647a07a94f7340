package localapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recordingTB keeps what the contract check reports instead of failing the test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) reported() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// stub answers like the service would, or not: /healthz with ?status=N answers N.
func stub(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(checkedHeader) != "" {
			t.Errorf("the gateway saw %s", checkedHeader)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/healthz" && r.URL.Query().Get("status") == "418":
			w.WriteHeader(http.StatusTeapot)
			fmt.Fprint(w, `{"status":"ok"}`)
		case r.URL.Path == "/healthz" && r.URL.Query().Get("extra") != "":
			fmt.Fprint(w, `{"status":"ok","extra":true}`)
		case r.URL.Path == "/healthz":
			fmt.Fprint(w, `{"status":"ok"}`)
		case r.URL.Path == "/go-to-healthz":
			http.Redirect(w, r, "/healthz?status=418", http.StatusSeeOther)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"NOT_FOUND","message":"no such endpoint","retryable":false,"correlation_id":"0123456789abcdef01234567"}}`)
		}
	})
}

// Do checks every response it gets against the contract, and the server checks every other
// client's; each response is checked once, and an undocumented status or a body off its
// schema fails the test with the method, path, status and body.
func TestResponsesAreCheckedAgainstTheContract(t *testing.T) {
	server := &recordingTB{TB: t}
	c := loadContract(t)
	srv := httptest.NewServer(contractHandler(server, c, stub(t)))
	defer srv.Close()
	a := &TestAPI{URL: srv.URL, contract: c}

	for _, tc := range []struct {
		path string
		want string // in the report; "" for a conforming response
	}{
		{"/healthz", ""},
		{"/nowhere", ""},
		{"/healthz?status=418", "GET /healthz answered 418"},
		{"/healthz?extra=1", "additional properties 'extra' not allowed"},
		{"/go-to-healthz", "GET /healthz answered 418"}, // the hop Do follows is checked
	} {
		client := &recordingTB{TB: t}
		a.Do(client, "GET", tc.path, "", "")
		got := strings.Join(client.reported(), "\n")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("GET %s: conforming response reported:\n%s", tc.path, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("GET %s: report %q, want %q", tc.path, got, tc.want)
		}
	}
	if r := server.reported(); len(r) > 0 {
		t.Errorf("the server checked Do's responses again:\n%s", strings.Join(r, "\n"))
	}

	// Another client (a browser, a test's own http.Client): the server checks.
	resp, err := http.Get(srv.URL + "/healthz?status=418")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := server.reported(); len(r) != 1 || !strings.Contains(r[0], "GET /healthz answered 418") || !strings.Contains(r[0], `body: {"status":"ok"}`) {
		t.Errorf("server reports %q, want the 418 with its body", r)
	}
}
