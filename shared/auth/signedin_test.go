package auth_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

// A signed-in member's identity has exactly the role's scopes in their own workspace, and an
// unknown role none. No context value stands in for credentials: without them the workspace
// routes answer 401 whatever the caller's context carries (the in-process path the dashboard
// once used is gone).
func TestSignedInIdentity(t *testing.T) {
	const ws = "0b5c0f7e-6f0a-4a3c-9d55-1f6f2d7b9a10"
	for _, role := range []auth.Role{auth.RoleViewer, auth.RoleDeveloper, auth.RoleAdmin, auth.RoleOwner} {
		id := auth.SignedIn{WorkspaceID: ws, UserID: "u1", Role: role}.Identity()
		if id.UserID != "u1" || id.WorkspaceID != ws || id.Role != role || id.Kind != auth.KindSession || !slices.Equal(id.Scopes, role.Scopes()) {
			t.Fatalf("%s: identity %+v", role, id)
		}
		if err := id.Authorize(auth.DocumentsWrite, auth.Sandbox); (err == nil) != (role != auth.RoleViewer) {
			t.Fatalf("%s may write documents: %v", role, err)
		}
	}
	if id := (auth.SignedIn{WorkspaceID: ws, UserID: "u1", Role: "boss"}).Identity(); id.Authorize(auth.PaymentsRead, auth.Sandbox) == nil {
		t.Fatal("an unknown role may read payments")
	}
	a := &auth.Authenticator{}
	post := &web.Request{Method: "POST", Headers: map[string]string{}}
	if _, err := a.AuthenticateWorkspace(context.Background(), post, ws); !isCode(err, apierr.InvalidAPIKey) {
		t.Fatalf("no credentials answered %v, want 401", err)
	}
}

func isCode(err error, code apierr.Code) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Code == code
}
