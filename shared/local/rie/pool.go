package rie

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// InvokePath is the emulator's invoke endpoint (Lambda's Invoke API path, function "function").
const InvokePath = "/2015-03-31/functions/function/invocations"

// DefaultConcurrency is the number of instances a function may have at once when neither
// its template nor Options.PoolSize sets one: on AWS a function without reserved concurrency
// shares the account's unreserved concurrency (at least 100); locally it is capped here (the
// workers are the only such functions in template.yaml).
const DefaultConcurrency = 10

// Function is one template function as the emulator runs it.
type Function struct {
	// LogicalID is the template's logical id (AWS_LAMBDA_FUNCTION_NAME).
	LogicalID string
	// Bootstrap is the path of the function's bootstrap built for this host (Bootstraps).
	Bootstrap string
	// Env is the function's environment: template.yaml's with the local stack's names and
	// overrides, plus the AWS variables Lambda would set (AWSEnv).
	Env map[string]string
	// Timeout and MemoryMB are the template's (AWS_LAMBDA_FUNCTION_TIMEOUT, whole seconds, and
	// AWS_LAMBDA_FUNCTION_MEMORY_SIZE: the emulator reports the memory but does not limit it).
	Timeout  time.Duration
	MemoryMB int
	// Concurrency is the most instances the function may have at once (its template's
	// ReservedConcurrentExecutions, else DefaultConcurrency): an invocation beyond it is
	// throttled at once (FailThrottle), as Lambda throttles beyond a function's concurrency.
	Concurrency int
}

// Options configure a Pool.
type Options struct {
	// Emulator is the emulator binary's path (Emulator).
	Emulator string
	// PoolSize, when positive, caps every function at that many instances instead of its
	// Function.Concurrency (make dev's POOL_SIZE); an invocation beyond the cap is throttled.
	PoolSize int
	// Logger receives the pool's own records: an instance started (with its init duration),
	// replaced, or failed to start. Nil discards them.
	Logger *slog.Logger
	// Output receives every line the instances write (the function's log lines, and the
	// emulator's START, END and REPORT lines). Nil discards them.
	Output io.Writer
	// StartTimeout bounds how long a new instance may take to listen (default 60 s: generous,
	// for a loaded machine).
	StartTimeout time.Duration
	// Prebuilt, when set, is what Start runs (Build's result): Start then builds nothing.
	Prebuilt *Builds
}

// Failure kinds: how an invocation failed. API Gateway answers all of them the same way
// (localgw: 500 {"message":"Internal Server Error"}); the pool replaces the instance (a
// throttled invocation had none).
const (
	// FailThrottle: every instance the function may have is busy (its concurrency): Lambda's
	// 429 TooManyRequestsException ("Rate Exceeded."), answered at once, never queued.
	FailThrottle = "throttled"
	// FailFunction: the function reported an error (its handler returned one or panicked).
	FailFunction = "function error"
	// FailTimeout: the function ran past its timeout ("Task timed out after N.00 seconds").
	FailTimeout = "timeout"
	// FailCrash: the instance died mid-invocation (the runtime exited or was killed).
	FailCrash = "crash"
	// FailStart: no instance could be started.
	FailStart = "start"
)

// InvokeError is a failed invocation.
type InvokeError struct {
	Function string
	Kind     string
	Detail   string
}

func (e *InvokeError) Error() string {
	return fmt.Sprintf("rie: %s: %s: %s", e.Function, e.Kind, e.Detail)
}

// Pool runs up to Size() instances of one function, each an emulator process with the
// function's bootstrap beneath it, and hands each invocation to an idle instance (starting one
// when none is idle, as Lambda scales out when requests overlap); with Size() invocations
// already running, another is throttled at once (FailThrottle), never queued. An instance
// whose invocation crashed, timed out or failed is killed and a new one takes its place on
// demand.
type Pool struct {
	fn        Function
	opts      Options
	log       *slog.Logger
	out       io.Writer
	sem       chan struct{}
	throttled atomic.Int64

	mu     sync.Mutex
	idle   []*instance
	all    map[*instance]bool
	nextID int
	closed bool
	client *http.Client
	outMu  sync.Mutex
}

