// Package handler is PublicDocumentsFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/publicdoc"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/web"
)

// Function is PublicDocumentsFunction.
var Function = app.HTTPFunction{LogicalID: "PublicDocumentsFunction", Name: "public-documents", Build: Build}

// Build wires the public document page and the payer's POST (no merchant credential; the
// token is the capability). The POST shares the checkout's abuse limits per token and client.
func Build(d *app.Deps) app.API {
	s := &publicdoc.Service{Store: d.Store, AllowLocalhostFormAction: d.Config.AllowLocalhostURLs}
	c := &publicdoc.Checkout{Store: d.Store, Tokens: d.Config.CheckoutTokenKey, AllowLocalhostFormAction: d.Config.AllowLocalhostURLs,
		Limiter: &ratelimit.CapabilityLimiter{PerToken: d.Config.CheckoutRatePerToken, PerClient: d.Config.CheckoutRatePerClient}}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /v1/public/documents/{token}":  s.View,
		"POST /v1/public/documents/{token}": c.Pay,
	}}
}
