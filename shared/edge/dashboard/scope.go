package dashboard

import "github.com/takapay/payments/shared/auth"

// The dashboard's payments, documents and customers pages hold no second copy of any rule:
// they call the rule services (intent.Service, document.Service, injected by the handler's
// Build) as the signed-in person, in the page's environment, and render what those answer —
// the same validation (422 naming the field path), the same version conflicts, the same
// refusals as the API's workspace routes.

// envParam is the query parameter that keeps the environment a page shows: absent is
// sandbox, "live" is live. Every link and form of a page keeps it (req.url).
const envParam = "env"

// env is the environment the page shows (the URL's env=, sandbox by default).
func (r *req) env() auth.Environment {
	if r.Query[envParam] == string(auth.Live) {
		return auth.Live
	}
	return auth.Sandbox
}

// identity is the signed-in viewer's identity in their workspace: the one their session
// cookie gives on the API's workspace routes (both environments, the role's scopes), which
// the pages pass to the rules in the rules' typed scope. Nil without a viewer.
func (r *req) identity() *auth.Identity {
	if r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return nil
	}
	return auth.SignedIn{WorkspaceID: r.viewer.ws.WorkspaceID, UserID: r.viewer.user.UserID, Role: r.viewer.ws.Role}.Identity()
}
