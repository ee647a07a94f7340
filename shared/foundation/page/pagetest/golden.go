// Package pagetest is the payer pages' golden-file harness (package page's kit, for tests
// only: no Lambda links it). A page family renders each case, in every language, and Golden
// compares the whole document byte for byte with testdata/golden/<name>.html; `go test -run
// TestGolden -update` rewrites the files from the current renderer.
package pagetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// Update is the -update flag: rewrite the golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite testdata/golden/*.html from the current renderer")

// Marker stands in a golden file for bytes every page of a family carries verbatim (its
// inline stylesheet or script), so that the files stay readable and do not change when an
// asset does. Text is what the page carries, Mark what the file holds.
type Marker struct {
	Text, Mark string
}

// Golden compares rendered pages with the files in Dir.
type Golden struct {
	// Dir holds the golden files ("testdata/golden").
	Dir string
	// Markers are replaced in both directions: collapsed when a file is written, expanded
	// before a comparison.
	Markers []Marker
}

// Check compares got, the page named name, with Dir/name.html (or writes it with -update).
func (g Golden) Check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(g.Dir, name+".html")
	if *Update {
		if err := os.MkdirAll(g.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(g.collapse(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
	}
	if want := g.expand(string(golden)); got != want {
		t.Errorf("%s differs from %s:\n%s", name, path, FirstDifference(want, got))
	}
}

// CheckAll checks every page of pages (name to document) and that every file in Dir is one
// of them: a renamed or removed case leaves no stale file behind.
func (g Golden) CheckAll(t *testing.T, pages map[string]string) {
	t.Helper()
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) { g.Check(t, name, pages[name]) })
	}
	files, _ := filepath.Glob(filepath.Join(g.Dir, "*.html"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		if _, ok := pages[name]; ok {
			continue
		}
		if *Update {
			if err := os.Remove(f); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s is no golden case (go test -run TestGolden -update removes it)", f)
	}
}

func (g Golden) collapse(page string) string {
	for _, m := range g.Markers {
		page = strings.ReplaceAll(page, m.Text, m.Mark)
	}
	return page
}

func (g Golden) expand(golden string) string {
	for _, m := range g.Markers {
		golden = strings.ReplaceAll(golden, m.Mark, m.Text)
	}
	return golden
}

// FirstDifference describes where want and got first differ, line by line.
func FirstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, clip(wl), clip(gl))
		}
	}
	return "(no line differs)"
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// CheckCatalogue holds a page family's catalogue (English, Bangla) to the rules every
// catalogue keeps: exactly the same keys and, per key, the same placeholders; no empty
// message; every Bangla message written in Bangla script without Western digits, but for the
// names in notBangla (provider names, pure punctuation), which read the same in both; no
// Bangla in the English one.
func CheckCatalogue(t *testing.T, en, bn map[string]string, notBangla ...string) {
	t.Helper()
	names := map[string]bool{}
	for _, k := range notBangla {
		names[k] = true
	}
	for key, e := range en {
		b, ok := bn[key]
		if !ok {
			t.Errorf("%s: no Bangla", key)
			continue
		}
		if e == "" || b == "" {
			t.Errorf("%s: empty message", key)
		}
		if !slices.Equal(placeholders(e), placeholders(b)) {
			t.Errorf("%s: placeholders %v in English, %v in Bangla", key, placeholders(e), placeholders(b))
		}
		if hasBengali(e) {
			t.Errorf("%s: Bangla in the English catalogue: %q", key, e)
		}
		if !hasBengali(b) && !names[key] {
			t.Errorf("%s: the Bangla message %q has no Bangla", key, b)
		}
		if names[key] && b != e {
			t.Errorf("%s: a name changed: %q, %q", key, e, b)
		}
		if strings.ContainsAny(b, "0123456789") {
			t.Errorf("%s: Western digits in Bangla: %q", key, b)
		}
	}
	for key := range bn {
		if _, ok := en[key]; !ok {
			t.Errorf("%s: Bangla only", key)
		}
	}
}

var placeholderRE = regexp.MustCompile(`\{[a-z]+\}`)

func placeholders(msg string) []string {
	p := placeholderRE.FindAllString(msg, -1)
	sort.Strings(p)
	return p
}

func hasBengali(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Bengali, r) }) >= 0
}
