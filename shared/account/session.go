package account

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/takapay/payments/shared/auth"
	accmail "github.com/takapay/payments/shared/mail"
)

// Sessions
//
// A session is the existing session item (SESSION#<sha256 of the token>), stored with
// expires_at = min(absolute end, last use + IdleTimeout) and its absolute end, so that
// auth.AuthenticateWorkspace's one GetItem and Active check honours both timeouts without
// knowing about them. Authenticate moves expires_at at most once per RefreshEvery.
//
// Every session is also listed under its user (USER#<id> / SESSION#<hash>), written before
// the session itself: sign out everywhere queries that list and revokes each session. A sign-in
// with a password then re-reads the user's session epoch (grown by sign out everywhere and
// by a password change) after listing its session and before storing it, so a sign-in that
// raced a reset either is listed in time to be revoked, or sees the new epoch and stops.

// errEpochMoved stops a sign-in that raced a sign out everywhere or a password change.
var errEpochMoved = errors.New("account: sessions were ended during the sign-in")

// startSession creates a session for u: it lists the session under the user, then (when
// epoch is given) checks that the user's session epoch is still *epoch, then stores it.
func (s *Service) startSession(ctx context.Context, u *User, epoch *int64) (*Session, error) {
	token, hash, err := auth.NewSessionToken()
	if err != nil {
		return nil, err
	}
	now := s.now()
	abs := now.Add(s.cfg.Lifetime)
	idle := earlier(abs, now.Add(s.cfg.IdleTimeout))
	if err := s.store.PutUserSession(ctx, u.ID, hash, abs); err != nil {
		return nil, fmt.Errorf("list session: %w", err)
	}
	if epoch != nil {
		cur, err := s.store.GetAccountUser(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		if cur == nil || cur.SessionEpoch != *epoch || cur.PasswordHash != u.PasswordHash {
			return nil, errEpochMoved
		}
	}
	// Every session starts with a proof of who the user is (the password, a passkey, or the
	// password again at a sign-up's verification): ProvedAt is its start.
	rec := &auth.SessionRecord{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: idle, AbsoluteExpiresAt: abs, SeenAt: now, ProvedAt: now}
	if err := s.store.PutSession(ctx, rec); err != nil {
		return nil, fmt.Errorf("store session: %w", err)
	}
	return &Session{Token: token, UserID: u.ID, ExpiresAt: abs}, nil
}

// StartSession starts a session for an existing user who has authenticated some other way
// (a passkey): ErrUnknownUser when there is no such user. Three requests: the user GetItem,
// the listing PutItem, the session PutItem.
func (s *Service) StartSession(ctx context.Context, userID string, c Client) (*Session, error) {
	u, err := s.store.GetAccountUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, ErrUnknownUser
	}
	sess, err := s.startSession(ctx, u, nil)
	if err != nil {
		return nil, err
	}
	s.event(ctx, EventSignInSucceeded, u.ID, u.Email, c)
	return sess, nil
}

// Authenticate finds the session of a takapay_session token: ErrNoSession when the token is
// malformed, unknown, revoked, idle for IdleTimeout or past its lifetime. One GetItem; when
// the idle deadline was last moved RefreshEvery or more ago, one conditional UpdateItem moves
// it to min(now + IdleTimeout, absolute end) (a lost race or a failed write leaves the
// session as it was, still valid until its current deadline).
func (s *Service) Authenticate(ctx context.Context, token string) (*SessionInfo, error) {
	hash, err := auth.ParseSessionToken(token)
	if err != nil {
		return nil, ErrNoSession
	}
	rec, err := s.store.GetSession(ctx, hash)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if rec == nil || subtle.ConstantTimeCompare([]byte(rec.Hash), []byte(hash)) != 1 || rec.UserID == "" ||
		!rec.Active(now) || (!rec.AbsoluteExpiresAt.IsZero() && !now.Before(rec.AbsoluteExpiresAt)) {
		return nil, ErrNoSession
	}
	info := &SessionInfo{
		UserID: rec.UserID, Hash: hash, CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt,
		AbsoluteExpiresAt: rec.AbsoluteExpiresAt, CSRFToken: csrfToken(token), ProvedAt: rec.ProvedAt,
	}
	if rec.AbsoluteExpiresAt.IsZero() {
		info.AbsoluteExpiresAt = rec.ExpiresAt
		return info, nil
	}
	next := earlier(rec.AbsoluteExpiresAt, now.Add(s.cfg.IdleTimeout))
	if now.Sub(rec.SeenAt) >= RefreshEvery && next.After(rec.ExpiresAt) {
		if err := s.store.TouchSession(ctx, hash, rec.SeenAt, now, next); err == nil {
			info.ExpiresAt = next
		}
	}
	return info, nil
}

// csrfToken derives a session's form token: HMAC-SHA256 keyed by the session token, so it is
// as secret as the session and needs no storage.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("takapay dashboard csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF reports, in constant time, whether a form's token is the session's.
func (i *SessionInfo) CheckCSRF(formToken string) bool {
	return i != nil && i.CSRFToken != "" && subtle.ConstantTimeCompare([]byte(i.CSRFToken), []byte(formToken)) == 1
}

// SignOut ends the session of a token server-side (revoked at once for every instance and
// for auth.AuthenticateWorkspace) and unlists it: two writes. A malformed or unknown token is
// nothing to end (nil).
func (s *Service) SignOut(ctx context.Context, token string) error {
	hash, err := auth.ParseSessionToken(token)
	if err != nil {
		return nil
	}
	now := s.now()
	userID, err := s.store.EndSession(ctx, hash, now, now.Add(s.cfg.Lifetime), true)
	if errors.Is(err, ErrNoSession) {
		return nil
	}
	if err != nil {
		return err
	}
	if userID != "" {
		return s.store.DeleteUserSession(ctx, userID, hash)
	}
	return nil
}

