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

// overflowProbe is a page one element of which is wider than a phone, so that a widths test
// shows that Overflow finds what it should.
const overflowProbe = `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>probe</title></head>` +
	`<body><main><p>fits</p><p id="too-wide" style="width:700px">a line wider than a phone</p></main></body></html>`

// CheckGoldenWidths serves every golden page of a family ("<case>.<lang>", GoldenPages) with
// the family's security headers and checks each at every size of Widths (CheckWidths): no
// sideways scroll, 0 axe-core violations, screenshots .artifacts/<prefix><case>-<lang>-<width>.png.
// skip leaves out pages that prove something else (the hostile ones, which prove escaping).
// It first checks that Overflow finds a too-wide element on a probe page.
func CheckGoldenWidths(t *testing.T, dir, prefix string, headers map[string]string, skip func(name string) bool) {
	t.Helper()
	Chromium(t)
	axeSource := AxeSource(t)
	pages := GoldenPages(t, dir)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/overflow-probe" {
			_, _ = w.Write([]byte(overflowProbe))
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
	if err := Do(ctx, chromedp.EmulateViewport(Widths[0].Width, Widths[0].Height),
		chromedp.Navigate(srv.URL+"/overflow-probe"), chromedp.WaitReady(chromedp.ID("too-wide"))); err != nil {
		t.Fatal(err)
	}
	if what, err := Overflow(ctx); err != nil || !strings.Contains(what, "p#too-wide") {
		t.Fatalf("the overflow check on a page with a 700 px paragraph at 360 px: %q, %v", what, err)
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
