package dashboard

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// The webhooks page (GET /dashboard/webhooks) and its test event (POST /dashboard/webhooks/test)
// are DashboardWebhooksFunction's: the only dashboard function that may open the webhook
// signing secrets (kms:Decrypt) and call out to a merchant's URL. The rules are package
// webhook's — the test event is webhook.Tester.Send, the one that `paymentsctl webhook test`
// runs; the deliveries are webhook.RecentDeliveries over the intents list (the API list's
// query) — behind the Webhooks interface (functions/dashboard-webhooks/handler adapts them).

// WebhookDelivery is a payment's or a refund's webhook event as the page lists it (RefundID ""
// for a payment's; InvoiceID is a refund event's payment).
type WebhookDelivery struct {
	InvoiceID, RefundID, EventID, Kind string
	// Status is "failed", "retrying" (pending after an attempt that did not deliver),
	// "pending" (not tried yet) or "delivered".
	Status         string
	Attempts       int
	LastHTTPStatus int
	// At is the last attempt's time, else the event's.
	At time.Time
}

// TestEvent is what a test event got: an HTTP answer (HTTPStatus, Duration), or none
// (HTTPStatus 0, Failure saying why: the receiver's host and the cause, never the URL's path
// or query; Forbidden when the host resolved to an address webhooks may not reach).
type TestEvent struct {
	EventID, Host string
	Signatures    int
	HTTPStatus    int
	Duration      time.Duration
	Failure       string
	Forbidden     bool
}

// ErrNoWebhookSecret is a test event refused because the environment has no signing secret.
var ErrNoWebhookSecret = errors.New("dashboard: no webhook signing secret in this environment")

// Webhooks lists deliveries and sends test events (package webhook).
type Webhooks interface {
	// RecentDeliveries lists the events of the environment's latest payments, failures first.
	RecentDeliveries(ctx context.Context, workspaceID string, env auth.Environment) ([]WebhookDelivery, error)
	// SendTest sends a signed test event to rawURL and records it in the activity. A refused
	// URL is a VALIDATION_FAILED on "url" whose violation's rule is the webhook rule broken
	// (the sender's words); no secret is ErrNoWebhookSecret; too many tests are RATE_LIMITED
	// with Retry-After (apierr.Limited).
	SendTest(ctx context.Context, a Actor, env auth.Environment, rawURL string) (*TestEvent, error)
	// ResendRefundEvent sends a refund's recorded event again (webhook.ResendRefund; like a
	// payment's resend, not an activity); a refund or event of another workspace is
	// NOT_FOUND, an event that changed meanwhile STATE_CONFLICT.
	ResendRefundEvent(ctx context.Context, a Actor, env auth.Environment, refundID, eventID string) error
}

// ResendPermission is what resending an event needs: as a payment's resend
// (POST /dashboard/payments/{id}/resend), developers, admins and owners.
const ResendPermission = auth.WriteDocuments

// ResendRefundWebhook is POST /dashboard/webhooks/resend (form fields refund_id, event_id):
// the refund's event is pending and due now, then the page again (one form, one effect: the
// form token).
func (s *Service) ResendRefundWebhook(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(ResendPermission); err != nil {
			return nil, err
		}
		if err := s.Webhooks.ResendRefundEvent(ctx, r.viewer.actor(r), r.env(), r.field("refund_id"), r.field("event_id")); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/webhooks"), nil
	})(ctx, wr)
}

// TestWebhookPermission is what sending a test event needs: auth.ViewKeys (developers,
// admins, owners). A test event signs with the environment's webhook secrets without showing
// them, and calls out to a URL the person types: it is an integration tool, for the people
// who may see the integration's credentials (keys, secrets' metadata), not a change of them
// (auth.ManageKeys). Viewers may do neither.
const TestWebhookPermission = auth.ViewKeys

// WebhooksPage is GET /dashboard/webhooks.
func (s *Service) WebhooksPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		return s.webhooksPage(ctx, r, 200, nil, nil, "")
	})(ctx, wr)
}

// SendTestWebhook is POST /dashboard/webhooks/test: the outcome is shown on the page (no
// redirect: nothing was stored but the activity record, and the answer is the result).
func (s *Service) SendTestWebhook(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(TestWebhookPermission); err != nil {
			return nil, err
		}
		raw := r.field("url")
		f := &form{values: map[string]string{"url": raw}}
		if raw == "" {
			f.fail("url", t(r.l(), "dash.rule.required"))
			return s.webhooksPage(ctx, r, 422, f, nil, "")
		}
		res, err := s.Webhooks.SendTest(ctx, r.viewer.actor(r), r.env(), raw)
		fe, invalid := refused(err)
		var limited *apierr.Error
		switch {
		case invalid:
			f.fail("url", t(r.l(), "dash.webhooks.refused", "rule", fe.rule))
			return s.webhooksPage(ctx, r, 422, f, nil, "")
		case errors.Is(err, ErrNoWebhookSecret):
			return s.webhooksPage(ctx, r, 409, f, nil, t(r.l(), "dash.webhooks.no_secret"))
		case errors.As(err, &limited) && limited.Code == apierr.RateLimited:
			secs := int((limited.RetryAfter() + time.Second - 1) / time.Second)
			resp, err := s.webhooksPage(ctx, r, 429, f, nil, tn(r.l(), "dash.webhooks.limited", secs, "seconds", r.l().Digits(strconv.Itoa(secs))))
			if resp != nil {
				resp.Headers["Retry-After"] = strconv.Itoa(secs)
			}
			return resp, err
		case err != nil:
			return nil, err
		}
		return s.webhooksPage(ctx, r, 200, f, res, "")
	})(ctx, wr)
}