// ConfirmPassword is a "confirm it's you" step: the signed-in user of token types their password
// again, and the session records the proof (ProvedAt, one conditional UpdateItem), which adding a
// passkey needs within the last passkey.FreshProof. A wrong password counts as a failed sign-in of
// the account and the client address (the same limits, so a stolen session cannot guess the
// password faster than the sign-in page), answering ErrBadCredentials, and a RATE_LIMITED
// *apierr.Error (apierr.Limited) while either is locked; a session that is not active is
// ErrNoSession.
func (s *Service) ConfirmPassword(ctx context.Context, token, password string, c Client) error {
	info, err := s.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	if fe := checkPresented(password); fe != nil {
		return fe
	}
	u, err := s.store.GetAccountUser(ctx, info.UserID)
	if err != nil {
		return err
	}
	if u == nil {
		return ErrNoSession
	}
	now := s.now()
	keys, counters, err := s.checkLocks(ctx, u.Email, now, c)
	if err != nil {
		return err
	}
	hash := dummyHash()
	if u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	ok, err := VerifyPassword(hash, password)
	if err != nil {
		return fmt.Errorf("verify password: %w", err)
	}
	if !ok || u.PasswordHash == "" {
		if _, err := s.recordFailure(ctx, keys, counters, now, u, c); err != nil {
			return err
		}
		s.event(ctx, EventSignInFailed, u.ID, u.Email, c)
		return ErrBadCredentials
	}
	if err := s.store.ProveSession(ctx, info.Hash, now); err != nil {
		return err
	}
	s.event(ctx, EventPasswordConfirmed, u.ID, u.Email, c)
	return nil
}

// SignOutEverywhere ends every session of a user: it grows the user's session epoch (a
// sign-in in flight then stops), lists the user's sessions (one Query) and revokes and
// unlists each (two writes a session); with removePasskeys it then removes every passkey of
// the user (so that one an attacker added cannot sign them back in). ErrUnknownUser when
// there is no such user.
func (s *Service) SignOutEverywhere(ctx context.Context, userID string, removePasskeys bool, c Client) error {
	if err := s.store.BumpSessionEpoch(ctx, userID); err != nil {
		return err
	}
	if err := s.endAll(ctx, userID); err != nil {
		return err
	}
	s.event(ctx, EventSignOutEverywhere, userID, "", c)
	if removePasskeys {
		return s.removePasskeys(ctx, userID, "", c)
	}
	return nil
}

// removePasskeys removes every passkey of a user (a Query, one DeleteItem each) and records
// it when there were any.
func (s *Service) removePasskeys(ctx context.Context, userID, email string, c Client) error {
	if s.cfg.Passkeys == nil {
		return nil
	}
	keys, err := s.cfg.Passkeys.ListPasskeys(ctx, userID)
	if err != nil {
		return fmt.Errorf("list passkeys: %w", err)
	}
	for _, k := range keys {
		if err := s.cfg.Passkeys.DeletePasskey(ctx, userID, k.ID); err != nil {
			return fmt.Errorf("remove passkey: %w", err)
		}
	}
	if len(keys) > 0 {
		s.event(ctx, EventPasskeysRemoved, userID, email, c)
	}
	return nil
}

// ActivatePasskeys activates the user's pending passkeys (just registered), each only after
// its "passkey added" email to the user was sent (naming it and when it was added, saying what
// to do if it was not them): a passkey its owner was not told about never signs in. An email
// that cannot be sent leaves its passkey pending and is the error (the page can be reloaded).
// Each activation is an EventPasskeyAdded.
func (s *Service) ActivatePasskeys(ctx context.Context, userID string, c Client) error {
	if s.cfg.Passkeys == nil {
		return nil
	}
	keys, err := s.cfg.Passkeys.ListPasskeys(ctx, userID)
	if err != nil {
		return fmt.Errorf("list passkeys: %w", err)
	}
	var u *User
	for _, k := range keys {
		if !k.Pending {
			continue
		}
		if u == nil {
			if u, err = s.store.GetAccountUser(ctx, userID); err != nil {
				return err
			}
			if u == nil {
				return ErrUnknownUser
			}
		}
		if err := s.send(ctx, accmail.PasskeyAdded, u.Lang, accmail.Data{
			To: u.Email, Link: s.cfg.BaseURL + ForgotPath, PasskeyName: k.Name, At: k.CreatedAt,
		}); err != nil {
			return err
		}
		if err := s.cfg.Passkeys.ActivatePasskey(ctx, userID, k.ID); err != nil {
			return fmt.Errorf("activate passkey: %w", err)
		}
		if s.cfg.OnEvent != nil {
			s.cfg.OnEvent(ctx, Event{Kind: EventPasskeyAdded, UserID: userID, Email: u.Email, Client: c, Target: k.Name})
		}
	}
	return nil
}

// endAll revokes and unlists every listed session of a user.
func (s *Service) endAll(ctx context.Context, userID string) error {
	now := s.now()
	hashes, err := s.store.UserSessions(ctx, userID, now)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	for _, h := range hashes {
		if _, err := s.store.EndSession(ctx, h, now, now.Add(s.cfg.Lifetime), false); err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		if err := s.store.DeleteUserSession(ctx, userID, h); err != nil {
			return fmt.Errorf("unlist session: %w", err)
		}
	}
	return nil
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
