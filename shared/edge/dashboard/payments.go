package dashboard

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
	"github.com/takapay/payments/shared/webhook"
)

// Payments serves the payments pages (DashboardPaymentsFunction): the list and a payment's
// page call the intent rules (Intents: list, get, cancel) with the signed-in viewer's scope,
// and Resend runs webhook.Resend, the rule `paymentsctl webhook resend` runs.
type Payments struct {
	*Service
	// Intents is the payment intents' service (intent.Service; the handler's Build injects it).
	Intents Intents
	// Deliveries and Queue are what webhook.Resend reads, writes and enqueues to (the table,
	// the webhook queue; nil Queue: a resend fails and says so).
	Deliveries webhook.ResendStore
	Queue      webhook.Enqueuer
	// Refunds is the refund rules (refund.Service: a payment's refunds, the Refunds page and
	// its actions, refunds.go); nil: the pages show no refunds.
	Refunds *refund.Service
	// Log records the refund actions in the workspace's activity log (activity.Service).
	Log activity.Recorder
}

// Intents is what the payments pages call of intent.Service.
type Intents interface {
	Get(ctx context.Context, sc intent.Scope, id string) (*intent.Intent, error)
	List(ctx context.Context, sc intent.Scope, in intent.ListInput) (*intent.ListResult, error)
	Cancel(ctx context.Context, sc intent.Scope, id string) (*intent.Intent, error)
}

// intentScope is the signed-in viewer's scope in the page's environment: the identity their
// session gives on the workspace routes (req.identity).
func intentScope(r *req) (intent.Scope, error) {
	if r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return intent.Scope{}, apierr.New(apierr.NotFound, "this page is not served here")
	}
	id := r.identity()
	return intent.Scope{WorkspaceID: id.WorkspaceID, Environment: r.env(), Identity: id, CorrelationID: r.CorrelationID}, nil
}

// paymentsPageSize is the list's page size.
const paymentsPageSize = 25

// sourceParams maps the page's source filter to the API's.
var sourceParams = map[string]payment.SourceKind{
	"standalone": payment.SourceStandalone, "invoice": payment.SourceInvoice, "payment_link": payment.SourcePaymentLinks,
}

var paymentStatuses = []payment.Status{payment.Pending, payment.Completed, payment.Failed, payment.Cancelled, payment.Expired}

// List is GET /dashboard/payments: newest first, filtered by status, a date range of Dhaka
// days (the list's created range: the index's key condition), source, and a search — an
// intent's id opens its page, a document's id lists its intents, anything else is an exact
// reference.
func (s *Payments) List(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		sc, err := intentScope(r)
		if err != nil {
			return nil, err
		}
		f := &form{values: map[string]string{}}
		for _, k := range []string{"status", "from", "to", "source", "q"} {
			f.values[k] = strings.TrimSpace(r.Query[k])
		}
		in := listFilters(r, f)
		if q := f.values["q"]; q != "" {
			if id, ok := payment.ParseInvoiceID(q); ok {
				// An intent's id opens its page; otherwise it is a document's id.
				if _, err := s.Intents.Get(ctx, sc, id); err == nil {
					return s.redirect(r, "/dashboard/payments/"+id), nil
				} else if !isNotFound(err) {
					return nil, err
				}
				in.DocumentID = id
			} else if len(q) > 128 {
				f.fail("q", t(r.l(), "dash.pay.err.q"))
			} else {
				in.Reference = q
			}
		}
		if f.failed() {
			return s.paymentsPage(r, 422, f, nil), nil
		}
		list, err := s.list(ctx, r, sc, in)
		if err != nil {
			return nil, err
		}
		return s.paymentsPage(r, 200, f, list), nil
	})(ctx, wr)
}

// list reads the page of intents; a cursor that is not one (a tampered link) is a 400.
func (s *Payments) list(ctx context.Context, r *req, sc intent.Scope, in intent.ListInput) (*intent.ListResult, error) {
	tampered := apierr.New(apierr.MalformedRequest, "this page's link is not valid")
	if c := r.Query["cursor"]; c != "" {
		id, ok := payment.ParseInvoiceID(c)
		if !ok {
			return nil, tampered
		}
		in.Cursor = id
	}
	list, err := s.Intents.List(ctx, sc, in)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Status() == 422 {
		return nil, tampered
	}
	return list, err
}

