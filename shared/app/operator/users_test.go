package operator

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/team"
)

func (e *env) user(t *testing.T, email string) *auth.User {
	t.Helper()
	u, err := e.op.CreateUser(e.ctx, email)
	if err != nil {
		t.Fatalf("CreateUser(%q): %v", email, err)
	}
	return u
}

func (e *env) grant(t *testing.T, userID, wsID string, role auth.Role) *auth.MembershipRecord {
	t.Helper()
	m, err := e.op.Grant(e.ctx, userID, wsID, role)
	if err != nil {
		t.Fatalf("Grant(%s, %s, %s): %v", userID, wsID, role, err)
	}
	return m
}

func (e *env) session(t *testing.T, userID string, ttl time.Duration) *IssuedSession {
	t.Helper()
	s, err := e.op.CreateSession(e.ctx, userID, ttl)
	if err != nil {
		t.Fatalf("CreateSession(%s, %s): %v", userID, ttl, err)
	}
	return s
}

// workspaceRequest is a documents request of method with the session cookie (and an Origin
// when origin is not empty).
func workspaceRequest(method, token, origin string) *web.Request {
	r := &web.Request{Method: method, Headers: map[string]string{}, Cookies: []string{auth.SessionCookie + "=" + token}}
	if origin != "" {
		r.Headers["origin"] = origin
	}
	return r
}

func wantCode(t *testing.T, err error, code apierr.Code) {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	e := setup(t)
	before := time.Now().UTC()
	u := e.user(t, "  rahim@example.com.bd ")
	after := time.Now().UTC()
	id, err := uuid.Parse(u.ID)
	if err != nil || id.Version() != 7 || id.String() != u.ID {
		t.Fatalf("user id %q is not a canonical UUIDv7 (%v)", u.ID, err)
	}
	if u.Email != "rahim@example.com.bd" || u.CreatedAt.Before(before) || u.CreatedAt.After(after) {
		t.Errorf("user = %+v", u)
	}
	got, err := e.store.GetUser(e.ctx, u.ID)
	if err != nil || got.Email != u.Email || !got.CreatedAt.Equal(u.CreatedAt) {
		t.Errorf("stored user = %+v, %v", got, err)
	}
	// An email is unique in any letter case.
	for _, dup := range []string{"rahim@example.com.bd", "Rahim@Example.com.bd", " RAHIM@EXAMPLE.COM.BD"} {
		if u2, err := e.op.CreateUser(e.ctx, dup); !errors.Is(err, dynamo.ErrEmailTaken) {
			t.Errorf("CreateUser(%q) after %q = %+v, %v; want ErrEmailTaken", dup, u.Email, u2, err)
		}
	}
	if u2 := e.user(t, "rahim2@example.com.bd"); u2.ID == u.ID {
		t.Error("two users got the same id")
	}
	for _, bad := range []string{"", "  ", "nope", "Rahim <rahim@example.com>", "a@b@c", "@example.com",
		strings.Repeat("a", 250) + "@x.bd"} {
		if u, err := e.op.CreateUser(e.ctx, bad); err == nil {
			t.Errorf("CreateUser(%q) = %+v, want an error", bad, u)
		}
	}
}

