package h

import "github.com/takapay/payments/shared/foundation/htmlw"

// element is <tag attributes>children</tag>; a void element has no children and no end tag.
type element struct {
	tag  string
	void bool
	kids []Node
}

// El is the element tag with its attributes and children, in any order: attributes (also
// those inside a Group or an If) go into the start tag, the rest is its content.
func El(tag string, kids ...Node) Node { return &element{tag: tag, kids: kids} }

// Void is a void element (input, img, br, meta, link, hr): attributes only.
func Void(tag string, attrs ...Node) Node { return &element{tag: tag, void: true, kids: attrs} }

func (e *element) Render(b *htmlw.Builder) {
	b.Raw("<")
	b.Raw(e.tag)
	writeAttrs(b, e.kids)
	b.Raw(">")
	if e.void {
		return
	}
	writeContent(b, e.kids)
	b.Raw("</")
	b.Raw(e.tag)
	b.Raw(">")
}

func writeAttrs(b *htmlw.Builder, kids []Node) {
	for _, k := range kids {
		switch n := k.(type) {
		case attribute:
			n.write(b)
		case Group:
			writeAttrs(b, n)
		}
	}
}

func writeContent(b *htmlw.Builder, kids []Node) {
	for _, k := range kids {
		switch n := k.(type) {
		case nil, attribute:
		case Group:
			writeContent(b, n)
		default:
			n.Render(b)
		}
	}
}

// The elements the pages use.

func Div(kids ...Node) Node        { return El("div", kids...) }
func Span(kids ...Node) Node       { return El("span", kids...) }
func P(kids ...Node) Node          { return El("p", kids...) }
func A(kids ...Node) Node          { return El("a", kids...) }
func Section(kids ...Node) Node    { return El("section", kids...) }
func Article(kids ...Node) Node    { return El("article", kids...) }
func Header(kids ...Node) Node     { return El("header", kids...) }
func Footer(kids ...Node) Node     { return El("footer", kids...) }
func Main(kids ...Node) Node       { return El("main", kids...) }
func Nav(kids ...Node) Node        { return El("nav", kids...) }
func H1(kids ...Node) Node         { return El("h1", kids...) }
func H2(kids ...Node) Node         { return El("h2", kids...) }
func H3(kids ...Node) Node         { return El("h3", kids...) }
func Ul(kids ...Node) Node         { return El("ul", kids...) }
func Ol(kids ...Node) Node         { return El("ol", kids...) }
func Li(kids ...Node) Node         { return El("li", kids...) }
func Dl(kids ...Node) Node         { return El("dl", kids...) }
func Dt(kids ...Node) Node         { return El("dt", kids...) }
func Dd(kids ...Node) Node         { return El("dd", kids...) }
func Table(kids ...Node) Node      { return El("table", kids...) }
func Caption(kids ...Node) Node    { return El("caption", kids...) }
func Thead(kids ...Node) Node      { return El("thead", kids...) }
func Tbody(kids ...Node) Node      { return El("tbody", kids...) }
func Tr(kids ...Node) Node         { return El("tr", kids...) }
func Th(kids ...Node) Node         { return El("th", kids...) }
func Td(kids ...Node) Node         { return El("td", kids...) }
func Form(kids ...Node) Node       { return El("form", kids...) }
func Label(kids ...Node) Node      { return El("label", kids...) }
func Button(kids ...Node) Node     { return El("button", kids...) }
func Select(kids ...Node) Node     { return El("select", kids...) }
func Option(kids ...Node) Node     { return El("option", kids...) }
func Textarea(kids ...Node) Node   { return El("textarea", kids...) }
func Fieldset(kids ...Node) Node   { return El("fieldset", kids...) }
func Legend(kids ...Node) Node     { return El("legend", kids...) }
func Details(kids ...Node) Node    { return El("details", kids...) }
func Summary(kids ...Node) Node    { return El("summary", kids...) }
func Strong(kids ...Node) Node     { return El("strong", kids...) }
func Em(kids ...Node) Node         { return El("em", kids...) }
func Small(kids ...Node) Node      { return El("small", kids...) }
func Code(kids ...Node) Node       { return El("code", kids...) }
func Pre(kids ...Node) Node        { return El("pre", kids...) }
func Time(kids ...Node) Node       { return El("time", kids...) }
func Output(kids ...Node) Node     { return El("output", kids...) }
func Figure(kids ...Node) Node     { return El("figure", kids...) }
func Figcaption(kids ...Node) Node { return El("figcaption", kids...) }
func Input(attrs ...Node) Node     { return Void("input", attrs...) }
func Img(attrs ...Node) Node       { return Void("img", attrs...) }
func Br() Node                     { return Void("br") }
func Hr(attrs ...Node) Node        { return Void("hr", attrs...) }
