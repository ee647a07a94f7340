// Package handler is PublicDocumentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/publicdoc"
	"github.com/takapay/payments/shared/web"
)

// Function is PublicDocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "PublicDocumentsFunction", Name: "public-documents", Build: Build}

// Build wires the public document page (no merchant credential; the token is the capability).
func Build(d *app.Deps) app.API {
	s := &publicdoc.Service{Store: d.Store, AllowLocalhostFormAction: d.Config.AllowLocalhostURLs}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /v1/public/documents/{token}": s.View,
	}}
}
