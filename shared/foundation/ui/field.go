package ui

import (
	"strings"

	"github.com/takapay/payments/shared/foundation/h"
)

// Field is a labelled form control with its hint and its error: the label above, the control,
// the hint and the error below it, the control described by both (aria-describedby) and
// marked invalid when Error is set. The control's id is "f-" + Name unless ID is set.
type Field struct {
	Name  string
	ID    string
	Label string
	// Type is the input type ("text" when ""); "textarea" writes a <textarea>.
	Type         string
	Value        string
	Hint         string
	Error        string
	Required     bool
	Autocomplete string
	Inputmode    string
	// Extra are more attributes of the control (maxlength, min, pattern, lang…).
	Extra []h.Node
	// Control replaces the input (a <select>); it receives the id and the describedby list.
	Control func(id, describedBy string) h.Node
}

// FieldID is the control's id.
func (f Field) FieldID() string {
	if f.ID != "" {
		return f.ID
	}
	return "f-" + f.Name
}

// Render writes the field.
func (f Field) Render(b *htmlwBuilder) { f.node().Render(b) }

func (f Field) node() h.Node {
	id := f.FieldID()
	var described []string
	if f.Hint != "" {
		described = append(described, id+"-hint")
	}
	if f.Error != "" {
		described = append(described, id+"-error")
	}
	describedBy := strings.Join(described, " ")
	return h.Div(h.Class("row"),
		h.Label(h.Class("field-label"), h.For(id), h.Text(f.Label)),
		f.control(id, describedBy),
		h.If(f.Hint != "", h.P(h.Class("hint"), h.ID(id+"-hint"), h.Text(f.Hint))),
		h.If(f.Error != "", h.P(h.Class("field-error"), h.ID(id+"-error"), h.Text(f.Error))),
	)
}

func (f Field) control(id, describedBy string) h.Node {
	if f.Control != nil {
		return f.Control(id, describedBy)
	}
	common := h.Group{
		h.Class("field"), h.ID(id), h.Name(f.Name), h.Required(f.Required),
		h.Autocomplete(f.Autocomplete), h.AttrIf("inputmode", f.Inputmode),
		h.If(f.Error != "", h.Attr("aria-invalid", "true")), h.Aria("describedby", describedBy),
		h.Group(f.Extra),
	}
	if f.Type == "textarea" {
		return h.Textarea(common, h.Text(f.Value))
	}
	typ := f.Type
	if typ == "" {
		typ = "text"
	}
	value := f.Value
	if typ == "password" {
		value = "" // a password is never written back into a page
	}
	return h.Input(h.Type(typ), common, h.AttrIf("value", value))
}
