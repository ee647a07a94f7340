package rie_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/rie"
)

// Beyond its cap a function is throttled at once, as Lambda throttles beyond a function's
// concurrency: with both instances of a pool of two inside a request (held at a DynamoDB proxy
// the test controls), a third request gets FailThrottle while they are still held — it did not
// wait for either — and once they finish, the next request is served by a warm instance.
func TestBeyondTheCapThrottledAtOnce(t *testing.T) {
	p, g, payload := verifyPool(t, 2, 5*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g.hold()
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := p.Invoke(ctx, "", payload())
			results <- err
		}()
	}
	<-g.arrived
	<-g.arrived // both instances busy
	_, err := p.Invoke(ctx, "", payload())
	var ie *rie.InvokeError
	if !errors.As(err, &ie) || ie.Kind != rie.FailThrottle {
		t.Fatalf("third request at the cap: %v, want a throttle", err)
	}
	if ps := p.Processes(); len(ps) != 2 || !ps[0].Busy || !ps[1].Busy {
		t.Errorf("processes %+v, want the same two busy instances (a throttle starts none)", ps)
	}
	if p.Throttled() != 1 {
		t.Errorf("Throttled() = %d, want 1", p.Throttled())
	}
	g.release()
	for range 2 {
		if err := <-results; err != nil {
			t.Errorf("held request: %v", err)
		}
	}
	again, err := p.Invoke(ctx, "", payload())
	if err != nil || statusOf(t, again) != 404 || again.Cold {
		t.Fatalf("after the held requests: %+v %v, want a warm instance's answer", again, err)
	}
}

// Close stops every instance silently and completely: each bootstrap is killed with its
// emulator (none is left to find its Runtime API gone), and nothing of theirs reaches the
// output after Close — no "failed to get the next invoke".
func TestCloseIsQuietAndLeavesNoBootstrap(t *testing.T) {
	p, g, payload, out := verifyPoolOutput(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g.hold()
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := p.Invoke(ctx, "", payload())
			done <- err
		}()
	}
	<-g.arrived
	<-g.arrived
	g.release()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var boots []int
	for _, pr := range p.Processes() {
		boots = append(boots, bootstrapOf(t, pr.PID))
	}
	before := len(out.String())
	p.Close()
	for _, pid := range boots {
		waitGone(t, pid)
	}
	if after := out.String()[before:]; strings.TrimSpace(after) != "" {
		t.Errorf("output after Close:\n%s", after)
	}
	if strings.Contains(out.String(), "failed to get the next invoke") {
		t.Errorf("a runtime lost its Runtime API:\n%s", out.String())
	}
}

// bootstrapOf is the bootstrap's pid: the emulator's one child (under any of its threads).
func bootstrapOf(t *testing.T, emulator int) int {
	t.Helper()
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(emulator) + "/task/*/children")
	var kids []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(field)
			kids = append(kids, n)
		}
	}
	if len(kids) != 1 {
		t.Skipf("cannot find the bootstrap under the emulator: %v", kids)
	}
	return kids[0]
}

// waitGone waits until pid has exited (gone, or a zombie awaiting its reaper); it fails the
// test if the process is still running after a generous bound.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	bound := time.Now().Add(30 * time.Second)
	for time.Now().Before(bound) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not a timing
	}
	t.Errorf("bootstrap %d still runs after Close", pid)
}
