//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package mail

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/local/browsertest"
)

// TestBrowserAccessibility opens every email's HTML part, in both languages, in Chromium at
// the widths every page is checked at (browsertest.Widths: 360, 390 and 1366 px): no sideways
// scroll (the link written out breaks anywhere), axe-core finds no WCAG 2.1 AA violation, and
// each is kept as a screenshot in .artifacts/ (mail/<kind>-<lang>-<width>.png). Mail clients
// differ from a browser, but the markup is what we control.
func TestBrowserAccessibility(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.Chromium(t)
	axeSource := browsertest.AxeSource(t)
	pages := map[string]string{}
	var names []string
	for _, k := range Kinds {
		for _, l := range page.Langs {
			m, err := Compose(k, l, sample(k))
			if err != nil {
				t.Fatal(err)
			}
			name := string(k) + "." + string(l)
			pages[name] = m.HTML
			names = append(names, name)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := pages[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	ctx := browsertest.New(t, "")
	for _, name := range names {
		if err := browsertest.Do(ctx, chromedp.Navigate(srv.URL+"/"+name), chromedp.WaitReady(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kind, lang, _ := strings.Cut(name, ".")
		browsertest.CheckWidths(t, ctx, axeSource, "mail/"+kind, lang)
	}
}
