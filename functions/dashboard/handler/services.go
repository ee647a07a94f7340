package handler

import (
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/dashboard"
)

// Service builds the dashboard over the domain services. The domain packages (account,
// credential, team, activity, passkey) are adapted to the dashboard's interfaces here.
func Service(d *app.Deps) *dashboard.Service {
	return &dashboard.Service{Origins: d.Config.DashboardOrigins, Now: d.Now}
}
