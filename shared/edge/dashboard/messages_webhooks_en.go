package dashboard

// The webhooks page's words (webhooks.go).
var webhooksEN = map[string]string{
	"dash.webhooks.title":              "Webhooks",
	"dash.webhooks.env":                "Environment: {environment}.",
	"dash.webhooks.secrets":            "Signing secrets",
	"dash.webhooks.secrets_hidden":     "Developers, admins and owners see the signing secrets' details.",
	"dash.webhooks.created":            "created",
	"dash.webhooks.secrets_view":       "See the signing secrets (admins issue and roll them)",
	"dash.webhooks.secrets_manage":     "Issue or roll a signing secret",
	"dash.webhooks.test":               "Send a test event",
	"dash.webhooks.test_about":         "Sends a signed webhook.test event to the URL, with the same rules as real events: a public https address, every active secret of this environment signs, no redirects, 10 seconds at most. Nothing is recorded on any payment.",
	"dash.webhooks.test_readonly":      "Developers, admins and owners can send a test event.",
	"dash.webhooks.url":                "Receiver URL",
	"dash.webhooks.url_hint":           "For example https://shop.com.bd/webhooks/takapay",
	"dash.webhooks.send":               "Send test event",
	"dash.webhooks.refused":            "This URL is refused: {rule}.",
	"dash.webhooks.no_secret":          "This environment has no signing secret yet: an admin issues one on the signing secrets page.",
	"dash.webhooks.limited":            "Too many test events from this workspace. Try again in {seconds} seconds.",
	"dash.webhooks.result.delivered":   "Delivered: the receiver answered HTTP {status} in {ms} ms.",
	"dash.webhooks.result.rejected":    "Not accepted: the receiver answered HTTP {status} in {ms} ms. A webhook counts as delivered only with a 2xx answer.",
	"dash.webhooks.result.detail":      "Sent to {host}, signed with {signatures} secrets. Event:",
	"dash.webhooks.result.unreachable": "Not delivered: no answer after {ms} ms.",
	"dash.webhooks.result.forbidden":   "Refused: the host resolves to a private or internal address, which webhooks never call.",
	"dash.webhooks.recent":             "Recent deliveries",
	"dash.webhooks.recent_caption":     "The webhook events of the 50 latest payments and the 50 latest refunds of this environment: failed first, then retrying, waiting and delivered.",
	"dash.webhooks.resend":             "Resend",
	"dash.webhooks.col.payment":        "Payment",
	"dash.webhooks.col.event":          "Event",
	"dash.webhooks.col.status":         "Status",
	"dash.webhooks.col.attempts":       "Attempts",
	"dash.webhooks.col.http":           "Last HTTP code",
	"dash.webhooks.col.time":           "Time",
	"dash.webhooks.none":               "No webhook events yet.",
	"dash.webhooks.status.failed":      "Failed",
	"dash.webhooks.status.retrying":    "Retrying",
	"dash.webhooks.status.pending":     "Waiting",
	"dash.webhooks.status.delivered":   "Delivered",
	"dash.webhooks.no_http":            "none",
	"dash.action.webhook.test_sent":    "sent a test webhook",
	"dash.webhooks.result.detail.one":  "Sent to {host}, signed with {signatures} secret. Event:",
	"dash.webhooks.limited.one":        "Too many test events from this workspace. Try again in {seconds} second.",
}

// WebhooksMessages is this page group's catalogue: the functions that serve its pages
// register it (UseMessages). A function, not a variable, so that a binary that never
// registers it does not link its words.
func WebhooksMessages() MessageGroup {
	return MessageGroup{name: "webhooks", en: webhooksEN, bn: webhooksBN}
}
