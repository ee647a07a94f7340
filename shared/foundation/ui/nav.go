package ui

import (
	"github.com/takapay/payments/shared/foundation/h"
)

// NavItem is one link of a navigation menu.
type NavItem struct {
	ID   string
	Href string
	Text string
	// Current marks the page itself (aria-current="page"); InSection a page below it (a
	// payment of Payments: aria-current="true"). Either names the menu's summary.
	Current   bool
	InSection bool
}

// Nav is a site's navigation as a disclosure that works without JavaScript: a <details>
// whose summary names the menu and the current page ("Menu · Payments"); on a phone it opens
// below the top bar as a list of large targets, and from 60em up the stylesheet shows the
// list open as a row (where the browser can style the details' content; elsewhere the
// summary stays and one tap opens it). label names the <nav> landmark.
func Nav(label, menu string, items []NavItem) h.Node {
	current := ""
	for _, it := range items {
		if it.Current || it.InSection && current == "" {
			current = it.Text
		}
	}
	summary := menu
	if current != "" {
		summary += " · " + current
	}
	return h.Group{
		h.Nav(h.Class("nav"), h.Aria("label", label),
			h.Details(h.Class("menu"), h.ID("nav-menu"),
				h.Summary(h.ID("nav-toggle"), h.Text(summary)),
				h.Ul(h.Map(items, func(it NavItem) h.Node {
					return h.Li(h.A(h.ID(it.ID), h.Href(it.Href), h.If(it.Current, h.Attr("aria-current", "page")),
						h.If(!it.Current && it.InSection, h.Attr("aria-current", "true")), h.Text(it.Text)))
				})),
			)),
		h.Raw("\n"),
	}
}
