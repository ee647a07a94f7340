package clienttest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/clienttest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/walkthrough"
)

// page is a getting-started page of docs/, run as a reader runs it: its sh blocks in order and
// each titled block saved to its file where the reader is by then (walkthrough.Script). Only
// the lines that cannot run here as written are replaced, and each must be on the page:
// `make dev` (the test's stack is up), the API's address (the harness's recorder), the shop's
// port 8080 (a free one) and the install line (the client from this checkout: it is not on a
// public registry).
type page struct {
	file    string
	tools   []string
	install string
	// local is what runs instead of the install line, given the checkout's root.
	local func(root string) string
}

// runPage runs p against a fresh stack with the webhook sender and re-drive running as `make
// dev` runs them, and returns what the page printed. It fails the test unless the page exits
// 0 within 4 minutes; every process the page started is killed when it ends. The harness
// checks every request the page's code sent against the contract.
func runPage(t *testing.T, p page) (string, *clienttest.Harness) {
	t.Helper()
	for _, tool := range append([]string{"bash", "curl", "jq"}, p.tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			devstack.MissingTool(t, "%s needs %s (.ci/run installs it): %v", p.file, tool, err)
		}
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.file)))
	if err != nil {
		t.Fatal(err)
	}
	script, err := walkthrough.Script(walkthrough.Blocks(string(md)))
	if err != nil {
		t.Fatalf("%s: %v", p.file, err)
	}
	h := clienttest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h.API.RunWebhookWorkers(ctx, t, 200*time.Millisecond)
	port, err := devstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ old, new string }{
		{"http://127.0.0.1:3000", h.URL},
		{"8080", strconv.Itoa(port)},
		{p.install, p.local(root)},
	} {
		if !strings.Contains(script, r.old) {
			t.Fatalf("%s no longer has %q", p.file, r.old)
		}
		script = strings.ReplaceAll(script, r.old, r.new)
	}
	makeDev := regexp.MustCompile(`(?m)^make dev\b.*$`)
	if !makeDev.MatchString(script) {
		t.Fatalf("%s no longer starts with make dev", p.file)
	}
	script = makeDev.ReplaceAllString(script, "")

	dir := t.TempDir()
	creds := *h.API.Creds
	creds.SandboxWebhookSecret = h.Secret
	if err := localapi.WriteCredentials(filepath.Join(dir, ".dev", "credentials.json"), &creds); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "page.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp) // the page's mktemp -d
	cmd.Stdout, cmd.Stderr = logFile, logFile     // a file: a server the page leaves running holds no pipe open
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killAll := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(killAll)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(pageTimeout):
		killAll()
		err = <-done
		t.Errorf("%s did not finish in %s", p.file, pageTimeout)
	}
	killAll()
	out, _ := os.ReadFile(logPath)
	if err != nil {
		// The logs the page's programs wrote (a shop's) say why.
		logs, _ := filepath.Glob(filepath.Join(tmp, "*", "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			out = append(out, "\n--- "+filepath.Base(l)+":\n"+string(b)...)
		}
		t.Fatalf("%s failed: %v\n%s", p.file, err, out)
	}
	return string(out), h
}

// checkShop checks what a getting-started page's shop printed and sent: the order paid on the
// payer's return and on the verified webhook, a forged webhook refused, one payment created,
// with the order's reference and amount, whose webhook_url is the shop's, and then one refund
// of all of it asked for under the order's Idempotency-Key, whose refund.requested webhook the
// shop verified and recorded.
func checkShop(t *testing.T, out string, h *clienttest.Harness) {
	t.Helper()
	for _, want := range []string{
		`"paid":false`,
		"COMPLETED",
		"Order ORDER-1001 is paid. Thank you!",
		"order ORDER-1001 paid=true", // the webhook, verified and confirmed
		"\n400\n",                    // the forged webhook
		`"paid":true`,
		`"status":"REQUESTED"`, // the refund the shop asked for
		"refund.requested order ORDER-1001 refund REQUESTED", // its webhook, verified
		`"refund_status":"REQUESTED"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page printed no %q:\n%s", want, out)
		}
	}
	var refunds int
	for _, r := range h.Requests() {
		if r.Method != "POST" || !strings.HasSuffix(r.Path, "/refunds") {
			continue
		}
		refunds++
		if k := r.Header.Get("Idempotency-Key"); k != "refund-ORDER-1001-0001" {
			t.Errorf("the refund's Idempotency-Key %q is not the order's", k)
		}
		if body := string(r.Body); !strings.Contains(body, `"reason":"order_cancelled"`) || !strings.Contains(body, `"reference":"ORDER-1001"`) ||
			strings.Contains(body, "amount_minor") {
			t.Errorf("the refund's body %s: want the whole order (no amount_minor), order_cancelled, its reference", body)
		}
	}
	if refunds != 1 {
		t.Errorf("the shop asked for %d refunds, want 1", refunds)
	}
	var creates, verifies int
	for _, r := range h.Requests() {
		switch r.Path {
		case "/v1/payment/create":
			creates++
			if body := string(r.Body); !strings.Contains(body, `"reference":"ORDER-1001"`) || !strings.Contains(body, `"amount":1250.00`) ||
				!strings.Contains(body, `/webhooks/takapay"`) {
				t.Errorf("the create sent %s", body)
			}
		case "/v1/payment/verify":
			verifies++
			if !strings.Contains(string(r.Body), `"expected"`) {
				t.Errorf("a verify without expected: %s", r.Body)
			}
		}
	}
	// One create; a verify on the return and one on the webhook (none for the forged one).
	if creates != 1 || verifies != 2 {
		t.Errorf("the shop sent %d creates and %d verifies, want 1 and 2", creates, verifies)
	}
}

// TestGettingStartedGo runs docs/getting-started-go.md.
func TestGettingStartedGo(t *testing.T) {
	out, h := runPage(t, page{
		file:    "docs/getting-started-go.md",
		tools:   []string{"go"},
		install: "go get github.com/takapay/payments/clients/go",
		local: func(root string) string {
			return "go mod edit -require=github.com/takapay/payments/clients/go@v0.0.0-00010101000000-000000000000 " +
				"-replace=github.com/takapay/payments/clients/go=" + filepath.Join(root, "clients", "go")
		},
	})
	checkShop(t, out, h)
}

// pageTimeout bounds a page's run: building its program and a payment's round trip take
// seconds; a page waiting for what never comes fails instead of hanging.
var pageTimeout = 3 * time.Minute
