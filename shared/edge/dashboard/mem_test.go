package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
)

// mem is an in-memory stand-in for the domain services, for the edge's unit tests (the
// integration tests run the real services on dynalite through the local gateway).
type mem struct {
	mu       sync.Mutex
	sessions map[string]SessionUser
	members  map[string]map[string]auth.Role // ws -> user -> role
	emails   map[string]string               // user -> email
	keys     map[string][]Key
	failures map[string]int
	hooks    map[string]string
	n        int
}

func newMem() *mem {
	return &mem{sessions: map[string]SessionUser{}, members: map[string]map[string]auth.Role{},
		emails: map[string]string{}, keys: map[string][]Key{}, failures: map[string]int{}}
}

// signIn makes a session of a user with a role in workspace "ws1".
func (m *mem) signIn(user string, role auth.Role) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	tok := randomToken()
	m.sessions[tok] = SessionUser{UserID: user, Email: user + "@shop.com.bd", WorkspaceID: "ws1", CSRF: sessionCSRF(tok)}
	if m.members["ws1"] == nil {
		m.members["ws1"] = map[string]auth.Role{}
	}
	m.members["ws1"][user] = role
	m.emails[user] = user + "@shop.com.bd"
	return tok
}

func (m *mem) SignUp(ctx context.Context, in SignUpInput) error {
	if len(in.Password) < 12 {
		return apierr.Field("password", "min_length", "must be 12 to 128 characters")
	}
	return nil
}
func (m *mem) VerifyEmail(ctx context.Context, token, password string, c Client) (*Session, error) {
	if token != "good" {
		return nil, account.ErrInvalidToken
	}
	if password != "correct horse battery" {
		return nil, account.ErrBadCredentials
	}
	return &Session{Token: m.signIn("newbie", auth.RoleOwner)}, nil
}
func (m *mem) SignIn(ctx context.Context, email, password string, c Client) (*Session, error) {
	m.mu.Lock()
	if m.failures[email] >= 10 {
		m.mu.Unlock()
		return nil, apierr.Limited(90*time.Second, "too many failed sign-ins")
	}
	if password != "correct horse battery" {
		m.failures[email]++
		m.mu.Unlock()
		return nil, account.ErrBadCredentials
	}
	m.mu.Unlock()
	return &Session{Token: m.signIn("owner", auth.RoleOwner)}, nil
}
func (m *mem) RequestPasswordReset(ctx context.Context, email, lang string, c Client) error {
	return nil
}
func (m *mem) ResetPassword(ctx context.Context, token, pw string, removePasskeys bool, c Client) error {
	if token != "good" {
		return account.ErrInvalidToken
	}
	return nil
}
func (m *mem) Authenticate(ctx context.Context, token string) (*SessionUser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.sessions[token]
	if !ok {
		return nil, account.ErrNoSession
	}
	return &u, nil
}
func (m *mem) SignOut(ctx context.Context, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, token)
	return nil
}
func (m *mem) ActivatePasskeys(ctx context.Context, userID string, c Client) error { return nil }
func (m *mem) ConfirmPassword(ctx context.Context, token, password string, c Client) error {
	if password != "correct horse battery" {
		return account.ErrBadCredentials
	}
	return nil
}
func (m *mem) SignOutEverywhere(ctx context.Context, userID string, removePasskeys bool, c Client) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, u := range m.sessions {
		if u.UserID == userID {
			delete(m.sessions, k)
		}
	}
	return nil
}

func (m *mem) membership(ctx context.Context, userID, ws string) (*Membership, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.members[ws][userID]
	if !ok {
		return nil, nil
	}
	return &Membership{WorkspaceID: ws, WorkspaceName: "Shop <BD>", Role: r}, nil
}
func (m *mem) Workspaces(ctx context.Context, userID string) ([]Membership, error) {
	mm, err := m.membership(ctx, userID, "ws1")
	if mm == nil || err != nil {
		return nil, err
	}
	return []Membership{*mm}, nil
}
func (m *mem) ListMembers(ctx context.Context, a Actor) ([]Member, error) {
	ws := a.WorkspaceID
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Member
	for u, r := range m.members[ws] {
		out = append(out, Member{UserID: u, Email: m.emails[u], Role: r, Since: time.Unix(1_790_000_000, 0)})
	}
	return out, nil
}
func (m *mem) ListInvites(ctx context.Context, a Actor) ([]Invite, error) { return nil, nil }
func (m *mem) Invite(ctx context.Context, a Actor, email string, role auth.Role, lang string) (*Invite, error) {
	return &Invite{Email: email, Role: role}, nil
}
func (m *mem) RevokeInvite(ctx context.Context, a Actor, id string) error { return nil }
func (m *mem) ChangeRole(ctx context.Context, a Actor, userID string, role auth.Role) (*auth.MembershipRecord, error) {
	return &auth.MembershipRecord{UserID: userID, WorkspaceID: a.WorkspaceID, Role: role}, nil
}
func (m *mem) Remove(ctx context.Context, a Actor, userID string) error { return nil }
func (m *mem) Leave(ctx context.Context, a Actor) error {
	if a.Role == auth.RoleOwner {
		return apierr.New(apierr.StateConflict, "the last owner cannot leave")
	}
	return nil
}
func (m *mem) TransferOwnership(ctx context.Context, a Actor, userID string) (*auth.MembershipRecord, error) {
	return &auth.MembershipRecord{UserID: userID, WorkspaceID: a.WorkspaceID, Role: auth.RoleOwner}, nil
}
func (m *mem) LookupInvite(ctx context.Context, token string) (*Invite, error) {
	if token != "inv" {
		return nil, account.ErrInvalidToken
	}
	return &Invite{ID: "i1", Email: "dev@shop.com.bd", Role: auth.RoleDeveloper, WorkspaceID: "ws1",
		WorkspaceName: "Shop <BD>", InviterEmail: "owner@shop.com.bd", ExpiresAt: time.Unix(1_790_000_000, 0)}, nil
}
func (m *mem) AcceptInvite(ctx context.Context, token, userID, email string) (*auth.MembershipRecord, error) {
	return &auth.MembershipRecord{UserID: userID, WorkspaceID: "ws1", Role: auth.RoleDeveloper}, nil
}

