package account

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/takapay/payments/shared/auth"
	accmail "github.com/takapay/payments/shared/mail"
)

// SignUpInput is a sign-up form. Next (optional) is a /dashboard/ path the verification
// returns to (an invitation's page); JoinOnly creates no workspace (the invitation joins one).
type SignUpInput struct {
	Email, Password, WorkspaceName, Lang string
	Next                                 string
	JoinOnly                             bool
	Client                               Client
}

// SignUp validates the form (a VALIDATION_FAILED *apierr.Error naming the first bad field: email,
// password, workspace_name, next), hashes the password, stores a pending sign-up under the SHA-256
// of a new 256-bit token for VerifyValidFor, and emails the address: the verification link, or,
// when the address already has an account, an AccountExists email instead (neither past
// MailsPerAddress emails an hour to the address). Both cases do the same work — the same requests
// (the pending PutItem, the email claim GetItem, the address's sign-up mail counter BatchGetItem
// and PutItem), one password hash, one email composed and sent — and answer nil, so neither the
// answer nor its timing tells whether the address has an account; no fixed delay is added. The
// sign-up counter is not the reset's (see RequestPasswordReset): a flood of sign-ups for an address
// never silences its owner's reset.
func (s *Service) SignUp(ctx context.Context, in SignUpInput) error {
	p, token, err := s.newSignUp(in)
	if err != nil {
		return err
	}
	email, lang, now := p.Email, langOf(p.Lang), p.CreatedAt
	if err := s.store.PutPendingToken(ctx, p); err != nil {
		return fmt.Errorf("store sign-up: %w", err)
	}
	owner, err := s.store.EmailOwner(ctx, email)
	if err != nil {
		return err
	}
	allowed, err := s.allowMail(ctx, signUpMailKey(email), signUpMailRule, now)
	if err != nil {
		return err
	}
	switch {
	case !allowed:
		// Answer as usual, send nothing.
	case owner != "":
		// The pending sign-up stays unused (its token is never sent) and expires.
		err = s.send(ctx, accmail.AccountExists, string(lang), accmail.Data{To: email, Link: s.cfg.BaseURL + SignInPath})
	default:
		err = s.send(ctx, accmail.VerifyEmail, string(lang), accmail.Data{
			To: email, Link: s.cfg.BaseURL + VerifyPath + "?token=" + url.QueryEscape(token), ValidFor: VerifyValidFor,
		})
	}
	return err
}

// VerifyEmail carries out a sign-up's verification link, once, for the person who knows the
// sign-up's password: it claims the pending sign-up (one conditional UpdateItem; of two
// concurrent uses one wins, the other gets ErrInvalidToken) and checks password against the
// one chosen at sign-up. A wrong one gives the claim back (one UpdateItem, so the link can be
// tried again at once) and answers ErrBadCredentials: whoever signed up with someone else's
// address cannot have that person click the link into an account whose password the first
// sign-up chose. Then it claims the email, creates the user with the password hash, and unless
// JoinOnly creates the workspace (sandbox-first, as every workspace) with the user as owner,
// then starts a session and deletes the pending sign-up. Each step is one single-item write
// whose ids were chosen at sign-up, so a verification that failed half way can be retried with
// the same link after ClaimLease. An unknown, expired, used or malformed token is
// ErrInvalidToken; an email that got an account meanwhile is ErrAccountExists.
func (s *Service) VerifyEmail(ctx context.Context, token, password string, c Client) (*Session, error) {
	hash, ok := parseLinkToken(token)
	if !ok {
		return nil, ErrInvalidToken
	}
	if fe := checkPresented(password); fe != nil {
		return nil, fe
	}
	now := s.now()
	p, err := s.store.ClaimPendingToken(ctx, TokenSignUp, hash, now, now.Add(-ClaimLease))
	if err != nil {
		return nil, err
	}
	if p == nil || p.UserID == "" || p.Email == "" {
		return nil, ErrInvalidToken
	}
	ok, err = VerifyPassword(p.PasswordHash, password)
	if err != nil || !ok {
		if rerr := s.store.ReleasePendingToken(ctx, TokenSignUp, hash, p.ClaimedAt); rerr != nil && !errors.Is(rerr, ErrConflict) {
			return nil, rerr
		}
		if err != nil {
			return nil, fmt.Errorf("verify password: %w", err)
		}
		return nil, ErrBadCredentials
	}
	return s.finishSignUp(ctx, p, c)
}

