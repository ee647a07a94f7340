package handler

import (
	"context"
	"errors"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/app/wire"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/passkey"
)

// passkeyEvents records every passkey sign-in's outcome in the user's workspaces.
type passkeyEvents struct{ rec *wire.Recorder }

func (p passkeyEvents) event(ctx context.Context, e passkey.Event) {
	action := activity.SignInSucceeded
	if e.Kind != passkey.EventSignInSucceeded {
		action = activity.SignInFailed
	}
	p.rec.ToUser(ctx, e.UserID, activity.Event{ActorUserID: e.UserID, Action: action, Target: "passkey " + short(e.PasskeyID),
		IP: e.Client.IP, UserAgent: e.Client.UserAgent})
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

// --- passkeys ---

type passkeysAdapter struct {
	p   *passkey.Service
	rec *wire.Recorder
}

// passkeyErr gives the passkey service's sentinels their codes (a bad name is already a
// VALIDATION_FAILED *apierr.Error).
func passkeyErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, passkey.ErrNotFound):
		return apierr.New(apierr.NotFound, "no such passkey")
	case errors.Is(err, passkey.ErrTooMany):
		return apierr.New(apierr.StateConflict, "%s", err.Error())
	case errors.Is(err, passkey.ErrStaleProof):
		return dashboard.ErrProofNeeded
	}
	return err
}

func (p passkeysAdapter) BeginRegistration(ctx context.Context, userID, email string, provedAt time.Time) (string, string, error) {
	c, err := p.p.BeginRegistration(ctx, userID, email, provedAt)
	if err != nil {
		if errors.Is(err, passkey.ErrTooMany) {
			return "", "", nil
		}
		return "", "", passkeyErr(err)
	}
	return c.Options, c.ID, nil
}

// FinishRegistration adds the passkey, pending until /dashboard/passkeys/activate.
func (p passkeysAdapter) FinishRegistration(ctx context.Context, userID, ceremony, name, response string, provedAt time.Time, c dashboard.Client) error {
	_, err := p.p.FinishRegistration(ctx, userID, ceremony, name, response, provedAt)
	if errors.Is(err, passkey.ErrCeremony) || errors.Is(err, passkey.ErrRefused) || errors.Is(err, passkey.ErrDuplicate) {
		return apierr.Field("name", "passkey", err.Error())
	}
	if err != nil {
		return passkeyErr(err)
	}
	// Pending: DashboardFunction's /dashboard/passkeys/activate (where the page goes next)
	// emails the owner, then activates it and records it in the activity log.
	return nil
}

func (p passkeysAdapter) List(ctx context.Context, userID string) ([]dashboard.Passkey, error) {
	list, err := p.p.List(ctx, userID)
	if err != nil {
		return nil, passkeyErr(err)
	}
	out := make([]dashboard.Passkey, 0, len(list))
	for _, r := range list {
		out = append(out, dashboard.Passkey{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt, LastUsed: r.LastUsedAt, Pending: r.Pending})
	}
	return out, nil
}

func (p passkeysAdapter) Rename(ctx context.Context, userID, id, name string) error {
	return passkeyErr(p.p.Rename(ctx, userID, id, name))
}

// Remove removes the passkey and records it in the activity log of each of the user's
// workspaces.
func (p passkeysAdapter) Remove(ctx context.Context, userID, id string, c dashboard.Client) error {
	if err := p.p.Remove(ctx, userID, id); err != nil {
		return passkeyErr(err)
	}
	p.rec.ToUser(ctx, userID, activity.Event{ActorUserID: userID, Action: activity.PasskeyRemoved,
		Target: "passkey " + short(id), IP: c.IP, UserAgent: c.UserAgent})
	return nil
}

func (p passkeysAdapter) BeginLogin(ctx context.Context) (string, string, error) {
	c, err := p.p.BeginLogin(ctx)
	if err != nil {
		return "", "", passkeyErr(err)
	}
	return c.Options, c.ID, nil
}

func (p passkeysAdapter) FinishLogin(ctx context.Context, ceremony, response string, c dashboard.Client) (*dashboard.Session, error) {
	s, err := p.p.FinishLogin(ctx, ceremony, response, passkey.Client{IP: c.IP, UserAgent: c.UserAgent})
	if errors.Is(err, passkey.ErrCeremony) || errors.Is(err, passkey.ErrRefused) || errors.Is(err, passkey.ErrCloned) {
		return nil, account.ErrBadCredentials
	}
	if err != nil {
		return nil, passkeyErr(err)
	}
	return &dashboard.Session{Token: s.Token, UserID: s.UserID, ExpiresAt: s.ExpiresAt}, nil
}
