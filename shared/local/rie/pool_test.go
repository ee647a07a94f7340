package rie_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// gate is a TCP proxy to DynamoDB that can hold connections: a test knows a request is in
// flight inside a function (its connection arrived) without any timing.
type gate struct {
	ln      net.Listener
	backend string
	arrived chan struct{}
	mu      sync.Mutex
	open    chan struct{}
}

func newGate(t *testing.T, backend string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, backend: strings.TrimPrefix(backend, "http://"), arrived: make(chan struct{}, 100), open: make(chan struct{})}
	close(g.open)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, err := net.Dial("tcp", g.backend)
				if err != nil {
					return
				}
				defer b.Close()
				go func() { _, _ = io.Copy(c, b) }()
				// Each request's bytes wait while the gate is held (a kept-alive connection
				// carries several requests).
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						g.mu.Lock()
						open := g.open
						g.mu.Unlock()
						select {
						case <-open:
						default:
							g.arrived <- struct{}{}
							<-open
						}
						if _, werr := b.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return g
}

func (g *gate) hold() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) release() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}

func (g *gate) drain() {
	for {
		select {
		case <-g.arrived:
		default:
			return
		}
	}
}

// verifyPool is PaymentVerifyFunction's real bootstrap with its DynamoDB traffic through a gate.
func verifyPool(t *testing.T, size int, timeout time.Duration) (*rie.Pool, *gate, func() []byte) {
	p, g, payload, _ := verifyPoolLogged(t, size, timeout)
	return p, g, payload
}

func verifyPoolLogged(t *testing.T, size int, timeout time.Duration) (*rie.Pool, *gate, func() []byte, *testOutput) {
	p, g, payload, logs, _ := verifyPoolWith(t, size, timeout)
	return p, g, payload, logs
}

// verifyPoolOutput is verifyPool with the instances' own output (the functions' and the
// emulator's lines).
func verifyPoolOutput(t *testing.T, size int) (*rie.Pool, *gate, func() []byte, *testOutput) {
	p, g, payload, _, out := verifyPoolWith(t, size, 5*time.Minute)
	return p, g, payload, out
}

func verifyPoolWith(t *testing.T, size int, timeout time.Duration) (*rie.Pool, *gate, func() []byte, *testOutput, *testOutput) {
	a, set, _ := startPools(t, size)
	out := &testOutput{}
	root, _ := samtemplate.FindRepoRoot()
	fn := set.Pools["PaymentVerifyFunction"].Function()
	g := newGate(t, a.Stack.Dynamo.Endpoint)
	fn.Env["AWS_ENDPOINT_URL_DYNAMODB"] = "http://" + g.ln.Addr().String()
	// One attempt may wait as long as the test holds it (a loaded machine is slow).
	fn.Env["ATTEMPT_TIMEOUT_MS"] = "600000"
	fn.Timeout = timeout
	emu, err := rie.Emulator(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testOutput{}
	p := rie.NewPool(fn, rie.Options{Emulator: emu, PoolSize: size, Output: out, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	t.Cleanup(p.Close)
	raw, err := os.ReadFile(filepath.Join(root, "events", "payment-verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
	payload, _ := json.Marshal(ev)
	return p, g, func() []byte { return payload }, logs, out
}

func statusOf(t *testing.T, res *rie.Result) int {
	t.Helper()
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(res.Payload, &resp); err != nil {
		t.Fatalf("answer %s: %v", res.Payload, err)
	}
	return resp.StatusCode
}

// An instance killed (SIGKILL, the emulator and the bootstrap together) while a request is
// inside it: the caller gets a crash, the instance is gone, and the next request is served by
// a new instance.
func TestInstanceKilledMidRequestIsReplaced(t *testing.T) {
	p, g, payload := verifyPool(t, 1, 5*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	first, err := p.Invoke(ctx, "", payload())
	if err != nil || statusOf(t, first) != 404 { // the sample names a payment that does not exist
		t.Fatalf("warm-up: %v %v", first, err)
	}
	g.drain()
	g.hold()
	type answer struct {
		res *rie.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := p.Invoke(ctx, "", payload())
		done <- answer{res, err}
	}()
	<-g.arrived // the request is inside the function, waiting on DynamoDB
	ps := p.Processes()
	if len(ps) != 1 || !ps[0].Busy {
		t.Fatalf("processes %+v, want one busy", ps)
	}
	if err := syscall.Kill(-ps[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got := <-done
	var ie *rie.InvokeError
	if !errors.As(got.err, &ie) || ie.Kind != rie.FailCrash {
		t.Fatalf("killed mid-request: %v %v, want a crash", got.res, got.err)
	}
	g.release()
	again, err := p.Invoke(ctx, "", payload())
	if err != nil || statusOf(t, again) != 404 || !again.Cold || again.Instance == first.Instance {
		t.Fatalf("after the crash: %+v %v, want a new instance's answer", again, err)
	}
}

// A frozen runtime (SIGSTOP) runs past the function's timeout: the emulator answers "Task timed
// out", the pool replaces the instance, and the next request is served.
func TestTimedOutInstanceIsReplaced(t *testing.T) {
	p, _, payload := verifyPool(t, 1, 10*time.Second) // the template's timeout
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	first, err := p.Invoke(ctx, "", payload())
	if err != nil || statusOf(t, first) != 404 {
		t.Fatalf("warm-up: %v %v", first, err)
	}
	ps := p.Processes()
	if len(ps) != 1 {
		t.Fatalf("processes %+v", ps)
	}
	// The bootstrap: the emulator's child (under any of its threads).
	var kids []string
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(ps[0].PID) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		kids = append(kids, strings.Fields(string(b))...)
	}
	if len(kids) != 1 {
		t.Skipf("cannot find the bootstrap under the emulator: %q", kids)
	}
	child, _ := strconv.Atoi(kids[0])
	if err := syscall.Kill(child, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_, err = p.Invoke(ctx, "", payload())
	var ie *rie.InvokeError
	if !errors.As(err, &ie) || ie.Kind != rie.FailTimeout {
		t.Fatalf("frozen runtime: %v, want a timeout", err)
	}
	again, err := p.Invoke(ctx, "", payload())
	if err != nil || statusOf(t, again) != 404 || again.Instance == first.Instance {
		t.Fatalf("after the timeout: %+v %v", again, err)
	}
}

// Overlapping requests get an instance each, up to the pool's size.
func TestOverlappingRequestsScaleOut(t *testing.T) {
	p, g, payload, logs := verifyPoolLogged(t, 2, 5*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g.hold()
	results := make(chan *rie.Result, 2)
	for range 2 {
		go func() {
			res, err := p.Invoke(ctx, "", payload())
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	<-g.arrived
	<-g.arrived // both requests inside a function at once: two instances
	if ps := p.Processes(); len(ps) != 2 || !ps[0].Busy || !ps[1].Busy {
		t.Fatalf("processes %+v, want two busy", ps)
	}
	g.release()
	a, b := <-results, <-results
	if a == nil || b == nil || a.Instance == b.Instance || !a.Cold || !b.Cold {
		t.Fatalf("results %+v %+v", a, b)
	}
	// Each new instance's start is in the log, with its cold invocation's duration.
	if n := strings.Count(logs.String(), `"msg":"rie: new instance","function":"PaymentVerifyFunction"`); n != 2 ||
		!strings.Contains(logs.String(), `"cold_invoke_ms":`) {
		t.Errorf("%d new-instance lines, want 2:\n%s", n, logs.String())
	}
}
