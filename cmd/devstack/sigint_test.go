package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Ctrl-C ends make dev quietly: with several functions' instances running under the emulator,
// SIGINT stops the API, the instances (each bootstrap with its emulator) and the servers, and
// the only line after it is "stopping: …" — no runtime reporting "failed to get the next
// invoke" — and the exit status is 0. The real binary, on free ports, with the worktree's
// .dev/ (make dev's own data directory).
func TestCtrlCIsQuiet(t *testing.T) {
	devstack.RequireServers(t)
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "devstack")
	if b, err := exec.Command(devstack.GoTool(), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	env := os.Environ()
	ports := map[string]int{}
	for _, name := range []string{"PORT", "DYNAMO_PORT", "SQS_PORT", "SES_PORT", "KMS_PORT"} {
		p, err := devstack.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports[name] = p
		env = append(env, name+"="+strconv.Itoa(p))
	}
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = root, append(env, "RUNTIME=emulator", "POOL_SIZE=", "PARAMS=")
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("make dev's output:\n%s", out.String())
		}
	})
	// Up: the banner (a first build on a loaded machine takes minutes; poll the output).
	for up := time.Now().Add(20 * time.Minute); !strings.Contains(out.String(), "Takapay local stack is up"); {
		select {
		case err := <-exited:
			t.Fatalf("make dev exited before it was up: %v", err)
		default:
		}
		if time.Now().After(up) {
			t.Fatal("make dev not up after 20 minutes")
		}
		time.Sleep(100 * time.Millisecond) // polling the output, not a timing
	}
	// Instances of several functions, some of them two at once.
	base := "http://127.0.0.1:" + strconv.Itoa(ports["PORT"])
	var wg sync.WaitGroup
	for _, path := range []string{"/healthz", "/healthz", "/readyz", "/v1/payment-intents", "/v1/payment-intents", "/v1/workspaces/x/documents/invoices"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(base + path)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	// Each invocation's REPORT line comes after its answer: wait until all six are out.
	for strings.Count(out.String(), "REPORT RequestId:") < 6 {
		select {
		case err := <-exited:
			t.Fatalf("make dev exited: %v", err)
		case <-time.After(50 * time.Millisecond): // polling the output, not a timing
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Errorf("exit after Ctrl-C: %v, want status 0", err)
	}
	all := out.String()
	if strings.Contains(all, "failed to get the next invoke") {
		t.Error("a runtime lost its Runtime API")
	}
	// Nothing after make dev began to stop.
	stopAt := strings.LastIndex(all, "stopping: ")
	if stopAt < 0 {
		t.Fatal("no stopping line after Ctrl-C")
	}
	after := all[stopAt:]
	for _, line := range strings.Split(after, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "stopping: ") {
			t.Errorf("after Ctrl-C: %q", line)
		}
	}
}
