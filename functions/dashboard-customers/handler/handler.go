// Package handler is DashboardCustomersFunction of template.yaml: the dashboard's customers
// pages (list and search, a customer with its invoices, create, edit). Its own function for
// least privilege: besides the sign-in check's reads (session, user, memberships, workspace
// names), it reads and writes customer documents only, never an invoice, a payment link, a
// payment or a key (docs/dashboard.md).
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is DashboardCustomersFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardCustomersFunction", Name: "dashboard-customers", Build: Build}

// Build wires the customers pages: the dashboard's pages and sessions (package wire) with the
// documents rules (package document), which the pages call for the customers kind.
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.CustomersMessages()) // the words of the page groups this function serves
	s := wire.Build(d, nil, nil).Service
	s.Documents = &document.Service{Store: d.Store, URLs: d.URLs}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/customers":                    s.CustomersPage,
		"GET /dashboard/customers/new":                s.NewCustomerPage,
		"POST /dashboard/customers":                   s.CreateCustomer,
		"GET /dashboard/customers/{documentID}":       s.CustomerPage,
		"GET /dashboard/customers/{documentID}/edit":  s.EditCustomerPage,
		"POST /dashboard/customers/{documentID}/edit": s.EditCustomer,
	}}
}
