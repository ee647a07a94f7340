package dashboard

import (
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/refund"
)

// The refund pages' node trees (refunds.go): written from the page kit's components only.

// refundPill is a refund's status as a pill, with "Overdue" beside an approved refund past
// its due date.
func (d *doc) refundPill(rf *refund.Refund, overdue bool) h.Node {
	return h.Group{
		ui.Pill(string(rf.Status), d.t("dash.refund.status."+string(rf.Status))),
		h.If(overdue, h.Group{h.Text(" "), ui.TonePill(ui.Bad, "OVERDUE", d.t("dash.refund.overdue"))}),
	}
}

// refundsTable is a list of refunds as a shop owner reads them: amount (the link to the
// refund's page), status, reason, when asked, due by, the payment, and the refund's id last.
// Each row's id is "refund-" and the refund's id.
func (d *doc) refundsTable(id, caption string, rfs []*refund.Refund, withPayment bool, now time.Time) h.Node {
	rows := make([]ui.Row, 0, len(rfs))
	for _, rf := range rfs {
		due := d.tx("dash.refund.no_due")
		if rf.DueBy != nil {
			due = ui.Date(d.l, *rf.DueBy)
		}
		cells := []h.Node{
			h.A(d.href("/dashboard/refunds/"+rf.ID), h.Text(d.l.Amount(rf.AmountMinor))),
			d.refundPill(rf, rf.Overdue(now)),
			d.tx("dash.refund.reason." + string(rf.Reason)),
			ui.Date(d.l, rf.CreatedAt),
			due,
		}
		if withPayment {
			cells = append(cells, h.A(d.href("/dashboard/payments/"+rf.PaymentID), ui.Long(rf.PaymentID, true)))
		}
		cells = append(cells, ui.Long(rf.ID, true))
		rows = append(rows, ui.Row{ID: id + "-" + rf.ID, Cells: cells})
	}
	keys := []string{"amount#", "status", "reason", "created", "due"}
	if withPayment {
		keys = append(keys, "payment")
	}
	return ui.Table(id, caption, d.headings("dash.refund.col.", append(keys, "id")...), rows)
}

// paymentRefunds is a COMPLETED payment's refund section: paid, refunded (RETURNED) and
// refundable, its refunds, and the Refund form for those who may create refunds.
func (d *doc) paymentRefunds(it *intent.Intent, rv *refundView) h.Node {
	var list h.Node = h.P(h.ID("refunds-none"), d.tx("dash.refund.none"))
	if len(rv.refunds) > 0 {
		list = d.refundsTable("payment-refunds", d.t("dash.refund.caption"), rv.refunds, false, rv.now)
	}
	return h.Section(h.ID("refunds"), h.H2(d.tx("dash.refund.section")),
		ui.Facts("refund-ledger",
			ui.Fact{Term: d.t("dash.refund.paid"), Value: ui.Money(d.l, rv.ledger.Paid), ID: "ledger-paid"},
			ui.Fact{Term: d.t("dash.refund.refunded"), Value: ui.Money(d.l, rv.ledger.Refunded()), ID: "ledger-refunded"},
			ui.Fact{Term: d.t("dash.refund.refundable"), Value: ui.Money(d.l, rv.ledger.Refundable()), ID: "ledger-refundable"},
		),
		list,
		d.refundForm(it, rv),
	)
}

