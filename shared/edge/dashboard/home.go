package dashboard

import (
	"context"
	"slices"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/payment"
)

// The overview's payments: the environment switch, today's and the last 7 days' completed
// payments, the latest payments and the failing webhook deliveries, all from one read of the
// workspace's payments newest first (Payments.EachPayment: GSI3 by created_at, then
// BatchGetItem), bounded:
//
//   - A payment completes before its expiry, at most payment.MaxExpiry (24 h) after it was
//     created, so the payments completed since the first of the 7 Dhaka days are among those
//     created since that midnight less 24 hours: the read goes back that far and no further.
//   - It reads at most homeScanBudget payments (pages of homePageSize: a Query and a
//     BatchGetItem each), so at most 10 requests whatever the workspace's volume. A workspace
//     with more payments than that in those 8 days sees its figures as "at least": they count
//     the newest homeScanBudget payments only.
//   - When those 8 days hold fewer than homeLatest payments, one more page (a Query and a
//     BatchGetItem) finds the latest older ones.
//
// Completed means the payment's effective status is COMPLETED; the day is its completion's
// (finished_at) Dhaka day; amounts are summed in paisa.
const (
	homeLatest     = 10
	homeFailing    = 10
	homePageSize   = 100
	homeScanBudget = 500
)

// tally is a count of completed payments and their amount.
type tally struct {
	count  int
	amount money.Paisa
}

// overview is what the home page shows of the payments.
type overview struct {
	today, week tally
	// capped: the read stopped at homeScanBudget payments; the figures are lower bounds.
	capped          bool
	weekStart, now  time.Time
	latest, failing []*payment.Payment
}

// failingDelivery reports whether a payment's webhook delivery has failed for good or has
// failed at least once and is waiting for its next attempt.
func failingDelivery(p *payment.Payment) bool {
	d := p.Outbox
	return d != nil && (d.Status == payment.DeliveryFailed || d.Status == payment.DeliveryPending && d.Attempts > 0)
}

