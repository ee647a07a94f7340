// Package handler is DashboardPublicFunction of template.yaml: the dashboard's pages that
// anyone may post without a session and that send email or make an account — sign up, its
// verification, forgot password and the reset. They are split from DashboardFunction so that
// a flood of them spends this function's own reserved concurrency
// (DashboardPublicReservedConcurrency), never the one that serves signed-in merchants'
// sign-in, keys and team pages. Their posts are limited per client address and globally
// across instances (dashboard.FormLimits). It sends email and seals nothing.
package handler

import (
	"log/slog"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/aws/sesmail"
	"github.com/takapay/payments/shared/foundation/web"
)

// Function is DashboardPublicFunction.
var Function = app.HTTPFunction{LogicalID: "DashboardPublicFunction", Name: "dashboard-public", Build: Build}

// Build wires the public pages: the dashboard's pages and accounts (package wire) with the
// email sender, SES v2 (MAIL_FROM, and SES_ENDPOINT locally).
func Build(d *app.Deps) app.API {
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := wire.Build(d, sesmail.FromEnv(d.AWS, d.Config.Lookup, logger), nil).Service
	return app.API{ErrorPage: s.ErrorPage, Routes: web.Routes{
		"GET /dashboard/sign-up":          s.SignUpPage,
		"POST /dashboard/sign-up":         s.SignUp,
		"GET /dashboard/check-email":      s.CheckEmail,
		"GET /dashboard/verify-email":     s.VerifyPage,
		"POST /dashboard/verify-email":    s.Verify,
		"GET /dashboard/forgot-password":  s.ForgotPage,
		"POST /dashboard/forgot-password": s.Forgot,
		"GET /dashboard/reset-password":   s.ResetPage,
		"POST /dashboard/reset-password":  s.Reset,
	}}
}
