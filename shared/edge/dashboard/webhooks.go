package dashboard

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

// The webhooks page (GET /dashboard/webhooks) and its test event (POST /dashboard/webhooks/test)
// are DashboardWebhooksFunction's: the only dashboard function that may open the webhook
// signing secrets (kms:Decrypt) and call out to a merchant's URL. The rules are package
// webhook's — the test event is webhook.Tester.Send, the one that `paymentsctl webhook test`
// runs; the deliveries are webhook.RecentDeliveries over the intents list (the API list's
// query) — behind the Webhooks interface (functions/dashboard-webhooks/handler adapts them).

// WebhookDelivery is a payment's webhook event as the page lists it.
type WebhookDelivery struct {
	InvoiceID, EventID, Kind string
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
			resp, err := s.webhooksPage(ctx, r, 429, f, nil, t(r.l(), "dash.webhooks.limited", "seconds", r.l().Digits(strconv.Itoa(secs))))
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
		d.Raw(`<p class="hint">`)
		d.text("dash.webhooks.env", "environment", d.t("dash.env."+string(env)))
		d.Raw("</p>\n")
		// Signing secrets: metadata only, for the roles that may see them.
		d.webhookSecrets(secrets, viewKeys, r.viewer.can(auth.ManageKeys))
		s.testSection(d, r, f, res, problem)
		d.recentDeliveries(r, deliveries) // failures first

	}), nil
}

// webhookSecrets is the signing secrets' section: their metadata when visible (the roles that
// may see keys), with the link to manage them (manage) or view them.
func (d *doc) webhookSecrets(secrets []WebhookSecret, visible, manage bool) {
	d.Raw(`<section id="webhook-secrets" aria-labelledby="webhook-secrets-title"><h2 id="webhook-secrets-title">`)
	d.text("dash.webhooks.secrets")
	d.Raw("</h2>\n")
	if !visible {
		d.Raw(`<p class="hint">`)
		d.text("dash.webhooks.secrets_hidden")
		d.Raw("</p></section>\n")
	} else {
		d.Raw("<ul>")
		if len(secrets) == 0 {
			d.Raw("<li>")
			d.text("dash.secrets.none")
			d.Raw("</li>")
		}
		for _, w := range secrets {
			d.Raw("<li><code>")
			d.Text(w.ID)
			d.Raw("</code> · ")
			d.text("dash.webhooks.created")
			d.Raw(" ")
			d.date(w.CreatedAt)
			if w.Current {
				d.Raw(" · <strong>")
				d.text("dash.secrets.current")
				d.Raw("</strong>")
			}
			if w.ExpiresAt != nil {
				d.Raw(" · ")
				d.text("dash.keys.until")
				d.Raw(" ")
				d.date(*w.ExpiresAt)
			}
			d.Raw("</li>")
		}
		d.Raw("</ul>\n<p>")
		key := "dash.webhooks.secrets_view"
		if manage {
			key = "dash.webhooks.secrets_manage"
		}
		d.link("/dashboard/webhook-secrets", "webhook-secrets-link", key)
		d.Raw("</p></section>\n")
	}
}

// testSection is the test event's section: the last test's result, then the form for the
// roles that may send one.
func (s *Service) testSection(d *doc, r *req, f *form, res *TestEvent, problem string) {
	d.Raw(`<section aria-labelledby="test-title"><h2 id="test-title">`)
	d.text("dash.webhooks.test")
	d.Raw("</h2>\n")
	if res != nil || problem != "" || f.failed() {
		s.testResult(d, f, res, problem)
	}
	if !r.viewer.can(TestWebhookPermission) {
		d.Raw(`<p class="hint" id="test-readonly">`)
		d.text("dash.webhooks.test_readonly")
		d.Raw("</p></section>\n")
	} else {
		d.testForm(f)
	}
}

// testForm is the test event's one-field form: its error is beside it and in #test-result
// above (no summary).
func (d *doc) testForm(f *form) {
	d.Raw(`<p class="hint">`)
	d.text("dash.webhooks.test_about")
	d.Raw("</p>\n")
	d.formStart("/dashboard/webhooks/test", "send-test-form")
	d.Raw(`<div class="row"><label class="field-label" for="test-url">`)
	d.text("dash.webhooks.url")
	d.Raw(`</label><input class="field" id="test-url" name="url" type="url" inputmode="url" autocomplete="url" required`)
	if v := f.value("url"); v != "" {
		d.Attr("value", v)
	}
	described := "test-url-hint"
	if e := f.err("url"); e != "" {
		d.Raw(` aria-invalid="true"`)
		described += " test-url-error"
	}
	d.Attr("aria-describedby", described)
	d.Raw(`><p class="hint" id="test-url-hint">`)
	d.text("dash.webhooks.url_hint")
	d.Raw("</p>")
	if e := f.err("url"); e != "" {
		d.Raw(`<p class="field-error" id="test-url-error">`)
		d.Text(e)
		d.Raw("</p>")
	}
	d.Raw("</div>\n")
	d.submit("dash.webhooks.send", "send-test")
	d.Raw("</form></section>\n")
}

