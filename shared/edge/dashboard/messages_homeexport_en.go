package dashboard

// homeExportEN is the overview's payments and the export page (home.go, exportpage.go).
var homeExportEN = map[string]string{
	"dash.overview.env":               "Environment",
	"dash.overview.env.sandbox":       "Sandbox",
	"dash.overview.env.live":          "Live",
	"dash.overview.env.showing":       "(showing)",
	"dash.overview.live":              "Live: real payments",
	"dash.overview.completed":         "Completed payments",
	"dash.overview.today":             "Today (Dhaka time)",
	"dash.overview.week":              "Last 7 days, since {date}",
	"dash.overview.count":             "Payments",
	"dash.overview.amount":            "Amount",
	"dash.overview.at_least":          "at least {n}",
	"dash.overview.capped":            "Many payments: these figures count the newest {n} payments only. The payments list and the export have them all.",
	"dash.overview.latest":            "Latest payments",
	"dash.overview.no_payments":       "No payments yet in this environment.",
	"dash.overview.col.created":       "Created",
	"dash.overview.col.payment":       "Payment",
	"dash.overview.col.status":        "Status",
	"dash.overview.col.amount":        "Amount",
	"dash.overview.col.reference":     "Reference",
	"dash.overview.col.event":         "Event",
	"dash.overview.col.attempts":      "Attempts",
	"dash.overview.col.response":      "Last response",
	"dash.overview.col.last_attempt":  "Last attempt",
	"dash.overview.col.state":         "State",
	"dash.overview.status.PENDING":    "Pending",
	"dash.overview.status.COMPLETED":  "Completed",
	"dash.overview.status.FAILED":     "Failed",
	"dash.overview.status.CANCELLED":  "Cancelled",
	"dash.overview.status.EXPIRED":    "Expired",
	"dash.overview.failing":           "Failing webhook deliveries",
	"dash.overview.no_failing":        "No failing deliveries among the recent payments.",
	"dash.overview.no_response":       "No response",
	"dash.overview.delivery.failed":   "Gave up",
	"dash.overview.delivery.retrying": "Next attempt",
	"dash.export.title":               "Export payments",
	"dash.export.intro":               "A CSV file of the {env} payments created between two days (Dhaka time), one row per payment, for a spreadsheet.",
	"dash.export.from":                "From (first day)",
	"dash.export.to":                  "To (last day)",
	"dash.export.hint":                "Days in Dhaka time, both included, at most {days} days. A very large export is refused: choose fewer days.",
	"dash.export.submit":              "Download CSV",
	"dash.export.err.required":        "Choose a day.",
	"dash.export.err.date":            "Enter a date as YYYY-MM-DD.",
	"dash.export.err.future":          "This day has not begun yet: choose today or earlier.",
	"dash.export.err.order":           "The last day must not be before the first.",
	"dash.export.err.span":            "Choose at most {days} days.",
	"dash.export.too_large":           "This range has too many payments for one download. Choose fewer days and export the rest separately.",
	"dash.action.payments.exported":   "Payments exported",
}

// HomeExportMessages is this page group's catalogue: the functions that serve its pages
// register it (UseMessages). A function, not a variable, so that a binary that never
// registers it does not link its words.
func HomeExportMessages() MessageGroup {
	return MessageGroup{name: "homeexport", en: homeExportEN, bn: homeExportBN}
}
