package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/foundation/page"
)

var (
	styleMarkerRE  = regexp.MustCompile(`<style>@@([^@<]*)@@</style>`)
	scriptMarkerRE = regexp.MustCompile(`<script>@@[^@<]*@@</script>`)
)

// GoldenPages reads a page family's golden files (dir/*.html, by name without ".html"). Each
// style marker ("<style>@@page/assets/base.css + assets/checkout.css@@</style>") becomes the
// stylesheet the page inlines: page.NewStyle of the family's own sheets, read relative to the
// family's folder (dir's grandparent: <family>/testdata/golden), after the kit's base and
// components. Each script marker is left out: the page as a payer without JavaScript sees it.
func GoldenPages(t testing.TB, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("golden pages in %s: %v (%d files)", dir, err, len(files))
	}
	root := filepath.Dir(filepath.Dir(dir))
	out := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := styleMarkerRE.ReplaceAllStringFunc(string(raw), func(m string) string {
			var additions strings.Builder
			for _, name := range strings.Split(styleMarkerRE.FindStringSubmatch(m)[1], " + ") {
				if name = strings.TrimSpace(name); name == "page/assets/base.css" {
					continue // NewStyle puts the kit's base and components first
				}
				css, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
				if err != nil {
					t.Fatalf("%s: style marker %q: %v", f, m, err)
				}
				additions.Write(css)
			}
			return "<style>" + page.NewStyle(additions.String()).Source() + "</style>"
		})
		out[strings.TrimSuffix(filepath.Base(f), ".html")] = scriptMarkerRE.ReplaceAllString(doc, "")
	}
	return out
}

// overflowProbes are pages wider than a phone, so that a widths test shows that Overflow
// finds what it should: one element wider than the page, and a URL that does not wrap (its
// element's box fits; its text does not), and a box that escapes its scroll box. Each
// maps to what Overflow must name.
var overflowProbes = map[string]struct{ page, names string }{
	"/overflow-probe-box": {`<!doctype html><html lang="en"><head><title>probe</title></head>` +
		`<body><main><p>fits</p><p id="too-wide" style="width:700px">a line wider than a phone</p></main></body></html>`, "past the right edge: p#too-wide"},
	"/overflow-probe-text": {`<!doctype html><html lang="en"><head><title>probe</title></head>` +
		`<body><main><dl><dt>Link</dt><dd id="url">https://pay.takapay.example.com.bd/v1/public/documents/lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ</dd></dl></main></body></html>`, "past the right edge: the unwrapped text of dd#url"},
	// An absolutely positioned box escapes a static scroll box around it (a visually hidden
	// label in a table that scrolls, say): the page scrolls, though the table does not.
	"/overflow-probe-escape": {`<!doctype html><html lang="en"><head><title>probe</title></head>` +
		`<body><main><div style="overflow-x:auto"><table><tr><td>cell<span id="escape" style="position:absolute;left:500px;width:1px;height:1px;overflow:hidden">label</span></td></tr></table></div></main></body></html>`, "past the right edge: span#escape"},
}

// CheckGoldenWidths serves every golden page of a family ("<case>.<lang>", GoldenPages) with
// the family's security headers and checks each at every size of Widths (CheckWidths): no
// sideways scroll, 0 axe-core violations, screenshots .artifacts/<prefix><case>-<lang>-<width>.png.
// skip leaves out pages that prove something else (the hostile ones, which prove escaping).
// It first checks that Overflow finds a too-wide element, an unwrapped URL and a box that
// escapes its scroll box, on probe pages.
func CheckGoldenWidths(t *testing.T, dir, prefix string, headers map[string]string, skip func(name string) bool) {
	t.Helper()
	Chromium(t)
	axeSource := AxeSource(t)
	pages := GoldenPages(t, dir)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probe, ok := overflowProbes[r.URL.Path]; ok {
			_, _ = w.Write([]byte(probe.page))
			return
		}
		doc, ok := pages[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	ctx := New(t, "")
	for path, probe := range overflowProbes {
		if err := Do(ctx, chromedp.EmulateViewport(Widths[0].Width, Widths[0].Height),
			chromedp.Navigate(srv.URL+path), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
			t.Fatal(err)
		}
		if what, err := Overflow(ctx); err != nil || !strings.Contains(what, probe.names) {
			t.Fatalf("the overflow check on %s at %s: %q, %v; want it to name %q", path, Widths[0], what, err, probe.names)
		}
	}
	var names []string
	for name := range pages {
		if skip == nil || !skip(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if err := Do(ctx, chromedp.Navigate(srv.URL+"/"+name), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base, lang, _ := strings.Cut(name, ".")
		CheckWidths(t, ctx, axeSource, prefix+base, lang)
	}
	t.Logf("%d pages checked at %v", len(names), Widths)
}
