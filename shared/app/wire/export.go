package wire

import (
	"context"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/edge/dashboard"
)

// RecordExport records a payments export in the workspace's activity log (dashboard.ExportRecorder).
func (r *Recorder) RecordExport(ctx context.Context, a dashboard.Actor, target string) {
	r.record(ctx, activity.Event{WorkspaceID: a.WorkspaceID, ActorUserID: a.UserID, ActorEmail: a.Email,
		Action: activity.PaymentsExported, Target: target, IP: a.Client.IP, UserAgent: a.Client.UserAgent})
}
