//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/local/browsertest"
)

// Every state of the checkout page and every error page, in both languages — each golden
// file (the hostile-* files, which prove escaping, aside) — meets WCAG 2.1 AA as axe-core
// checks it in Chromium. The pages are served with their security headers and without their
// script, as a payer without JavaScript sees them (TestBrowserAccessibility checks the live
// pages with the script running). They are read from ../testdata/golden, which package
// checkout's TestGolden holds equal to what the page renders.
func TestBrowserAccessibilityEveryState(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.Chromium(t)
	axeSource := browsertest.AxeSource(t)
	pages := goldenFiles(t)
	// A page that breaks the rules, so that the test shows axe finds what it should.
	const broken = `<!doctype html><html><head><title></title></head><body><input type="text"><a href="/x"></a></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/broken" {
			_, _ = w.Write([]byte(broken))
			return
		}
		doc, ok := pages[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range checkout.SecurityHeaders(false) {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	var names []string
	for name := range pages {
		if !strings.HasPrefix(name, "hostile-") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	ctx := browsertest.New(t, "")
	if err := browsertest.Do(ctx, chromedp.Navigate(srv.URL+"/broken"), chromedp.WaitReady(chromedp.CSS("input"))); err != nil {
		t.Fatal(err)
	}
	if v, _ := browsertest.Axe(t, ctx, axeSource); len(v) < 2 {
		t.Fatalf("axe found %v on a page with no lang, no title, an unlabelled input and an empty link", v)
	}
	for _, name := range names {
		if err := browsertest.Do(ctx, chromedp.Navigate(srv.URL+"/"+name), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		violations, _ := browsertest.Axe(t, ctx, axeSource)
		for _, v := range violations {
			t.Errorf("%s: %s", name, v)
		}
	}
	if len(names) < 50 {
		t.Fatalf("only %d pages checked", len(names))
	}
	t.Logf("%d pages checked: every state, in each language", len(names))
}

// goldenFiles reads every golden page of the checkout ("<case>.<lang>" from
// "<case>.<lang>.html"), its style marker expanded to the page's inline stylesheet (the kit's
// base stylesheet and the checkout's additions) and its script left out.
func goldenFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "testdata", "golden")
	css, err := os.ReadFile(filepath.Join("..", "assets", "checkout.css"))
	if err != nil {
		t.Fatal(err)
	}
	style := "<style>" + page.NewStyle(string(css)).Source() + "</style>"
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.Replace(string(raw), "<style>@@page/assets/base.css + assets/checkout.css@@</style>", style, 1)
		doc = strings.Replace(doc, "<script>@@assets/checkout.js@@</script>", "", 1)
		out[strings.TrimSuffix(filepath.Base(f), ".html")] = doc
	}
	return out
}
