// Package handler is ProbesFunction of template.yaml: its route table and wiring.
package handler

import (
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/probes"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is ProbesFunction.
var Function = app.HTTPFunction{LogicalID: "ProbesFunction", Name: "probes", Build: Build}

// Build wires the function's routes. $default takes every request no other route matches:
// published-but-not-deployed operations (404 NOT_DEPLOYED), wrong methods (405) and unknown
// paths (404), always in the error envelope.
func Build(d *app.Deps) app.API {
	h := &probes.Handler{Table: d.Store, Queue: d.SQS, QueueURL: d.Config.WebhookQueueURL,
		CacheFor: 5 * time.Second, Timeout: 2 * time.Second}
	return app.API{Routes: web.Routes{
		"GET /healthz": h.Healthz,
		"GET /readyz":  h.Ready,
		"$default":     probes.Fallback,
	}}
}
