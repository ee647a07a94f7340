// Package wire builds the dashboard's services for the functions that serve it (DashboardFunction,
// DashboardPasskeysFunction): it builds the domain services — account, team and activity,
// credential — over the function's store, sender and sealer, and the Recorder that writes the
// activity of the services that do not record their own. The rules' refusals reach the pages as
// they return them (*apierr.Error), and the services are the dashboard's interfaces as they are,
// but for a session's user with its email (Authenticate) and the keys (their activity records and
// their creators' emails). It links no AWS client of its own (each
// function brings its email sender and its sealer) and not go-webauthn (only the passkeys function
// does).
package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/edge/dashboard"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/mail"
	"github.com/takapay/payments/shared/passkey/record"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/team"
	"github.com/takapay/payments/shared/webhook"
)

// recordTimeout bounds an activity record made after a change succeeded.
const recordTimeout = 2 * time.Second

// Parts are the dashboard and the services behind it.
type Parts struct {
	Service  *dashboard.Service
	Accounts *account.Service
	Teams    *team.Service
	Recorder *Recorder
	// Origin is the dashboard's origin (the first of DASHBOARD_ORIGINS, else
	// PUBLIC_BASE_URL): the emails' links and the passkeys' relying party.
	Origin *url.URL
}

// Build wires the dashboard over the domain services. sender sends the emails (nil: every
// email fails, reported as a mail.failed event); sealer seals new webhook secrets (nil:
// issuing them fails).
func Build(d *app.Deps, sender mail.Sender, sealer webhook.Sealer) *Parts {
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	origin := d.Config.DashboardOrigin()
	base := strings.TrimRight(origin, "/") + "/dashboard"
	if sender == nil {
		sender = failingSender{}
	}
	act := activity.New(d.Store, d.Now)
	var quotas *ratelimit.Quotas
	if d.Store != nil {
		quotas = &ratelimit.Quotas{Store: d.Store, Now: d.Now}
	}
	teams := team.New(team.Config{BaseURL: base, Now: d.Now, Recorder: act, Quotas: quotas,
		OnRecordError: func(ctx context.Context, e activity.Event, err error) {
			logger.Warn("activity record failed", slog.String("action", e.Action), slog.String("error", err.Error()))
		}}, d.Store, sender)
	rec := &Recorder{act: act, teams: teams, logger: logger}
	var keys account.Passkeys
	if d.Store != nil {
		keys = passkeyItems{d.Store}
	}
	accounts := account.New(account.Config{BaseURL: base, Now: d.Now, OnEvent: rec.accountEvent, Passkeys: keys}, d.Store, sender)
	creds := &credential.Service{Store: d.Store, Sealer: sealer, Now: d.Now}
	s := &dashboard.Service{
		Accounts: accountService{accounts},
		Team:     teams,
		Keys:     keysAdapter{c: creds, rec: rec, emails: userEmails(d), store: d.Store, urls: d.URLs},
		Activity: act,
		Origins:  d.Config.DashboardOrigins,
		Now:      d.Now,
		// Plain http is only the local stack's (make dev, the tests): browsers keep Secure
		// cookies from http://localhost, but Go clients do not send them back over http.
		InsecureCookies: strings.HasPrefix(origin, "http://"),
		// https: the session and form-token cookies carry the __Host- prefix.
		HostCookies: auth.HostCookies(origin),
	}
	if d.Store != nil {
		s.Forms = d.Store // the create forms' one-use tokens (dashboard/once.go)
	}
	if quotas != nil {
		s.FormLimits = &dashboard.FormLimits{Quotas: quotas, PerClient: d.Config.FormLimitPerClient, Global: d.Config.FormLimitGlobal}
	}
	p := &Parts{Service: s, Accounts: accounts, Teams: teams, Recorder: rec}
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		p.Origin = u
	}
	return p
}

// failingSender stands in when MAIL_FROM is not configured: every email fails (and is
// reported as a mail.failed event), the pages still answer.
type failingSender struct{}

func (failingSender) Send(context.Context, mail.Message) error {
	return errors.New("dashboard: no email sender configured (MAIL_FROM)")
}

// Recorder writes the activity of the services that do not record their own.
type Recorder struct {
	act    *activity.Service
	teams  *team.Service
	logger *slog.Logger
}

func (r *Recorder) record(ctx context.Context, e activity.Event) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := r.act.Record(ctx, e); err != nil {
		r.logger.Warn("activity record failed", slog.String("action", e.Action), slog.String("error", err.Error()))
	}
}

