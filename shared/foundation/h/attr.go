package h

import "github.com/takapay/payments/shared/foundation/htmlw"

type attrKind uint8

const (
	plainAttr attrKind = iota
	urlAttr
	boolAttr
)

// attribute is one attribute of an element's start tag.
type attribute struct {
	name, value string
	kind        attrKind
	on          bool
}

// Render panics: an attribute is written by its element, never as content.
func (a attribute) Render(*htmlw.Builder) {
	panic("h: attribute " + a.name + " outside an element's start tag")
}

func (a attribute) write(b *htmlw.Builder) {
	switch a.kind {
	case urlAttr:
		b.URLAttr(a.name, a.value)
	case boolAttr:
		if a.on {
			b.Raw(" ")
			b.Raw(a.name)
		}
	default:
		b.Attr(a.name, a.value)
	}
}

// Attr is the attribute name="value", value escaped. name is a constant, never an event
// handler (on*), style, or an attribute that holds a URL (use URL).
func Attr(name, value string) Node { return attribute{name: name, value: value} }

// URL is an attribute that holds a URL (href, action, src, formaction…): the value goes
// through htmlw.SafeURL, then is escaped.
func URL(name, value string) Node { return attribute{name: name, value: value, kind: urlAttr} }

// Bool is a boolean attribute (required, checked, selected, disabled, open, novalidate…),
// written when on.
func Bool(name string, on bool) Node { return attribute{name: name, kind: boolAttr, on: on} }

// AttrIf is Attr(name, value) when value is not "", else nothing.
func AttrIf(name, value string) Node {
	if value == "" {
		return nil
	}
	return Attr(name, value)
}

// The attributes every page uses.

func ID(v string) Node           { return AttrIf("id", v) }
func Class(v string) Node        { return AttrIf("class", v) }
func Href(url string) Node       { return URL("href", url) }
func Action(url string) Node     { return URL("action", url) }
func Src(url string) Node        { return URL("src", url) }
func Name(v string) Node         { return Attr("name", v) }
func Type(v string) Node         { return Attr("type", v) }
func Value(v string) Node        { return Attr("value", v) }
func For(v string) Node          { return Attr("for", v) }
func Lang(v string) Node         { return AttrIf("lang", v) }
func Role(v string) Node         { return Attr("role", v) }
func Title(v string) Node        { return AttrIf("title", v) }
func Aria(name, v string) Node   { return AttrIf("aria-"+name, v) }
func Data(name, v string) Node   { return Attr("data-"+name, v) }
func Autocomplete(v string) Node { return AttrIf("autocomplete", v) }
func Method(v string) Node       { return Attr("method", v) }
func Required(on bool) Node      { return Bool("required", on) }
func Checked(on bool) Node       { return Bool("checked", on) }
func Selected(on bool) Node      { return Bool("selected", on) }
func Disabled(on bool) Node      { return Bool("disabled", on) }
