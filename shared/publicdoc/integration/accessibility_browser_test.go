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

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/publicdoc"
)

// goldenPages reads the rendered pages of every state from the rule package's golden files
// (its TestGolden holds them equal to what the page renders), by name without ".html".
func goldenPages(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("golden pages: %v (%d files)", err, len(files))
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".html")] = string(b)
	}
	return out
}

// Every state of the public invoice and payment-link pages and every error page, in both
// languages — each golden file (the hostile* files, which prove escaping, aside): payable
// with every field kind, the refilled form with its validation messages, paid, closed,
// unavailable, the refusals — meets WCAG 2.1 AA as axe-core checks it in Chromium, served with
// the page's security headers (the page has no script).
func TestBrowserAccessibilityEveryState(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.Chromium(t)
	axeSource := browsertest.AxeSource(t)
	pages := goldenPages(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := pages[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range publicdoc.SecurityHeaders(false) {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	var names []string
	for name := range pages {
		if !strings.HasPrefix(name, "hostile") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	ctx := browsertest.New(t, "")
	for _, name := range names {
		if err := browsertest.Do(ctx, chromedp.Navigate(srv.URL+"/"+name), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		violations, _ := browsertest.Axe(t, ctx, axeSource)
		for _, v := range violations {
			t.Errorf("%s: %s", name, v)
		}
	}
	if len(names) < 30 {
		t.Fatalf("only %d pages checked", len(names))
	}
	t.Logf("%d pages checked: every state, in each language", len(names))
}