// ToUser records an event of a user in each of their workspaces.
func (r *Recorder) ToUser(ctx context.Context, userID string, e activity.Event) {
	if userID == "" {
		return // an unknown email: no workspace to tell
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	ws, err := r.teams.Workspaces(ctx, userID)
	if err != nil {
		r.logger.Warn("activity: workspaces of user", slog.String("error", err.Error()))
		return
	}
	for _, w := range ws {
		e.WorkspaceID = w.WorkspaceID
		r.record(ctx, e)
	}
}

func (r *Recorder) accountEvent(ctx context.Context, e account.Event) {
	switch e.Kind {
	case account.EventSignInSucceeded, account.EventSignInFailed, account.EventSignInLimited,
		account.EventPasswordReset, account.EventSignOutEverywhere, account.EventPasskeysRemoved, account.EventPasskeyAdded:
		r.ToUser(ctx, e.UserID, activity.Event{ActorUserID: e.UserID, ActorEmail: e.Email, Action: e.Kind,
			Target: e.Target, IP: e.Client.IP, UserAgent: e.Client.UserAgent})
	case account.EventMailFailed:
		msg := ""
		if e.Err != nil {
			msg = e.Err.Error()
		}
		r.logger.Error("dashboard email not sent", slog.String("user_id", e.UserID), slog.String("error", msg))
	}
}

// --- account ---

// accountService is the account service as the dashboard's Accounts: the service's own methods, and
// Authenticate answering with the session's user and email.
type accountService struct{ *account.Service }

func (a accountService) Authenticate(ctx context.Context, token string) (*dashboard.SessionUser, error) {
	info, err := a.Service.Authenticate(ctx, token)
	if err != nil {
		return nil, err
	}
	u, err := a.User(ctx, info.UserID)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, account.ErrNoSession
	}
	return &dashboard.SessionUser{UserID: u.ID, Email: u.Email, CSRF: info.CSRFToken, ProvedAt: info.ProvedAt}, nil
}

// passkeyItems fits the passkey items (package passkey's record.Store, which shared/aws/dynamo
// implements) to account.Passkeys, without linking go-webauthn.
type passkeyItems struct{ s record.Store }

func (p passkeyItems) ListPasskeys(ctx context.Context, userID string) ([]account.PasskeyInfo, error) {
	recs, err := p.s.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(recs, func(a, b *record.Passkey) int { return a.CreatedAt.Compare(b.CreatedAt) })
	out := make([]account.PasskeyInfo, 0, len(recs))
	for _, r := range recs {
		out = append(out, account.PasskeyInfo{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt, Pending: r.Pending})
	}
	return out, nil
}

func (p passkeyItems) ActivatePasskey(ctx context.Context, userID, id string) error {
	return p.s.ActivatePasskey(ctx, userID, id)
}

func (p passkeyItems) DeletePasskey(ctx context.Context, userID, id string) error {
	err := p.s.DeletePasskey(ctx, userID, id)
	if errors.Is(err, record.ErrNotFound) {
		return nil // removed meanwhile
	}
	return err
}

// SessionStarter fits the account service to passkey.SessionStarter.
type SessionStarter struct{ A *account.Service }

// StartSession starts a session for a user who proved a passkey.
func (s SessionStarter) StartSession(ctx context.Context, userID, ip, ua string) (string, time.Time, error) {
	sess, err := s.A.StartSession(ctx, userID, account.Client{IP: ip, UserAgent: ua})
	if err != nil {
		return "", time.Time{}, err
	}
	return sess.Token, sess.ExpiresAt, nil
}

// --- keys and webhook secrets ---

type keysAdapter struct {
	c   *credential.Service
	rec *Recorder
	// emails names the people who created keys (nil: their ids are shown).
	emails func(ctx context.Context, ids []string) (map[string]string, error)
	// store keeps the workspace's document webhooks; urls holds the webhook_url rules.
	store *dynamo.Store
	urls  urlcheck.Policy
}

func keyView(k credential.KeyInfo) dashboard.Key {
	out := dashboard.Key{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Environment: k.Environment, Scopes: k.Scopes,
		CreatedBy: k.CreatedBy, CreatedAt: k.CreatedAt, State: k.Status, ExpiresAt: k.ExpiresAt}
	if k.Status == credential.StatusExpiring {
		out.State = "active"
	}
	if day, err := time.Parse("2006-01-02", k.LastUsedOn); err == nil {
		out.LastUsed = &day
	}
	return out
}

func (k keysAdapter) event(a dashboard.Actor, action, target string) activity.Event {
	return activity.Event{WorkspaceID: a.WorkspaceID, ActorUserID: a.UserID, ActorEmail: a.Email, Action: action,
		Target: target, IP: a.Client.IP, UserAgent: a.Client.UserAgent}
}

func (k keysAdapter) ListKeys(ctx context.Context, ws string) ([]dashboard.Key, error) {
	ks, err := k.c.ListKeys(ctx, ws)
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.Key, 0, len(ks))
	var ids []string
	for _, x := range ks {
		out = append(out, keyView(x))
		if x.CreatedBy != "" && x.CreatedBy != credential.Operator {
			ids = append(ids, x.CreatedBy)
		}
	}
	if len(ids) > 0 && k.emails != nil {
		if names, err := k.emails(ctx, ids); err == nil { // one BatchGetItem; without it, ids
			for i := range out {
				if e, ok := names[out[i].CreatedBy]; ok {
					out[i].CreatedBy = e
				}
			}
		}
	}
	return out, nil
}

