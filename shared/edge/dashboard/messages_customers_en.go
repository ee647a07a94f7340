package dashboard

// customersEN is the customers pages' English catalogue (customers.go); customersBN has the
// same keys and placeholders.
var customersEN = map[string]string{
	"dash.customers.title":         "Customers",
	"dash.customers.new":           "New customer",
	"dash.customers.caption":       "Customers, newest first.",
	"dash.customers.caption_q":     "Customers matching “{q}”, newest first.",
	"dash.customers.col.reference": "Reference",
	"dash.customers.col.name":      "Name",
	"dash.customers.col.email":     "Email",
	"dash.customers.col.phone":     "Phone",
	"dash.customers.col.created":   "Created",
	"dash.customers.none":          "No customers yet.",
	"dash.customers.none_found":    "No customers found on this page.",
	"dash.customers.next":          "Next page",
	"dash.customers.search":        "Search customers",
	"dash.customers.search_hint":   "Part of a reference, name, email or phone number.",
	"dash.customers.search_submit": "Search",

	"dash.customers.one_title":            "Customer {reference}",
	"dash.customers.notice.created":       "The customer was created.",
	"dash.customers.notice.saved":         "Your changes were saved.",
	"dash.customers.edit":                 "Edit this customer",
	"dash.customers.empty":                "None",
	"dash.customers.created":              "Created",
	"dash.customers.updated":              "Last changed",
	"dash.customers.version":              "version {version}",
	"dash.customers.id":                   "Customer id",
	"dash.customers.other":                "Other fields",
	"dash.customers.other_hint":           "Set through the API. This page's form does not change them.",
	"dash.customers.invoices":             "This customer's invoices",
	"dash.customers.inv.reference":        "Invoice",
	"dash.customers.inv.status":           "Status",
	"dash.customers.inv.total":            "Total",
	"dash.customers.inv.paid":             "Paid",
	"dash.customers.inv.created":          "Created",
	"dash.customers.inv.caption":          "Invoices, newest first.",
	"dash.customers.inv.none":             "No invoices for this customer.",
	"dash.customers.inv.next":             "More invoices",
	"dash.customers.inv.status.draft":     "Draft",
	"dash.customers.inv.status.issued":    "Issued",
	"dash.customers.inv.status.cancelled": "Cancelled",
	"dash.customers.back":                 "All customers",

	"dash.customers.new_title":           "New customer",
	"dash.customers.edit_title":          "Edit customer {reference}",
	"dash.customers.save":                "Save customer",
	"dash.customers.cancel":              "Cancel",
	"dash.customers.resubmitted":         "This form was already sent with other values. Check the values and save again.",
	"dash.customers.field.reference":     "Reference",
	"dash.customers.field.name":          "Name",
	"dash.customers.field.email":         "Email",
	"dash.customers.field.phone":         "Phone",
	"dash.customers.field.tags":          "Tags",
	"dash.customers.field.description":   "Description",
	"dash.customers.field.notes":         "Notes",
	"dash.customers.field.private_notes": "Private notes",
	"dash.customers.field.q":             "Search",
	"dash.customers.hint.reference":      "Your own identifier for this customer, such as a customer number. Required.",
	"dash.customers.hint.tags":           "Separate tags with commas: up to 20, each up to 40 characters.",
	"dash.customers.hint.description":    "Up to 2000 characters.",
	"dash.customers.hint.notes":          "Up to 4000 characters.",
	"dash.customers.hint.private_notes":  "For your team only: never shown on a payer's page. Up to 4000 characters.",
	"dash.customers.tag_n":               "Tag {n}",

	"dash.customers.conflict":            "Someone else changed this customer while you were editing it; it is now at version {version}. Your changes are not saved yet.",
	"dash.customers.conflict_caption":    "Fields that differ",
	"dash.customers.conflict_col.theirs": "Saved now",
	"dash.customers.conflict_col.yours":  "Your entry",
	"dash.customers.conflict_retry":      "The form below still holds your entries. Review them and save again to replace the saved values, or start over from the saved customer:",
	"dash.customers.conflict_reload":     "edit the saved customer",

	"dash.customers.rule.required":  "{field} is required.",
	"dash.customers.rule.max_chars": "{field} must be at most {max} characters.",
	"dash.customers.rule.max_items": "{field}: at most {max}.",
	"dash.customers.rule.email":     "{field} must be an email address such as name@example.com.",
	"dash.customers.rule.control":   "{field} must not contain control characters.",
	"dash.customers.rule.invalid":   "{field} is not valid.",
}

// CustomersMessages is this page group's catalogue: the functions that serve its pages
// register it (UseMessages). A function, not a variable, so that a binary that never
// registers it does not link its words.
func CustomersMessages() MessageGroup {
	return MessageGroup{name: "customers", en: customersEN, bn: customersBN}
}
