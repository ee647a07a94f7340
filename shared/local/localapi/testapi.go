package localapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/contract"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localgw"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/sqspoll"
)

// TestAPI is a running local API over a fresh in-memory stack, for integration tests: real
// dynalite and fauxqs processes, the real handlers, real HTTP.
type TestAPI struct {
	URL   string
	Stack *devstack.Stack
	Store *dynamo.Store
	Creds *Credentials
	Logs  *LogBuffer
	Deps  map[string]*app.Deps
	// Options are the options the API was built with (defaults filled in): FunctionEnv with
	// them gives a function the environment its in-process handler has.
	Options Options
	// Emulated is the emulator's pools when Options.Emulator was set, else nil.
	Emulated *rie.Set

	// contract checks every response against openapi.yaml (see contract.go).
	contract *contract.Contract
}

// StartTestAPI starts a stack and the API on a free loopback port, seeded like `make dev`;
// everything stops when the test ends.
func StartTestAPI(tb testing.TB, opts Options) *TestAPI {
	tb.Helper()
	stack := devstack.StartTestStackWith(tb, devstack.StackOptions{KMS: opts.KMS})
	logs := &LogBuffer{}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	if opts.Localhost {
		base = "http://localhost:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	}
	if opts.BaseURL == "" {
		opts.BaseURL = base
	}
	opts.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	// The tests count each request's DynamoDB requests as a cold instance makes them: the
	// per-instance key cache is off unless a test turns it on.
	opts.Env = maps.Clone(opts.Env)
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	if _, set := opts.Env["KEY_CACHE_TTL_MS"]; !set {
		opts.Env["KEY_CACHE_TTL_MS"] = "0"
	}
	// The per-workspace limit stays on (its lease writes are real), but at a rate no test
	// reaches however fast the machine: a test of the limit itself sets its own.
	_, rate := opts.Env["WORKSPACE_RATE_LIMIT"]
	_, burst := opts.Env["WORKSPACE_RATE_BURST"]
	if !rate && !burst {
		opts.Env["WORKSPACE_RATE_LIMIT"], opts.Env["WORKSPACE_RATE_BURST"] = "1000000", "1000000"
	}
	// Likewise the per-document limit of the public pay door.
	_, rate = opts.Env["DOCUMENT_PAY_RATE"]
	_, burst = opts.Env["DOCUMENT_PAY_BURST"]
	if !rate && !burst {
		opts.Env["DOCUMENT_PAY_RATE"], opts.Env["DOCUMENT_PAY_BURST"] = "1000000", "1000000"
	}
	if _, set := opts.Env["DOCUMENT_PAY_PER_CLIENT"]; !set {
		opts.Env["DOCUMENT_PAY_PER_CLIENT"] = "1000000"
	}
	var set *rie.Set
	var gw *localgw.Gateway
	var deps map[string]*app.Deps
	var err error
	if opts.Emulator != nil {
		root, rerr := samtemplate.FindRepoRoot()
		if rerr != nil {
			tb.Fatal(rerr)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a cold build on a loaded machine
		gw, deps, set, err = NewEmulated(ctx, root, stack, opts, *opts.Emulator)
		cancel()
		if err == nil {
			tb.Cleanup(set.Close)
		}
	} else {
		gw, deps, err = New(stack, opts)
	}
	if err != nil {
		tb.Fatal(err)
	}
	c := loadContract(tb)
	srv.Config.Handler = contractHandler(tb, c, gw)
	srv.Start()
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() {
		if !tb.Failed() {
			return
		}
		for _, l := range logs.Lines() {
			if st, _ := l["status"].(float64); st >= 500 {
				tb.Logf("5xx log line: %v", l)
			}
		}
	})
	store := deps["PaymentCreateFunction"].Store
	creds, _, err := Seed(context.Background(), store, nil)
	if err != nil {
		tb.Fatal(err)
	}
	creds.BaseURL = base
	return &TestAPI{URL: base, Stack: stack, Store: store, Creds: creds, Logs: logs, Deps: deps, Options: opts, Emulated: set, contract: c}
}

// Operator returns an operator on the test table that seals webhook secrets the way the
// stack's WebhookSenderFunction opens them: with the stack's local key, or with KMS when the
// stack runs local-kms (Options.KMS) or the test configured WEBHOOK_SECRETS_KEY_ID (and
// Options.KMSEndpoint).
func (a *TestAPI) Operator(tb testing.TB) *operator.Operator {
	tb.Helper()
	d := a.Deps["WebhookSenderFunction"]
	sealer, err := kmsseal.New(d.AWS, d.Config.WebhookSecretsKeyID, d.Config.LocalSealingKey)
	if err != nil {
		tb.Fatal(err)
	}
	return &operator.Operator{Store: a.Store, Sealer: sealer}
}

// DrainWebhooks runs WebhookSenderFunction on the webhook queue, as Lambda's event source
// would, until the queue has been empty three times in a row: every event enqueued so far has
// had its attempt (and a linked intent's event its settlement).
func (a *TestAPI) DrainWebhooks(tb testing.TB) {
	tb.Helper()
	d := a.Deps["WebhookSenderFunction"]
	poller := &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: d.Config.WebhookQueueURL, Handler: registry.WebhookConsumer(d).Handle}
	for idle := 0; idle < 3; {
		n, err := poller.RunOnce(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		if n == 0 {
			idle++
		}
	}
}

// RunWebhookWorkers runs what Lambda runs beside the API in AWS, as `make dev` runs it, until
// ctx is done: the webhook sender on its queue, in the batches its SQS event declares (through
// its bootstrap when the API is emulated), and the re-drive every redriveEvery (the template's
// schedule is a minute; tests go faster so that nothing waits for it).
func (a *TestAPI) RunWebhookWorkers(ctx context.Context, tb testing.TB, redriveEvery time.Duration) {
	tb.Helper()
	d := a.Deps["WebhookSenderFunction"]
	senderFn, _ := a.Stack.Template.Function("WebhookSenderFunction")
	poller, err := sqspoll.FromTemplate(senderFn)
	if err != nil {
		tb.Fatal(err)
	}
	poller.SQS, poller.QueueURL, poller.Handler, poller.Wait = a.Stack.Queue, d.Config.WebhookQueueURL, registry.WebhookConsumer(d).Handle, 1
	redrive := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run
	if a.Emulated != nil {
		poller.Handler = a.Emulated.Pools["WebhookSenderFunction"].SQSHandler()
		pool := a.Emulated.Pools["WebhookRedriveFunction"]
		redrive = func(ctx context.Context) (int, error) {
			_, err := pool.Invoke(ctx, "", rie.ScheduledEvent(time.Now(), "arn:aws:scheduler:local:schedule/redrive"))
			return 0, err
		}
	}
	go poller.Run(ctx)
	go func() {
		for ctx.Err() == nil {
			_, _ = redrive(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(redriveEvery):
			}
		}
	}()
}

// Result is a response read whole.
type Result struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request with an optional bearer key and headers (name, value pairs), following
// redirects. Every response it receives (each redirect hop too) is checked against the OpenAPI
// contract: one that openapi.yaml does not allow — an undocumented status or Content-Type, a
// body that fails its schema — fails the test (tb.Errorf), and Do still returns it.
func (a *TestAPI) Do(tb testing.TB, method, path, key, body string, headers ...string) *Result {
	tb.Helper()
	return a.do(tb, true, "", method, path, key, body, headers...)
}

// DoFrom is Do from another client address: addr is a loopback address (127.0.0.2, …) the
// request is sent from, which the gateway passes on as the request's source IP.
func (a *TestAPI) DoFrom(tb testing.TB, addr, method, path, key, body string, headers ...string) *Result {
	tb.Helper()
	return a.do(tb, true, addr, method, path, key, body, headers...)
}

// DoNoRedirect is Do answering a redirect itself instead of following it: the result is the
// first response, whose log line is the route the request was sent to.
func (a *TestAPI) DoNoRedirect(tb testing.TB, method, path, key, body string, headers ...string) *Result {
	tb.Helper()
	return a.do(tb, false, "", method, path, key, body, headers...)
}

func (a *TestAPI) do(tb testing.TB, follow bool, from, method, path, key, body string, headers ...string) *Result {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := a.contract
	if c == nil {
		c = loadContract(tb)
	}
	ct := &contractTransport{tb: tb, contract: c, host: req.URL.Host}
	if from != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		ct.base = &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	}
	client := &http.Client{Transport: ct}
	if !follow {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return &Result{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// LogBuffer collects JSON log lines; safe for concurrent use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends log output.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Lines returns every log line decoded.
func (l *LogBuffer) Lines() []map[string]any {
	l.mu.Lock()
	text := l.buf.String()
	l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// Request returns the request log line with this correlation id, or nil.
func (l *LogBuffer) Request(correlationID string) map[string]any {
	for _, m := range l.Lines() {
		if m["msg"] == "request" && m["correlation_id"] == correlationID {
			return m
		}
	}
	return nil
}

// String returns everything logged.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
