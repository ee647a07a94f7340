// Package h writes HTML as a tree of typed nodes, so that a page's Go reads as its markup:
//
//	h.Section(h.Class("card"), h.ID("payments"),
//		h.H2(h.Text(title)),
//		h.P(h.Class("hint"), h.Text(hint)),
//	)
//
// It is the project's component layer in plain Go (decision 75): github.com/a-h/templ and
// maragu.dev/gomponents both import html/template, whose package initialisation alone costs
// 130–200 KB per binary, and DashboardPasskeysFunction was already at 1.595× the floor.
// h imports only the hand-escaping writer htmlw (no reflection, no html/template).
//
// Every value is escaped for where it goes, and the escaping is decided by the node's type,
// not by the caller:
//   - Text is text content (also right inside <title> and <textarea>);
//   - Attr is an ordinary attribute value; URL (Href, Action, Src) goes through
//     htmlw.SafeURL first (anything but http, https or a relative URL becomes "#");
//   - Bool is a boolean attribute, written bare when on;
//   - Raw is the one unescaped node, for constant markup and the page kit's own inline
//     stylesheet and script: never a value from a request, a store or a user.
//
// Element and attribute names are constants of the calling code. An attribute written
// outside an element's start tag (not a direct child of El, nor inside a Group or If that is)
// panics: it is a programming error, never data.
package h

import (
	"github.com/takapay/payments/shared/foundation/htmlw"
)

// Node is a piece of a document. Components are functions that return a Node; a type of
// another package becomes a Node by writing itself with Render.
type Node interface {
	Render(b *htmlw.Builder)
}

// Func is a Node written by a function (a component that writes to the Builder itself).
type Func func(b *htmlw.Builder)

// Render calls f.
func (f Func) Render(b *htmlw.Builder) {
	if f != nil {
		f(b)
	}
}

// Bytes renders nodes into a new document.
func Bytes(nodes ...Node) []byte {
	var b htmlw.Builder
	b.Grow(4096)
	for _, n := range nodes {
		if n != nil {
			n.Render(&b)
		}
	}
	return b.Bytes()
}

// String renders nodes (for tests and golden files).
func String(nodes ...Node) string { return string(Bytes(nodes...)) }

// text is escaped text content.
type text string

func (t text) Render(b *htmlw.Builder) { b.Text(string(t)) }

// Text is s as text content, escaped.
func Text(s string) Node { return text(s) }

// raw is markup written as it is.
type raw string

func (r raw) Render(b *htmlw.Builder) { b.Raw(string(r)) }

// Raw writes s unescaped: constant markup, or the page kit's own inline assets. Never a
// value that came from a request, a store or a user.
func Raw(s string) Node { return raw(s) }

// Group is nodes written one after another; inside an element its attributes join the
// element's start tag.
type Group []Node

// Render writes the group's nodes (attributes included, as attributes).
func (g Group) Render(b *htmlw.Builder) {
	for _, n := range g {
		if n != nil {
			n.Render(b)
		}
	}
}

// If is n when cond holds, else nothing.
func If(cond bool, n Node) Node {
	if cond {
		return n
	}
	return nil
}

// IfElse is yes when cond holds, else no.
func IfElse(cond bool, yes, no Node) Node {
	if cond {
		return yes
	}
	return no
}

// Map is one node per item.
func Map[T any](items []T, f func(T) Node) Group {
	g := make(Group, 0, len(items))
	for _, it := range items {
		g = append(g, f(it))
	}
	return g
}
