package checkout

import (
	"strconv"

	"github.com/takapay/payments/shared/foundation/htmlw"
	"github.com/takapay/payments/shared/foundation/page"
)

// The markup of the hosted checkout page. The head, the banner, the language switch, the
// footer and the error page are the kit's (package page).
//
// Constant markup is written with b.Raw; every value from the view and every message of the
// catalogue goes through b.Text (text), b.Attr (an attribute value) or b.URLAttr (href, action
// and data-status-url), which escape it (see package htmlw). Rules that keep the
// Content-Security-Policy in SecurityHeaders valid: the only <script> and <style> elements are
// the kit's, filled verbatim from the embedded assets; no inline event handlers (on...=) and
// no style= attributes.

func writePage(b *htmlw.Builder, d *pageData) {
	l := d.L
	page.WriteHead(b, l, d.Title, style)
	b.Raw("<body>\n")
	if d.Sandbox {
		page.WriteBanner(b, l)
	}
	page.WriteLangSwitch(b, l, d.ActionBase)
	b.Raw(`<main class="card" id="checkout"`)
	b.URLAttr("data-status-url", d.Self)
	b.Attr("data-terminal", strconv.FormatBool(d.Terminal))
	b.Attr("data-locked", strconv.FormatBool(d.Locked))
	b.Attr("data-messages", scriptMessages(l))
	b.Raw(">\n")
	writeSummary(b, d)
	if d.Error != "" {
		b.Raw(`<p class="error" id="error" role="alert">`)
		b.Text(d.Error)
		b.Raw("</p>\n")
	}
	b.Raw(`<section class="state" id="status"`)
	b.Attr("data-status", d.Status)
	b.Raw(` aria-live="polite">` + "\n")
	switch {
	case d.Terminal:
		writeTerminal(b, d)
	case d.Pending && d.Lock != nil:
		writeLocked(b, d)
		writeCancelForm(b, d)
	case d.Pending:
		writeRouteChoice(b, d)
		writeCancelForm(b, d)
	default:
		b.Raw(`<h2 class="state-title" id="status-title">`)
		b.Text(d.StateTitle)
		b.Raw("</h2>\n")
	}
	b.Raw("</section>\n</main>\n")
	page.WriteFooter(b, l, func(b *htmlw.Builder) {
		before, after := l.Split("checkout.invoice", "id")
		b.Text(" · " + before)
		b.Raw(`<span id="invoice">`)
		b.Text(d.InvoiceID)
		b.Raw("</span>")
		b.Text(after)
	})
	b.Raw("<script>")
	b.Raw(script.Source())
	b.Raw("</script>\n</body>\n</html>\n")
}

