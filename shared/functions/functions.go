// Package functions is the one registry of Lambda functions: each template.yaml function's
// logical id maps to the handler it runs. The deployed binaries (functions/*/main.go), the
// local stack and the tests all build handlers from here, so they cannot run different code.
package functions

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/httpapi"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/probes"
)

// Function is one deployable function.
type Function struct {
	// Name appears in every log line of the function.
	Name  string
	Build app.Builder
}

// Registry maps template.yaml logical ids to functions.
var Registry = map[string]Function{
	"PaymentCreateFunction": {Name: "payment-create", Build: PaymentCreate},
	"PaymentVerifyFunction": {Name: "payment-verify", Build: PaymentVerify},
	"ProbesFunction":        {Name: "probes", Build: Probes},
	"DocumentsFunction":     {Name: "documents", Build: Documents},
	"CheckoutFunction":      {Name: "checkout", Build: Checkout},
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
	app.Start(f.Name, f.Build)
}

// Lambda builds the Lambda handler of a registered function from Deps (for the local stack).
func Lambda(logicalID string, d *app.Deps) (httpapi.LambdaHandler, error) {
	f, ok := Registry[logicalID]
	if !ok {
		return nil, fmt.Errorf("no function %q in the registry", logicalID)
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
	checkout.AllowLocalhostRedirects = d.Config.AllowLocalhostURLs
	s := &checkout.Service{Store: d.Store, Limiter: &checkout.Limiter{
		PerToken: d.Config.CheckoutRatePerToken, PerClient: d.Config.CheckoutRatePerClient}}
	return s.Handle
}