// listFilters reads the list's status, date range and source filters from f into the list's
// input, failing f's fields that are not valid.
func listFilters(r *req, f *form) intent.ListInput {
	in := intent.ListInput{Limit: paymentsPageSize}
	if v := f.values["status"]; v != "" {
		if !containsStatus(payment.Status(v)) {
			f.fail("status", t(r.l(), "dash.pay.err.status"))
		} else {
			in.Status = payment.Status(v)
		}
	}
	for _, k := range []string{"from", "to"} {
		v := f.values[k]
		if v == "" {
			continue
		}
		day, err := time.ParseInLocation("2006-01-02", v, page.Dhaka)
		if err != nil || day.Year() < 2000 {
			f.fail(k, t(r.l(), "dash.pay.err.date"))
			continue
		}
		if k == "from" {
			in.CreatedFrom = day.UTC()
		} else {
			in.CreatedBefore = day.AddDate(0, 0, 1).UTC() // the whole day
		}
	}
	if !in.CreatedFrom.IsZero() && !in.CreatedBefore.IsZero() && in.CreatedBefore.AddDate(0, 0, -1).Before(in.CreatedFrom) {
		f.fail("to", t(r.l(), "dash.pay.err.range"))
	}
	if v := f.values["source"]; v != "" {
		if k, ok := sourceParams[v]; ok {
			in.Source = k
		} else {
			f.fail("source", t(r.l(), "dash.pay.err.source"))
		}
	}
	return in
}

func containsStatus(st payment.Status) bool {
	for _, v := range paymentStatuses {
		if v == st {
			return true
		}
	}
	return false
}

func isNotFound(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Status() == 404
}

// paymentFilters are the list's filters, in the form's order.
var paymentFilters = []string{"q", "status", "source", "from", "to"}

func (s *Payments) paymentsPage(r *req, status int, f *form, list *intent.ListResult) *web.Response {
	return s.page(r, status, t(r.l(), "dash.pay.title"), func(d *doc) {
		d.node(d.errorSummaryNode(f, "f-"), d.paymentsFilters(f))
		if list == nil {
			return
		}
		if len(list.Items) == 0 {
			d.node(ui.Empty("payments-empty", d.t("dash.pay.empty"), nil))
		} else {
			d.node(d.paymentsTable(list.Items))
		}
		if list.NextCursor != nil {
			next := "/dashboard/payments?cursor=" + urlQueryEscape(*list.NextCursor)
			for _, k := range paymentFilters {
				if v := f.value(k); v != "" {
					next += "&" + k + "=" + urlQueryEscape(v)
				}
			}
			d.node(links(h.A(h.ID("payments-next"), h.Attr("rel", "next"), d.href(next), d.tx("dash.pay.next"))))
		}
	})
}

// paymentsFilters is the list's filters: a GET form (nothing changes, so no CSRF token) that
// folds away on a phone until opened, and is open while a filter is set or refused.
func (d *doc) paymentsFilters(f *form) h.Node {
	active := f.failed()
	for _, k := range paymentFilters {
		active = active || f.value(k) != ""
	}
	statuses := [][2]string{{"", "dash.pay.any"}}
	for _, st := range paymentStatuses {
		statuses = append(statuses, [2]string{string(st), "dash.pay.status." + string(st)})
	}
	date := func(name, labelKey string) h.Node {
		return d.fieldOf(f, ui.Field{Name: name, Type: "date", Autocomplete: "off"}, labelKey, "dash.pay.f.date_hint")
	}
	return fold("payments-filters-fold", d.t("dash.pay.filters"), active,
		d.getForm("/dashboard/payments", "payments-filters", h.Class("filters"),
			d.fieldOf(f, ui.Field{Name: "q", Type: "search", Autocomplete: "off"}, "dash.pay.f.q", "dash.pay.f.q_hint"),
			d.choice(f, "status", "dash.pay.f.status", statuses),
			d.choice(f, "source", "dash.pay.f.source", [][2]string{{"", "dash.pay.any"},
				{"standalone", "dash.pay.source.standalone"}, {"invoice", "dash.pay.source.invoices"}, {"payment_link", "dash.pay.source.payment-links"}}),
			date("from", "dash.pay.f.from"),
			date("to", "dash.pay.f.to"),
			ui.Submit("filter-payments", d.t("dash.pay.filter")),
		))
}

// paymentsTable is a page of payments as a shop owner reads them: reference (the link to the
// payment), amount, status, date, source, and the payment's id last. Each row's id is
// "payment-" and the payment's id.
func (d *doc) paymentsTable(items []*intent.Intent) h.Node {
	rows := make([]ui.Row, 0, len(items))
	for _, it := range items {
		rows = append(rows, ui.Row{ID: "payment-" + it.ID, Cells: []h.Node{
			h.A(d.href("/dashboard/payments/"+it.ID), h.Text(it.Reference)),
			ui.Money(d.l, it.AmountMinor),
			d.payPill(it.Status),
			ui.Date(d.l, it.CreatedAt),
			d.tx("dash.pay.source." + string(it.Source.Kind)),
			ui.Long(it.ID, true),
		}})
	}
	return ui.Table("payments-table", d.t("dash.pay.caption"),
		d.headings("dash.pay.col.", "reference", "amount#", "status", "created", "source", "id"), rows)
}

