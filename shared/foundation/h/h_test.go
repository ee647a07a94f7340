package h_test

import (
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/h"
)

func TestElementsReadAsTheirMarkup(t *testing.T) {
	got := h.String(h.Section(h.Class("card"), h.ID("pay"),
		h.H2(h.Text("Payments")),
		h.If(false, h.P(h.Text("never"))),
		h.Input(h.Name("q"), h.Type("text"), h.Required(true), h.Disabled(false), h.Value("")),
		h.Group{h.Aria("label", "list"), h.Text("tail")},
	))
	want := `<section class="card" id="pay" aria-label="list"><h2>Payments</h2><input name="q" type="text" required value="">tail</section>`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestValuesAreEscapedForWhereTheyGo(t *testing.T) {
	evil := `"><script>alert(1)</script>&'+`
	got := h.String(h.A(h.Href("javascript:alert(1)"), h.Title(evil), h.Text(evil)),
		h.Form(h.Action("/x?a=b c&d=é")))
	for _, bad := range []string{"<script>", "javascript:"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q survived: %s", bad, got)
		}
	}
	if want := `<a href="#" title="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;&#43;">`; !strings.HasPrefix(got, want) {
		t.Errorf("got %s, want prefix %s", got, want)
	}
	if want := `<form action="/x?a=b%20c&amp;d=%c3%a9"></form>`; !strings.HasSuffix(got, want) {
		t.Errorf("got %s, want suffix %s", got, want)
	}
}

func TestAnAttributeOutsideAStartTagPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("an attribute rendered as content did not panic")
		}
	}()
	h.String(h.ID("x"))
}

func TestMapAndFuncAndRaw(t *testing.T) {
	items := []string{"a", "<b>"}
	got := h.String(h.Ul(h.Map(items, func(s string) h.Node { return h.Li(h.Text(s)) })),
		h.Func(nil), h.Raw("<hr>"))
	if want := `<ul><li>a</li><li>&lt;b&gt;</li></ul><hr>`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}
