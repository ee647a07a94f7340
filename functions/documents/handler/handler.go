// Package handler is DocumentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/edge/documentapi"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is DocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "DocumentsFunction", Name: "documents", Build: Build}

// Build wires the documents operations (customers, invoices, payment-links).
func Build(d *app.Deps) app.API {
	s := &documentapi.API{Auth: d.Auth, Docs: &document.Service{Store: d.Store, URLs: d.URLs}}
	const (
		customers = document.Customers
		invoices  = document.Invoices
		links     = document.PaymentLinks
	)
	return app.API{Routes: web.Routes{
		"GET /v1/workspaces/{workspaceID}/documents/customers":                s.List(customers),
		"POST /v1/workspaces/{workspaceID}/documents/customers":               web.JSONBody(s.Create(customers)),
		"GET /v1/workspaces/{workspaceID}/documents/customers/{documentID}":   s.Get(customers),
		"PATCH /v1/workspaces/{workspaceID}/documents/customers/{documentID}": web.MergePatchBody(s.Edit(customers)),

		"GET /v1/workspaces/{workspaceID}/documents/invoices":                      s.List(invoices),
		"POST /v1/workspaces/{workspaceID}/documents/invoices":                     web.JSONBody(s.Create(invoices)),
		"GET /v1/workspaces/{workspaceID}/documents/invoices/{documentID}":         s.Get(invoices),
		"PATCH /v1/workspaces/{workspaceID}/documents/invoices/{documentID}":       web.MergePatchBody(s.Edit(invoices)),
		"POST /v1/workspaces/{workspaceID}/documents/invoices/{documentID}/issue":  s.Transition(invoices, "issue"),
		"POST /v1/workspaces/{workspaceID}/documents/invoices/{documentID}/cancel": s.Transition(invoices, "cancel"),

		"GET /v1/workspaces/{workspaceID}/documents/payment-links":                       s.List(links),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links":                      web.JSONBody(s.Create(links)),
		"GET /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}":          s.Get(links),
		"PATCH /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}":        web.MergePatchBody(s.Edit(links)),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}/publish": s.Transition(links, "publish"),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}/archive": s.Transition(links, "archive"),
	}}
}