func (m *mem) ListKeys(ctx context.Context, ws string) ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Key(nil), m.keys[ws]...), nil
}
func (m *mem) CreateKey(ctx context.Context, a Actor, k NewKey) (*IssuedKey, error) {
	if k.Name == "refused" {
		return nil, apierr.Invalid(apierr.Violation{Path: "name", Rule: "is refused"})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	key := Key{ID: fmt.Sprintf("key_%d", m.n), Name: k.Name, Prefix: "sk_sandbox_ab12", Environment: k.Environment,
		Scopes: k.Scopes, CreatedBy: a.Email, CreatedAt: time.Unix(1_790_000_000, 0), State: "active"}
	m.keys[a.WorkspaceID] = append(m.keys[a.WorkspaceID], key)
	return &IssuedKey{Key: key, Secret: "sk_sandbox_SECRET" + key.ID}, nil
}
func (m *mem) RevokeKey(ctx context.Context, a Actor, id string) error { return nil }
func (m *mem) RollKey(ctx context.Context, a Actor, id string, g time.Duration) (*IssuedKey, error) {
	return m.CreateKey(ctx, a, NewKey{Name: "rolled", Environment: auth.Sandbox, Scopes: []auth.Scope{auth.PaymentsRead}})
}
func (m *mem) ListWebhookSecrets(ctx context.Context, ws string, env auth.Environment) ([]WebhookSecret, error) {
	return nil, nil
}
func (m *mem) IssueWebhookSecret(ctx context.Context, a Actor, env auth.Environment, g time.Duration) (string, error) {
	return "whsec_SECRET", nil
}
func (m *mem) List(ctx context.Context, ws, cursor string, limit int) (*activity.Page, error) {
	return &activity.Page{Items: []activity.Entry{{Event: activity.Event{At: time.Unix(1_790_000_000, 0), ActorEmail: "owner@shop.com.bd",
		Action: "key.created", Target: "key_1", IP: "203.0.113.7", UserAgent: "<script>"}}}}, nil
}

// sessionCSRF stands in for the account service's token (an HMAC keyed by the session token).
func sessionCSRF(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("takapay dashboard csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (m *mem) DocumentWebhooks(ctx context.Context, ws string) (map[auth.Environment]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return map[auth.Environment]string{auth.Sandbox: m.hooks[ws+"#sandbox"], auth.Live: m.hooks[ws+"#live"]}, nil
}

func (m *mem) SetDocumentWebhook(ctx context.Context, a Actor, env auth.Environment, url string) error {
	if url != "" && !strings.HasPrefix(url, "https://") {
		return apierr.Invalid(apierr.Violation{Path: "url", Rule: "must use https"})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hooks == nil {
		m.hooks = map[string]string{}
	}
	m.hooks[a.WorkspaceID+"#"+string(env)] = url
	return nil
}

// memForms is an in-memory FormClaims (the integration tests run package dynamo's).
type memForms struct {
	mu     sync.Mutex
	claims map[string]*memClaim
}

type memClaim struct {
	FormClaim
	sealed  []byte
	expires time.Time
}

func (f *memForms) live(id string, now time.Time) *memClaim {
	if c := f.claims[id]; c != nil && now.Before(c.expires) {
		return c
	}
	return nil
}

func (f *memForms) ClaimForm(ctx context.Context, id string, now, expires time.Time) (bool, *FormClaim, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.live(id, now); c != nil {
		prior := c.FormClaim
		return false, &prior, nil
	}
	if f.claims == nil {
		f.claims = map[string]*memClaim{}
	}
	f.claims[id] = &memClaim{expires: expires}
	return true, nil, nil
}

func (f *memForms) FinishForm(ctx context.Context, id, location string, sealed []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.claims[id]
	if c == nil {
		return fmt.Errorf("no claim %s", id)
	}
	c.Done, c.Location, c.sealed = true, location, sealed
	return nil
}

func (f *memForms) ReleaseForm(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.claims, id)
	return nil
}

func (f *memForms) TakeFormSecret(ctx context.Context, id string, now time.Time) ([]byte, *FormClaim, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.live(id, now)
	if c == nil {
		return nil, nil, nil
	}
	sealed := c.sealed
	c.sealed = nil
	claim := c.FormClaim
	return sealed, &claim, nil
}
