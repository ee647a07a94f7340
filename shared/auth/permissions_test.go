package auth

import "testing"

func TestRoleCan(t *testing.T) {
	want := map[Role][]Permission{
		RoleViewer:    {ViewWorkspace},
		RoleDeveloper: {ViewWorkspace, WriteDocuments, ViewKeys},
		RoleAdmin:     {ViewWorkspace, WriteDocuments, ViewKeys, ManageKeys, ManageTeam, ViewActivity},
		RoleOwner:     AllPermissions,
		Role("root"):  nil,
		Role(""):      nil,
	}
	for role, allowed := range want {
		for _, p := range AllPermissions {
			exp := false
			for _, a := range allowed {
				exp = exp || a == p
			}
			if got := role.Can(p); got != exp {
				t.Errorf("%q.Can(%q) = %v, want %v", role, p, got, exp)
			}
		}
		if role.Can(Permission("anything")) {
			t.Errorf("%q.Can(unknown permission) = true", role)
		}
	}
	// The dashboard's write permission and the API scopes a session carries agree.
	for _, r := range AllRoles {
		hasWrite := false
		for _, s := range r.Scopes() {
			hasWrite = hasWrite || s == DocumentsWrite
		}
		if hasWrite != r.Can(WriteDocuments) {
			t.Errorf("%q: documents:write scope %v but Can(WriteDocuments) %v", r, hasWrite, r.Can(WriteDocuments))
		}
	}
}