// refundForm is the Refund form (developers and above, sandbox, something left to refund).
func (d *doc) refundForm(it *intent.Intent, rv *refundView) h.Node {
	if !d.r.mayRefund(refund.OpCreate) {
		return nil
	}
	heading := h.H3(h.ID("refund-form-title"), d.tx("dash.refund.form.title"))
	switch {
	case d.r.env() != auth.Sandbox:
		return h.Group{heading, h.P(h.ID("refund-form-live"), d.tx("dash.refund.form.live"))}
	case rv.ledger.Refundable() == 0:
		return h.Group{heading, h.If(rv.problem != "", ui.Flash(rv.problem)),
			h.P(h.ID("refund-form-nothing"), d.tx("dash.refund.form.nothing"))}
	}
	f := rv.f
	reasons := make([][2]string, 0, len(refund.Reasons))
	for _, rs := range refund.Reasons {
		reasons = append(reasons, [2]string{string(rs), "dash.refund.reason." + string(rs)})
	}
	return h.Group{heading,
		h.If(rv.problem != "", h.P(h.Class("field-error"), h.ID("refund-form-problem"), h.Role("alert"), h.Text(rv.problem))),
		d.errorSummaryNode(f, "f-"),
		d.formPost("/dashboard/payments/"+it.ID+"/refunds", h.ID("refund-form"),
			ui.Hidden("idem", rv.idem),
			d.fieldOf(f, ui.Field{Name: "amount", Inputmode: "decimal", Autocomplete: "off", Required: true},
				"dash.refund.form.amount", ""),
			h.P(h.Class("hint"), h.ID("f-amount-max"), d.tx("dash.refund.form.amount_hint", "amount", d.l.Amount(rv.ledger.Refundable()))),
			d.choice(f, "reason", "dash.refund.form.reason", reasons),
			d.fieldOf(f, ui.Field{Name: "note", Type: "textarea", Extra: []h.Node{h.Attr("rows", "2"), h.Attr("maxlength", "255")}},
				"dash.refund.form.note", "dash.refund.form.note_hint"),
			ui.Submit("refund-submit", d.t("dash.refund.form.submit")),
		),
	}
}

// refundsPage is the Refunds page: the filters, the overdue refunds, a page of refunds, the
// next page's link and the two-person setting.
func (s *Payments) refundsPage(r *req, status int, q *refundQueue, problem string) *web.Response {
	return s.page(r, status, t(r.l(), "dash.refund.title"), func(d *doc) {
		if r.Query["notice"] == "policy" {
			d.node(ui.Flash(d.t("dash.refund.notice.policy")))
		}
		d.node(d.refundFilters(q.filter))
		if len(q.overdue) > 0 {
			d.node(h.Section(h.ID("overdue"), h.H2(d.tx("dash.refund.overdue.heading")),
				d.refundsTable("overdue-refunds", d.t("dash.refund.overdue.caption"), q.overdue, true, q.now),
				h.If(q.moreOverdue, links(d.linkNode("/dashboard/refunds?status=overdue", "overdue-more", "dash.refund.overdue.more")))))
		}
		if len(q.page) == 0 && len(q.overdue) == 0 {
			d.node(ui.Empty("refunds-empty", d.t("dash.refund.empty"), nil))
		} else if len(q.page) > 0 {
			d.node(d.refundsTable("refunds-table", d.t("dash.refund.queue.caption"), q.page, true, q.now))
		}
		if q.next != "" {
			next := "/dashboard/refunds?cursor=" + urlQueryEscape(q.next)
			if st := q.filter.value("status"); st != "" {
				next += "&status=" + urlQueryEscape(st)
			}
			d.node(links(h.A(h.ID("refunds-next"), h.Attr("rel", "next"), d.href(next), d.tx("dash.refund.next"))))
		}
		d.node(d.refundPolicy(q))
	})
}

// refundFilters is the Refunds page's status filter (a GET form).
func (d *doc) refundFilters(f *form) h.Node {
	opts := [][2]string{{"", "dash.refund.f.queue"}, {"overdue", "dash.refund.f.overdue"}}
	for _, st := range refund.Statuses {
		opts = append(opts, [2]string{string(st), "dash.refund.status." + string(st)})
	}
	return fold("refunds-filters-fold", d.t("dash.refund.filters"), f.value("status") != "",
		d.getForm("/dashboard/refunds", "refunds-filters", h.Class("filters"),
			d.choice(f, "status", "dash.refund.f.status", opts),
			ui.Submit("filter-refunds", d.t("dash.refund.filter")),
		))
}