// NewPool returns a pool for fn; it starts no process until the first invocation.
func NewPool(fn Function, opts Options) *Pool {
	switch {
	case opts.PoolSize > 0:
	case fn.Concurrency > 0:
		opts.PoolSize = fn.Concurrency
	default:
		opts.PoolSize = DefaultConcurrency
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if fn.Timeout <= 0 {
		fn.Timeout = 3 * time.Second
	}
	if fn.MemoryMB <= 0 {
		fn.MemoryMB = 128
	}
	p := &Pool{fn: fn, opts: opts, log: opts.Logger, out: opts.Output, sem: make(chan struct{}, opts.PoolSize),
		all: map[*instance]bool{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true,
			DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.out == nil {
		p.out = io.Discard
	}
	return p
}

// Function returns the pool's function.
func (p *Pool) Function() Function { return p.fn }

// Size is the pool's instance limit: Options.PoolSize when set, else the function's
// Concurrency, else DefaultConcurrency.
func (p *Pool) Size() int { return p.opts.PoolSize }

// Throttled counts the invocations throttled so far (FailThrottle).
func (p *Pool) Throttled() int64 { return p.throttled.Load() }

type instance struct {
	id      int
	cmd     *exec.Cmd
	url     string
	started time.Time
	exited  chan struct{}
	invokes int
	// report carries each REPORT line's init duration (ms), -1 when the line has none.
	report chan float64
	// quiet is set when the pool kills the instance: what it writes from then on (a runtime
	// finding its Runtime API gone) is dropped, so that a stop is silent.
	quiet atomic.Bool
}

func (in *instance) alive() bool {
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// Process describes a live instance (for tests and logs).
type Process struct {
	ID   int
	PID  int // the emulator's pid, leader of the instance's process group
	Busy bool
}

// Processes lists the live instances.
func (p *Pool) Processes() []Process {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ps []Process
	for in := range p.all {
		if in.alive() {
			ps = append(ps, Process{ID: in.id, PID: in.cmd.Process.Pid, Busy: !slices.Contains(p.idle, in)})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].ID < ps[j].ID })
	return ps
}

// Result is a successful invocation's answer.
type Result struct {
	Payload  []byte
	Instance int
	// Cold is set on an instance's first invocation (its init ran first).
	Cold bool
}

// Invoke sends payload to an instance and returns the function's answer. requestID becomes the
// invocation's request id (X-Amzn-RequestId), "" for a fresh one. A failure is an
// *InvokeError: FailThrottle at once when Size() invocations are running already.
func (p *Pool) Invoke(ctx context.Context, requestID string, payload []byte) (*Result, error) {
	select {
	case p.sem <- struct{}{}:
	default:
		p.throttled.Add(1)
		return nil, &InvokeError{Function: p.fn.LogicalID, Kind: FailThrottle,
			Detail: fmt.Sprintf("Rate Exceeded. (%d instances busy, the function's concurrency)", p.opts.PoolSize)}
	}
	defer func() { <-p.sem }()
	in, err := p.take(ctx)
	if err != nil {
		return nil, &InvokeError{Function: p.fn.LogicalID, Kind: FailStart, Detail: err.Error()}
	}
	res, ierr := p.invoke(ctx, in, requestID, payload)
	if ierr != nil {
		p.retire(in, ierr)
		return nil, ierr
	}
	p.mu.Lock()
	if p.closed || !in.alive() {
		p.mu.Unlock()
		p.kill(in)
	} else {
		p.idle = append(p.idle, in)
		p.mu.Unlock()
	}
	return res, nil
}

// take pops an idle live instance or starts one.
func (p *Pool) take(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		in := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if in.alive() {
			p.mu.Unlock()
			return in, nil
		}
		delete(p.all, in)
	}
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("pool closed")
	}
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	var err error
	for attempt := 0; attempt < 3; attempt++ { // a port taken between pick and bind: try again
		var in *instance
		if in, err = p.start(ctx, id); err == nil {
			return in, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	p.log.Error("rie: instance failed to start", slog.String("function", p.fn.LogicalID), slog.Any("error", err))
	return nil, err
}

var (
	portsMu sync.Mutex
	given   = map[int]bool{} // ports handed out by this process: never twice
)

// freePorts returns n distinct loopback ports nobody listens on, none handed out before by
// this process (the listeners are held until all are chosen, so they cannot repeat).
func freePorts(n int) ([]int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	var ports []int
	for tries := 0; len(ports) < n && tries < 1000; tries++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		port := l.Addr().(*net.TCPAddr).Port
		if !given[port] {
			given[port] = true
			ports = append(ports, port)
		}
	}
	if len(ports) < n {
		return nil, errors.New("no free loopback port")
	}
	return ports, nil
}

var reportInit = regexp.MustCompile(`^REPORT RequestId: \S+\s+(?:Init Duration: ([0-9.]+) ms)?`)

// environ is the instance's whole environment: the emulator passes its own on to the
// function (rie's InitHandler), so nothing of this process's environment leaks in.
func (p *Pool) environ() []string {
	env := maps.Clone(p.fn.Env)
	if env == nil {
		env = map[string]string{}
	}
	secs := int((p.fn.Timeout + time.Second - 1) / time.Second)
	env["AWS_LAMBDA_FUNCTION_NAME"] = p.fn.LogicalID
	env["AWS_LAMBDA_FUNCTION_VERSION"] = "$LATEST"
	env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = strconv.Itoa(secs)
	env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = strconv.Itoa(p.fn.MemoryMB)
	env["AWS_LAMBDA_LOG_GROUP_NAME"] = "/aws/lambda/" + p.fn.LogicalID
	if _, ok := env["TZ"]; !ok {
		env["TZ"] = ":UTC" // as Lambda sets it
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (p *Pool) start(ctx context.Context, id int) (*instance, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	invokePort, apiPort := ports[0], ports[1]
	addr := "127.0.0.1:" + strconv.Itoa(invokePort)
	cmd := exec.Command(p.opts.Emulator, "--log-level", "error",
		"--runtime-interface-emulator-address", addr,
		"--runtime-api-address", "127.0.0.1:"+strconv.Itoa(apiPort),
		p.fn.Bootstrap)
	cmd.Env = p.environ()
	cmd.Dir = os.TempDir()
	setProcAttrs(cmd)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	in := &instance{id: id, cmd: cmd, url: "http://" + addr + InvokePath, exited: make(chan struct{}),
		report: make(chan float64, 64)}
	in.started = time.Now()
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start the emulator: %w", err)
	}
	w.Close()
	go func() {
		_ = cmd.Wait()
		close(in.exited)
	}()
	var tail lines
	go p.copyOutput(in, r, &tail)

	deadline := time.NewTimer(p.opts.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	// Both listeners: the emulator starts its Runtime API server in a goroutine and may
	// answer on the invoke address first; a first invocation then would start the bootstrap
	// before its Runtime API listens ("failed to get the next invoke … connection refused",
	// seen on a loaded machine).
	apiAddr := "127.0.0.1:" + strconv.Itoa(apiPort)
	for {
		if listening(addr) && listening(apiAddr) {
			break
		}
		select {
		case <-in.exited:
			return nil, fmt.Errorf("the emulator exited before listening: %s", tail.String())
		case <-ctx.Done():
			p.kill(in)
			return nil, ctx.Err()
		case <-deadline.C:
			p.kill(in)
			return nil, fmt.Errorf("the emulator did not listen on %s within %s", addr, p.opts.StartTimeout)
		case <-tick.C:
		}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.kill(in)
		return nil, errors.New("pool closed")
	}
	p.all[in] = true
	p.mu.Unlock()
	return in, nil
}

// listening reports whether addr accepts a connection.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// lines keeps the last few lines of an instance's output for error messages.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (t *lines) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.l = append(t.l, s)
	if len(t.l) > 10 {
		t.l = t.l[1:]
	}
}

func (t *lines) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.l, "\n")
}

func (p *Pool) copyOutput(in *instance, r *os.File, tail *lines) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		tail.add(line)
		if m := reportInit.FindStringSubmatch(line); m != nil {
			ms := -1.0
			if m[1] != "" {
				ms, _ = strconv.ParseFloat(m[1], 64)
			}
			select {
			case in.report <- ms:
			default:
			}
		}
		if in.quiet.Load() {
			continue
		}
		p.outMu.Lock()
		fmt.Fprintln(p.out, line)
		p.outMu.Unlock()
	}
}

