package dashboard

import (
	"context"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/money"
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
func (d *doc) envSwitch() {
	d.Raw(`<nav id="env-switch" class="env-switch"`)
	d.Attr("aria-label", d.t("dash.overview.env"))
	d.Raw("><ul>")
	for _, e := range []auth.Environment{auth.Sandbox, auth.Live} {
		d.Raw("<li><a")
		d.Attr("id", "env-switch-"+string(e))
		d.URLAttr("href", d.r.url("/dashboard?env="+string(e)))
		if d.r.env() == e {
			d.Raw(` aria-current="page"><strong>`)
			d.text("dash.overview.env." + string(e))
			d.Raw("</strong> ")
			d.text("dash.overview.env.showing")
		} else {
			d.Raw(">")
			d.text("dash.overview.env." + string(e))
		}
		d.Raw("</a></li>")
	}
	d.Raw("</ul></nav>\n")
}

// count writes a number, "at least n" when the read was capped.
func (d *doc) count(n int, capped bool) {
	v := d.l.Number(int64(n))
	if capped {
		d.text("dash.overview.at_least", "n", v)
		return
	}
	d.Text(v)
}

func (d *doc) amount(p money.Paisa, capped bool) {
	v := d.l.Amount(p)
	if capped {
		d.text("dash.overview.at_least", "n", v)
		return
	}
	d.Text(v)
}

// payments writes the overview's payment sections.
func (d *doc) overviewPayments(o *overview) {
	d.overviewTallies(o)
	d.overviewLatest(o)
	d.overviewFailing(o)
}

// overviewTallies writes today's and this week's completed payments.
func (d *doc) overviewTallies(o *overview) {
	d.Raw("<h2>")
	d.text("dash.overview.completed")
	d.Raw("</h2>\n<div class=\"stats\">")
	for _, st := range []struct {
		id, key string
		t       tally
		args    []string
	}{{"stats-today", "dash.overview.today", o.today, nil},
		{"stats-week", "dash.overview.week", o.week, []string{"date", d.l.DateTime(o.weekStart)}}} {
		d.Raw(`<section`)
		d.Attr("id", st.id)
		d.Attr("aria-labelledby", st.id+"-title")
		d.Raw("><h3")
		d.Attr("id", st.id+"-title")
		d.Raw(">")
		d.text(st.key, st.args...)
		d.Raw("</h3><dl><dt>")
		d.text("dash.overview.count")
		d.Raw(`</dt><dd class="stat-count">`)
		d.count(st.t.count, o.capped)
		d.Raw("</dd><dt>")
		d.text("dash.overview.amount")
		d.Raw(`</dt><dd class="stat-amount">`)
		d.amount(st.t.amount, o.capped)
		d.Raw("</dd></dl></section>")
	}
	d.Raw("</div>\n")
	if o.capped {
		d.Raw(`<p class="hint" id="stats-capped">`)
		d.text("dash.overview.capped", "n", d.l.Number(homeScanBudget))
		d.Raw("</p>\n")
	}
}

// overviewLatest writes the latest payments.
func (d *doc) overviewLatest(o *overview) {
	d.Raw(`<h2 id="latest-title">`)
	d.text("dash.overview.latest")
	d.Raw("</h2>\n")
	if len(o.latest) == 0 {
		d.Raw(`<p id="latest-payments">`)
		d.text("dash.overview.no_payments")
		d.Raw("</p>\n")
	} else {
		d.tableStart("latest-title", "latest-payments")
		d.thead("dash.overview.col.", "created", "payment", "status", "amount", "reference")
		for _, p := range o.latest {
			d.Raw("<tr><td>")
			d.date(p.CreatedAt)
			d.Raw("</td><td>")
			d.paymentLink(p.InvoiceID)
			d.Raw("</td><td>")
			d.text("dash.overview.status." + string(p.EffectiveStatus(o.now)))
			d.Raw(`</td><td class="num">`)
			d.Text(d.l.Amount(p.AmountMinor))
			d.Raw("</td><td>")
			d.Text(p.Reference)
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n")
	}
}

// overviewFailing writes the deliveries that are failing.
func (d *doc) overviewFailing(o *overview) {
	d.Raw(`<h2 id="failing-title">`)
	d.text("dash.overview.failing")
	d.Raw("</h2>\n")
	if len(o.failing) == 0 {
		d.Raw(`<p id="failing-deliveries">`)
		d.text("dash.overview.no_failing")
		d.Raw("</p>\n")
		return
	}
	d.tableStart("failing-title", "failing-deliveries")
	d.thead("dash.overview.col.", "payment", "event", "attempts", "response", "last_attempt", "state")
	for _, p := range o.failing {
		o := p.Outbox // non-nil: failingDelivery
		d.Raw("<tr><td>")
		d.paymentLink(p.InvoiceID)
		d.Raw("</td><td>")
		d.Text(o.Kind)
		d.Raw(`</td><td class="num">`)
		d.Text(d.l.Number(int64(o.Attempts)))
		d.Raw("</td><td>")
		if o.LastHTTPStatus > 0 {
			d.Text(d.l.Number(int64(o.LastHTTPStatus)))
		} else {
			d.text("dash.overview.no_response")
		}
		if o.Detail != "" {
			d.Raw(`<br><span class="hint">`)
			d.Text(o.Detail)
			d.Raw("</span>")
		}
		d.Raw("</td><td>")
		if o.LastAttemptAt != nil {
			d.date(*o.LastAttemptAt)
		}
		d.Raw("</td><td>")
		if o.Status == payment.DeliveryFailed {
			d.text("dash.overview.delivery.failed")
		} else {
			d.text("dash.overview.delivery.retrying")
			d.Raw(" ")
			d.date(o.NextAttemptAt)
		}
		d.Raw("</td></tr>")
	}
	d.Raw("</tbody></table></div>\n")
}

// paymentLink links a payment's page by its id.
func (d *doc) paymentLink(id string) {
	d.Raw("<a")
	d.URLAttr("href", d.r.url("/dashboard/payments/"+id))
	d.Raw("><code>")
	d.Text(id)
	d.Raw("</code></a>")
}
