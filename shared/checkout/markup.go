package checkout

import (
	"strconv"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

// The markup of the hosted checkout page, as a tree of h and ui nodes: the document shell,
// the banner, the language switch, the footer and the error page are the components (package
// ui). Every value from the view and every message of the catalogue is text or an attribute
// value of a node, which package h escapes (links, actions and data-status-url through
// htmlw.SafeURL). Rules that keep the Content-Security-Policy in SecurityHeaders valid: the
// only <script> and <style> elements are the document's, filled verbatim from the embedded
// assets; no inline event handlers (on...=) and no style= attributes.

// nl is a line break between block elements: the markup reads line by line, as the golden
// files show it.
var nl = h.Text("\n")

// pageDoc is the whole page.
func pageDoc(d *pageData) ui.Document {
	l := d.L
	before, after := l.Split("checkout.payment_ref", "id")
	return ui.Document{Lang: l, Title: d.Title, Style: style, Script: script, Body: []h.Node{
		h.If(d.Sandbox, ui.Banner(l)),
		ui.LangSwitch(l, d.ActionBase),
		h.Main(h.Class("card"), h.ID("checkout"), h.URL("data-status-url", d.Self),
			h.Data("terminal", strconv.FormatBool(d.Terminal)), h.Data("locked", strconv.FormatBool(d.Locked)),
			h.Data("messages", scriptMessages(l)), nl,
			summary(d),
			h.If(d.Error != "", h.Group{h.P(h.Class("error"), h.ID("error"), h.Role("alert"), h.Text(d.Error)), nl}),
			h.Section(h.Class("state"), h.ID("status"), h.Data("status", d.Status), h.Attr("aria-live", "polite"), nl,
				state(d)),
			nl, refundPart(d)),
		nl,
		ui.Footer(l.T("page.footer"), h.Text(" · "+before), h.Span(h.ID("invoice"), h.Text(d.InvoiceID)), h.Text(after)),
	}}
}

// refundPart is a COMPLETED payment's refund section (payerrefund), after the status: the
// payer's request and its form, in the page's language, posting to the page's /refunds.
func refundPart(d *pageData) h.Node {
	if d.Refund == nil || !d.Terminal {
		return nil
	}
	sec := *d.Refund
	sec.Lang, sec.Action = d.L, d.url("/refunds")
	return sec.Node()
}

// state is the status section's content: by state the final state, the locked choice, the
// route choice or the bare headline.
func state(d *pageData) h.Node {
	switch {
	case d.Terminal:
		return terminal(d)
	case d.Pending && d.Lock != nil:
		return h.Group{locked(d), cancelForm(d)}
	case d.Pending:
		return h.Group{routeChoice(d), cancelForm(d)}
	}
	return h.Group{h.H2(h.Class("state-title"), h.ID("status-title"), h.Text(d.StateTitle)), nl}
}

// summary is the header: merchant, reference, what is bought (a payment link's quantity ×
// unit price and the payer's answers), the amount and, while pending, the expiry.
func summary(d *pageData) h.Node {
	l := d.L
	return h.Group{h.Header(h.Class("summary"), nl,
		h.P(h.Class("kind"), h.Text(l.T("checkout.pay_to"))), nl,
		h.H1(h.Class("merchant"), h.ID("merchant-name"), h.Text(d.MerchantName)), nl,
		h.If(d.Reference != "", h.Group{h.P(h.Class("reference"), h.Text(l.T("page.reference")+" "),
			h.Span(h.ID("reference"), h.Text(d.Reference))), nl}),
		purchase(d),
		h.P(h.Class("amount"), h.ID("amount"), ui.Money(l, money.Paisa(d.AmountMinor))), nl,
		h.If(d.Pending && d.ExpiresRFC3339 != "", expiry(d)),
	), nl}
}

// purchase is what a payment link's payer buys, above the total: the quantity × the unit
// price, then the options the payer chose on the link's page; nothing for another payment.
func purchase(d *pageData) h.Node {
	p := d.Purchase
	if p == nil || p.Quantity < 1 {
		return nil
	}
	l := d.L
	facts := make([]ui.Fact, 0, len(p.Options))
	for _, o := range p.Options {
		value := o.Value
		if o.Checked {
			value = l.T("checkout.option_yes")
		}
		facts = append(facts, ui.Fact{Term: o.Label, Value: h.Text(value)})
	}
	return h.Group{
		h.P(h.Class("purchase"), h.ID("purchase"), h.Text(l.T("checkout.purchase",
			"quantity", l.Number(p.Quantity), "unit", l.Amount(money.Paisa(p.UnitMinor))))), nl,
		h.If(len(facts) > 0, h.Group{ui.Facts("options", facts...), nl}),
	}
}

// expiry is the expiry line: the catalogue's words around the time in Dhaka, with the
// countdown the script fills.
func expiry(d *pageData) h.Node {
	before, after := d.L.Split("checkout.expires", "time")
	return h.Group{h.P(h.Class("date"), h.ID("expiry"), h.Data("expires-at", d.ExpiresRFC3339),
		h.Text(before), h.Time(h.Attr("datetime", d.ExpiresRFC3339), h.Text(d.ExpiresDhaka)), h.Text(after+" "),
		h.Span(h.ID("countdown"), h.Bool("hidden", true))), nl}
}

// routeLabel is a route's name in l (the view's Label for a route the catalogue does not
// know).
func routeLabel(l page.Lang, id, fallback string) string {
	if t := l.T("checkout.route." + id); t != "checkout.route."+id {
		return t
	}
	return fallback
}

// payerLabel is a route's payer identity label in l.
func payerLabel(l page.Lang, r Route) string {
	key := "checkout.route." + r.ID + ".payer"
	if t := l.T(key); t != key {
		return t
	}
	return r.PayerLabel
}

// lockText is the locked route and the masked payer.
func lockText(d *pageData) string {
	return d.L.T("checkout.paying_with", "route", routeLabel(d.L, d.Lock.Route, d.Lock.RouteLabel), "payer", d.Lock.PayerMasked)
}

// terminal is the final state: headline, message, the locked choice if any, and the way back
// to the merchant or the note that the page is final.
func terminal(d *pageData) h.Node {
	l := d.L
	var end h.Node
	if d.ReturnURL != "" {
		end = h.A(h.Class("button primary"), h.ID("return"), h.Href(d.ReturnURL), h.Text(l.T("checkout.return_to", "merchant", d.MerchantName)))
	} else {
		end = h.P(h.Class("muted"), h.ID("final"), h.Text(l.T("checkout.close")))
	}
	var lockLine h.Node
	if d.Lock != nil {
		lockLine = h.Group{h.P(h.Class("muted"), h.ID("lock"), h.Text(routeLabel(l, d.Lock.Route, d.Lock.RouteLabel)+" · "+d.Lock.PayerMasked)), nl}
	}
	return h.Group{
		h.H2(h.Class("state-title state-"+d.Status), h.ID("status-title"), h.Text(d.StateTitle)), nl,
		h.P(h.Class("state-message"), h.Text(d.StateMessage)), nl,
		lockLine,
		end, nl,
	}
}

// locked is the locked choice: in sandbox the simulated provider's answers, in live a note
// and a link to check again.
func locked(d *pageData) h.Node {
	l := d.L
	head := h.Group{
		h.H2(h.Class("state-title"), h.ID("status-title"), h.Text(l.T("checkout.confirm"))), nl,
		h.P(h.Class("locked"), h.ID("lock"), h.Text(lockText(d))), nl,
	}
	if d.Sandbox {
		return h.Group{head,
			h.P(h.Class("muted"), h.Text(l.T("checkout.sandbox_note"))), nl,
			h.Div(h.Class("actions"), nl,
				ui.PostForm(d.url("/notices/approve"), "", h.Button(h.Type("submit"), h.Class("button primary"), h.ID("approve"), h.Text(l.T("checkout.approve")))), nl,
				ui.PostForm(d.url("/notices/decline"), "", h.Button(h.Type("submit"), h.Class("button danger"), h.ID("decline"), h.Text(l.T("checkout.decline")))), nl,
			), nl,
		}
	}
	return h.Group{head,
		h.P(h.Class("muted"), h.Text(l.T("checkout.waiting", "route", routeLabel(l, d.Lock.Route, d.Lock.RouteLabel)))), nl,
		h.P(h.A(h.Class("button secondary"), h.ID("refresh"), h.Href(d.Self), h.Text(l.T("checkout.check_again")))), nl,
	}
}

// routeChoice is the form that locks a route and a payer identity: one radio per route, each
// followed by its own labelled field (the bKash number, the Nagad number, the email for a
// card receipt), named "payer_" + the route's id; the server reads the chosen route's field.
// Without JavaScript the payer chooses the radio and fills its field; after a refused post
// the choice and every typed value come back (View.Chosen, View.Typed).
func routeChoice(d *pageData) h.Node {
	l := d.L
	title := h.Group{h.H2(h.Class("state-title"), h.ID("status-title"), h.Text(l.T("checkout.choose"))), nl}
	if len(d.Routes) == 0 {
		return h.Group{title, h.P(h.Class("muted"), h.ID("no-routes"), h.Text(l.T("checkout.no_routes"))), nl}
	}
	return h.Group{title,
		ui.PostForm(d.url("/lock"), "", h.Class("lock"), h.ID("lock-form"), h.Bool("novalidate", true), nl,
			h.Fieldset(h.Class("routes"), nl,
				h.Legend(h.Text(l.T("checkout.pay_with"))), nl,
				h.Map(d.Routes, func(r Route) h.Node { return method(d, r) }),
			), nl,
			h.Button(h.Type("submit"), h.Class("button primary"), h.ID("continue"), h.Text(l.T("checkout.continue"))), nl,
		), nl,
	}
}

// PayerField is the form field of a route's payer identity: "payer_" + the route's id (the
// form's old single field "payer" is still read when a route's own field is absent).
func PayerField(routeID string) string { return "payer_" + routeID }

// method is one route of the choice: its radio, then its own labelled payer field.
func method(d *pageData, r Route) h.Node {
	l := d.L
	rid, pid := "route-"+r.ID, "payer-"+r.ID
	chosen := d.SingleRoute || d.Chosen == r.ID
	typ, mode, auto := "text", "", "off"
	switch r.PayerKind {
	case "phone":
		typ, mode, auto = "tel", "tel", "tel"
	case "email":
		typ, mode, auto = "email", "email", "email"
	}
	invalid := d.Error != "" && d.Chosen == r.ID
	return h.Group{h.Div(h.Class("method"), nl,
		h.Label(h.Class("option"), h.For(rid),
			h.Input(h.Type("radio"), h.Name("route"), h.Value(r.ID), h.ID(rid), h.Required(true), h.Checked(chosen)),
			h.Text(" "), h.Span(h.Text(routeLabel(l, r.ID, r.Label)))), nl,
		h.Div(h.Class("row payer"), nl,
			h.Label(h.Class("field-label"), h.For(pid), h.ID(pid+"-label"), h.Text(payerLabel(l, r))), nl,
			h.Input(h.Class("field"), h.Type(typ), h.Name(PayerField(r.ID)), h.ID(pid), h.Attr("maxlength", "254"),
				h.Autocomplete(auto), h.AttrIf("inputmode", mode), h.Attr("autocapitalize", "none"), h.Attr("spellcheck", "false"),
				h.AttrIf("placeholder", l.Digits(r.Placeholder)), h.AttrIf("value", d.Typed[r.ID]),
				h.If(invalid, h.Group{h.Attr("aria-invalid", "true"), h.Aria("describedby", "error")})), nl,
		), nl,
	), nl}
}

// cancelForm is the payer's cancel button (pending payments only).
func cancelForm(d *pageData) h.Node {
	return h.Group{ui.PostForm(d.url("/notices/cancel"), "", h.Class("cancel"),
		h.Button(h.Type("submit"), h.Class("button link"), h.ID("cancel"), h.Text(d.L.T("checkout.cancel")))), nl}
}