// writeSummary writes the header: merchant, reference, amount and, while pending, expiry.
func writeSummary(b *htmlw.Builder, d *pageData) {
	l := d.L
	b.Raw(`<header class="summary">` + "\n" + `<p class="kind">`)
	b.Text(l.T("checkout.pay_to"))
	b.Raw("</p>\n" + `<h1 class="merchant" id="merchant-name">`)
	b.Text(d.MerchantName)
	b.Raw("</h1>\n")
	if d.Reference != "" {
		b.Raw(`<p class="reference">`)
		b.Text(l.T("page.reference"))
		b.Raw(` <span id="reference">`)
		b.Text(d.Reference)
		b.Raw("</span></p>\n")
	}
	b.Raw(`<p class="amount" id="amount">`)
	b.Text(d.Amount)
	b.Raw("</p>\n")
	if d.Pending && d.ExpiresRFC3339 != "" {
		before, after := l.Split("checkout.expires", "time")
		b.Raw(`<p class="date" id="expiry"`)
		b.Attr("data-expires-at", d.ExpiresRFC3339)
		b.Raw(">")
		b.Text(before)
		b.Raw("<time")
		b.Attr("datetime", d.ExpiresRFC3339)
		b.Raw(">")
		b.Text(d.ExpiresDhaka)
		b.Raw("</time>")
		b.Text(after)
		b.Raw(` <span id="countdown" hidden></span></p>` + "\n")
	}
	b.Raw("</header>\n")
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

// writeLock writes the locked route and the masked payer.
func lockText(d *pageData) string {
	return d.L.T("checkout.paying_with", "route", routeLabel(d.L, d.Lock.Route, d.Lock.RouteLabel), "payer", d.Lock.PayerMasked)
}

// writeTerminal writes the final state: headline, message, the locked choice if any, and the
// way back to the merchant or the note that the page is final.
func writeTerminal(b *htmlw.Builder, d *pageData) {
	l := d.L
	b.Raw("<h2")
	b.Attr("class", "state-title state-"+d.Status)
	b.Raw(` id="status-title">`)
	b.Text(d.StateTitle)
	b.Raw("</h2>\n" + `<p class="state-message">`)
	b.Text(d.StateMessage)
	b.Raw("</p>\n")
	if d.Lock != nil {
		b.Raw(`<p class="muted" id="lock">`)
		b.Text(routeLabel(l, d.Lock.Route, d.Lock.RouteLabel))
		b.Raw(" · ")
		b.Text(d.Lock.PayerMasked)
		b.Raw("</p>\n")
	}
	if d.ReturnURL != "" {
		b.Raw(`<a class="button primary" id="return"`)
		b.URLAttr("href", d.ReturnURL)
		b.Raw(">")
		b.Text(l.T("checkout.return_to", "merchant", d.MerchantName))
		b.Raw("</a>\n")
	} else {
		b.Raw(`<p class="muted" id="final">`)
		b.Text(l.T("checkout.close"))
		b.Raw("</p>\n")
	}
}

// writeLocked writes the locked choice: in sandbox the simulated provider's answers, in live
// a note and a link to check again.
func writeLocked(b *htmlw.Builder, d *pageData) {
	l := d.L
	b.Raw(`<h2 class="state-title" id="status-title">`)
	b.Text(l.T("checkout.confirm"))
	b.Raw("</h2>\n" + `<p class="locked" id="lock">`)
	b.Text(lockText(d))
	b.Raw("</p>\n")
	if d.Sandbox {
		b.Raw(`<p class="muted">`)
		b.Text(l.T("checkout.sandbox_note"))
		b.Raw("</p>\n" + `<div class="actions">` + "\n" + `<form method="post"`)
		b.URLAttr("action", d.url("/notices/approve"))
		b.Raw(`><button type="submit" class="button primary" id="approve">`)
		b.Text(l.T("checkout.approve"))
		b.Raw("</button></form>\n" + `<form method="post"`)
		b.URLAttr("action", d.url("/notices/decline"))
		b.Raw(`><button type="submit" class="button danger" id="decline">`)
		b.Text(l.T("checkout.decline"))
		b.Raw("</button></form>\n</div>\n")
		return
	}
	b.Raw(`<p class="muted">`)
	b.Text(l.T("checkout.waiting", "route", routeLabel(l, d.Lock.Route, d.Lock.RouteLabel)))
	b.Raw("</p>\n" + `<p><a class="button secondary" id="refresh"`)
	b.URLAttr("href", d.Self)
	b.Raw(">")
	b.Text(l.T("checkout.check_again"))
	b.Raw("</a></p>\n")
}

// writeRouteChoice writes the form that locks a route and a payer identity.
func writeRouteChoice(b *htmlw.Builder, d *pageData) {
	l := d.L
	b.Raw(`<h2 class="state-title" id="status-title">`)
	b.Text(l.T("checkout.choose"))
	b.Raw("</h2>\n")
	if len(d.Routes) == 0 {
		b.Raw(`<p class="muted" id="no-routes">`)
		b.Text(l.T("checkout.no_routes"))
		b.Raw("</p>\n")
		return
	}
	b.Raw(`<form method="post"`)
	b.URLAttr("action", d.url("/lock"))
	b.Raw(` class="lock" id="lock-form">` + "\n" + `<fieldset class="routes">` + "\n<legend>")
	b.Text(l.T("checkout.pay_with"))
	b.Raw("</legend>\n")
	for _, r := range d.Routes {
		b.Raw(`<label class="option"`)
		b.Attr("for", "route-"+r.ID)
		b.Raw(`><input type="radio" name="route"`)
		b.Attr("value", r.ID)
		b.Attr("id", "route-"+r.ID)
		b.Attr("data-payer-kind", r.PayerKind)
		b.Attr("data-payer-label", payerLabel(l, r))
		b.Attr("data-placeholder", r.Placeholder)
		b.Raw(" required")
		if d.SingleRoute {
			b.Raw(" checked")
		}
		b.Raw("> <span>")
		b.Text(routeLabel(l, r.ID, r.Label))
		b.Raw("</span></label>\n")
	}
	b.Raw("</fieldset>\n" + `<label class="field-label" for="payer" id="payer-label">`)
	b.Text(l.T("checkout.payer"))
	b.Raw(`</label>
<input class="field" type="text" name="payer" id="payer" required maxlength="254" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="payer-hint">
<ul class="hint" id="payer-hint">
`)
	for _, r := range d.Routes {
		b.Raw("<li>")
		b.Text(routeLabel(l, r.ID, r.Label))
		b.Raw(": ")
		b.Text(payerLabel(l, r))
		if r.Placeholder != "" {
			b.Raw(" (")
			b.Text(r.Placeholder)
			b.Raw(")")
		}
		b.Raw("</li>\n")
	}
	b.Raw("</ul>\n" + `<button type="submit" class="button primary" id="continue">`)
	b.Text(l.T("checkout.continue"))
	b.Raw("</button>\n</form>\n")
}

// writeCancelForm writes the payer's cancel button (pending payments only).
func writeCancelForm(b *htmlw.Builder, d *pageData) {
	b.Raw(`<form method="post"`)
	b.URLAttr("action", d.url("/notices/cancel"))
	b.Raw(` class="cancel"><button type="submit" class="button link" id="cancel">`)
	b.Text(d.L.T("checkout.cancel"))
	b.Raw("</button></form>\n")
}
