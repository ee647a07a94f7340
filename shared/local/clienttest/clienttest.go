// Package clienttest runs an official client's journey (a Go, Node or PHP program under
// clients/) against a fresh local stack, the way a merchant's integration talks to the API:
// real dynalite and fauxqs, the real handlers, real HTTP. The journey reads where everything is
// from its environment (Env); a control server lets it act as the payer and as the platform's
// workers (approve a sandbox payment, run the webhook sender, pause DynamoDB); a receiver
// records the webhooks delivered to it, byte for byte, for the client to verify; and every
// request the client sends passes through a recorder, checked against the contract
// (shared/openapi/openapi.yaml) when the test ends.
//
// Test tooling: no Lambda links it.
package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/contract"
	"github.com/takapay/payments/shared/local/localapi"
)

// Harness is a running stack with its control server, webhook receiver and request recorder.
type Harness struct {
	API *localapi.TestAPI
	// URL is the recorder in front of the API: the base URL the client is given.
	URL string
	// Secret is the workspace's sandbox webhook signing secret (whsec_…).
	Secret string
	// ReceiverURL is where the journey asks webhooks to be sent (its webhook_url).
	ReceiverURL string
	// ControlURL is the control server (see Start for its routes).
	ControlURL string

	mu         sync.Mutex
	requests   []Request
	deliveries []Delivery
}

// Request is one request the client sent, as the API received it.
type Request struct {
	Method, Path, URL string
	Header            http.Header
	Body              []byte
}

// Delivery is one webhook the receiver got: the Standard Webhooks headers and the raw body.
type Delivery struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Signature string `json:"signature"`
	Body      string `json:"body"`
}

// Start starts the stack (localhost URLs allowed, so webhooks reach the receiver), issues the
// workspace's sandbox webhook secret and starts the recorder, the receiver and the control
// server. Control routes (all POST unless said, JSON answers):
//
//	/approve        {"payment_url": "…"}: the payer locks the checkout (bKash, 01712345678) and the
//	                simulated provider approves it
//	/drain          runs the webhook sender until its queue is empty (deliveries are then at the receiver)
//	GET /deliveries every delivery the receiver got, oldest first ([]Delivery)
//	/pause-dynamodb {"ms": N}: SIGSTOP DynamoDB (dynalite) now and SIGCONT it N ms later
func Start(t *testing.T) *Harness {
	t.Helper()
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	secret, err := a.Operator(t).IssueWebhookSecret(context.Background(), a.Creds.WorkspaceID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{API: a, Secret: secret.Secret}

	target, _ := url.Parse(a.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.requests = append(h.requests, Request{Method: r.Method, Path: r.URL.Path, URL: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
		h.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close)
	h.URL = rec.URL

	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.deliveries = append(h.deliveries, Delivery{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"), Body: string(body)})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	h.ReceiverURL = recv.URL + "/takapay-webhooks"

	ctl := httptest.NewServer(h.control(t))
	t.Cleanup(ctl.Close)
	h.ControlURL = ctl.URL
	t.Cleanup(func() { h.checkContract(t) })
	return h
}

func (h *Harness) control(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, v any, err error) {
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /approve", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			PaymentURL string `json:"payment_url"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			answer(w, nil, err)
			return
		}
		answer(w, map[string]bool{"approved": true}, h.approve(in.PaymentURL))
	})
	mux.HandleFunc("POST /drain", func(w http.ResponseWriter, r *http.Request) {
		h.API.DrainWebhooks(t)
		answer(w, map[string]bool{"drained": true}, nil)
	})
	mux.HandleFunc("GET /deliveries", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		ds := append([]Delivery{}, h.deliveries...)
		h.mu.Unlock()
		answer(w, ds, nil)
	})
	mux.HandleFunc("POST /pause-dynamodb", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			MS int `json:"ms"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.MS <= 0 || in.MS > 30000 {
			answer(w, nil, fmt.Errorf("ms must be 1 to 30000: %v", err))
			return
		}
		d := h.API.Stack.Dynamo
		if err := d.Pause(); err != nil {
			answer(w, nil, err)
			return
		}
		time.AfterFunc(time.Duration(in.MS)*time.Millisecond, func() { _ = d.Resume() })
		t.Cleanup(func() { _ = d.Resume() })
		answer(w, map[string]int{"paused_ms": in.MS}, nil)
	})
	return mux
}

// approve does what a payer and the sandbox provider do on the hosted checkout.
func (h *Harness) approve(paymentURL string) error {
	u, err := url.Parse(paymentURL)
	if err != nil || !strings.HasPrefix(u.Path, "/v1/public/checkout/") {
		return fmt.Errorf("not a checkout URL: %q", paymentURL)
	}
	for _, step := range []struct{ path, body string }{{u.Path + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {u.Path + "/notices/approve", ""}} {
		resp, err := http.Post(h.API.URL+step.path, "application/json", strings.NewReader(step.body))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %d %s", step.path, resp.StatusCode, b)
		}
	}
	return nil
}

// Env is the journey's environment: this process's, plus TAKAPAY_BASE_URL (the recorder),
// TAKAPAY_API_KEY (a sandbox key with every scope), TAKAPAY_WORKSPACE_ID,
// TAKAPAY_WEBHOOK_SECRET, TAKAPAY_WEBHOOK_URL (the receiver) and TAKAPAY_CONTROL_URL.
func (h *Harness) Env() []string {
	return append(os.Environ(),
		"TAKAPAY_BASE_URL="+h.URL,
		"TAKAPAY_API_KEY="+h.API.Creds.SandboxKey,
		"TAKAPAY_WORKSPACE_ID="+h.API.Creds.WorkspaceID,
		"TAKAPAY_WEBHOOK_SECRET="+h.Secret,
		"TAKAPAY_WEBHOOK_URL="+h.ReceiverURL,
		"TAKAPAY_CONTROL_URL="+h.ControlURL,
	)
}

// Run runs a journey program in dir with Env (at most 3 minutes) and fails the test, with the
// program's output, unless it exits 0. It returns the output.
func (h *Harness) Run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = h.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Requests is every request the client has sent so far.
func (h *Harness) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request{}, h.requests...)
}

// Forget drops the requests recorded so far (a test of a client's failure path that has
// checked them itself).
func (h *Harness) Forget() {
	h.mu.Lock()
	h.requests = nil
	h.mu.Unlock()
}

// loopbackURL is a JSON string holding an http URL on the loopback interface.
var loopbackURL = regexp.MustCompile(`"http://(127\.0\.0\.1|localhost)(?::\d+)?((?:[/?][^"]*)?)"`)

