// Package handler is RefundsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/refundapi"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/refund"
)

// Function is RefundsFunction.
var Function = app.HTTPFunction{LogicalID: "RefundsFunction", Name: "refunds", Build: Build}

// Build wires the merchant refund operations (sandbox only: the rule refuses live writes).
// REFUND_DUE_DAYS (the template's RefundDueDays) sets due_by at approval.
func Build(d *app.Deps) app.API {
	svc := &refund.Service{Store: d.Store, Policies: d.Store, Keys: d.Store, Now: d.Now,
		DueDays: refund.DueDays(d.Config.Lookup)}
	s := &refundapi.API{Auth: d.Auth, Refunds: svc}
	return app.API{Routes: web.Routes{
		"GET /v1/workspaces/{workspaceID}/refunds":                             s.List,
		"POST /v1/workspaces/{workspaceID}/refunds":                            web.JSONBody(s.Create),
		"GET /v1/workspaces/{workspaceID}/refunds/{refundID}":                  s.Get,
		"POST /v1/workspaces/{workspaceID}/refunds/{refundID}/review":          web.JSONBody(s.Transition(refund.Review)),
		"POST /v1/workspaces/{workspaceID}/refunds/{refundID}/approve":         web.JSONBody(s.Transition(refund.Approve)),
		"POST /v1/workspaces/{workspaceID}/refunds/{refundID}/reject":          web.JSONBody(s.Transition(refund.Reject)),
		"POST /v1/workspaces/{workspaceID}/refunds/{refundID}/report-returned": web.JSONBody(s.Transition(refund.ReportReturned)),
		"POST /v1/workspaces/{workspaceID}/refunds/{refundID}/cancel":          web.JSONBody(s.Transition(refund.Cancel)),
	}}
}
