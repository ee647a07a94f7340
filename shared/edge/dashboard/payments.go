package dashboard

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
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

func (s *Payments) paymentsPage(r *req, status int, f *form, list *intent.ListResult) *web.Response {
	return s.page(r, status, t(r.l(), "dash.pay.title"), func(d *doc) {
		d.errorSummary(f)
		// The filters: a GET form (nothing changes), so no CSRF token.
		d.Raw(`<form method="get" class="filters" id="payments-filters" role="search"`)
		d.URLAttr("action", "/dashboard/payments")
		d.Raw(">")
		if r.env() == auth.Live {
			d.Raw(`<input type="hidden" name="env" value="live">`)
		}
		if lang := r.Query[page.QueryParam]; lang != "" {
			d.Raw(`<input type="hidden"`)
			d.Attr("name", page.QueryParam)
			d.Attr("value", lang)
			d.Raw(">")
		}
		d.input(f, "q", "search", "dash.pay.f.q", "off", "dash.pay.f.q_hint", false)
		opts := [][2]string{{"", "dash.pay.any"}}
		for _, st := range paymentStatuses {
			opts = append(opts, [2]string{string(st), "dash.pay.status." + string(st)})
		}
		d.selectField(f, "status", "dash.pay.f.status", opts)
		d.selectField(f, "source", "dash.pay.f.source", [][2]string{{"", "dash.pay.any"},
			{"standalone", "dash.pay.source.standalone"}, {"invoice", "dash.pay.source.invoices"}, {"payment_link", "dash.pay.source.payment-links"}})
		d.input(f, "from", "date", "dash.pay.f.from", "off", "dash.pay.f.date_hint", false)
		d.input(f, "to", "date", "dash.pay.f.to", "off", "dash.pay.f.date_hint", false)
		d.submit("dash.pay.filter", "filter-payments")
		d.Raw("</form>\n")
		if list == nil {
			return
		}
		if len(list.Items) == 0 {
			d.Raw(`<p id="payments-empty">`)
			d.text("dash.pay.empty")
			d.Raw("</p>\n")
		} else {
			d.tableStart("payments-caption", "payments-table")
			d.Raw(`<caption id="payments-caption">`)
			d.text("dash.pay.caption")
			d.Raw("</caption>")
			d.thead("dash.pay.col.", "created", "reference", "amount", "status", "source")
			for _, it := range list.Items {
				d.Raw("<tr><td>")
				d.date(it.CreatedAt)
				d.Raw(`</td><th scope="row"><a`)
				d.URLAttr("href", r.url("/dashboard/payments/"+it.ID))
				d.Raw(">")
				d.Text(it.Reference)
				d.Raw("</a></th><td>")
				d.Text(d.l.Amount(it.AmountMinor))
				d.Raw("</td><td>")
				d.statusTag(it.Status)
				d.Raw("</td><td>")
				d.text("dash.pay.source." + string(it.Source.Kind))
				d.Raw("</td></tr>\n")
			}
			d.Raw("</tbody></table></div>\n")
		}
		if list.NextCursor != nil {
			next := "/dashboard/payments?cursor=" + urlQueryEscape(*list.NextCursor)
			for _, k := range []string{"status", "from", "to", "source", "q"} {
				if v := f.value(k); v != "" {
					next += "&" + k + "=" + urlQueryEscape(v)
				}
			}
			d.Raw(`<p class="links"><a id="payments-next" rel="next"`)
			d.URLAttr("href", r.url(next))
			d.Raw(">")
			d.text("dash.pay.next")
			d.Raw("</a></p>\n")
		}
	})
}

// selectField writes a labelled select (options: value, message key).
func (d *doc) selectField(f *form, name, labelKey string, options [][2]string) {
	id := "f-" + name
	d.Raw(`<div class="row"><label class="field-label"`)
	d.Attr("for", id)
	d.Raw(">")
	d.text(labelKey)
	d.Raw(`</label><select class="field"`)
	d.Attr("id", id)
	d.Attr("name", name)
	if e := f.err(name); e != "" {
		d.Raw(` aria-invalid="true"`)
		d.Attr("aria-describedby", id+"-error")
	}
	d.Raw(">")
	for _, o := range options {
		d.Raw("<option")
		d.Attr("value", o[0])
		if f.value(name) == o[0] {
			d.Raw(" selected")
		}
		d.Raw(">")
		d.text(o[1])
		d.Raw("</option>")
	}
	d.Raw("</select>")
	d.fieldAfter(f, id, name, "")
	d.Raw("</div>\n")
}

