package handler

import (
	"log/slog"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sesmail"
	"github.com/takapay/payments/shared/edge/dashboard"
)

// Service builds the dashboard (package wire) with the email sender, SES v2 (MAIL_FROM, and
// SES_ENDPOINT locally), and the webhook secrets' sealer, KMS Encrypt (the local stack's key
// locally). The passkey pages are DashboardPasskeysFunction's: this binary does not link
// go-webauthn; its sign-in page only links to them.
func Service(d *app.Deps) *dashboard.Service {
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	sender := sesmail.FromEnv(d.AWS, d.Config.Lookup, logger)
	sealer, err := kmsseal.New(d.AWS, d.Config.WebhookSecretsKeyID, d.Config.LocalSealingKey)
	if err != nil && d.Store != nil {
		logger.Warn("dashboard: webhook secrets cannot be issued", slog.String("error", err.Error()))
	}
	p := wire.Build(d, sender, sealer)
	p.Service.OfferPasskeys = p.Origin != nil
	if d.Store != nil {
		p.Service.Payments = d.Store // the overview's payments (GSI3 and BatchGetItem)
	}
	return p.Service
}
