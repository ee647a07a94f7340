// Package registry lists every Lambda function of template.yaml for the local tooling: `make
// dev`, the local gateway and the tests build each function's handler from here, through the
// very package its deployed main uses (functions/<dir>/handler), so they cannot run different
// code. Local tooling: no Lambda links it — each functions/<dir>/main.go links only its own
// handler package.
package registry

import (
	"fmt"
	"sort"

	checkout "github.com/takapay/payments/functions/checkout/handler"
	dashboardcustomers "github.com/takapay/payments/functions/dashboard-customers/handler"
	dashboarddocuments "github.com/takapay/payments/functions/dashboard-documents/handler"
	dashboardexport "github.com/takapay/payments/functions/dashboard-export/handler"
	dashboardpasskeys "github.com/takapay/payments/functions/dashboard-passkeys/handler"
	dashboardpayments "github.com/takapay/payments/functions/dashboard-payments/handler"
	dashboardpublic "github.com/takapay/payments/functions/dashboard-public/handler"
	dashboardwebhooks "github.com/takapay/payments/functions/dashboard-webhooks/handler"
	dashboard "github.com/takapay/payments/functions/dashboard/handler"
	documents "github.com/takapay/payments/functions/documents/handler"
	merchant "github.com/takapay/payments/functions/merchant/handler"
	paymentcreate "github.com/takapay/payments/functions/payment-create/handler"
	paymentintentcancel "github.com/takapay/payments/functions/payment-intent-cancel/handler"
	paymentintents "github.com/takapay/payments/functions/payment-intents/handler"
	paymentverify "github.com/takapay/payments/functions/payment-verify/handler"
	probes "github.com/takapay/payments/functions/probes/handler"
	publicdocuments "github.com/takapay/payments/functions/public-documents/handler"
	refunds "github.com/takapay/payments/functions/refunds/handler"
	webhookredrive "github.com/takapay/payments/functions/webhook-redrive/handler"
	webhooksender "github.com/takapay/payments/functions/webhook-sender/handler"
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/httpapi"
	"github.com/takapay/payments/shared/webhook"
)

// A local stack without local-kms (most tests; make dev runs it) has no KMS: its in-process
// sender opens webhook secrets with LOCAL_SEALING_KEY (the stack's own key) when the
// configuration names no KMS key. The deployed sender's SealerFor
// is KMS only, so its binary does not link the local sealer.
func init() {
	webhooksender.SealerFor = func(d *app.Deps) (webhook.Sealer, error) {
		return kmsseal.New(d.AWS, d.Config.WebhookSecretsKeyID, d.Config.LocalSealingKey)
	}
	// The dashboard's webhooks page signs its test events as the sender does.
	dashboardwebhooks.SealerFor = webhooksender.SealerFor
}

// HTTP lists the functions behind the HTTP API, keyed by logical id.
var HTTP = index([]app.HTTPFunction{
	paymentcreate.Function, paymentverify.Function, probes.Function, documents.Function, checkout.Function,
	merchant.Function, paymentintents.Function, paymentintentcancel.Function, publicdocuments.Function,
	dashboard.Function, dashboardpasskeys.Function, dashboarddocuments.Function, dashboardwebhooks.Function, dashboardcustomers.Function, dashboardpayments.Function, dashboardexport.Function,
	dashboardpublic.Function, refunds.Function,
}, func(f app.HTTPFunction) string { return f.LogicalID })

// Workers lists the functions that are not behind the HTTP API, keyed by logical id.
var Workers = index([]app.Worker{
	webhooksender.Function, webhookredrive.Function,
}, func(f app.Worker) string { return f.LogicalID })

func index[F any](fs []F, id func(F) string) map[string]F {
	m := make(map[string]F, len(fs))
	for _, f := range fs {
		if _, dup := m[id(f)]; dup {
			panic("registry: duplicate function " + id(f))
		}
		m[id(f)] = f
	}
	return m
}

// LogicalIDs returns every registered logical id, sorted.
func LogicalIDs() []string {
	var ids []string
	for id := range HTTP {
		ids = append(ids, id)
	}
	for id := range Workers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Name returns the log name of a registered function ("" if none).
func Name(logicalID string) string {
	if f, ok := HTTP[logicalID]; ok {
		return f.Name
	}
	return Workers[logicalID].Name
}

// Lambda builds the Lambda handler of a registered HTTP function from Deps.
func Lambda(logicalID string, d *app.Deps) (httpapi.LambdaHandler, error) {
	f, ok := HTTP[logicalID]
	if !ok {
		return nil, fmt.Errorf("no HTTP API function %q in the registry", logicalID)
	}
	return f.Lambda(d), nil
}

// WebhookConsumer builds WebhookSenderFunction's SQS handler (for the local queue poller).
func WebhookConsumer(d *app.Deps) *sqsqueue.Consumer { return webhooksender.Consumer(d) }

// WebhookSender builds WebhookSenderFunction's sender.
func WebhookSender(d *app.Deps) *webhook.Sender { return webhooksender.Sender(d) }

// WebhookRedrive builds WebhookRedriveFunction's job.
func WebhookRedrive(d *app.Deps) *webhook.Redrive { return webhookredrive.Redrive(d) }
