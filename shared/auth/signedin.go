package auth

// SignedIn is a dashboard session the dashboard's own edge has already authenticated: the
// session's user and their membership and role in one workspace. The dashboard's pages call
// the rules directly, passing SignedIn.Identity in the rules' typed scope; nothing reaches a
// rule through a context value, and the API's routes authenticate every request themselves.
type SignedIn struct {
	WorkspaceID, UserID string
	Role                Role
}

// Identity is the identity of a signed-in member in their workspace: the same identity a
// session cookie gives on the workspace routes (both environments, the role's scopes; an
// unknown role has none, so every rule refuses it).
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
