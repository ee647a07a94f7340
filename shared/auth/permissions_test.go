package auth

import "testing"

func TestRoleCan(t *testing.T) {
	want := map[Role][]Permission{
		RoleViewer:    {ViewWorkspace},
		RoleDeveloper: {ViewWorkspace, WriteDocuments, ViewKeys, CreateRefunds},
		RoleAdmin:     {ViewWorkspace, WriteDocuments, ViewKeys, ManageKeys, ManageTeam, ViewActivity, CreateRefunds, ApproveRefunds},
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

// Who receives a payer's capability (an intent's payment_url): a key with payments:write in
// the environment, a member whose role may create payments in the dashboard; nobody else.
func TestMayCreatePayments(t *testing.T) {
	key := func(env Environment, scopes ...Scope) *Identity {
		return &Identity{Kind: KindAPIKey, Environments: []Environment{env}, Scopes: scopes}
	}
	member := func(r Role) *Identity {
		return &Identity{Kind: KindSession, Environments: []Environment{Sandbox, Live}, Scopes: r.Scopes(), Role: r}
	}
	for _, c := range []struct {
		name string
		id   *Identity
		env  Environment
		want bool
	}{
		{"payments:write key", key(Sandbox, PaymentsWrite, PaymentsRead), Sandbox, true},
		{"payments:read key", key(Sandbox, PaymentsRead, DocumentsRead), Sandbox, false},
		{"documents:write key", key(Sandbox, DocumentsWrite, PaymentsRead), Sandbox, false},
		{"payments:write key, other environment", key(Live, PaymentsWrite), Sandbox, false},
		{"viewer", member(RoleViewer), Sandbox, false},
		{"viewer with a forged write scope", &Identity{Kind: KindSession, Environments: []Environment{Sandbox},
			Scopes: []Scope{PaymentsWrite}, Role: RoleViewer}, Sandbox, false},
		{"developer", member(RoleDeveloper), Sandbox, true},
		{"admin", member(RoleAdmin), Live, true},
		{"owner", member(RoleOwner), Sandbox, true},
		{"unknown role", member(Role("root")), Sandbox, false},
		{"nobody", nil, Sandbox, false},
	} {
		if got := c.id.MayCreatePayments(c.env); got != c.want {
			t.Errorf("%s: MayCreatePayments = %v, want %v", c.name, got, c.want)
		}
		if c.id != nil && c.id.Kind == KindSession && c.name != "viewer with a forged write scope" {
			if scoped := c.id.Authorize(PaymentsWrite, c.env) == nil; scoped != c.want {
				t.Errorf("%s: the session's payments:write scope (%v) and the capability (%v) disagree", c.name, scoped, c.want)
			}
		}
	}
}
