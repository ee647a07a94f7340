package account

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	accmail "github.com/takapay/payments/shared/mail"
)

// RequestPasswordReset emails a reset link (valid ResetValidFor, single use) to the address if it
// has an account, and a ResetNoAccount email ("no account has this address") if it has none. It
// answers nil for any well-formed address (a VALIDATION_FAILED *apierr.Error for a malformed one),
// after the same work either way: the same requests (the email claim and user GetItems, one pending
// PutItem: for an address without an account a decoy that no link names; the reset mail counter's
// BatchGetItem and PutItem) and one email composed and sent, so neither answer nor timing tells
// whether the address has an account, without a fixed delay. The reset mail counter is kept per
// address and client address (ResetMailsPerClient an hour; past it nothing is sent), apart from
// sign-up's: a flood of sign-ups or of resets from another client never silences the reset its
// owner asks for. A failed send is reported as an EventMailFailed event, not in the answer.
func (s *Service) RequestPasswordReset(ctx context.Context, email, lang string, c Client) error {
	email, fe := ParseEmail(email)
	if fe != nil {
		return fe
	}
	l := langOf(lang)
	u, err := s.ownerOf(ctx, email)
	if err != nil {
		return err
	}
	token, hash, err := newLinkToken()
	if err != nil {
		return err
	}
	now := s.now()
	p := &PendingToken{Kind: TokenReset, Hash: hash, Lang: string(l), CreatedAt: now, ExpiresAt: now.Add(ResetValidFor)}
	if u != nil {
		p.UserID, p.Email, p.Epoch = u.ID, u.Email, u.SessionEpoch
	}
	if err := s.store.PutPendingToken(ctx, p); err != nil {
		return fmt.Errorf("store reset: %w", err)
	}
	allowed, err := s.allowMail(ctx, resetMailKey(email, c.IP), resetMailRule, now)
	if err != nil {
		return err
	}
	// The passkeys are read for an address without an account too (the dummy user's: none),
	// so that the reset makes the same requests either way.
	lookup := dummyUserID
	if u != nil {
		lookup = u.ID
	}
	keys, err := s.passkeyList(ctx, lookup)
	if err != nil {
		return err
	}
	switch {
	case !allowed:
		// Answer as usual, send nothing.
	case u != nil:
		err := s.send(ctx, accmail.ResetPassword, string(l), accmail.Data{
			To: u.Email, Link: s.cfg.BaseURL + ResetPath + "?token=" + url.QueryEscape(token), ValidFor: ResetValidFor,
			Passkeys: keys,
		})
		if err != nil {
			s.mailFailed(ctx, u.ID, u.Email, c, err)
		}
	default:
		// The decoy's token is never sent: the address learns only that it has no account.
		if err := s.send(ctx, accmail.ResetNoAccount, string(l), accmail.Data{To: email, Link: s.cfg.BaseURL + SignInPath}); err != nil {
			s.mailFailed(ctx, "", email, c, err)
		}
	}
	return nil
}

// passkeyList is a user's passkeys as a reset email lists them (none when Config.Passkeys is
// nil).
func (s *Service) passkeyList(ctx context.Context, userID string) ([]accmail.Passkey, error) {
	if s.cfg.Passkeys == nil {
		return nil, nil
	}
	keys, err := s.cfg.Passkeys.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	out := make([]accmail.Passkey, 0, len(keys))
	for _, k := range keys {
		out = append(out, accmail.Passkey{Name: k.Name, CreatedAt: k.CreatedAt})
	}
	return out, nil
}

// ResetPassword sets a new password (the same policy as sign-up: a VALIDATION_FAILED *apierr.Error
// before the link is used) with a reset link, once: it claims the reset (one conditional
// UpdateItem; unknown, expired, used, decoy or malformed is ErrInvalidToken), stores the new hash
// and grows the user's session epoch only while the epoch is still the one the link was sent at
// (one conditional UpdateItem: so a successful reset, or a sign out everywhere, ends every other
// reset link of the account, which then answers ErrInvalidToken), ends every session of the user (a
// Query, two writes a session), with removePasskeys removes every passkey of the user, clears the
// account's failed sign-ins (one DeleteItem), deletes the reset, and emails PasswordChanged. A
// reset that failed before its password was stored can be retried with the same link after
// ClaimLease; once stored, the link is spent.
func (s *Service) ResetPassword(ctx context.Context, token, newPassword string, removePasskeys bool, c Client) error {
	if fe := CheckPassword(newPassword); fe != nil {
		return fe
	}
	hash, ok := parseLinkToken(token)
	if !ok {
		return ErrInvalidToken
	}
	pwHash, err := HashPassword(newPassword)
	if err != nil {
		return err
	}
	now := s.now()
	p, err := s.store.ClaimPendingToken(ctx, TokenReset, hash, now, now.Add(-ClaimLease))
	if err != nil {
		return err
	}
	if p == nil || p.UserID == "" {
		return ErrInvalidToken
	}
	if err := s.store.SetPassword(ctx, p.UserID, pwHash, now, p.Epoch); err != nil {
		if errors.Is(err, ErrUnknownUser) {
			// Another reset (or a sign out everywhere) came first: this link is spent.
			_ = s.store.DeletePendingToken(ctx, TokenReset, hash, p.ClaimedAt)
			return ErrInvalidToken
		}
		return fmt.Errorf("set password: %w", err)
	}
	if err := s.endAll(ctx, p.UserID); err != nil {
		return err
	}
	if removePasskeys {
		if err := s.removePasskeys(ctx, p.UserID, p.Email, c); err != nil {
			return err
		}
	}
	// Whoever holds the mailbox may sign in at once: the account's failed sign-ins are
	// forgotten (the client address's are not).
	if err := s.store.DeleteSignInCounter(ctx, accountKey(p.Email)); err != nil {
		return fmt.Errorf("clear sign-in failures: %w", err)
	}
	if err := s.store.DeletePendingToken(ctx, TokenReset, hash, p.ClaimedAt); err != nil && !errors.Is(err, ErrConflict) {
		return fmt.Errorf("use reset: %w", err)
	}
	s.event(ctx, EventPasswordReset, p.UserID, p.Email, c)
	if err := s.send(ctx, accmail.PasswordChanged, p.Lang, accmail.Data{To: p.Email, Link: s.cfg.BaseURL + SignInPath}); err != nil {
		s.mailFailed(ctx, p.UserID, p.Email, c, err)
	}
	return nil
}