// Detail is GET /dashboard/payments/{paymentID}: the intent as intent.Service reads it (another
// workspace's or environment's is 404), its timeline, its webhook delivery with every recent
// attempt, and the Resend and (sandbox, pending) Cancel buttons for developers and above.
func (s *Payments) Detail(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		it, err := s.intent(ctx, r)
		if err != nil {
			return nil, err
		}
		v, err := s.refundsOf(ctx, r, it)
		if err != nil {
			return nil, err
		}
		return s.detailPage(r, 200, it, v), nil
	})(ctx, wr)
}

// intent reads the path's intent (intent.Service.Get: another workspace's is 404).
func (s *Payments) intent(ctx context.Context, r *req) (*intent.Intent, error) {
	sc, err := intentScope(r)
	if err != nil {
		return nil, err
	}
	return s.Intents.Get(ctx, sc, r.PathParams["paymentID"])
}

func (s *Payments) detailPage(r *req, status int, it *intent.Intent, rv *refundView) *web.Response {
	v := r.viewer
	title := t(r.l(), "dash.pay.detail.title", "reference", it.Reference)
	return s.page(r, status, title, func(d *doc) {
		switch r.Query["notice"] {
		case "resent":
			d.node(ui.Flash(d.t("dash.pay.notice.resent")))
		case "cancelled":
			d.node(ui.Flash(d.t("dash.pay.notice.cancelled")))
		case "refund_created":
			d.node(ui.Flash(d.t("dash.refund.notice.created")))
		}
		d.node(d.paymentFacts(it), d.paymentTimeline(it))
		if v.can(auth.WriteDocuments) && r.env() == auth.Sandbox && it.Status == payment.Pending {
			d.node(d.actionButton("/dashboard/payments/"+it.ID+"/cancel", "cancel-payment", "dash.pay.cancel", true))
		}
		if rv != nil {
			d.node(d.paymentRefunds(it, rv))
		}
		d.node(d.paymentDelivery(it, v.can(auth.WriteDocuments)))
	})
}

// paymentFacts is a payment's amount, status, reference, date, source and id.
func (d *doc) paymentFacts(it *intent.Intent) h.Node {
	source := d.tx("dash.pay.source.standalone")
	switch it.Source.Kind {
	case payment.SourceInvoice, payment.SourcePaymentLinks:
		source = d.linkNode("/dashboard/"+string(it.Source.Kind)+"/"+it.Source.DocumentID, "payment-document", "dash.pay.source."+string(it.Source.Kind))
	}
	return ui.Facts("payment-facts",
		ui.Fact{Term: d.t("dash.pay.col.amount"), Value: ui.Money(d.l, it.AmountMinor), ID: "payment-amount"},
		ui.Fact{Term: d.t("dash.pay.col.status"), Value: d.payPill(it.Status), ID: "payment-status"},
		ui.Fact{Term: d.t("dash.pay.col.reference"), Value: h.Text(it.Reference), ID: "payment-reference"},
		ui.Fact{Term: d.t("dash.pay.col.created"), Value: ui.Date(d.l, it.CreatedAt), ID: "payment-created"},
		ui.Fact{Term: d.t("dash.pay.col.source"), Value: source, ID: "payment-source"},
		ui.Fact{Term: d.t("dash.pay.id"), Value: ui.Long(it.ID, true), ID: "payment-id"},
	)
}

// routeBrands are the payment routes that are brands, written as their brands write them in
// every language (not catalogue words: a brand's name is the same on a Bangla page).
var routeBrands = map[string]string{"bkash": "bKash", "nagad": "Nagad"}

// routeName is a payment route as its brand writes it (bKash, Nagad) or, for a card, in the
// page's language; a route neither knows is shown as it is.
func (d *doc) routeName(route string) string {
	if brand, ok := routeBrands[route]; ok {
		return brand
	}
	if has("dash.pay.route." + route) {
		return d.t("dash.pay.route." + route)
	}
	return route
}

// paymentTimeline is a payment's timeline, oldest first.
func (d *doc) paymentTimeline(it *intent.Intent) h.Node {
	step := func(id, key string, at time.Time, args ...string) h.Node {
		return h.Li(h.ID(id), ui.Date(d.l, at), h.Text(" — "), d.tx(key, args...))
	}
	steps := h.Group{step("tl-created", "dash.pay.tl.created", it.CreatedAt)}
	if it.Lock != nil {
		steps = append(steps, step("tl-locked", "dash.pay.tl.locked", it.Lock.At, "route", d.routeName(it.Lock.Route), "payer", it.Lock.PayerMasked))
	}
	if len(it.History) > 1 {
		end := it.History[len(it.History)-1]
		steps = append(steps, step("tl-outcome", "dash.pay.tl.outcome", end.OccurredAt, "status", d.t("dash.pay.status."+string(end.Status))))
	} else {
		steps = append(steps, step("tl-expiry", "dash.pay.tl.expires", it.ExpiresAt))
	}
	if it.FirstVerifiedAt != nil {
		steps = append(steps, step("tl-verified", "dash.pay.tl.verified", *it.FirstVerifiedAt))
	}
	return h.Group{h.H2(d.tx("dash.pay.timeline")), h.Ol(h.Class("timeline"), h.ID("payment-timeline"), steps)}
}