func (s *Service) webhooksPage(ctx context.Context, r *req, status int, f *form, res *TestEvent, problem string) (*web.Response, error) {
	env := r.env()
	ws := r.viewer.ws.WorkspaceID
	viewKeys := r.viewer.can(auth.ViewKeys)
	var secrets []WebhookSecret
	if viewKeys {
		var err error
		if secrets, err = s.Keys.ListWebhookSecrets(ctx, ws, env); err != nil {
			return nil, err
		}
	}
	deliveries, err := s.Webhooks.RecentDeliveries(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	return s.page(r, status, t(r.l(), "dash.webhooks.title"), func(d *doc) {
		d.node(h.P(h.Class("hint"), d.tx("dash.webhooks.env", "environment", d.t("dash.env."+string(env)))),
			// Signing secrets: metadata only, for the roles that may see them.
			d.webhookSecrets(secrets, viewKeys, r.viewer.can(auth.ManageKeys)),
			d.testSection(f, res, problem),
			d.recentDeliveries(deliveries)) // failures first
	}), nil
}

// webhookSecrets is the signing secrets' section: their metadata when visible (the roles that
// may see keys), with the link to manage them (manage) or view them.
func (d *doc) webhookSecrets(secrets []WebhookSecret, visible, manage bool) h.Node {
	head := h.H2(h.ID("webhook-secrets-title"), d.tx("dash.webhooks.secrets"))
	if !visible {
		return h.Section(h.ID("webhook-secrets"), h.Aria("labelledby", "webhook-secrets-title"), head,
			h.P(h.Class("hint"), d.tx("dash.webhooks.secrets_hidden")))
	}
	key := "dash.webhooks.secrets_view"
	if manage {
		key = "dash.webhooks.secrets_manage"
	}
	items := h.Map(secrets, func(w WebhookSecret) h.Node {
		return h.Li(ui.Long(w.ID, true), h.Text(" · "), d.tx("dash.webhooks.created"), h.Text(" "), ui.Date(d.l, w.CreatedAt),
			h.If(w.Current, h.Group{h.Text(" · "), h.Strong(d.tx("dash.secrets.current"))}),
			h.If(w.ExpiresAt != nil, h.Group{h.Text(" · "), d.tx("dash.keys.until"), h.Text(" "), dateOf(d, w.ExpiresAt)}))
	})
	if len(secrets) == 0 {
		items = h.Group{h.Li(d.tx("dash.secrets.none"))}
	}
	return h.Section(h.ID("webhook-secrets"), h.Aria("labelledby", "webhook-secrets-title"), head,
		h.Ul(items),
		h.P(d.linkNode("/dashboard/webhook-secrets", "webhook-secrets-link", key)))
}

// dateOf is ui.Date of a time that may be absent (nil: nothing).
func dateOf(d *doc, at *time.Time) h.Node {
	if at == nil {
		return nil
	}
	return ui.Date(d.l, *at)
}

// testSection is the test event's section: the last test's result, then the form for the
// roles that may send one.
func (d *doc) testSection(f *form, res *TestEvent, problem string) h.Node {
	var result h.Node
	if res != nil || problem != "" || f.failed() {
		result = d.testResult(f, res, problem)
	}
	var body h.Node
	if !d.r.viewer.can(TestWebhookPermission) {
		body = h.P(h.Class("hint"), h.ID("test-readonly"), d.tx("dash.webhooks.test_readonly"))
	} else {
		body = d.testForm(f)
	}
	return h.Section(h.Aria("labelledby", "test-title"), h.H2(h.ID("test-title"), d.tx("dash.webhooks.test")), result, body)
}

// testForm is the test event's one-field form: its error is beside it and in #test-result
// above (no summary).
func (d *doc) testForm(f *form) h.Node {
	return h.Group{
		h.P(h.Class("hint"), d.tx("dash.webhooks.test_about")),
		d.formPost("/dashboard/webhooks/test", h.ID("send-test-form"),
			d.fieldOf(f, ui.Field{Name: "url", ID: "test-url", Type: "url", Inputmode: "url", Autocomplete: "url", Required: true},
				"dash.webhooks.url", "dash.webhooks.url_hint"),
			ui.Submit("send-test", d.t("dash.webhooks.send"))),
	}
}

// recentDeliveries is the environment's recent deliveries (failures first) as a table that
// reads as cards on a phone: the event, its status, when, the attempts, the last HTTP code,
// and the payment's id last (the link to the payment). Its id names the table, or the empty
// state when there is none.
func (d *doc) recentDeliveries(deliveries []WebhookDelivery) h.Node {
	head := h.H2(h.ID("deliveries-title"), d.tx("dash.webhooks.recent"))
	caption := d.t("dash.webhooks.recent_caption")
	if len(deliveries) == 0 {
		return h.Section(h.Aria("labelledby", "deliveries-title"), head,
			h.P(h.Class("hint"), h.Text(caption)), ui.Empty("recent-deliveries", d.t("dash.webhooks.none"), nil))
	}
	rows := make([]ui.Row, 0, len(deliveries))
	for _, x := range deliveries {
		rows = append(rows, d.deliveryRow(x))
	}
	return h.Section(h.Aria("labelledby", "deliveries-title"), head,
		ui.Table("recent-deliveries", caption,
			d.headings("dash.webhooks.col.", "event", "status", "time", "attempts#", "http#", "payment"), rows))
}

// deliveryRow is one delivery (row id "delivery-" and the payment's id; a refund's event:
// "delivery-refund-" and the event's id, with its Resend button for the roles that may),
// linking to its payment. The status pill's data-status is the status in capitals (ui.Pill's
// tone).
func (d *doc) deliveryRow(x WebhookDelivery) ui.Row {
	http := d.tx("dash.webhooks.no_http")
	if x.LastHTTPStatus != 0 {
		http = d.number(x.LastHTTPStatus)
	}
	id, event := "delivery-"+x.InvoiceID, h.Node(h.Code(h.Text(x.Kind)))
	if x.RefundID != "" {
		id = "delivery-refund-" + x.EventID
		event = h.Group{event, h.If(d.r.viewer.can(ResendPermission), d.actionButton("/dashboard/webhooks/resend", "resend-"+x.EventID,
			"dash.webhooks.resend", false, "refund_id", x.RefundID, "event_id", x.EventID))}
	}
	return ui.Row{ID: id, Cells: []h.Node{
		event,
		ui.Pill(strings.ToUpper(x.Status), d.t("dash.webhooks.status."+x.Status)),
		ui.Date(d.l, x.At),
		d.number(x.Attempts),
		http,
		h.A(d.href("/dashboard/payments/"+x.InvoiceID), ui.Long(x.InvoiceID, true)),
	}}
}

// testOutcome is the test result's class and data-outcome.
func testOutcome(res *TestEvent) (class, outcome string) {
	switch {
	case res != nil && res.HTTPStatus >= 200 && res.HTTPStatus <= 299:
		return "notice", "delivered"
	case res != nil && res.HTTPStatus != 0:
		return "error", "rejected"
	case res != nil && res.Forbidden:
		return "error", "refused"
	case res != nil:
		return "error", "unreachable"
	}
	return "error", "refused"
}

// testResult is the test event's outcome (#test-result, a live region).
func (d *doc) testResult(f *form, res *TestEvent, problem string) h.Node {
	class, outcome := testOutcome(res)
	ms := func(dur time.Duration) string { return d.l.Digits(strconv.FormatInt(dur.Milliseconds(), 10)) }
	var say h.Node
	switch {
	case res != nil && res.HTTPStatus != 0:
		key := "dash.webhooks.result.delivered"
		if res.HTTPStatus < 200 || res.HTTPStatus > 299 {
			key = "dash.webhooks.result.rejected"
		}
		say = h.Group{
			h.P(d.tx(key, "status", d.l.Digits(strconv.Itoa(res.HTTPStatus)), "ms", ms(res.Duration))),
			h.P(h.Class("hint"), h.Text(tn(d.l, "dash.webhooks.result.detail", res.Signatures, "host", res.Host, "signatures", d.l.Digits(strconv.Itoa(res.Signatures)))),
				h.Text(" "), ui.Long(res.EventID, true)),
		}
	case res != nil:
		key := "dash.webhooks.result.unreachable"
		if res.Forbidden {
			key = "dash.webhooks.result.forbidden"
		}
		say = h.P(d.tx(key, "ms", ms(res.Duration)), h.Text(" "), h.Span(h.Lang("en"), h.Class("long"), h.Text(res.Failure)))
	case problem != "":
		say = h.P(h.Text(problem))
	default:
		say = h.P(h.Text(f.err("url")))
	}
	return h.Div(h.ID("test-result"), h.Role("status"), h.Class(class), h.Data("outcome", outcome), say)
}