func TestGrantAndListMembers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	other := e.workspace(t, "Other")
	alice, bob := e.user(t, "alice@example.com"), e.user(t, "bob@example.com")

	m := e.grant(t, alice.ID, w.ID, auth.RoleViewer)
	if m.UserID != alice.ID || m.WorkspaceID != w.ID || m.Role != auth.RoleViewer {
		t.Errorf("Grant = %+v", m)
	}
	since := m.CreatedAt
	// Upper-case ids name the same user and workspace.
	m = e.grant(t, strings.ToUpper(alice.ID), strings.ToUpper(w.ID), auth.RoleOwner)
	if m.Role != auth.RoleOwner || !m.CreatedAt.Equal(since) || m.UserID != alice.ID || m.WorkspaceID != w.ID {
		t.Errorf("re-grant = %+v, want role owner, since %v kept", m, since)
	}
	e.grant(t, bob.ID, w.ID, auth.RoleDeveloper)
	e.grant(t, bob.ID, other.ID, auth.RoleViewer)

	list, err := e.op.ListMembers(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Member{}
	for _, m := range list {
		got[m.UserID] = m
	}
	if len(list) != 2 || got[alice.ID].Role != auth.RoleOwner || got[alice.ID].Email != "alice@example.com" ||
		!got[alice.ID].Since.Equal(since) || got[bob.ID].Role != auth.RoleDeveloper || got[bob.ID].Email != "bob@example.com" {
		t.Errorf("ListMembers(w) = %+v", list)
	}
	if list, err := e.op.ListMembers(e.ctx, other.ID); err != nil || len(list) != 1 || list[0].UserID != bob.ID || list[0].Role != auth.RoleViewer {
		t.Errorf("ListMembers(other) = %+v, %v", list, err)
	}

	for _, c := range []struct {
		what, user, ws string
		role           auth.Role
	}{
		{"unknown user", uuid.NewString(), w.ID, auth.RoleViewer},
		{"unknown workspace", alice.ID, uuid.NewString(), auth.RoleViewer},
		{"user id not a uuid", "alice", w.ID, auth.RoleViewer},
		{"workspace id not a uuid", alice.ID, "WS#" + w.ID, auth.RoleViewer},
		{"unknown role", alice.ID, w.ID, "root"},
		{"role in capitals", alice.ID, w.ID, "Owner"},
		{"a workspace id as user", w.ID, w.ID, auth.RoleViewer},
	} {
		if m, err := e.op.Grant(e.ctx, c.user, c.ws, c.role); err == nil {
			t.Errorf("%s: Grant = %+v, want an error", c.what, m)
		}
	}
	if m, _ := e.store.GetMembership(e.ctx, alice.ID, w.ID); m == nil || m.Role != auth.RoleOwner {
		t.Errorf("failed grants changed alice's membership: %+v", m)
	}
	if _, err := e.op.ListMembers(e.ctx, uuid.NewString()); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("ListMembers(unknown workspace) = %v, want ErrNotFound", err)
	}
}

func TestCreateSessionStoresOnlyTheHash(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "u@example.com")
	before := time.Now().UTC()
	s := e.session(t, u.ID, 12*time.Hour)
	after := time.Now().UTC()

	hash, err := auth.ParseSessionToken(s.Token)
	if err != nil || hash != s.Record.Hash || s.Record.UserID != u.ID {
		t.Fatalf("issued session %+v: token parses to %s, %v", s.Record, hash, err)
	}
	if s.Record.CreatedAt.Before(before) || s.Record.CreatedAt.After(after) || !s.Record.ExpiresAt.Equal(s.Record.CreatedAt.Add(12*time.Hour)) {
		t.Errorf("session times = %v .. %v", s.Record.CreatedAt, s.Record.ExpiresAt)
	}
	out, err := e.stack.DDB.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String(e.store.Table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 4 {
		t.Fatalf("scan returned %d items, want a user, its email, a session and its listing under the user", len(out.Items))
	}
	found := 0
	for _, item := range out.Items {
		var all []string
		for name, av := range item {
			all = append(all, name)
			collectStrings(av, &all)
		}
		for _, v := range all {
			if strings.Contains(v, s.Token) || strings.Contains(v, s.Token[:16]) {
				t.Errorf("a stored attribute value contains the session token: %q", v)
			}
		}
		if pk, _ := item["pk"].(*types.AttributeValueMemberS); pk != nil && pk.Value == "SESSION#"+auth.HashSessionToken(s.Token) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("%d items are keyed by the token's hash, want 1", found)
	}
	rec, err := e.store.GetSession(e.ctx, hash)
	if err != nil || rec == nil || rec.UserID != u.ID || !rec.Active(time.Now()) || !rec.ExpiresAt.Equal(s.Record.ExpiresAt) {
		t.Errorf("stored session = %+v, %v", rec, err)
	}

	if s2 := e.session(t, strings.ToUpper(u.ID), time.Minute); s2.Token == s.Token || s2.Record.UserID != u.ID {
		t.Errorf("second session = %+v", s2.Record)
	}
	e.session(t, u.ID, MaxSessionTTL)
	for _, c := range []struct {
		user string
		ttl  time.Duration
	}{
		{uuid.NewString(), time.Hour}, {"nobody", time.Hour}, {u.ID, 0}, {u.ID, -time.Hour}, {u.ID, MaxSessionTTL + time.Second},
	} {
		if s, err := e.op.CreateSession(e.ctx, c.user, c.ttl); err == nil {
			t.Errorf("CreateSession(%q, %s) = %+v, want an error", c.user, c.ttl, s.Record)
		}
	}
}

func TestRevokeSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "u@example.com")
	s := e.session(t, u.ID, time.Hour)
	keep := e.session(t, u.ID, time.Hour)

	rec, err := e.op.RevokeSession(e.ctx, s.Token)
	if err != nil || rec.RevokedAt == nil || rec.UserID != u.ID || rec.Active(time.Now()) {
		t.Fatalf("RevokeSession = %+v, %v", rec, err)
	}
	first := *rec.RevokedAt
	rec, err = e.op.RevokeSession(e.ctx, " "+s.Token+"\n")
	if err != nil || !rec.RevokedAt.Equal(first) {
		t.Errorf("second RevokeSession = %+v, %v; want revoked_at %v kept", rec, err, first)
	}
	if got, _ := e.store.GetSession(e.ctx, keep.Record.Hash); got == nil || !got.Active(time.Now()) {
		t.Errorf("revoking one session touched another: %+v", got)
	}
	unknown, _, _ := auth.NewSessionToken()
	if _, err := e.op.RevokeSession(e.ctx, unknown); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("RevokeSession(unknown) = %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "nope", s.Token[:42], s.Record.Hash} {
		if _, err := e.op.RevokeSession(e.ctx, bad); err == nil || strings.Contains(err.Error(), bad) && bad != "" {
			t.Errorf("RevokeSession(%q) = %v, want an error that does not echo it", bad, err)
		}
	}
}

// TestSessionAuthenticationEndToEnd runs the production authenticator against the real store:
// grants, role changes, revocation and expiry take effect on the next request.
func TestSessionAuthenticationEndToEnd(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	other := e.workspace(t, "Other")
	u := e.user(t, "dev@example.com")
	s := e.session(t, u.ID, time.Hour)
	const origin = "https://dashboard.example.com.bd"
	now := time.Now()
	a := &auth.Authenticator{Keys: e.store, Sessions: e.store, AllowedOrigins: []string{origin}, Now: func() time.Time { return now }}

	// A session without membership: 404 for every workspace.
	_, err := a.AuthenticateWorkspace(e.ctx, workspaceRequest("GET", s.Token, ""), w.ID)
	wantCode(t, err, apierr.NotFound)

	e.grant(t, u.ID, w.ID, auth.RoleDeveloper)
	id, err := a.AuthenticateWorkspace(e.ctx, workspaceRequest("POST", s.Token, origin), w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if id.Kind != auth.KindSession || id.UserID != u.ID || id.WorkspaceID != w.ID || id.Role != auth.RoleDeveloper || !id.ViaCookie ||
		id.Authorize(auth.DocumentsWrite, auth.Live) != nil || id.Authorize(auth.PaymentsWrite, auth.Sandbox) != nil {
		t.Errorf("identity = %+v", id)
	}
	_, err = a.AuthenticateWorkspace(e.ctx, workspaceRequest("POST", s.Token, ""), w.ID)
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied)
	_, err = a.AuthenticateWorkspace(e.ctx, workspaceRequest("GET", s.Token, ""), other.ID)
	wantCode(t, err, apierr.NotFound)

	// Downgraded to viewer: the next request has read only.
	e.grant(t, u.ID, w.ID, auth.RoleViewer)
	id, err = a.AuthenticateWorkspace(e.ctx, workspaceRequest("GET", s.Token, ""), w.ID)
	if err != nil || id.Role != auth.RoleViewer || id.Authorize(auth.DocumentsWrite, auth.Sandbox) == nil || id.Authorize(auth.DocumentsRead, auth.Sandbox) != nil {
		t.Errorf("after downgrade: %+v, %v", id, err)
	}

	// Expired (the clock passes expires_at; the item is still in the table).
	late := &auth.Authenticator{Sessions: e.store, Now: func() time.Time { return s.Record.ExpiresAt }}
	_, err = late.AuthenticateWorkspace(e.ctx, workspaceRequest("GET", s.Token, ""), w.ID)
	wantCode(t, err, apierr.InvalidAPIKey)

	// Revoked: the next request is 401.
	if _, err := e.op.RevokeSession(e.ctx, s.Token); err != nil {
		t.Fatal(err)
	}
	_, err = a.AuthenticateWorkspace(e.ctx, workspaceRequest("GET", s.Token, ""), w.ID)
	wantCode(t, err, apierr.InvalidAPIKey)

	// A bearer key of the workspace works through the same entry point; of another, 404.
	k := e.issue(t, w.ID, auth.Sandbox, []auth.Scope{auth.DocumentsRead}, "k")
	bearer := func(key string) *web.Request {
		return &web.Request{Headers: map[string]string{"authorization": "Bearer " + key}}
	}
	if id, err := a.AuthenticateWorkspace(e.ctx, bearer(k.Plaintext), w.ID); err != nil || id.Kind != auth.KindAPIKey || id.CredentialID != k.Record.KeyID {
		t.Errorf("bearer via AuthenticateWorkspace = %+v, %v", id, err)
	}
	_, err = a.AuthenticateWorkspace(e.ctx, bearer(k.Plaintext), other.ID)
	wantCode(t, err, apierr.NotFound)
}

