// Package functions is the one registry of Lambda functions: each template.yaml function's
// logical id maps to the handler it runs. The deployed binaries (functions/*/main.go), the
// local stack and the tests all build handlers from here, so they cannot run different code.
package functions

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/httpapi"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/probes"
	"github.com/takapay/payments/shared/webhook"
)

// Function is one deployable function.
type Function struct {
	// Name appears in every log line of the function.
	Name string
	// Build makes the request handler of an HTTP API function.
	Build app.Builder
	// Handler makes the Lambda handler of a function that is not behind the HTTP API.
	Handler func(d *app.Deps) any
}

// Registry maps template.yaml logical ids to functions.
var Registry = map[string]Function{
	"PaymentCreateFunction": {Name: "payment-create", Build: PaymentCreate},
	"PaymentVerifyFunction": {Name: "payment-verify", Build: PaymentVerify},
	"ProbesFunction":        {Name: "probes", Build: Probes},
	"DocumentsFunction":     {Name: "documents", Build: Documents},
	"CheckoutFunction":      {Name: "checkout", Build: Checkout},
	"WebhookSenderFunction": {Name: "webhook-sender", Handler: func(d *app.Deps) any { return WebhookSender(d).Handle }},
	"WebhookRedriveFunction": {Name: "webhook-redrive", Handler: func(d *app.Deps) any {
		r := WebhookRedrive(d)
		return func(ctx context.Context) error { _, err := r.Run(ctx); return err }
	}},
}

// LogicalIDs returns the registry's keys, sorted.
func LogicalIDs() []string {
	ids := make([]string, 0, len(Registry))
	for id := range Registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Start is the whole main of a deployed function.
func Start(logicalID string) {
	f, ok := Registry[logicalID]
	if !ok {
		fmt.Fprintf(os.Stderr, "no function %q in the registry\n", logicalID)
		os.Exit(1)
	}
	if f.Build == nil {
		app.StartHandler(f.Name, f.Handler)
		return
	}
	app.Start(f.Name, f.Build)
}

// Lambda builds the Lambda handler of a registered function from Deps (for the local stack).
func Lambda(logicalID string, d *app.Deps) (httpapi.LambdaHandler, error) {
	f, ok := Registry[logicalID]
	if !ok {
		return nil, fmt.Errorf("no function %q in the registry", logicalID)
	}
	if f.Build == nil {
		return nil, fmt.Errorf("function %q is not behind the HTTP API", logicalID)
	}
	return d.Adapter.Lambda(f.Name, f.Build(d)), nil
}

// PaymentCreate builds POST /v1/payment/create.
func PaymentCreate(d *app.Deps) httpapi.HandlerFunc {
	c := &payment.Creator{Auth: d.Auth, Store: d.Store, URLs: d.URLs, PublicBaseURL: d.Config.PublicBaseURL}
	return c.Handle
}

// PaymentVerify builds POST /v1/payment/verify.
func PaymentVerify(d *app.Deps) httpapi.HandlerFunc {
	v := &payment.Verifier{Auth: d.Auth, Store: d.Store}
	return v.Handle
}

// Probes builds GET /healthz, GET /readyz and the $default fallback.
func Probes(d *app.Deps) httpapi.HandlerFunc {
	h := &probes.Handler{Table: d.Store, Queue: d.SQS, QueueURL: d.Config.WebhookQueueURL,
		CacheFor: 5 * time.Second, Timeout: 2 * time.Second}
	return h.Handle
}

// Documents builds the documents operations (customers, invoices, payment-links).
func Documents(d *app.Deps) httpapi.HandlerFunc {
	s := &document.Service{Auth: d.Auth, Store: d.Store}
	return s.Handle
}

// Checkout builds the hosted checkout page and its public, token-addressed endpoints.
func Checkout(d *app.Deps) httpapi.HandlerFunc {
	s := &checkout.Service{Store: d.Store, AllowLocalhostRedirects: d.Config.AllowLocalhostURLs,
		Limiter: &checkout.Limiter{PerToken: d.Config.CheckoutRatePerToken, PerClient: d.Config.CheckoutRatePerClient}}
	if d.Config.WebhookQueueURL != "" {
		s.Events = &webhook.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}
	}
	return s.Handle
}

// WebhookSender builds the SQS consumer that signs and sends webhook events.
func WebhookSender(d *app.Deps) *webhook.Sender {
	return &webhook.Sender{
		Store: d.Store,
		Secrets: func(ctx context.Context, ws string, env auth.Environment, now time.Time) ([][]byte, error) {
			all, _, err := d.Store.GetWebhookSecrets(ctx, ws, env)
			if err != nil {
				return nil, err
			}
			var out [][]byte
			for _, s := range all.ActiveSecrets(now) {
				if b, err := webhook.ParseSecret(s.Secret); err == nil {
					out = append(out, b)
				}
			}
			return out, nil
		},
		Client:   webhook.NewClient(webhook.ClientOptions{AllowLocalhost: d.Config.AllowLocalhostURLs}),
		URLs:     d.URLs,
		SQS:      d.SQS,
		QueueURL: d.Config.WebhookQueueURL,
		Logger:   d.Logger,
	}
}

// WebhookRedrive builds the scheduled job that re-enqueues events still pending.
func WebhookRedrive(d *app.Deps) *webhook.Redrive {
	return &webhook.Redrive{Store: d.Store, Queue: &webhook.Queue{SQS: d.SQS, URL: d.Config.WebhookQueueURL}}
}
