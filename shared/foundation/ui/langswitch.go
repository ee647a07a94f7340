package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
)

// LangSwitch is the language switch: a link to the same page (self: a path of this service,
// with its query if the page needs one) in the other language, named in that language, with
// lang and hreflang saying so. A plain link, no script: the next page carries the choice on.
func LangSwitch(l page.Lang, self string) h.Node {
	o := l.Other()
	return h.Group{
		h.Nav(h.Class("lang"), h.ID("lang-switch"), h.Aria("label", l.T("page.language")),
			h.A(h.ID("lang-other"), h.Href(page.WithLang(self, o)), h.Lang(string(o)), h.Attr("hreflang", string(o)),
				h.Text(o.Name()))),
		h.Raw("\n"),
	}
}
