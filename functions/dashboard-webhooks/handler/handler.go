// Package handler is DashboardWebhooksFunction of template.yaml: the dashboard's webhooks page
// (GET /dashboard/webhooks) and its test event (POST /dashboard/webhooks/test). It is its own
// function for least privilege: it is the only dashboard function that may open the webhook
// signing secrets (kms:Decrypt, as WebhookSenderFunction) and call out to a URL a person types
// (the sender's SSRF-safe client); the other dashboard functions can do neither.
package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/webhook"
)

// Function is DashboardWebhooksFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardWebhooksFunction", Name: "dashboard-webhooks", Build: Build}

// SealerFor opens the stored webhook signing secrets: with KMS (WEBHOOK_SECRETS_KEY_ID), as
// the sender's (make dev's local-kms locally). For a test stack without KMS, package registry
// replaces SealerFor with one that takes LOCAL_SEALING_KEY too, so the Lambda binary does not
// link the local sealer.
var SealerFor = func(d *app.Deps) (webhook.Sealer, error) {
	return kmsseal.NewKMS(d.AWS, d.Config.WebhookSecretsKeyID)
}

// TestsPerMinute is how many test events one workspace may send per minute, across every
// instance (ratelimit.Limiter: RATE#WHTEST#<workspace>, one lease write per test event, so
// the bound is exact): what the dashboard can make Takapay send to any URL. Each test itself
// is bounded by the sender's timeout (webhook.DefaultTimeout).
const TestsPerMinute = 10

// Build wires the webhooks page: the dashboard's pages and sessions (package wire) with the
// webhook rules (package webhook) over the store.
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.WebhooksMessages()) // the words of the page groups this function serves
	p := wire.Build(d, nil, nil)
	s := p.Service
	sealer, err := SealerFor(d)
	if err != nil && d.Logger != nil && d.Store != nil {
		// Every test event fails with this error until the configuration is fixed.
		d.Logger.Error("webhook secrets cannot be opened", slog.String("error", err.Error()))
	}
	w := &webhooks{store: d.Store, act: activity.New(d.Store, d.Now), logger: d.Logger, now: d.Now,
		queue: &sqsqueue.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL},
		limit: &ratelimit.Limiter{Rate: TestsPerMinute, Per: time.Minute, Burst: TestsPerMinute, Lease: 1, Now: d.Now}}
	if d.Store != nil {
		w.refunds = d.Store
		w.limit.Store = d.Store
		w.tester = &webhook.Tester{URLs: d.URLs, Now: d.Now,
			Secrets: (&webhook.Keyring{Store: d.Store, Sealer: sealer, Logger: d.Logger}).Secrets,
			Client:  webhook.NewClient(webhook.ClientOptions{AllowLocalhost: d.URLs.AllowLocalhost})}
	}
	s.Webhooks = w
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/webhooks":         s.WebhooksPage,
		"POST /dashboard/webhooks/test":   s.SendTestWebhook,
		"POST /dashboard/webhooks/resend": s.ResendRefundWebhook,
	}}
}

// webhooks adapts package webhook to dashboard.Webhooks.
type webhooks struct {
	store   webhook.IntentLister
	refunds refundDeliveries
	queue   webhook.RefundEnqueuer
	tester  *webhook.Tester
	act     *activity.Service
	limit   *ratelimit.Limiter
	logger  *slog.Logger
	now     func() time.Time
}

func (w *webhooks) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// refundDeliveries is what the page reads and writes of refunds (package dynamo).
type refundDeliveries interface {
	webhook.RefundLister
	webhook.RefundStore
}

// ResendRefundEvent is webhook.ResendRefund for the refund of the viewer's workspace and
// environment (the refund's key carries both: another workspace's is absent, 404).
func (w *webhooks) ResendRefundEvent(ctx context.Context, a dashboard.Actor, env auth.Environment, refundID, eventID string) error {
	_, err := webhook.ResendRefund(ctx, w.refunds, w.queue, a.WorkspaceID, env, refundID, eventID, "the dashboard ("+a.Email+")", w.clock().UTC())
	switch {
	case errors.Is(err, webhook.ErrNotResendable):
		return apierr.New(apierr.NotFound, "no such refund event")
	case errors.Is(err, webhook.ErrResendConflict):
		return apierr.New(apierr.StateConflict, "%s", err.Error())
	}
	return err
}

