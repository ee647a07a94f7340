// Package handler is DashboardFunction of template.yaml: its route table and wiring.
package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is DashboardFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardFunction", Name: "dashboard", Build: Build}

// Build wires the dashboard's pages to the domain services (services.go). The passkey pages
// (/dashboard/passkeys...) are DashboardPasskeysFunction's; sign up, email verification,
// forgot password and the reset are DashboardPublicFunction's (their own reserved
// concurrency).
func Build(d *app.Deps) app.API {
	dashboard.UseMessages(dashboard.HomeExportMessages()) // the words of the page groups this function serves
	s := Service(d)
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard":                                 s.Home,
		"POST /dashboard/workspace":                      s.SwitchWorkspace,
		"GET /dashboard/sign-in":                         s.SignInPage,
		"POST /dashboard/sign-in":                        s.SignIn,
		"POST /dashboard/sign-out":                       s.SignOut,
		"POST /dashboard/sign-out-everywhere":            s.SignOutEverywhere,
		"POST /dashboard/confirm-password":               s.ConfirmPassword,
		"GET /dashboard/passkeys/activate":               s.ActivatePasskeys,
		"GET /dashboard/keys":                            s.KeysPage,
		"POST /dashboard/keys":                           s.CreateKey,
		"POST /dashboard/keys/{keyID}/revoke":            s.RevokeKey,
		"POST /dashboard/keys/{keyID}/roll":              s.RollKey,
		"GET /dashboard/webhook-secrets":                 s.SecretsPage,
		"POST /dashboard/webhook-secrets":                s.IssueSecret,
		"POST /dashboard/webhook-secrets/endpoint":       s.SetEndpoint,
		"GET /dashboard/team":                            s.TeamPage,
		"POST /dashboard/team/invites":                   s.InviteMember,
		"POST /dashboard/team/invites/{inviteID}/revoke": s.RevokeInvite,
		"POST /dashboard/team/members/{userID}/role":     s.ChangeRole,
		"POST /dashboard/team/members/{userID}/remove":   s.RemoveMember,
		"POST /dashboard/team/transfer":                  s.TransferOwnership,
		"POST /dashboard/team/leave":                     s.Leave,
		"GET /dashboard/invite":                          s.InvitePage,
		"POST /dashboard/invite":                         s.AcceptInvite,
		"GET /dashboard/activity":                        s.ActivityPage,
	}}
}