// Concurrent creations of one email, in different letter cases: exactly one user is created.
func TestCreateUserConcurrentSameEmail(t *testing.T) {
	t.Parallel()
	e := setup(t)
	emails := []string{"race@example.com", "Race@example.com", "RACE@EXAMPLE.COM", "race@Example.com",
		"race@example.com", "rAce@example.com", "race@EXAMPLE.com", "Race@Example.Com"}
	type result struct {
		u   *auth.User
		err error
	}
	results := make(chan result, len(emails))
	start := make(chan struct{})
	for _, email := range emails {
		go func() {
			<-start
			u, err := e.op.CreateUser(e.ctx, email)
			results <- result{u, err}
		}()
	}
	close(start)
	var created []*auth.User
	for range emails {
		r := <-results
		switch {
		case r.err == nil:
			created = append(created, r.u)
		case !errors.Is(r.err, dynamo.ErrEmailTaken):
			t.Errorf("CreateUser: %v, want success or ErrEmailTaken", r.err)
		}
	}
	if len(created) != 1 {
		t.Fatalf("%d concurrent creations of one email succeeded, want 1: %+v", len(created), created)
	}
	// The table holds one user and one email claim, naming that user.
	out, err := e.stack.DDB.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String(e.store.Table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var users, claims []string
	for _, item := range out.Items {
		pk := item["pk"].(*types.AttributeValueMemberS).Value
		id := item["user_id"].(*types.AttributeValueMemberS).Value
		switch {
		case strings.HasPrefix(pk, "USER#"):
			users = append(users, id)
		case pk == "EMAIL#race@example.com":
			claims = append(claims, id)
		default:
			t.Errorf("unexpected item %s", pk)
		}
	}
	if len(users) != 1 || users[0] != created[0].ID || len(claims) != 1 || claims[0] != created[0].ID {
		t.Errorf("users %v, email claims %v; want one of each for %s", users, claims, created[0].ID)
	}
}

// TestGrantKeepsAnOwner: the operator cannot demote a workspace's last owner, and an owner it
// makes counts for the team's last-owner rule.
func TestGrantKeepsAnOwner(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "Owned")
	alice, bob := e.user(t, "owner-a@example.com"), e.user(t, "owner-b@example.com")
	e.grant(t, alice.ID, w.ID, auth.RoleOwner)
	if _, err := e.op.Grant(e.ctx, alice.ID, w.ID, auth.RoleAdmin); !errors.Is(err, team.ErrLastOwner) {
		t.Fatalf("demote the last owner: %v, want team.ErrLastOwner", err)
	}
	e.grant(t, bob.ID, w.ID, auth.RoleOwner)
	e.grant(t, bob.ID, w.ID, auth.RoleOwner) // again: nothing changes
	if m := e.grant(t, alice.ID, w.ID, auth.RoleDeveloper); m.Role != auth.RoleDeveloper {
		t.Fatalf("demote one of two owners: %+v", m)
	}
	if _, err := e.op.Grant(e.ctx, bob.ID, w.ID, auth.RoleViewer); !errors.Is(err, team.ErrLastOwner) {
		t.Fatalf("demote the new last owner: %v, want team.ErrLastOwner", err)
	}
	// A grant made owner again gets a new ownership that counts.
	e.grant(t, alice.ID, w.ID, auth.RoleOwner)
	if m := e.grant(t, bob.ID, w.ID, auth.RoleViewer); m.Role != auth.RoleViewer {
		t.Fatalf("demote bob after alice is owner again: %+v", m)
	}
}