func (p *Pool) invoke(ctx context.Context, in *instance, requestID string, payload []byte) (*Result, *InvokeError) {
	fail := func(kind, detail string) *InvokeError {
		return &InvokeError{Function: p.fn.LogicalID, Kind: kind, Detail: fmt.Sprintf("instance %d: %s", in.id, detail)}
	}
	// An invocation runs to its end even if the caller goes away, as on Lambda. The emulator
	// answers a timed-out invocation itself; this bound only guards against an
	// instance that stops answering at all.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.fn.Timeout+30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ictx, http.MethodPost, in.url, bytes.NewReader(payload))
	if err != nil {
		return nil, fail(FailCrash, err.Error())
	}
	if requestID != "" {
		req.Header.Set("X-Amzn-RequestId", requestID)
	}
	cold := in.invokes == 0
	in.invokes++
	began := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fail(FailCrash, err.Error())
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fail(FailCrash, err.Error())
	}
	if cold {
		p.logCold(in, began)
	}
	switch {
	case resp.StatusCode != http.StatusOK:
		return nil, fail(FailCrash, fmt.Sprintf("emulator status %d: %s", resp.StatusCode, trim(body)))
	case bytes.HasPrefix(body, []byte("Task timed out after")):
		return nil, fail(FailTimeout, string(trim(body)))
	}
	var fe struct {
		ErrorType    *string         `json:"errorType"`
		ErrorMessage *string         `json:"errorMessage"`
		StatusCode   json.RawMessage `json:"statusCode"`
		BatchFail    json.RawMessage `json:"batchItemFailures"`
	}
	if json.Unmarshal(body, &fe) == nil && (fe.ErrorType != nil || fe.ErrorMessage != nil) && fe.StatusCode == nil && fe.BatchFail == nil {
		return nil, fail(FailFunction, string(trim(body)))
	}
	return &Result{Payload: body, Instance: in.id, Cold: cold}, nil
}

