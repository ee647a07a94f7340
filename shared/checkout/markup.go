package checkout

import (
	"strconv"

	"github.com/takapay/payments/shared/htmlw"
)

// The markup of the hosted checkout page and the error page.
//
// Constant markup is written with b.Raw; every value from the view goes through b.Text (text),
// b.Attr (an attribute value) or b.URLAttr (href, action and data-status-url), which escape
// it (see package htmlw). Rules that keep the Content-Security-Policy in SecurityHeaders
// valid: the only <script> and <style> elements are the two below, filled verbatim from the
// embedded assets; no inline event handlers (on...=) and no style= attributes.

// writeHead writes the document up to and including </head>.
func writeHead(b *htmlw.Builder, title string) {
	b.Raw(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow">
<title>`)
	b.Text(title)
	b.Raw(`</title>
<link rel="icon" href="data:,">
<style>`)
	b.Raw(styleSource)
	b.Raw("</style>\n</head>\n")
}

func writePage(b *htmlw.Builder, d *pageData) {
	writeHead(b, d.Title)
	b.Raw("<body>\n")
	if d.Sandbox {
		b.Raw(`<div class="sandbox" id="sandbox-banner" role="status">Sandbox — no real money moves</div>` + "\n")
	}
	b.Raw(`<main class="card" id="checkout"`)
	b.URLAttr("data-status-url", d.ActionBase)
	b.Attr("data-terminal", strconv.FormatBool(d.Terminal))
	b.Attr("data-locked", strconv.FormatBool(d.Locked))
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
	b.Raw(`</section>
</main>
<footer class="footer">Secure checkout by Takapay · Invoice <span id="invoice">`)
	b.Text(d.InvoiceID)
	b.Raw(`</span></footer>
<script>`)
	b.Raw(scriptSource)
	b.Raw("</script>\n</body>\n</html>\n")
}

// writeSummary writes the header: merchant, reference, amount and, while pending, expiry.
func writeSummary(b *htmlw.Builder, d *pageData) {
	b.Raw(`<header class="summary">
<p class="pay-to">Pay to</p>
<h1 class="merchant" id="merchant-name">`)
	b.Text(d.MerchantName)
	b.Raw("</h1>\n")
	if d.Reference != "" {
		b.Raw(`<p class="reference">Reference <span id="reference">`)
		b.Text(d.Reference)
		b.Raw("</span></p>\n")
	}
	b.Raw(`<p class="amount" id="amount">`)
	b.Text(d.AmountDisplay)
	b.Raw("</p>\n")
	if d.Pending && d.ExpiresRFC3339 != "" {
		b.Raw(`<p class="expiry" id="expiry"`)
		b.Attr("data-expires-at", d.ExpiresRFC3339)
		b.Raw("><time")
		b.Attr("datetime", d.ExpiresRFC3339)
		b.Raw(">Expires ")
		b.Text(d.ExpiresDhaka)
		b.Raw(` (Dhaka time)</time> <span id="countdown" hidden></span></p>` + "\n")
	}
	b.Raw("</header>\n")
}

// writeTerminal writes the final state: headline, message, the locked choice if any, and the
// way back to the merchant or the note that the page is final.
func writeTerminal(b *htmlw.Builder, d *pageData) {
	b.Raw("<h2")
	b.Attr("class", "state-title state-"+d.Status)
	b.Raw(` id="status-title">`)
	b.Text(d.StateTitle)
	b.Raw("</h2>\n" + `<p class="state-message">`)
	b.Text(d.StateMessage)
	b.Raw("</p>\n")
	if d.Lock != nil {
		b.Raw(`<p class="muted" id="lock">`)
		b.Text(d.Lock.RouteLabel)
		b.Raw(" · ")
		b.Text(d.Lock.PayerMasked)
		b.Raw("</p>\n")
	}
	if d.ReturnURL != "" {
		b.Raw(`<a class="button primary" id="return"`)
		b.URLAttr("href", d.ReturnURL)
		b.Raw(">Return to ")
		b.Text(d.MerchantName)
		b.Raw("</a>\n")
	} else {
		b.Raw(`<p class="muted" id="final">You can close this page.</p>` + "\n")
	}
}

// writeLocked writes the locked choice: in sandbox the simulated provider's answers, in live
// a note and a link to check again.
func writeLocked(b *htmlw.Builder, d *pageData) {
	b.Raw(`<h2 class="state-title" id="status-title">Confirm your payment</h2>
<p class="locked" id="lock">Paying with `)
	b.Text(d.Lock.RouteLabel)
	b.Raw(" · ")
	b.Text(d.Lock.PayerMasked)
	b.Raw("</p>\n")
	if d.Sandbox {
		b.Raw(`<p class="muted">This is a sandbox payment: choose what the provider answers.</p>
<div class="actions">
<form method="post"`)
		b.URLAttr("action", d.ActionBase+"/notices/approve")
		b.Raw(`><button type="submit" class="button primary" id="approve">Approve (sandbox)</button></form>
<form method="post"`)
		b.URLAttr("action", d.ActionBase+"/notices/decline")
		b.Raw(`><button type="submit" class="button danger" id="decline">Decline (sandbox)</button></form>
</div>
`)
		return
	}
	b.Raw(`<p class="muted">Waiting for `)
	b.Text(d.Lock.RouteLabel)
	b.Raw(" to confirm the payment.</p>\n" + `<p><a class="button secondary" id="refresh"`)
	b.URLAttr("href", d.ActionBase)
	b.Raw(">Check again</a></p>\n")
}

// writeRouteChoice writes the form that locks a route and a payer identity.
func writeRouteChoice(b *htmlw.Builder, d *pageData) {
	b.Raw(`<h2 class="state-title" id="status-title">Choose how to pay</h2>` + "\n")
	if len(d.Routes) == 0 {
		b.Raw(`<p class="muted" id="no-routes">No payment method is available for this payment yet.</p>` + "\n")
		return
	}
	b.Raw(`<form method="post"`)
	b.URLAttr("action", d.ActionBase+"/lock")
	b.Raw(` class="lock" id="lock-form">
<fieldset class="routes">
<legend>Pay with</legend>
`)
	for _, r := range d.Routes {
		b.Raw(`<label class="route"`)
		b.Attr("for", "route-"+r.ID)
		b.Raw(`><input type="radio" name="route"`)
		b.Attr("value", r.ID)
		b.Attr("id", "route-"+r.ID)
		b.Attr("data-payer-kind", r.PayerKind)
		b.Attr("data-payer-label", r.PayerLabel)
		b.Attr("data-placeholder", r.Placeholder)
		b.Raw(" required")
		if d.SingleRoute {
			b.Raw(" checked")
		}
		b.Raw("> <span>")
		b.Text(r.Label)
		b.Raw("</span></label>\n")
	}
	b.Raw(`</fieldset>
<label class="field-label" for="payer" id="payer-label">Mobile number or email</label>
<input class="field" type="text" name="payer" id="payer" required maxlength="254" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="payer-hint">
<ul class="hint" id="payer-hint">
`)
	for _, r := range d.Routes {
		b.Raw("<li>")
		b.Text(r.Label)
		b.Raw(": ")
		b.Text(r.PayerLabel)
		if r.Placeholder != "" {
			b.Raw(" (")
			b.Text(r.Placeholder)
			b.Raw(")")
		}
		b.Raw("</li>\n")
	}
	b.Raw(`</ul>
<button type="submit" class="button primary" id="continue">Continue</button>
</form>
`)
}

// writeCancelForm writes the payer's cancel button (pending payments only).
func writeCancelForm(b *htmlw.Builder, d *pageData) {
	b.Raw(`<form method="post"`)
	b.URLAttr("action", d.ActionBase+"/notices/cancel")
	b.Raw(` class="cancel"><button type="submit" class="button link" id="cancel">Cancel payment</button></form>` + "\n")
}

func writeErrorPage(b *htmlw.Builder, title, message string) {
	writeHead(b, title+" — Takapay")
	b.Raw(`<body>
<main class="card" id="error-page">
<h1 class="state-title" id="error-title">`)
	b.Text(title)
	b.Raw(`</h1>
<p class="error-message" id="error-message">`)
	b.Text(message)
	b.Raw(`</p>
</main>
<footer class="footer">Secure checkout by Takapay</footer>
</body>
</html>
`)
}