// checkContract fails the test for every problem ContractProblems finds.
func (h *Harness) checkContract(t *testing.T) {
	t.Helper()
	for _, p := range h.ContractProblems() {
		t.Error(p)
	}
}

// ContractProblems checks every request the client has sent against the contract (a
// published operation, its parameters, security and body) and the headers every client must
// send (User-Agent; an Idempotency-Key on every create). The payer's requests, which the
// journey makes through the control server, do not pass through the recorder.
func (h *Harness) ContractProblems() []string {
	c, err := contract.Load()
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for i, r := range h.Requests() {
		if r.Header.Get("User-Agent") == "" {
			out = append(out, fmt.Sprintf("request %d %s %s: no User-Agent", i, r.Method, r.Path))
		}
		// The contract makes the key optional on the first release's create; the clients always send one.
		if r.Method == http.MethodPost && r.Path == "/v1/payment/create" && r.Header.Get("Idempotency-Key") == "" {
			out = append(out, fmt.Sprintf("request %d %s %s: no Idempotency-Key", i, r.Method, r.Path))
		}
		// The stack takes loopback URLs (ALLOW_LOCALHOST_URLS, local only: the receiver, a
		// getting-started page's shop); the contract describes production, where they must be
		// public https: the check sees a public one with the same path.
		body := loopbackURL.ReplaceAll(r.Body, []byte(`"https://merchant.example.com$2"`))
		for _, e := range c.Request(r.Method, r.URL, r.Header, body) {
			out = append(out, fmt.Sprintf("request %d %s %s (%s): %s", i, r.Method, r.URL, strconv.Quote(string(r.Body)), e))
		}
	}
	return out
}