// logCold logs a new instance: the emulator's init duration (from its first REPORT line) and
// the time from exec to the end of the first invocation.
func (p *Pool) logCold(in *instance, began time.Time) {
	initMS := -1.0
	select {
	case initMS = <-in.report:
	case <-time.After(2 * time.Second): // the REPORT line is written before the answer; normally there already
	}
	// The emulator's "Init Duration" times only its start of the runtime (it does not wait for
	// the runtime's first poll), so the figure that counts is the first invocation's, which
	// includes the function's init: cold_invoke_ms.
	p.log.Info("rie: new instance", slog.String("function", p.fn.LogicalID), slog.Int("instance", in.id),
		slog.Float64("cold_invoke_ms", float64(time.Since(began).Microseconds())/1000),
		slog.Float64("emulator_init_ms", initMS),
		slog.Float64("exec_to_listen_ms", float64(began.Sub(in.started).Microseconds())/1000))
}

func trim(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > 300 {
		return append(b[:300:300], "…"...)
	}
	return b
}

// retire kills a failed instance; the next invocation starts a new one.
func (p *Pool) retire(in *instance, why *InvokeError) {
	p.log.Warn("rie: instance replaced", slog.String("function", p.fn.LogicalID), slog.Int("instance", in.id),
		slog.String("reason", why.Kind), slog.String("detail", why.Detail))
	p.kill(in)
}

func (p *Pool) kill(in *instance) {
	in.quiet.Store(true)
	killGroup(in.cmd)
	p.mu.Lock()
	delete(p.all, in)
	p.mu.Unlock()
	select {
	case <-in.exited:
	case <-time.After(10 * time.Second):
	}
}

// Close kills every instance.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	ins := make([]*instance, 0, len(p.all))
	for in := range p.all {
		ins = append(ins, in)
	}
	p.idle = nil
	p.mu.Unlock()
	for _, in := range ins {
		p.kill(in)
	}
}

// HTTPHandler is the pool as a payload 2.0 Lambda handler, for the local gateway: the event
// goes to an instance as API Gateway sends it, the function's answer comes back decoded. A
// failed invocation is an error, which the gateway answers as API Gateway does (500).
func (p *Pool) HTTPHandler() func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		var resp events.APIGatewayV2HTTPResponse
		b, err := json.Marshal(ev)
		if err != nil {
			return resp, err
		}
		res, err := p.Invoke(ctx, ev.RequestContext.RequestID, b)
		if err != nil {
			return resp, err
		}
		if err := json.Unmarshal(res.Payload, &resp); err != nil {
			return resp, fmt.Errorf("rie: %s: malformed answer %s: %w", p.fn.LogicalID, trim(res.Payload), err)
		}
		return resp, nil
	}
}

// SQSHandler is the pool as an SQS Lambda handler, for the local event source (sqspoll): a
// failed invocation is an error (the whole batch comes back, as on Lambda); otherwise the
// partial batch response.
func (p *Pool) SQSHandler() func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		b, err := json.Marshal(ev)
		if err != nil {
			return resp, err
		}
		res, err := p.Invoke(ctx, "", b)
		if err != nil {
			return resp, err
		}
		if err := json.Unmarshal(res.Payload, &resp); err != nil && !bytes.Equal(bytes.TrimSpace(res.Payload), []byte("null")) {
			return resp, fmt.Errorf("rie: %s: malformed answer %s: %w", p.fn.LogicalID, trim(res.Payload), err)
		}
		return resp, nil
	}
}

// ScheduledEvent is the event EventBridge Scheduler sends a function on its schedule.
func ScheduledEvent(at time.Time, ruleARN string) []byte {
	b, _ := json.Marshal(events.EventBridgeEvent{Version: "0", ID: newID(), DetailType: "Scheduled Event",
		Source: "aws.scheduler", AccountID: "000000000000", Time: at.UTC(), Region: "us-east-1",
		Resources: []string{ruleARN}, Detail: json.RawMessage("{}")})
	return b
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