// finishSignUp carries out a claimed sign-up: email claim, user, workspace and owner
// membership (unless JoinOnly), session, then the pending sign-up's deletion (when stored).
func (s *Service) finishSignUp(ctx context.Context, p *PendingToken, c Client) (*Session, error) {
	owner, err := s.store.ClaimEmail(ctx, p.Email, p.UserID)
	if err != nil {
		return nil, fmt.Errorf("claim email: %w", err)
	}
	if owner != p.UserID {
		if p.Hash != "" {
			_ = s.store.DeletePendingToken(ctx, TokenSignUp, p.Hash, p.ClaimedAt)
		}
		return nil, ErrAccountExists
	}
	u := &User{ID: p.UserID, Email: p.Email, PasswordHash: p.PasswordHash, Lang: p.Lang, CreatedAt: p.CreatedAt}
	if err := s.store.CreateAccountUser(ctx, u); err != nil && !errors.Is(err, ErrConflict) {
		return nil, fmt.Errorf("create user: %w", err)
	}
	if !p.JoinOnly {
		w := auth.Workspace{ID: p.WorkspaceID, Name: p.WorkspaceName, CreatedAt: p.CreatedAt}
		if err := s.store.CreateWorkspace(ctx, w); err != nil && !errors.Is(err, ErrConflict) {
			return nil, fmt.Errorf("create workspace: %w", err)
		}
		m := &auth.MembershipRecord{UserID: u.ID, WorkspaceID: w.ID, Role: auth.RoleOwner, CreatedAt: p.CreatedAt}
		if _, err := s.store.PutMembership(ctx, m); err != nil {
			return nil, fmt.Errorf("make owner: %w", err)
		}
	}
	sess, err := s.startSession(ctx, u, nil)
	if err != nil {
		return nil, err
	}
	if p.Hash != "" {
		if err := s.store.DeletePendingToken(ctx, TokenSignUp, p.Hash, p.ClaimedAt); err != nil && !errors.Is(err, ErrConflict) {
			return nil, fmt.Errorf("use sign-up: %w", err)
		}
	}
	sess.WorkspaceID, sess.Next = p.WorkspaceID, p.Next
	s.event(ctx, EventSignUpVerified, u.ID, u.Email, c)
	return sess, nil
}

// newSignUp validates a sign-up form and makes its pending sign-up (password hashed, ids
// chosen, a new link token) without storing it.
func (s *Service) newSignUp(in SignUpInput) (*PendingToken, string, error) {
	email, fe := ParseEmail(in.Email)
	if fe != nil {
		return nil, "", fe
	}
	if fe := CheckPassword(in.Password); fe != nil {
		return nil, "", fe
	}
	name := ""
	if !in.JoinOnly {
		if name, fe = checkWorkspaceName(in.WorkspaceName); fe != nil {
			return nil, "", fe
		}
	}
	if fe := checkNext(in.Next); fe != nil {
		return nil, "", fe
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return nil, "", err
	}
	token, tokenHash, err := newLinkToken()
	if err != nil {
		return nil, "", err
	}
	userID, err := newID()
	if err != nil {
		return nil, "", err
	}
	wsID := ""
	if !in.JoinOnly {
		if wsID, err = newID(); err != nil {
			return nil, "", err
		}
	}
	now := s.now()
	return &PendingToken{
		Kind: TokenSignUp, Hash: tokenHash, UserID: userID, WorkspaceID: wsID, Email: email,
		PasswordHash: hash, WorkspaceName: name, Lang: string(langOf(in.Lang)), Next: in.Next, JoinOnly: in.JoinOnly,
		CreatedAt: now, ExpiresAt: now.Add(VerifyValidFor),
	}, token, nil
}

// CreateVerifiedAccount creates an account at once, its email taken as verified: the same
// validation and steps as SignUp then VerifyEmail, without the email. It is for server-side
// seeding (make dev's owner, other packages' tests), never for a form. ErrAccountExists when
// the email has an account.
func (s *Service) CreateVerifiedAccount(ctx context.Context, in SignUpInput) (*Session, error) {
	p, _, err := s.newSignUp(in)
	if err != nil {
		return nil, err
	}
	p.Hash = "" // nothing stored to delete
	return s.finishSignUp(ctx, p, in.Client)
}
