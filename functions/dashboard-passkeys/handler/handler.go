// Package handler is DashboardPasskeysFunction of template.yaml: the dashboard's passkey
// pages (register, list, rename, remove; sign in with a passkey), split from
// DashboardFunction because go-webauthn would take that binary past the size bound
// (docs/dashboard.md). It sends no email and seals nothing: a new passkey is stored pending,
// and DashboardFunction's activation page emails its owner before it works (decision 46).
package handler

import (
	"log/slog"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/passkey"
)

// Function is DashboardPasskeysFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardPasskeysFunction", Name: "dashboard-passkeys", Build: Build}

// Build wires the passkey pages: the dashboard's pages and sessions (package wire) with the
// passkey service, whose relying party is the dashboard's origin.
func Build(d *app.Deps) app.API {
	p := wire.Build(d, nil, nil)
	s := p.Service
	s.OfferPasskeys = true
	s.PasskeyScript = passkey.ScriptSource()
	if p.Origin != nil {
		pk, err := passkey.New(passkey.Config{Origin: p.Origin.Scheme + "://" + p.Origin.Host, RPID: p.Origin.Hostname(),
			Name: "Takapay", Now: d.Now, OnEvent: passkeyEvents{rec: p.Recorder}.event}, d.Store, wire.SessionStarter{A: p.Accounts})
		if err == nil {
			s.Passkeys = passkeysAdapter{p: pk, rec: p.Recorder}
		} else if d.Logger != nil {
			d.Logger.Warn("dashboard: passkeys off", slog.String("error", err.Error()))
		}
	}
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/passkeys":                     s.PasskeysPage,
		"POST /dashboard/passkeys/register":           s.FinishPasskeyRegistration,
		"POST /dashboard/passkeys/{passkeyID}/rename": s.RenamePasskey,
		"POST /dashboard/passkeys/{passkeyID}/remove": s.RemovePasskey,
		"POST /dashboard/passkeys/sign-in":            s.PasskeySignIn,
		"POST /dashboard/passkeys/sign-in/finish":     s.FinishPasskeySignIn,
	}}
}
