// Package handler is DashboardDocumentsFunction of template.yaml: the dashboard's invoice and
// payment-link pages (lists, detail with the public link and a payment link's QR code, the
// lifecycle commands). Its own function: it calls the documents rules (document.Service)
// and draws QR codes (shared/edge/qr), which DashboardFunction does not link,
// and its IAM reaches the documents and their payments' deliveries, which the sign-in pages'
// function has no business reading.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/edge/qr"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is DashboardDocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardDocumentsFunction", Name: "dashboard-documents", Build: Build}

// Build wires the pages: the dashboard's sessions (package wire) and the documents rules
// (package document), which the pages call directly.
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.DocumentsMessages(), dashboard.DocFormMessages()) // the words of the page groups this function serves
	p := wire.Build(d, nil, nil)
	s := p.Service
	s.QR = qrCodes{}
	s.Documents = &document.Service{Store: d.Store, URLs: d.URLs}
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
		"GET /dashboard/invoices/new":                        s.NewInvoicePage,
		"POST /dashboard/invoices":                           s.CreateInvoice,
		"GET /dashboard/invoices/{documentID}/edit":          s.EditInvoicePage,
		"POST /dashboard/invoices/{documentID}/edit":         s.EditInvoice,
		"GET /dashboard/payment-links/new":                   s.NewPaymentLinkPage,
		"POST /dashboard/payment-links":                      s.CreatePaymentLink,
		"GET /dashboard/payment-links/{documentID}/edit":     s.EditPaymentLinkPage,
		"POST /dashboard/payment-links/{documentID}/edit":    s.EditPaymentLink,
	}}
}

// qrCodes draws QR codes with package qr for the pages (dashboard.QRCodes).
type qrCodes struct{}

func (qrCodes) SVG(url, title string) ([]byte, string, error) {
	b, err := qr.SVG(url, qr.SVGOptions{Title: title})
	return b, qr.SVGContentType, err
}

func (qrCodes) PNG(url string, size int) ([]byte, string, error) {
	b, err := qr.PNG(url, size)
	return b, qr.PNGContentType, err
}