// recentDeliveries is the table of the environment's recent deliveries.
func (d *doc) recentDeliveries(r *req, deliveries []WebhookDelivery) {
	d.Raw(`<section aria-labelledby="deliveries-title"><h2 id="deliveries-title">`)
	d.text("dash.webhooks.recent")
	d.Raw("</h2>\n")
	d.tableStart("recent-caption", "recent-deliveries")
	d.Raw(`<caption class="hint" id="recent-caption">`)
	d.text("dash.webhooks.recent_caption")
	d.Raw("</caption>")
	d.thead("dash.webhooks.col.", "payment", "event", "status", "attempts", "http", "time")
	if len(deliveries) == 0 {
		d.Raw(`<tr><td colspan="6">`)
		d.text("dash.webhooks.none")
		d.Raw("</td></tr>")
	}
	for _, x := range deliveries {
		d.deliveryRow(x, r.url("/dashboard/payments/"+x.InvoiceID))
	}
	d.Raw("</tbody></table></div></section>\n")
}

// deliveryRow is one delivery, linking to its payment (href).
func (d *doc) deliveryRow(x WebhookDelivery, href string) {
	d.Raw("<tr")
	d.Attr("id", "delivery-"+x.InvoiceID)
	d.Attr("data-status", x.Status)
	d.Raw(`><th scope="row"><a`)
	d.URLAttr("href", href)
	d.Raw("><code>")
	d.Text(x.InvoiceID)
	d.Raw("</code></a></th><td><code>")
	d.Text(x.Kind)
	d.Raw("</code></td><td>")
	if x.Status == "failed" || x.Status == "retrying" {
		d.Raw("<strong>")
		d.text("dash.webhooks.status." + x.Status)
		d.Raw("</strong>")
	} else {
		d.text("dash.webhooks.status." + x.Status)
	}
	d.Raw("</td><td>")
	d.Text(d.l.Digits(strconv.Itoa(x.Attempts)))
	d.Raw("</td><td>")
	if x.LastHTTPStatus != 0 {
		d.Text(d.l.Digits(strconv.Itoa(x.LastHTTPStatus)))
	} else {
		d.text("dash.webhooks.no_http")
	}
	d.Raw("</td><td>")
	d.date(x.At)
	d.Raw("</td></tr>")
}

// testResult writes the test event's outcome (#test-result, a live region).
func (s *Service) testResult(d *doc, f *form, res *TestEvent, problem string) {
	d.Raw(`<div id="test-result" role="status"`)
	switch {
	case res != nil && res.HTTPStatus >= 200 && res.HTTPStatus <= 299:
		d.Raw(` class="notice" data-outcome="delivered"><p>`)
	case res != nil && res.HTTPStatus != 0:
		d.Raw(` class="error" data-outcome="rejected"><p>`)
	case res != nil && res.Forbidden:
		d.Raw(` class="error" data-outcome="refused"><p>`)
	case res != nil:
		d.Raw(` class="error" data-outcome="unreachable"><p>`)
	default:
		d.Raw(` class="error" data-outcome="refused"><p>`)
	}
	ms := func(dur time.Duration) string { return d.l.Digits(strconv.FormatInt(dur.Milliseconds(), 10)) }
	switch {
	case res != nil && res.HTTPStatus != 0:
		key := "dash.webhooks.result.delivered"
		if res.HTTPStatus < 200 || res.HTTPStatus > 299 {
			key = "dash.webhooks.result.rejected"
		}
		d.text(key, "status", d.l.Digits(strconv.Itoa(res.HTTPStatus)), "ms", ms(res.Duration))
		d.Raw("</p><p class=\"hint\">")
		d.text("dash.webhooks.result.detail", "host", res.Host, "signatures", d.l.Digits(strconv.Itoa(res.Signatures)))
		d.Raw(" <code>")
		d.Text(res.EventID)
		d.Raw("</code>")
	case res != nil:
		key := "dash.webhooks.result.unreachable"
		if res.Forbidden {
			key = "dash.webhooks.result.forbidden"
		}
		d.text(key, "ms", ms(res.Duration))
		d.Raw(` <span lang="en">`)
		d.Text(res.Failure)
		d.Raw("</span>")
	case problem != "":
		d.Text(problem)
	default:
		d.Text(f.err("url"))
	}
	d.Raw("</p></div>\n")
}
