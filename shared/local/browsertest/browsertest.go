// Package browsertest drives Debian's Chromium for the payer pages' browser tests (chromedp):
// finding the browser, starting it at a phone's or a desktop's width, running steps with a
// deadline, screenshots in .artifacts/, and axe-core's WCAG 2.1 AA rules on the page shown.
// Test tooling: no Lambda links it.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// Window sizes: a common Android phone, and a laptop.
const (
	PhoneWidth, PhoneHeight     = 412, 915
	DesktopWidth, DesktopHeight = 1280, 900
)

// Chromium finds Debian's chromium (installed by .ci/run). Without it the test is skipped,
// under -short and locally; in CI's full tier (CI set) a missing browser fails the test
// instead of hiding it (devstack.MissingTool).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	devstack.MissingTool(t, "chromium is not installed (apt-get install chromium; .ci/run installs it)")
	return ""
}

// New starts a headless Chromium with a phone-sized window and returns its context; it stops
// with the test. acceptLanguage ("" for Chromium's own) is what the browser asks pages for.
func New(t testing.TB, acceptLanguage string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(PhoneWidth, PhoneHeight),
	}
	if acceptLanguage != "" {
		opts = append(opts, chromedp.Flag("accept-lang", acceptLanguage))
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	// No timeout on the browser's own context (it would stop the browser); the test binary's
	// -timeout bounds the run, and each Do below fails fast once the page is wrong.
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	return ctx
}

// StepTimeout bounds each Do and Run: a page that never shows what a step waits for fails the
// test within it instead of hanging until the test binary's -timeout.
const StepTimeout = 20 * time.Second

// Do runs browser steps with a deadline (the browser's own context must not have one).
func Do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	if _, err := chromedp.Run(ctx, chromedp.Location()); err != nil { // the first Run starts the browser
		return err
	}
	c, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	for i, st := range steps {
		if err := chromedp.Do(c, st); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

// Run runs one action that returns a value, with Do's deadline.
func Run[T any](ctx context.Context, a chromedp.Action[T]) (T, error) {
	if _, err := chromedp.Run(ctx, chromedp.Location()); err != nil {
		var zero T
		return zero, err
	}
	c, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	return chromedp.Run(c, a)
}

// Screenshot saves the whole page as .artifacts/<name> (gitignored) and returns its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".artifacts", name)
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	png, err := Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// Screenshots saves the page at a phone's and a desktop's width: .artifacts/<name>-phone.png
// and <name>-desktop.png. The window is a phone's again afterwards.
func Screenshots(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	Screenshot(t, ctx, name+"-phone.png")
	if err := Do(ctx, chromedp.EmulateViewport(DesktopWidth, DesktopHeight)); err != nil {
		t.Fatal(err)
	}
	Screenshot(t, ctx, name+"-desktop.png")
	if err := Do(ctx, chromedp.EmulateViewport(PhoneWidth, PhoneHeight)); err != nil {
		t.Fatal(err)
	}
}

// Violation is what axe-core reports of one broken rule.
type Violation struct {
	ID    string `json:"id"`
	Help  string `json:"help"`
	Nodes []struct {
		Target []string `json:"target"`
	} `json:"nodes"`
}

func (v Violation) String() string {
	var targets []string
	for _, n := range v.Nodes {
		targets = append(targets, strings.Join(n.Target, " "))
	}
	return fmt.Sprintf("%s (%s) at %v", v.ID, v.Help, targets)
}

// AxeSource reads axe-core from node_modules (npm ci installs it with the local servers).
func AxeSource(t testing.TB) string {
	t.Helper()
	modules, err := devstack.NodeModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(modules, "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (make test runs npm ci): %v", err)
	}
	return string(src)
}

// Axe runs axe-core's WCAG 2.0 and 2.1 A and AA rules on the page shown and returns the
// violations and how many rules passed (axe is injected over DevTools, which the page's CSP
// does not govern). It fails the test when axe checked nothing.
func Axe(t testing.TB, ctx context.Context, axeSource string) ([]Violation, int) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(c, chromedp.Evaluate[string](axeSource+`;
		axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
			.then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	var result struct {
		Violations []Violation `json:"violations"`
		Passes     int         `json:"passes"`
	}
	if err := json.Unmarshal([]byte(raw), &result); err != nil {
		t.Fatalf("axe result: %v: %s", err, raw)
	}
	if result.Passes == 0 {
		t.Fatal("axe checked nothing")
	}
	return result.Violations, result.Passes
}
