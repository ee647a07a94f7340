package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
)

// MaxSessionTTL is the longest a dashboard session may live.
const MaxSessionTTL = 30 * 24 * time.Hour

// MaxEmailLen is the longest email address a user may have (RFC 5321 path limit).
const MaxEmailLen = account.MaxEmailLen

// canonicalID parses a UUID given in its 36-character form and returns it in canonical
// (lower-case) form, as every stored id is.
func canonicalID(what, id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", fmt.Errorf("%s id must be a UUID", what)
	}
	return u.String(), nil
}

// ParseEmail trims an email address and checks it with account.ParseEmail, the one rule for a
// dashboard user's email.
func ParseEmail(email string) (string, error) {
	email, fe := account.ParseEmail(email)
	if fe != nil {
		return "", fe
	}
	return email, nil
}

// CreateUser creates a dashboard user with a new UUIDv7 id. The email is stored as given
// (trimmed); it must be a bare address (ParseEmail) that no other user has in any letter case,
// else the error wraps dynamo.ErrEmailTaken. Two DynamoDB writes: the email claim, then the
// user (a failed user write releases the claim).
func (o *Operator) CreateUser(ctx context.Context, email string) (*auth.User, error) {
	email, err := ParseEmail(email)
	if err != nil {
		return nil, err
	}
	u, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	user := auth.User{ID: u.String(), Email: email, CreatedAt: o.now()}
	if err := o.Store.ClaimUserEmail(ctx, email, user.ID); err != nil {
		if errors.Is(err, dynamo.ErrEmailTaken) {
			return nil, fmt.Errorf("user %s: %w", email, err)
		}
		return nil, fmt.Errorf("create user: %w", err)
	}
	if err := o.Store.PutUser(ctx, user); err != nil {
		// Free the email for a retry, even when ctx is what ended the write.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if rerr := o.Store.ReleaseUserEmail(rctx, email, user.ID); rerr != nil {
			return nil, fmt.Errorf("create user: %w (and releasing the email failed, so it stays taken: %v)", err, rerr)
		}
		return nil, fmt.Errorf("create user: %w", err)
	}
	return &user, nil
}

// getUser reads a user by a UUID given in any case.
func (o *Operator) getUser(ctx context.Context, userID string) (*auth.User, error) {
	id, err := canonicalID("user", userID)
	if err != nil {
		return nil, err
	}
	u, err := o.Store.GetUser(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", userID, err)
	}
	return u, nil
}

// getWorkspace reads a workspace by a UUID given in any case.
func (o *Operator) getWorkspace(ctx context.Context, workspaceID string) (*auth.Workspace, error) {
	id, err := canonicalID("workspace", workspaceID)
	if err != nil {
		return nil, err
	}
	w, err := o.Store.GetWorkspace(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", workspaceID, err)
	}
	return w, nil
}

// Grant gives a user (who must exist) a role in a workspace (which must exist), replacing
// any role the user had there; it takes effect on the user's next request. Demoting the
// workspace's last owner is refused (team.ErrLastOwner): grant another owner first.
func (o *Operator) Grant(ctx context.Context, userID, workspaceID string, role auth.Role) (*auth.MembershipRecord, error) {
	if _, ok := auth.ParseRole(string(role)); !ok {
		return nil, fmt.Errorf("role must be one of %v", auth.AllRoles)
	}
	u, err := o.getUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	w, err := o.getWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	// Ownership keeps the workspace's owners set (package team) right: an owner is made
	// with a fresh grant, and an owner's grant is released before the role changes, which
	// refuses to demote the last owner.
	if role == auth.RoleOwner {
		m, err := o.Store.GrantOwner(ctx, u.ID, w.ID, o.now())
		if err != nil {
			return nil, fmt.Errorf("grant: %w", err)
		}
		return m, nil
	}
	old, err := o.Store.GetMember(ctx, u.ID, w.ID)
	if err != nil {
		return nil, fmt.Errorf("grant: %w", err)
	}
	if old != nil && old.Role == auth.RoleOwner {
		if err := o.Store.ReleaseOwner(ctx, w.ID, u.ID, old.OwnerGrant); err != nil {
			return nil, fmt.Errorf("grant: %w", err)
		}
	}
	m, err := o.Store.PutMembership(ctx, &auth.MembershipRecord{UserID: u.ID, WorkspaceID: w.ID, Role: role, CreatedAt: o.now()})
	if err != nil {
		return nil, fmt.Errorf("grant: %w", err)
	}
	return m, nil
}

// Member is one member of a workspace, as the operator lists it.
type Member struct {
	UserID string    `json:"user_id"`
	Email  string    `json:"email"`
	Role   auth.Role `json:"role"`
	// Since is when the user first became a member (a role change keeps it).
	Since time.Time `json:"since"`
}

// ListMembers lists a workspace's (which must exist) members with their roles and emails,
// ordered by user id.
func (o *Operator) ListMembers(ctx context.Context, workspaceID string) ([]Member, error) {
	w, err := o.getWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	list, err := o.Store.ListMembers(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Member, 0, len(list))
	for _, m := range list {
		email := ""
		u, err := o.Store.GetUser(ctx, m.UserID)
		switch {
		case err == nil:
			email = u.Email
		case !errors.Is(err, dynamo.ErrNotFound):
			return nil, err
		}
		out = append(out, Member{UserID: m.UserID, Email: email, Role: m.Role, Since: m.CreatedAt})
	}
	return out, nil
}

// IssuedSession is a newly created dashboard session: the token is returned once and never
// stored (only its SHA-256 hash is).
type IssuedSession struct {
	Token  string
	Record *auth.SessionRecord
}

// CreateSession creates a session for a user (who must exist) that expires after ttl (more
// than zero, at most MaxSessionTTL), listed under the user like a sign-in's (two PutItems).
// The token is the value of the auth.SessionCookie cookie.
func (o *Operator) CreateSession(ctx context.Context, userID string, ttl time.Duration) (*IssuedSession, error) {
	if ttl <= 0 || ttl > MaxSessionTTL {
		return nil, fmt.Errorf("session ttl must be more than 0 and at most %s", MaxSessionTTL)
	}
	u, err := o.getUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	token, hash, err := auth.NewSessionToken()
	if err != nil {
		return nil, err
	}
	now := o.now()
	rec := &auth.SessionRecord{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	// Listed under the user first, so that sign out everywhere and a password reset
	// (package account) end it too.
	if err := o.Store.PutUserSession(ctx, u.ID, hash, rec.ExpiresAt); err != nil {
		return nil, fmt.Errorf("list session: %w", err)
	}
	if err := o.Store.PutSession(ctx, rec); err != nil {
		return nil, fmt.Errorf("store session: %w", err)
	}
	return &IssuedSession{Token: token, Record: rec}, nil
}

// RevokeSession revokes the session with this token (idempotent); the next request with it
// gets 401. It returns the revoked session's record.
func (o *Operator) RevokeSession(ctx context.Context, token string) (*auth.SessionRecord, error) {
	hash, err := auth.ParseSessionToken(strings.TrimSpace(token))
	if err != nil {
		return nil, fmt.Errorf("not a session token (43 base64url characters)")
	}
	if err := o.Store.RevokeSession(ctx, hash, o.now()); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	rec, err := o.Store.GetSession(ctx, hash)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("session: %w", dynamo.ErrNotFound)
	}
	return rec, nil
}
