package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
)

func (c *cli) createUser(t *testing.T, email string) string {
	t.Helper()
	out, _ := c.ok(t, "user", "create", "--email", email)
	id := fields(out)["user_id"]
	if id == "" {
		t.Fatalf("user create printed no user_id:\n%s", out)
	}
	return id
}

// sessionJSON is the --json output of session create.
type sessionJSON struct {
	Token     string `json:"token"`
	Cookie    string `json:"cookie"`
	UserID    string `json:"user_id"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

// authenticateCookie runs the production authenticator against the test store with a session
// cookie.
func (c *cli) authenticateCookie(token, ws string) (*auth.Identity, error) {
	r := &web.Request{Method: "GET", Cookies: []string{auth.SessionCookie + "=" + token}}
	a := &auth.Authenticator{Keys: c.store, Sessions: c.store}
	return a.AuthenticateWorkspace(c.ctx, r, ws)
}

func TestUserCreate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out, _ := c.ok(t, "user", "create", "--email", "rahim@example.com.bd")
	f := fields(out)
	id, err := uuid.Parse(f["user_id"])
	if err != nil || id.Version() != 7 || f["email"] != "rahim@example.com.bd" {
		t.Fatalf("user create output =\n%s", out)
	}
	if u, err := c.store.GetUser(c.ctx, f["user_id"]); err != nil || u.Email != "rahim@example.com.bd" {
		t.Errorf("stored user = %+v, %v", u, err)
	}

	out, _ = c.ok(t, "--json", "user", "create", "--email", "karim@example.com")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("--json user create: %v\n%s", err, out)
	}
	if _, err := uuid.Parse(v["user_id"].(string)); err != nil || v["email"] != "karim@example.com" || v["created_at"] == nil {
		t.Errorf("--json user create = %s", out)
	}
}

func TestUserGrantAndList(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	other := c.createWorkspace(t, "Other")
	alice := c.createUser(t, "alice@example.com")
	bob := c.createUser(t, "bob@example.com")

	out, _ := c.ok(t, "user", "grant", "--user", alice, "--workspace", ws, "--role", "viewer")
	if f := fields(out); f["user_id"] != alice || f["workspace_id"] != ws || f["role"] != "viewer" {
		t.Errorf("user grant output =\n%s", out)
	}
	// Re-grant replaces the role.
	out, _ = c.ok(t, "--json", "user", "grant", "--user", alice, "--workspace", ws, "--role", "owner")
	var g map[string]string
	if err := json.Unmarshal([]byte(out), &g); err != nil || g["role"] != "owner" || g["user_id"] != alice || g["workspace_id"] != ws {
		t.Errorf("--json user grant = %s (%v)", out, err)
	}
	c.ok(t, "user", "grant", "--user", bob, "--workspace", ws, "--role", "developer")
	c.ok(t, "user", "grant", "--user", bob, "--workspace", other, "--role", "admin")
	if m, err := c.store.GetMembership(c.ctx, alice, ws); err != nil || m == nil || m.Role != auth.RoleOwner {
		t.Errorf("stored membership = %+v, %v", m, err)
	}

	out, _ = c.ok(t, "user", "list", "--workspace", ws)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("user list =\n%s", out)
	}
	for _, h := range []string{"USER_ID", "EMAIL", "ROLE", "SINCE"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %s", lines[0], h)
		}
	}
	rows := map[string]string{}
	for _, l := range lines[1:] {
		id, rest, _ := strings.Cut(l, " ")
		rows[id] = rest
	}
	if !strings.Contains(rows[alice], "alice@example.com") || !strings.Contains(rows[alice], " owner ") ||
		!strings.Contains(rows[bob], "bob@example.com") || !strings.Contains(rows[bob], " developer ") {
		t.Errorf("user list rows = %q", rows)
	}

	out, _ = c.ok(t, "--json", "user", "list", "--workspace", other)
	var list []map[string]string
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("--json user list: %v\n%s", err, out)
	}
	if len(list) != 1 || list[0]["user_id"] != bob || list[0]["role"] != "admin" || list[0]["email"] != "bob@example.com" || list[0]["since"] == "" {
		t.Errorf("--json user list = %s", out)
	}
	out, _ = c.ok(t, "user", "list", "--workspace", c.createWorkspace(t, "Empty"))
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 {
		t.Errorf("user list of an empty workspace =\n%s", out)
	}
}

func TestSessionCreateAndRevoke(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	u := c.createUser(t, "dev@example.com")
	c.ok(t, "user", "grant", "--user", u, "--workspace", ws, "--role", "developer")

	before := time.Now().UTC()
	out, stderr := c.ok(t, "session", "create", "--user", u)
	f := fields(out)
	token := f["token"]
	hash, err := auth.ParseSessionToken(token)
	if err != nil {
		t.Fatalf("printed token %q: %v\n%s", token, err, out)
	}
	if f["user_id"] != u || !strings.Contains(out, "curl -b "+auth.HostSessionCookie+"="+token+" ") || strings.Contains(stderr, token) {
		t.Errorf("session create output =\n%s\nstderr: %s", out, stderr)
	}
	rec, err := c.store.GetSession(c.ctx, hash)
	if err != nil || rec == nil || rec.UserID != u || rec.RevokedAt != nil {
		t.Fatalf("stored session = %+v, %v", rec, err)
	}
	// Default lifetime: 12 hours.
	if d := rec.ExpiresAt.Sub(rec.CreatedAt); d != 12*time.Hour || rec.CreatedAt.Before(before) {
		t.Errorf("session lifetime = %s (created %v)", d, rec.CreatedAt)
	}
	if exp, err := time.Parse(time.RFC3339, f["expires_at"]); err != nil || !exp.Equal(rec.ExpiresAt.Truncate(time.Second)) {
		t.Errorf("expires_at line %q, stored %v", f["expires_at"], rec.ExpiresAt)
	}
	id, err := c.authenticateCookie(token, ws)
	if err != nil || id.UserID != u || id.Role != auth.RoleDeveloper {
		t.Fatalf("the printed cookie does not authenticate: %+v, %v", id, err)
	}

	// JSON, with a ttl.
	out, _ = c.ok(t, "--json", "session", "create", "--user", u, "--ttl", "30m")
	var s sessionJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("--json session create: %v\n%s", err, out)
	}
	h2, err := auth.ParseSessionToken(s.Token)
	if err != nil || s.Cookie != auth.SessionCookie+"="+s.Token || s.UserID != u || s.Token == token {
		t.Fatalf("--json session create = %+v (%v)", s, err)
	}
	rec2, err := c.store.GetSession(c.ctx, h2)
	if err != nil || rec2 == nil || rec2.ExpiresAt.Sub(rec2.CreatedAt) != 30*time.Minute {
		t.Errorf("ttl 30m session = %+v, %v", rec2, err)
	}

	// Revoke the first: it stops working; the second keeps working.
	out, _ = c.ok(t, "session", "revoke", "--token", token)
	if out != "revoked: session of user "+u+"\n" {
		t.Errorf("session revoke output = %q", out)
	}
	if rec, _ := c.store.GetSession(c.ctx, hash); rec == nil || rec.RevokedAt == nil {
		t.Errorf("revoked session = %+v", rec)
	}
	_, err = c.authenticateCookie(token, ws)
	if ae := (*apierr.Error)(nil); !errors.As(err, &ae) || ae.Code != apierr.InvalidAPIKey {
		t.Errorf("revoked cookie authenticates: %v", err)
	}
	if _, err := c.authenticateCookie(s.Token, ws); err != nil {
		t.Errorf("revoking one session broke another: %v", err)
	}
	// Idempotent, JSON.
	out, _ = c.ok(t, "--json", "session", "revoke", "--token", token)
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["revoked"] != "session" || v["user_id"] != u {
		t.Errorf("--json session revoke = %s (%v)", out, err)
	}
}

func TestUserAndSessionUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	u := c.createUser(t, "u@example.com")
	unknownToken, _, _ := auth.NewSessionToken()
	// Code 2: a usage error; 1: the command line is fine but the command failed.
	cases := []struct {
		args    []string
		wantErr string
		code    int
	}{
		{[]string{"user"}, `"user" needs a subcommand`, 2},
		{[]string{"user", "delete", "--user", u}, `unknown command "user delete"`, 2},
		{[]string{"session", "list"}, `unknown command "session list"`, 2},
		{[]string{"user", "create"}, "--email", 2},
		{[]string{"user", "create", "--email", "not-an-email"}, "email", 2},
		{[]string{"user", "create", "--email", "u@example.com"}, "already registered", 1},
		{[]string{"user", "grant", "--workspace", ws, "--role", "viewer"}, "--user", 2},
		{[]string{"user", "grant", "--user", u, "--role", "viewer"}, "--workspace", 2},
		{[]string{"user", "grant", "--user", u, "--workspace", ws}, "--role", 2},
		{[]string{"user", "grant", "--user", u, "--workspace", ws, "--role", "root"}, "--role", 2},
		{[]string{"user", "grant", "--user", u, "--workspace", ws, "--role", "Owner"}, "--role", 2},
		{[]string{"user", "grant", "--user", "nobody", "--workspace", ws, "--role", "viewer"}, "--user must be a UUID", 2},
		{[]string{"user", "grant", "--user", u, "--workspace", ws + "x", "--role", "viewer"}, "--workspace must be a UUID", 2},
		{[]string{"user", "grant", "--user", uuid.NewString(), "--workspace", ws, "--role", "viewer"}, "user", 1},
		{[]string{"user", "grant", "--user", u, "--workspace", uuid.NewString(), "--role", "viewer"}, "workspace", 1},
		{[]string{"user", "list"}, "--workspace", 2},
		{[]string{"user", "list", "--workspace", uuid.NewString()}, "workspace", 1},
		{[]string{"session", "create"}, "--user", 2},
		{[]string{"session", "create", "--user", uuid.NewString()}, "user", 1},
		{[]string{"session", "create", "--user", u, "--ttl", "0s"}, "ttl", 2},
		{[]string{"session", "create", "--user", u, "--ttl", "721h"}, "ttl", 2},
		{[]string{"session", "create", "--user", u, "--ttl", "soon"}, `invalid value "soon" for flag -ttl`, 2},
		{[]string{"session", "revoke"}, "--token", 2},
		{[]string{"session", "revoke", "--token", "nope"}, "session token", 2},
		{[]string{"session", "revoke", "--token", unknownToken}, "not found", 1},
	}
	for _, tc := range cases {
		out, _, err := c.run(tc.args...)
		if err == nil {
			t.Errorf("paymentsctl %q succeeded:\n%s", tc.args, out)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("paymentsctl %q = %v, want an error mentioning %q", tc.args, err, tc.wantErr)
		}
		if got := exitCode(err); got != tc.code {
			t.Errorf("paymentsctl %q = %v: exit code %d, want %d", tc.args, err, got, tc.code)
		}
		if out != "" {
			t.Errorf("paymentsctl %q printed %q on stdout despite failing", tc.args, out)
		}
	}
	if list, err := c.store.ListMembers(c.ctx, ws); err != nil || len(list) != 0 {
		t.Errorf("failed commands granted memberships: %+v, %v", list, err)
	}
	// The usage text (printed after the error) names the new commands.
	_, _, err := c.run()
	var msg strings.Builder
	report(&msg, err)
	for _, want := range []string{"user create --email", "user grant", "--role viewer|developer|admin|owner", "user list", "session create --user", "--ttl 12h", "session revoke --token"} {
		if !strings.Contains(msg.String(), want) {
			t.Errorf("usage text lacks %q:\n%s", want, msg.String())
		}
	}
}
