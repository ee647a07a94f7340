// Package handler is DashboardDocumentsFunction of template.yaml: the dashboard's invoice and
// payment-link pages (lists, detail with the public link and a payment link's QR code, the
// lifecycle commands). Its own function: it runs the documents API's handlers in-process
// (document.Service) and draws QR codes (shared/qr), which DashboardFunction does not link,
// and its IAM reaches the documents and their payments' deliveries, which the sign-in pages'
// function has no business reading.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/dashboard/wire"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/web"
)

// Function is DashboardDocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardDocumentsFunction", Name: "dashboard-documents", Build: Build}

// Build wires the pages: the dashboard's sessions (package wire) and the documents API's own
// handlers, built exactly as DocumentsFunction builds them, which the pages run (Service.API).
func Build(d *app.Deps) app.API {
	p := wire.Build(d, nil, nil)
	s := p.Service
	docs := &document.Service{Auth: d.Auth, Store: d.Store, URLs: d.URLs}
	const (
		invoices = document.Invoices
		links    = document.PaymentLinks
	)
	s.API = web.Routes{
		"GET /v1/workspaces/{workspaceID}/documents/invoices":                            docs.List(invoices),
		"POST /v1/workspaces/{workspaceID}/documents/invoices":                           docs.Create(invoices),
		"GET /v1/workspaces/{workspaceID}/documents/invoices/{documentID}":               docs.Get(invoices),
		"PATCH /v1/workspaces/{workspaceID}/documents/invoices/{documentID}":             docs.Edit(invoices),
		"POST /v1/workspaces/{workspaceID}/documents/invoices/{documentID}/issue":        docs.Transition(invoices, "issue"),
		"POST /v1/workspaces/{workspaceID}/documents/invoices/{documentID}/cancel":       docs.Transition(invoices, "cancel"),
		"GET /v1/workspaces/{workspaceID}/documents/payment-links":                       docs.List(links),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links":                      docs.Create(links),
		"GET /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}":          docs.Get(links),
		"PATCH /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}":        docs.Edit(links),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}/publish": docs.Transition(links, "publish"),
		"POST /v1/workspaces/{workspaceID}/documents/payment-links/{documentID}/archive": docs.Transition(links, "archive"),
	}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/invoices":                            s.InvoicesPage,
		"GET /dashboard/invoices/{documentID}":               s.InvoicePage,
		"POST /dashboard/invoices/{documentID}/issue":        s.IssueInvoice,
		"POST /dashboard/invoices/{documentID}/cancel":       s.CancelInvoice,
		"GET /dashboard/payment-links":                       s.PaymentLinksPage,
		"GET /dashboard/payment-links/{documentID}":          s.PaymentLinkPage,
		"POST /dashboard/payment-links/{documentID}/publish": s.PublishPaymentLink,
		"POST /dashboard/payment-links/{documentID}/archive": s.ArchivePaymentLink,
		"GET /dashboard/payment-links/{documentID}/qr.svg":   s.PaymentLinkQRSVG,
		"GET /dashboard/payment-links/{documentID}/qr.png":   s.PaymentLinkQRPNG,
	}}
}