func (k keysAdapter) CreateKey(ctx context.Context, a dashboard.Actor, nk dashboard.NewKey) (*dashboard.IssuedKey, error) {
	issued, err := k.c.CreateKey(ctx, a.WorkspaceID, credential.NewKey{Name: nk.Name, Environment: nk.Environment,
		Scopes: nk.Scopes, CreatedBy: a.UserID})
	if err != nil {
		return nil, err
	}
	k.rec.record(ctx, k.event(a, activity.KeyCreated, fmt.Sprintf("key %s (%s, %s)", issued.Info.ID, issued.Info.Name, issued.Info.Environment)))
	return &dashboard.IssuedKey{Key: keyView(issued.Info), Secret: issued.Key}, nil
}

func (k keysAdapter) RevokeKey(ctx context.Context, a dashboard.Actor, keyID string) error {
	info, err := k.c.RevokeKey(ctx, a.WorkspaceID, keyID, a.UserID)
	if err != nil {
		return err
	}
	k.rec.record(ctx, k.event(a, activity.KeyRevoked, fmt.Sprintf("key %s (%s)", info.ID, info.Name)))
	return nil
}

func (k keysAdapter) RollKey(ctx context.Context, a dashboard.Actor, keyID string, grace time.Duration) (*dashboard.IssuedKey, error) {
	issued, err := k.c.RollKey(ctx, a.WorkspaceID, keyID, credential.Grace(grace), a.UserID)
	if err != nil {
		return nil, err
	}
	k.rec.record(ctx, k.event(a, activity.KeyRolled, fmt.Sprintf("key %s → %s (%s), old one works %s more", keyID, issued.Info.ID,
		issued.Info.Name, credential.Grace(grace))))
	return &dashboard.IssuedKey{Key: keyView(issued.Info), Secret: issued.Key}, nil
}

func (k keysAdapter) ListWebhookSecrets(ctx context.Context, ws string, env auth.Environment) ([]dashboard.WebhookSecret, error) {
	list, err := k.c.ListWebhookSecrets(ctx, ws, env)
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.WebhookSecret, 0, len(list))
	for _, w := range list {
		out = append(out, dashboard.WebhookSecret{ID: w.ID, CreatedAt: w.CreatedAt, ExpiresAt: w.ExpiresAt, Current: w.Current()})
	}
	return out, nil
}

func (k keysAdapter) IssueWebhookSecret(ctx context.Context, a dashboard.Actor, env auth.Environment, grace time.Duration) (string, error) {
	list, err := k.c.ListWebhookSecrets(ctx, a.WorkspaceID, env)
	if err != nil {
		return "", err
	}
	var issued *credential.IssuedWebhookSecret
	action := activity.WebhookSecretIssued
	if len(list) == 0 {
		issued, err = k.c.IssueWebhookSecret(ctx, a.WorkspaceID, env, a.UserID)
	} else {
		action = activity.WebhookSecretRolled
		issued, err = k.c.RollWebhookSecret(ctx, a.WorkspaceID, env, credential.Grace(grace), a.UserID)
	}
	if err != nil {
		return "", err
	}
	k.rec.record(ctx, k.event(a, action, fmt.Sprintf("%s secret %s", env, issued.Info.ID)))
	return issued.Secret, nil
}

func (k keysAdapter) DocumentWebhooks(ctx context.Context, ws string) (map[auth.Environment]string, error) {
	if k.store == nil {
		return nil, nil
	}
	w, err := k.store.FindWorkspace(ctx, ws)
	if err != nil || w == nil {
		return nil, err
	}
	return map[auth.Environment]string{auth.Sandbox: w.DocumentWebhook(auth.Sandbox), auth.Live: w.DocumentWebhook(auth.Live)}, nil
}

func (k keysAdapter) SetDocumentWebhook(ctx context.Context, a dashboard.Actor, env auth.Environment, url string) error {
	if k.store == nil {
		return errors.New("dashboard: no store")
	}
	if err := k.c.SetDocumentWebhook(ctx, k.store, k.urls, a.WorkspaceID, env, url); err != nil {
		return err
	}
	target := fmt.Sprintf("%s document webhook cleared", env)
	if url != "" {
		target = fmt.Sprintf("%s document webhook %s", env, activity.URL(url))
	}
	k.rec.record(ctx, k.event(a, activity.DocumentWebhookSet, target))
	return nil
}

// userEmails reads users' emails from the store (nil without one).
func userEmails(d *app.Deps) func(ctx context.Context, ids []string) (map[string]string, error) {
	if d.Store == nil {
		return nil
	}
	return d.Store.UserEmails
}
