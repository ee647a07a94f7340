package auth_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/takapay/payments/shared/domain/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

// The dashboard's in-process identity answers only for its own workspace, with exactly the
// role's scopes; anything else falls through to the network path (here: no credentials, 401).
func TestSignedInIdentity(t *testing.T) {
	a := &auth.Authenticator{} // no stores: the in-process path must not read one
	const ws = "0b5c0f7e-6f0a-4a3c-9d55-1f6f2d7b9a10"
	const other = "5d7e1c2a-1b2c-4d3e-8f9a-0a1b2c3d4e5f"
	post := &web.Request{Method: "POST", Headers: map[string]string{}}
	for _, role := range []auth.Role{auth.RoleViewer, auth.RoleDeveloper, auth.RoleAdmin, auth.RoleOwner} {
		ctx := auth.WithSignedIn(context.Background(), auth.SignedIn{WorkspaceID: ws, UserID: "u1", Role: role})
		id, err := a.AuthenticateWorkspace(ctx, post, ws)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if id.UserID != "u1" || id.Role != role || id.Kind != auth.KindSession || !slices.Equal(id.Scopes, role.Scopes()) {
			t.Fatalf("%s: identity %+v", role, id)
		}
		if err := id.Authorize(auth.DocumentsWrite, auth.Sandbox); (err == nil) != (role != auth.RoleViewer) {
			t.Fatalf("%s may write documents: %v", role, err)
		}
		if _, err := a.AuthenticateWorkspace(ctx, post, other); !isCode(err, apierr.InvalidAPIKey) {
			t.Fatalf("%s: another workspace answered %v, want 401", role, err)
		}
	}
	for _, s := range []auth.SignedIn{{WorkspaceID: ws, Role: auth.RoleOwner}, {WorkspaceID: ws, UserID: "u1", Role: "boss"}} {
		ctx := auth.WithSignedIn(context.Background(), s)
		if _, err := a.AuthenticateWorkspace(ctx, post, ws); !isCode(err, apierr.InvalidAPIKey) {
			t.Fatalf("%+v answered %v, want 401", s, err)
		}
	}
}

func isCode(err error, code apierr.Code) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Code == code
}
