package dashboard

import (
	"context"
	"time"

	"github.com/takapay/payments/shared/ratelimit"
)

// FormAction names a form whose posts are limited across instances: the unauthenticated ones
// and those that send email.
type FormAction string

// The limited forms. There is no separate "resend verification" or "resend invitation": a
// second sign-up or a second invitation of the same address is the resend, counted the same.
const (
	FormSignUp        FormAction = "signup"
	FormReset         FormAction = "reset"
	FormPasskeySignIn FormAction = "passkey_signin"
	FormInvite        FormAction = "invite"
)

// FormActions are every limited form.
var FormActions = []FormAction{FormSignUp, FormReset, FormPasskeySignIn, FormInvite}

// Default form limits, per FormWindow and per action: PerClient posts from one client address
// (an IPv4 address or an IPv6 /64, as API Gateway's sourceIp gave it) and Global posts from
// everyone. A client behind a shared address (an office, a mobile carrier's NAT) shares its
// PerClient; Global bounds what a flood from many addresses costs (the emails, the writes).
const (
	FormWindow           = 10 * time.Minute
	DefaultFormPerClient = 20
	DefaultFormGlobal    = 600
)

// FormLimits limits the posts of the FormActions per client address and globally, each
// counted in one DynamoDB item per window (ratelimit.Quotas): a post is one conditional write
// for its client's counter and, when that admits it, one for the global counter. A zero
// limit turns that half off; a nil *FormLimits allows everything.
type FormLimits struct {
	Quotas            *ratelimit.Quotas
	PerClient, Global int
}

// Allow counts one post of action by the client at ip: false, and how long to wait, when
// the client's or everyone's limit is spent. The client's counter is asked first, so a
// client already refused spends nothing of the global limit.
func (f *FormLimits) Allow(ctx context.Context, action FormAction, ip string) (bool, time.Duration) {
	if f == nil {
		return true, 0
	}
	if k := ratelimit.ClientKey(ip); k != "" {
		if ok, wait := f.Quotas.Allow(ctx, ratelimit.Quota{Name: "form." + string(action) + ".client", Limit: f.PerClient, Period: FormWindow}, k); !ok {
			return false, wait
		}
	}
	return f.Quotas.Allow(ctx, ratelimit.Quota{Name: "form." + string(action) + ".global", Limit: f.Global, Period: FormWindow}, "all")
}

// limitForm counts the request's post of action (FormLimits.Allow): a *LimitedError for the
// limited page when it is refused.
func (s *Service) limitForm(ctx context.Context, r *req, action FormAction) error {
	if ok, wait := s.FormLimits.Allow(ctx, action, r.SourceIP); !ok {
		return &LimitedError{RetryAfter: wait, Form: true}
	}
	return nil
}