// statusTag writes a payment status as words (never colour alone).
func (d *doc) statusTag(st payment.Status) {
	d.Raw(`<span class="tag status-`)
	d.Raw(strings.ToLower(string(st)))
	d.Raw(`">`)
	d.text("dash.pay.status." + string(st))
	d.Raw("</span>")
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
		return s.detailPage(r, it), nil
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

func (s *Payments) detailPage(r *req, it *intent.Intent) *web.Response {
	v := r.viewer
	title := t(r.l(), "dash.pay.detail.title", "reference", it.Reference)
	return s.page(r, 200, title, func(d *doc) {
		switch r.Query["notice"] {
		case "resent":
			d.notice("dash.pay.notice.resent")
		case "cancelled":
			d.notice("dash.pay.notice.cancelled")
		}
		d.paymentFacts(it)
		d.paymentTimeline(it)
		if v.can(auth.WriteDocuments) && r.env() == auth.Sandbox && it.Status == payment.Pending {
			d.smallButton("/dashboard/payments/"+it.ID+"/cancel", "cancel-payment", "dash.pay.cancel", true)
		}
		d.paymentDelivery(it, v.can(auth.WriteDocuments))
	})
}

// paymentFacts writes a payment's amount, status, reference, source and id.
func (d *doc) paymentFacts(it *intent.Intent) {
	d.Raw(`<dl class="facts"><dt>`)
	d.text("dash.pay.col.amount")
	d.Raw(`</dt><dd id="payment-amount">`)
	d.Text(d.l.Amount(it.AmountMinor))
	d.Raw(`</dd><dt>`)
	d.text("dash.pay.col.status")
	d.Raw(`</dt><dd id="payment-status">`)
	d.statusTag(it.Status)
	d.Raw(`</dd><dt>`)
	d.text("dash.pay.col.reference")
	d.Raw(`</dt><dd id="payment-reference">`)
	d.Text(it.Reference)
	d.Raw(`</dd><dt>`)
	d.text("dash.pay.col.source")
	d.Raw(`</dt><dd id="payment-source">`)
	switch it.Source.Kind {
	case payment.SourceInvoice, payment.SourcePaymentLinks:
		d.link("/dashboard/"+string(it.Source.Kind)+"/"+it.Source.DocumentID, "payment-document", "dash.pay.source."+string(it.Source.Kind))
	default:
		d.text("dash.pay.source.standalone")
	}
	d.Raw(`</dd><dt>`)
	d.text("dash.pay.id")
	d.Raw(`</dt><dd id="payment-id"><code>`)
	d.Text(it.ID)
	d.Raw("</code></dd></dl>\n")

}

// paymentTimeline writes a payment's timeline, oldest first.
func (d *doc) paymentTimeline(it *intent.Intent) {
	d.Raw(`<h2>`)
	d.text("dash.pay.timeline")
	d.Raw(`</h2><ol class="timeline" id="payment-timeline">`)
	step := func(id, key string, at time.Time, args ...string) {
		d.Raw("<li")
		d.Attr("id", id)
		d.Raw(">")
		d.date(at)
		d.Raw(" — ")
		d.text(key, args...)
		d.Raw("</li>")
	}
	step("tl-created", "dash.pay.tl.created", it.CreatedAt)
	if it.Lock != nil {
		step("tl-locked", "dash.pay.tl.locked", it.Lock.At, "route", it.Lock.Route, "payer", it.Lock.PayerMasked)
	}
	if len(it.History) > 1 {
		end := it.History[len(it.History)-1]
		step("tl-outcome", "dash.pay.tl.outcome", end.OccurredAt, "status", t(d.l, "dash.pay.status."+string(end.Status)))
	} else {
		step("tl-expiry", "dash.pay.tl.expires", it.ExpiresAt)
	}
	if it.FirstVerifiedAt != nil {
		step("tl-verified", "dash.pay.tl.verified", *it.FirstVerifiedAt)
	}
	d.Raw("</ol>\n")

}

// paymentDelivery writes a payment's webhook delivery with its recent attempts, newest first,
// and (mayResend) the Resend button.
func (d *doc) paymentDelivery(it *intent.Intent, mayResend bool) {
	d.Raw(`<section id="deliveries"><h2>`)
	d.text("dash.pay.deliveries")
	d.Raw("</h2>\n")
	dl := it.Delivery
	if dl == nil {
		d.Raw(`<p id="deliveries-none">`)
		d.text("dash.pay.deliveries.none")
		d.Raw("</p></section>\n")
		return
	}
	d.Raw(`<p id="delivery-summary">`)
	d.text("dash.pay.delivery.summary", "kind", dl.Kind, "status", t(d.l, "dash.pay.delivery."+dl.Status),
		"attempts", d.l.Digits(itoa(dl.Attempts)))
	d.Raw(" <code>")
	d.Text(dl.EventID)
	d.Raw("</code></p>\n")
	if dl.Status == payment.DeliveryPending {
		d.Raw(`<p id="delivery-next">`)
		d.text("dash.pay.delivery.next")
		d.Raw(" ")
		d.date(dl.NextAttemptAt)
		d.Raw("</p>\n")
	}
	if len(dl.AttemptLog) > 0 {
		d.tableStart("attempts-caption", "attempts-table")
		d.Raw(`<caption id="attempts-caption">`)
		d.text("dash.pay.attempts.caption")
		d.Raw("</caption>")
		d.thead("dash.pay.attempts.", "at", "code", "duration", "error")
		for i := len(dl.AttemptLog) - 1; i >= 0; i-- { // newest first
			a := dl.AttemptLog[i]
			d.Raw("<tr><td>")
			d.date(a.At)
			d.Raw("</td><td>")
			if a.HTTPStatus == 0 {
				d.text("dash.pay.attempts.no_answer")
			} else {
				d.Text(d.l.Digits(itoa(a.HTTPStatus)))
			}
			d.Raw("</td><td>")
			d.text("dash.pay.attempts.ms", "ms", d.l.Number(a.DurationMS))
			d.Raw("</td><td>")
			d.Text(a.Error)
			d.Raw("</td></tr>\n")
		}
		d.Raw("</tbody></table></div>\n")
	} else if dl.Detail != "" {
		d.Raw(`<p id="delivery-detail">`)
		d.Text(dl.Detail)
		d.Raw("</p>\n")
	}
	if mayResend {
		d.smallButton("/dashboard/payments/"+it.ID+"/resend", "resend", "dash.pay.resend", false, "event_id", dl.EventID)
	}
	d.Raw("</section>\n")
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
