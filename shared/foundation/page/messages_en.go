package page

// messagesEN is the English catalogue: every human word of the payer pages. Keys and
// placeholders must match messagesBN exactly (TestCatalogues). Error envelopes (JSON) keep
// their own English messages: they are for developers, and none of them is here.
var messagesEN = catalogue{
	// The kit: every page family.
	"page.sandbox":                "Sandbox — no real money moves",
	"page.language":               "Language",
	"page.footer":                 "Secure checkout by Takapay",
	"page.reference":              "Reference",
	"page.error":                  "Error",
	"page.err.rate_limited.title": "Too many requests",
	"page.err.rate_limited":       "Please wait a minute, then try again.",
	"page.err.denied.title":       "This is not allowed here",
	"page.err.denied":             "Go back to the payment page and try again from there.",
	"page.err.bad_request.title":  "The form could not be read",
	"page.err.bad_request":        "Go back and try again.",
	"page.err.internal.title":     "Something went wrong",
	"page.err.internal":           "Please try again in a moment.",
}
