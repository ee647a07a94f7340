// Package handler is DashboardExportFunction of template.yaml: the dashboard's payments
// and refunds export (the form and the CSVs). Its own function because an export reads up to a whole
// range of payments into one buffered response: it needs a longer timeout and more memory
// than the pages, and only read access to payments (plus the session's idle deadline and the
// activity record). It sends no email and seals nothing.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/refund"
)

// Function is DashboardExportFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardExportFunction", Name: "dashboard-export", Build: Build}

// Build wires the export pages: the dashboard's pages and sessions (package wire) with the
// store's payments stream and the activity log.
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.HomeExportMessages(), dashboard.RefundsMessages()) // the words of the page groups this function serves (the refunds CSV names reasons in both languages)
	p := wire.Build(d, nil, nil)
	s := p.Service
	if d.Store != nil {
		s.Payments = d.Store
		s.Refunds = &refund.Service{Store: d.Store, Now: d.Now} // the refunds CSV: list only
	}
	s.Exports = p.Recorder
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/export":     s.ExportPage,
		"GET /dashboard/export.csv": s.ExportCSV,
	}}
}
