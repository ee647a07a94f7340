package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Page is one test's browser tab with the checks every page test makes: steps that fail the
// test (with a screenshot and the page's text) instead of hanging, and Check, which runs
// axe-core and photographs the page at a phone's and a desktop's width.
type Page struct {
	t      testing.TB
	Ctx    context.Context
	axe    string
	prefix string
}

// NewPage starts Chromium (see New). Screenshots are .artifacts/<prefix><name>-<phone|desktop>.png.
func NewPage(t testing.TB, acceptLanguage, prefix string) *Page {
	t.Helper()
	return &Page{t: t, Ctx: New(t, acceptLanguage), axe: AxeSource(t), prefix: prefix}
}

// Do runs steps with Do's deadline; on failure the test stops with a screenshot
// (.artifacts/<prefix>failed.png) and the start of the page's text.
func (p *Page) Do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := Do(p.Ctx, steps...); err != nil {
		Screenshot(p.t, p.Ctx, p.prefix+"failed.png")
		body, _ := Run(p.Ctx, chromedp.Text(chromedp.CSS("body")))
		p.t.Fatalf("%v\npage: %.2000s", err, body)
	}
}

// Check fails the test on any axe-core WCAG 2.1 AA violation on the page shown, then saves it
// as <prefix><name>-phone.png and -desktop.png.
func (p *Page) Check(name string) {
	p.t.Helper()
	if v, _ := Axe(p.t, p.Ctx, p.axe); len(v) > 0 {
		p.t.Errorf("%s: %d axe violations: %v", name, len(v), v)
	}
	Screenshots(p.t, p.Ctx, p.prefix+name)
}

// Text is the visible text of the first element sel matches.
func (p *Page) Text(sel string) string { return must(p, chromedp.Text(chromedp.CSS(sel))) }

// Value is the value of the form field with that id.
func (p *Page) Value(id string) string { return must(p, chromedp.Value(chromedp.ID(id))) }

// Location is the page's URL.
func (p *Page) Location() string { return must(p, chromedp.Location()) }

func must[T any](p *Page, a chromedp.Action[T]) T {
	p.t.Helper()
	v, err := Run(p.Ctx, a)
	if err != nil {
		Screenshot(p.t, p.Ctx, p.prefix+"failed.png")
		p.t.Fatal(err)
	}
	return v
}

// Both shows url in Bangla and in English (?lang=), waits for #main and checks each
// (<name>-bn, <name>-en); the browser is left on the English page.
func (p *Page) Both(name, url string) {
	p.t.Helper()
	for _, l := range []string{"bn", "en"} {
		p.Do(chromedp.Navigate(WithLang(url, l)), chromedp.WaitVisible(chromedp.ID("main")))
		p.Check(name + "-" + l)
	}
}

// WithLang adds lang=l to url's query.
func WithLang(url, l string) string {
	if strings.Contains(url, "?") {
		return url + "&lang=" + l
	}
	return url + "?lang=" + l
}

// Attr is the attribute name of the first element sel matches, and whether it has it.
func (p *Page) Attr(sel, name string) (string, bool) {
	p.t.Helper()
	r := must(p, chromedp.AttributeValue(chromedp.CSS(sel), name))
	return r.Value, r.Exists
}