func (s *Service) overview(ctx context.Context, ws string, env auth.Environment) (*overview, error) {
	now := s.now()
	today := export.DayStart(now)
	o := &overview{weekStart: today.AddDate(0, 0, -6), now: now}
	from := o.weekStart.Add(-payment.MaxExpiry)
	keep := func(p *payment.Payment) {
		if len(o.latest) < homeLatest {
			o.latest = append(o.latest, p)
		}
		if len(o.failing) < homeFailing && failingDelivery(p) {
			o.failing = append(o.failing, p)
		}
	}
	read := 0
	err := s.Payments.EachPayment(ctx, export.Query{WorkspaceID: ws, Environment: env, From: from, NewestFirst: true, PageSize: homePageSize},
		func(p *payment.Payment) error {
			keep(p)
			if p.EffectiveStatus(now) == payment.Completed && p.FinishedAt != nil && !p.FinishedAt.Before(o.weekStart) {
				o.week.count++
				o.week.amount += p.AmountMinor
				if !p.FinishedAt.Before(today) {
					o.today.count++
					o.today.amount += p.AmountMinor
				}
			}
			if read++; read == homeScanBudget {
				o.capped = true
				return export.ErrStop
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	if n := len(o.latest); n < homeLatest && !o.capped {
		err = s.Payments.EachPayment(ctx, export.Query{WorkspaceID: ws, Environment: env, To: from, NewestFirst: true, PageSize: homeLatest - n},
			func(p *payment.Payment) error {
				keep(p)
				if len(o.latest) == homeLatest {
					return export.ErrStop
				}
				return nil
			})
	}
	return o, err
}

// envSwitch links the overview in each environment; the current one is marked (aria-current
// and the word "showing", not colour alone).
func (d *doc) envSwitch() { d.node(d.envSwitchNode(), newline) }

func (d *doc) envSwitchNode() h.Node {
	return h.Nav(h.ID("env-switch"), h.Class("env-switch"), h.Aria("label", d.t("dash.overview.env")),
		h.Ul(h.Map([]auth.Environment{auth.Sandbox, auth.Live}, func(e auth.Environment) h.Node {
			name := d.t("dash.overview.env." + string(e))
			current := d.r.env() == e
			return h.Li(h.A(h.ID("env-switch-"+string(e)), h.Href(d.r.url("/dashboard?env="+string(e))),
				h.IfElse(current,
					h.Group{h.Attr("aria-current", "page"), h.Strong(h.Text(name)), h.Text(" " + d.t("dash.overview.env.showing"))},
					h.Text(name))))
		})))
}

// count is a number, "at least n" when the read was capped.
func (d *doc) count(n int, capped bool) h.Node {
	v := d.l.Number(int64(n))
	if capped {
		return h.Text(d.t("dash.overview.at_least", "n", v))
	}
	return h.Text(v)
}

// amount is a sum of money (ui.Money), "at least …" when the read was capped.
func (d *doc) amount(p money.Paisa, capped bool) h.Node {
	if capped {
		return h.Text(d.t("dash.overview.at_least", "n", d.l.Amount(p)))
	}
	return ui.Money(d.l, p)
}

// overviewPayments writes the overview's payment sections.
func (d *doc) overviewPayments(o *overview) {
	d.node(d.overviewTallies(o), d.overviewLatest(o), d.overviewFailing(o))
}

// overviewTallies is today's and this week's completed payments.
func (d *doc) overviewTallies(o *overview) h.Node {
	type stat struct {
		id, title string
		t         tally
	}
	stats := []stat{{"stats-today", d.t("dash.overview.today"), o.today},
		{"stats-week", d.t("dash.overview.week", "date", d.l.DateTime(o.weekStart)), o.week}}
	return h.Group{
		h.H2(h.Text(d.t("dash.overview.completed"))), newline,
		h.Div(h.Class("stats"), h.Map(stats, func(st stat) h.Node {
			return h.Section(h.ID(st.id), h.Aria("labelledby", st.id+"-title"),
				h.H3(h.ID(st.id+"-title"), h.Text(st.title)),
				h.Dl(
					h.Dt(h.Text(d.t("dash.overview.count"))), h.Dd(h.Class("stat-count"), d.count(st.t.count, o.capped)),
					h.Dt(h.Text(d.t("dash.overview.amount"))), h.Dd(h.Class("stat-amount"), d.amount(st.t.amount, o.capped))))
		})), newline,
		h.If(o.capped, h.P(h.Class("hint"), h.ID("stats-capped"),
			h.Text(d.t("dash.overview.capped", "n", d.l.Number(homeScanBudget))))),
	}
}

// columns are a table's columns, one per key (prefix+key in the catalogue); the keys in nums
// are amounts and counts.
func (d *doc) columns(prefix string, keys []string, nums ...string) []ui.Column {
	cols := make([]ui.Column, len(keys))
	for i, k := range keys {
		cols[i] = ui.Column{Head: d.t(prefix + k)}
		if slices.Contains(nums, k) {
			cols[i].Class = "num"
		}
	}
	return cols
}

// overviewLatest is the latest payments, as a shop owner reads them: reference, amount,
// status, date, then the payment's id.
func (d *doc) overviewLatest(o *overview) h.Node {
	head := h.Group{h.H2(h.ID("latest-title"), h.Text(d.t("dash.overview.latest"))), newline}
	if len(o.latest) == 0 {
		return h.Group{head, h.P(h.ID("latest-payments"), h.Text(d.t("dash.overview.no_payments"))), newline}
	}
	rows := make([]ui.Row, 0, len(o.latest))
	for _, p := range o.latest {
		st := string(p.EffectiveStatus(o.now))
		rows = append(rows, ui.Row{Cells: []h.Node{
			ui.Long(p.Reference, false), ui.Money(d.l, p.AmountMinor), ui.Pill(st, d.t("dash.overview.status."+st)),
			ui.Date(d.l, p.CreatedAt), d.paymentLink(p.InvoiceID),
		}})
	}
	return h.Group{head,
		ui.Table("latest-payments", d.t("dash.overview.latest"),
			d.columns("dash.overview.col.", []string{"reference", "amount", "status", "created", "payment"}, "amount"), rows),
		newline}
}

// overviewFailing is the deliveries that are failing: their state first, the payment's id
// last.
func (d *doc) overviewFailing(o *overview) h.Node {
	head := h.Group{h.H2(h.ID("failing-title"), h.Text(d.t("dash.overview.failing"))), newline}
	if len(o.failing) == 0 {
		return h.Group{head, h.P(h.ID("failing-deliveries"), h.Text(d.t("dash.overview.no_failing"))), newline}
	}
	rows := make([]ui.Row, 0, len(o.failing))
	for _, p := range o.failing {
		rows = append(rows, ui.Row{Cells: d.failingCells(p)})
	}
	return h.Group{head,
		ui.Table("failing-deliveries", d.t("dash.overview.failing"),
			d.columns("dash.overview.col.", []string{"state", "event", "attempts", "response", "last_attempt", "payment"}, "attempts"), rows),
		newline}
}

// failingCells is one failing delivery's row (p.Outbox is not nil: failingDelivery).
func (d *doc) failingCells(p *payment.Payment) []h.Node {
	o := p.Outbox
	state := h.Node(ui.Pill("FAILED", d.t("dash.overview.delivery.failed")))
	if o.Status != payment.DeliveryFailed {
		state = h.Group{ui.Pill("RETRYING", d.t("dash.overview.delivery.retrying")), h.Text(" "), ui.Date(d.l, o.NextAttemptAt)}
	}
	response := h.Text(d.t("dash.overview.no_response"))
	if o.LastHTTPStatus > 0 {
		response = h.Text(d.l.Number(int64(o.LastHTTPStatus)))
	}
	var last h.Node
	if o.LastAttemptAt != nil {
		last = ui.Date(d.l, *o.LastAttemptAt)
	}
	return []h.Node{
		state,
		h.Code(h.Text(o.Kind)),
		h.Text(d.l.Number(int64(o.Attempts))),
		h.Group{response, h.If(o.Detail != "", h.Group{h.Br(), h.Span(h.Class("hint long"), h.Text(o.Detail))})},
		last,
		d.paymentLink(p.InvoiceID),
	}
}

// paymentLink links a payment's page by its id.
func (d *doc) paymentLink(id string) h.Node {
	return h.A(h.Href(d.r.url("/dashboard/payments/"+id)), ui.Long(id, true))
}