// refundPolicy is the two-person setting: what it is, and for owners and admins its form.
func (d *doc) refundPolicy(q *refundQueue) h.Node {
	state := d.tx("dash.refund.policy.off")
	if q.policy.TwoPersonMinor > 0 {
		state = d.tx("dash.refund.policy.on", "amount", d.l.Amount(q.policy.TwoPersonMinor))
	}
	return h.Section(h.ID("refund-policy"), h.H2(d.tx("dash.refund.policy.title")),
		h.P(h.ID("refund-policy-state"), state),
		h.If(d.r.viewer.can(auth.ApproveRefunds), h.Group{
			d.errorSummaryNode(q.pf, "f-"),
			d.formPost("/dashboard/refunds", h.ID("refund-policy-form"),
				d.fieldOf(q.pf, ui.Field{Name: "two_person", Inputmode: "decimal", Autocomplete: "off"},
					"dash.refund.policy.field", "dash.refund.policy.hint"),
				ui.Submit("refund-policy-submit", d.t("dash.refund.policy.submit")),
			),
		}),
	)
}

// refundPage is a refund's page: its facts, its history, and its action forms.
func (s *Payments) refundPage(r *req, status int, rv *refundDetail) *web.Response {
	rf := rv.rf
	return s.page(r, status, t(r.l(), "dash.refund.detail.title", "amount", r.l().Amount(rf.AmountMinor)), func(d *doc) {
		if n := r.Query["notice"]; n != "" && has("dash.refund.notice."+n) && status == 200 {
			d.node(ui.Flash(d.t("dash.refund.notice." + n)))
		}
		if rv.problem != "" {
			d.node(h.P(h.Class("field-error"), h.ID("refund-problem"), h.Role("alert"), h.Text(rv.problem)))
		}
		d.node(d.refundFacts(rv), d.refundHistory(rv), d.refundActionForms(rv))
	})
}

// refundFacts is a refund's amount, status, payment, reason, who asked, when, due by, the
// return's proof, the rejection's reason, the note (as text: escaped) and its id.
func (d *doc) refundFacts(rv *refundDetail) h.Node {
	rf := rv.rf
	opt := func(s string, code bool) h.Node {
		if s == "" {
			return nil
		}
		return ui.Long(s, code)
	}
	var due, returned h.Node
	if rf.DueBy != nil {
		due = ui.Date(d.l, *rf.DueBy)
	}
	if rf.ReturnedAt != nil {
		returned = ui.Date(d.l, *rf.ReturnedAt)
	}
	return ui.Facts("refund-facts",
		ui.Fact{Term: d.t("dash.refund.col.amount"), Value: ui.Money(d.l, rf.AmountMinor), ID: "refund-amount"},
		ui.Fact{Term: d.t("dash.refund.col.status"), Value: d.refundPill(rf, rf.Overdue(rv.now)), ID: "refund-status"},
		ui.Fact{Term: d.t("dash.refund.col.payment"), Value: h.A(d.href("/dashboard/payments/"+rf.PaymentID), ui.Long(rf.PaymentID, true)), ID: "refund-payment"},
		ui.Fact{Term: d.t("dash.refund.col.reason"), Value: d.tx("dash.refund.reason." + string(rf.Reason)), ID: "refund-reason"},
		ui.Fact{Term: d.t("dash.refund.col.requested_by"), Value: d.tx("dash.refund.by." + string(rf.RequestedBy)), ID: "refund-requested-by"},
		ui.Fact{Term: d.t("dash.refund.col.created"), Value: ui.Date(d.l, rf.CreatedAt), ID: "refund-created"},
		ui.Fact{Term: d.t("dash.refund.col.due"), Value: due, ID: "refund-due"},
		ui.Fact{Term: d.t("dash.refund.col.provider_reference"), Value: opt(rf.ProviderReference, true), ID: "refund-provider-reference"},
		ui.Fact{Term: d.t("dash.refund.col.returned_at"), Value: returned, ID: "refund-returned-at"},
		ui.Fact{Term: d.t("dash.refund.col.rejection_reason"), Value: opt(rf.RejectionReason, false), ID: "refund-rejection-reason"},
		ui.Fact{Term: d.t("dash.refund.col.note"), Value: opt(rf.Note, false), ID: "refund-note"},
		ui.Fact{Term: d.t("dash.refund.col.reference"), Value: opt(rf.Reference, false), ID: "refund-reference"},
		ui.Fact{Term: d.t("dash.refund.col.id"), Value: ui.Long(rf.ID, true), ID: "refund-id"},
	)
}