func (w *webhooks) RecentDeliveries(ctx context.Context, ws string, env auth.Environment) ([]dashboard.WebhookDelivery, error) {
	list, err := webhook.RecentDeliveries(ctx, w.store, ws, env)
	if err != nil {
		return nil, err
	}
	if w.refunds != nil {
		refunds, err := webhook.RecentRefundDeliveries(ctx, w.refunds, ws, env)
		if err != nil {
			return nil, err
		}
		list = append(list, refunds...)
		webhook.SortDeliveries(list)
	}
	out := make([]dashboard.WebhookDelivery, 0, len(list))
	for _, x := range list {
		status := x.Status
		if x.Status == payment.DeliveryPending && webhook.Failing(x.Delivery) {
			status = "retrying"
		}
		at := x.CreatedAt
		if x.LastAttemptAt != nil {
			at = *x.LastAttemptAt
		}
		out = append(out, dashboard.WebhookDelivery{InvoiceID: x.InvoiceID, RefundID: x.RefundID, EventID: x.EventID, Kind: x.Kind, Status: status,
			Attempts: x.Attempts, LastHTTPStatus: x.LastHTTPStatus, At: at})
	}
	return out, nil
}

func (w *webhooks) SendTest(ctx context.Context, a dashboard.Actor, env auth.Environment, rawURL string) (*dashboard.TestEvent, error) {
	// The URL first: a refused one costs nothing, not even a place in the rate limit.
	var rule *urlcheck.RuleError
	if err := w.tester.CheckURL(rawURL); errors.As(err, &rule) {
		return nil, apierr.Invalid(apierr.Violation{Path: "url", Rule: rule.Rule})
	} else if err != nil {
		return nil, err
	}
	if ok, wait := w.limit.Allow(ctx, "WHTEST#"+a.WorkspaceID); !ok {
		return nil, apierr.Limited(wait, "too many test events: retry after %s", wait)
	}
	start := time.Now()
	res, err := w.tester.Send(ctx, a.WorkspaceID, env, rawURL)
	var out *dashboard.TestEvent
	var se *webhook.SendError
	switch {
	case errors.Is(err, webhook.ErrNoSecret):
		return nil, dashboard.ErrNoWebhookSecret
	case errors.As(err, &se):
		out = &dashboard.TestEvent{Host: se.Host, Failure: se.Error(), Forbidden: errors.Is(err, webhook.ErrForbiddenAddress),
			Duration: time.Since(start)}
	case err != nil:
		return nil, err
	default:
		out = &dashboard.TestEvent{EventID: res.EventID, Host: res.Host, Signatures: res.Signatures, HTTPStatus: res.HTTPStatus,
			Duration: res.Latency}
	}
	outcome := fmt.Sprintf("HTTP %d", out.HTTPStatus)
	switch {
	case out.Forbidden:
		outcome = "refused: private address"
	case out.HTTPStatus == 0:
		outcome = "not delivered"
	}
	w.record(ctx, activity.Event{WorkspaceID: a.WorkspaceID, ActorUserID: a.UserID, ActorEmail: a.Email,
		Action: activity.WebhookTestSent, Target: fmt.Sprintf("%s test event to %s: %s", env, out.Host, outcome),
		IP: a.Client.IP, UserAgent: a.Client.UserAgent})
	return out, nil
}

// record writes the activity after the test was sent (its own bounded time: the answer does
// not depend on it).
func (w *webhooks) record(ctx context.Context, e activity.Event) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := w.act.Record(ctx, e); err != nil && w.logger != nil {
		w.logger.Warn("activity record failed", slog.String("action", e.Action), slog.String("error", err.Error()))
	}
}
