package auth

import (
	"context"
	"crypto/subtle"
)

// signedInKey keys the dashboard's already-authenticated identity in a context.
type signedInKey struct{}

// SignedIn is a dashboard session the dashboard's own edge has already authenticated: the
// session, its user's membership and role in one workspace, and, for a form, the site checks
// and the form's CSRF token (package dashboard). The dashboard's pages run the API's own
// workspace-route handlers in-process — the one home of every document and payment rule —
// with this identity instead of a second session lookup.
type SignedIn struct {
	WorkspaceID, UserID string
	Role                Role
}

// WithSignedIn returns ctx carrying s. Only the dashboard's edge calls it, after it has
// authenticated the session and checked the form; nothing that arrives over the network can
// put a value in a Go context.
func WithSignedIn(ctx context.Context, s SignedIn) context.Context {
	return context.WithValue(ctx, signedInKey{}, s)
}

// signedIn returns the identity WithSignedIn put in ctx for workspaceID: the same identity a
// session cookie would have given on the workspace routes (both environments, the role's
// scopes). A context without one, or with another workspace's, gives nothing.
func signedIn(ctx context.Context, workspaceID string) (*Identity, bool) {
	s, ok := ctx.Value(signedInKey{}).(SignedIn)
	if !ok {
		return nil, false
	}
	return s.IdentityFor(workspaceID)
}

// IdentityFor is the identity of a session the dashboard's edge has authenticated, for
// workspaceID (the dashboard's pages pass it to the rules they call): the same identity a
// session cookie would have given on the workspace routes (both environments, the role's
// scopes). Another workspace's, or a session without a user or role, gives nothing.
func (s SignedIn) IdentityFor(workspaceID string) (*Identity, bool) {
	if s.UserID == "" || s.Role.Scopes() == nil ||
		subtle.ConstantTimeCompare([]byte(s.WorkspaceID), []byte(workspaceID)) != 1 {
		return nil, false
	}
	return s.Identity(), true
}

// Identity is the identity of a signed-in member in their workspace: the same identity a
// session cookie gives on the workspace routes (both environments, the role's scopes). The
// dashboard's pages pass it, in a rule's typed scope, to the rules they call directly.
func (s SignedIn) Identity() *Identity {
	return &Identity{
		Kind:         KindSession,
		WorkspaceID:  s.WorkspaceID,
		Environments: []Environment{Sandbox, Live},
		Scopes:       s.Role.Scopes(),
		CredentialID: s.UserID,
		UserID:       s.UserID,
		Role:         s.Role,
		ViaCookie:    true,
	}
}