// refundHistory is the refund's history, oldest first: each status, when, who and the note.
func (d *doc) refundHistory(rv *refundDetail) h.Node {
	rows := make([]ui.Row, 0, len(rv.rf.History))
	for i, e := range rv.rf.History {
		note := d.tx("dash.refund.no_note")
		if e.Note != "" {
			note = ui.Long(e.Note, false)
		}
		rows = append(rows, ui.Row{ID: "history-" + strconv.Itoa(i), Cells: []h.Node{
			ui.Pill(string(e.Status), d.t("dash.refund.status."+string(e.Status))),
			ui.Date(d.l, e.At),
			d.who(rv, e.By),
			note,
		}})
	}
	return h.Section(h.ID("refund-history"), h.H2(d.tx("dash.refund.history")),
		ui.Table("history-table", d.t("dash.refund.history.caption"),
			d.headings("dash.refund.history.", "status", "at", "by", "note"), rows))
}

// who names a history step's actor: the payer, the viewer, a member by email, else the id
// (a key id, or a user no longer in the team).
func (d *doc) who(rv *refundDetail, by string) h.Node {
	switch {
	case by == "payer":
		return d.tx("dash.refund.who.payer")
	case by == d.r.viewer.user.UserID:
		return h.Text(d.t("dash.refund.who.you", "email", d.r.viewer.user.Email))
	case rv.emails[by] != "":
		return ui.Long(rv.emails[by], false)
	}
	return ui.Long(by, true)
}

// refundActionForms are the forms of the actions the viewer may take from the refund's status
// (refund.Allowed and the transition table; the server checks both again), each carrying the
// page's version; approve is replaced by the two-person message when the policy refuses this
// viewer as the approver.
func (d *doc) refundActionForms(rv *refundDetail) h.Node {
	var forms h.Group
	for _, a := range refundActions {
		if !rv.offered(d.r, a) {
			continue
		}
		if a == refund.Approve && rv.twoPersonBlocked(d.r) {
			forms = append(forms, h.P(h.ID("two-person"), h.Class("notice"), h.Text(rv.twoPersonMessage(d.l))))
			continue
		}
		forms = append(forms, d.refundActionForm(rv, a))
	}
	if len(forms) == 0 {
		forms = append(forms, h.P(h.ID("refund-no-actions"), d.tx("dash.refund.no_actions")))
	}
	return h.Section(h.ID("refund-actions"), h.H2(d.tx("dash.refund.actions")), forms)
}

// refundActionForm is one action's form: its fields (the refused form keeps its values and
// problems; the others start empty), the expected version, the button.
func (d *doc) refundActionForm(rv *refundDetail, a refund.Action) h.Node {
	f := &form{values: map[string]string{}}
	if rv.action == a && rv.f != nil {
		f = rv.f
	}
	name := string(a)
	field := func(n, typ, labelKey, hintKey string, required bool, extra ...h.Node) h.Node {
		fl := d.fieldOf(f, ui.Field{Name: n, ID: "f-" + name + "-" + n, Type: typ, Required: required, Autocomplete: "off", Extra: extra},
			labelKey, hintKey)
		return fl
	}
	var fields h.Group
	switch a {
	case refund.Reject:
		fields = h.Group{field("reason", "textarea", "dash.refund.a.reason", "", true, h.Attr("rows", "2"), h.Attr("maxlength", "255"))}
	case refund.ReportReturned:
		fields = h.Group{
			field("provider_reference", "text", "dash.refund.a.provider_reference", "dash.refund.a.provider_reference_hint", true, h.Attr("maxlength", "64")),
			field("returned_on", "date", "dash.refund.a.returned_on", "dash.refund.a.returned_on_hint", false),
		}
	}
	fields = append(fields, field("note", "text", "dash.refund.a.note", "", false, h.Attr("maxlength", "255")))
	return h.Div(h.Class("refund-action"), h.ID("action-"+name),
		h.H3(d.tx("dash.refund.action."+name)),
		d.errorSummaryNode(f, "f-"+name+"-"),
		d.formPost("/dashboard/refunds/"+rv.rf.ID+"/"+name, h.ID("refund-"+name+"-form"),
			ui.Hidden("expected_version", strconv.FormatInt(rv.rf.Version, 10)),
			fields,
			ui.Submit("refund-"+name, d.t("dash.refund.action."+name)),
		),
	)
}
