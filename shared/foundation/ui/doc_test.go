package ui_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

func TestDocumentSwitchAndErrorPage(t *testing.T) {
	st := page.NewStyle("")
	got := string(ui.Document{Lang: page.BN, Title: `পেমেন্ট <x>`, Style: st,
		Body: []h.Node{ui.LangSwitch(page.BN, `/v1/public/checkout/t"x`)}}.Bytes())
	for _, want := range []string{
		"<!doctype html>\n<html lang=\"bn\">",
		"<title>পেমেন্ট &lt;x&gt; — Takapay</title>",
		"<style>" + st.Source() + "</style>\n</head>\n",
		`<nav class="lang" id="lang-switch" aria-label="ভাষা"><a id="lang-other" href="/v1/public/checkout/t%22x?lang=en" lang="en" hreflang="en">English</a></nav>`,
		"</body>\n</html>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "<script") {
		t.Errorf("a document without a script has one:\n%s", got)
	}
	var buf bytes.Buffer
	if err := ui.ErrorPage(&buf, st, page.Error{Lang: page.BN, Self: "/p"}); err != nil {
		t.Fatal(err)
	}
	got = buf.String()
	for _, want := range []string{
		`<html lang="bn">`, "<title>ত্রুটি — Takapay</title>", `<h1 class="state-title" id="error-title">ত্রুটি</h1>`,
		`href="/p?lang=en" lang="en" hreflang="en">English</a>`, `<footer class="footer">Takapay-এর নিরাপদ পেমেন্ট</footer>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("error page lacks %q in\n%s", want, got)
		}
	}
	buf.Reset()
	_ = ui.ErrorPage(&buf, st, page.Error{Lang: page.EN, Title: "<b>", Message: "<i>"})
	if got := buf.String(); strings.Contains(got, "<b>") || strings.Contains(got, "<i>") || strings.Contains(got, "lang-switch") ||
		strings.Contains(got, "<script") {
		t.Errorf("error page: unescaped values, a switch without Self, or a script:\n%s", got)
	}
}

func TestNavNamesThePageOrItsSection(t *testing.T) {
	items := []ui.NavItem{{ID: "nav-home", Href: "/d", Text: "Overview"}, {ID: "nav-payments", Href: "/d/payments", Text: "Payments", InSection: true}}
	got := h.String(ui.Nav("Dashboard", "Menu", items))
	for _, want := range []string{`<summary id="nav-toggle">Menu · Payments</summary>`, `<a id="nav-payments" href="/d/payments" aria-current="true">Payments</a>`, `<a id="nav-home" href="/d">Overview</a>`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s in %s", want, got)
		}
	}
	items[1].Current = true
	if got := h.String(ui.Nav("Dashboard", "Menu", items)); !strings.Contains(got, `aria-current="page">Payments`) || strings.Contains(got, `aria-current="true"`) {
		t.Errorf("the page itself: %s", got)
	}
}