// paymentDelivery is a payment's webhook delivery with its recent attempts, newest first,
// and (mayResend) the Resend button.
func (d *doc) paymentDelivery(it *intent.Intent, mayResend bool) h.Node {
	dl := it.Delivery
	if dl == nil {
		return h.Section(h.ID("deliveries"), h.H2(d.tx("dash.pay.deliveries")),
			h.P(h.ID("deliveries-none"), d.tx("dash.pay.deliveries.none")))
	}
	var attempts h.Node
	if len(dl.AttemptLog) > 0 {
		rows := make([]ui.Row, 0, len(dl.AttemptLog))
		for i := len(dl.AttemptLog) - 1; i >= 0; i-- { // newest first
			a := dl.AttemptLog[i]
			code := d.tx("dash.pay.attempts.no_answer")
			if a.HTTPStatus != 0 {
				code = d.number(a.HTTPStatus)
			}
			rows = append(rows, ui.Row{Cells: []h.Node{ui.Date(d.l, a.At), code,
				d.tx("dash.pay.attempts.ms", "ms", d.l.Number(a.DurationMS)), errorOrNone(d, a.Error)}})
		}
		attempts = ui.Table("attempts-table", d.t("dash.pay.attempts.caption"),
			d.headings("dash.pay.attempts.", "at", "code#", "duration#", "error"), rows)
	} else if dl.Detail != "" {
		attempts = h.P(h.ID("delivery-detail"), ui.Long(dl.Detail, false))
	}
	return h.Section(h.ID("deliveries"), h.H2(d.tx("dash.pay.deliveries")),
		h.P(h.ID("delivery-summary"),
			h.Text(tn(d.l, "dash.pay.delivery.summary", dl.Attempts, "kind", dl.Kind, "status", d.t("dash.pay.delivery."+dl.Status), "attempts", d.l.Digits(itoa(dl.Attempts)))),
			h.Text(" "), ui.Long(dl.EventID, true)),
		h.If(dl.Status == payment.DeliveryPending,
			h.P(h.ID("delivery-next"), d.tx("dash.pay.delivery.next"), h.Text(" "), ui.Date(d.l, dl.NextAttemptAt))),
		attempts,
		h.If(mayResend, d.actionButton("/dashboard/payments/"+it.ID+"/resend", "resend", "dash.pay.resend", false, "event_id", dl.EventID)),
	)
}

// errorOrNone is an attempt's error, or "None" (a card on a phone shows every cell's label).
func errorOrNone(d *doc, e string) h.Node {
	if e == "" {
		return d.tx("dash.pay.attempts.no_error")
	}
	return ui.Long(e, false)
}

// Cancel is POST /dashboard/payments/{paymentID}/cancel: the intents' cancel (sandbox only,
// developer and above), then back to the payment's page.
func (s *Payments) Cancel(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		id := r.PathParams["paymentID"]
		sc, err := intentScope(r)
		if err != nil {
			return nil, err
		}
		if _, err := s.Intents.Cancel(ctx, sc, id); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/payments/"+id+"?notice=cancelled"), nil
	})(ctx, wr)
}

// Resend is POST /dashboard/payments/{paymentID}/resend (form field event_id): developer and
// above, the payment read through the intents' get first (another workspace's is 404), then
// webhook.Resend — the rule paymentsctl webhook resend runs.
func (s *Payments) Resend(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		it, err := s.intent(ctx, r)
		if err != nil {
			return nil, err
		}
		eventID := r.field("event_id")
		if it.Delivery == nil || eventID != it.Delivery.EventID {
			return nil, apierr.New(apierr.StateConflict, "this payment has no such event")
		}
		by := "the dashboard (" + r.viewer.user.Email + ")"
		_, err = webhook.Resend(ctx, s.Deliveries, s.Queue, it.ID, eventID, by, s.now().UTC())
		switch {
		case errors.Is(err, webhook.ErrNotResendable), errors.Is(err, webhook.ErrResendConflict):
			return nil, apierr.New(apierr.StateConflict, "%s", err.Error())
		case errors.Is(err, webhook.ErrNoPayment):
			return nil, apierr.New(apierr.NotFound, "no such payment")
		case err != nil:
			return nil, err
		}
		return s.redirect(r, "/dashboard/payments/"+it.ID+"?notice=resent"), nil
	})(ctx, wr)
}
