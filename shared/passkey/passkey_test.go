package passkey_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/passkey"
)

// fakeSessions is the session starter of these tests: it records whom it signed in.
type fakeSessions struct {
	mu    sync.Mutex
	users []string
}

func (f *fakeSessions) StartSession(_ context.Context, userID, ip, ua string) (string, time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users = append(f.users, userID)
	return "token-for-" + userID, time.Now().Add(8 * time.Hour), nil
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	mu       sync.Mutex
	events   []passkey.Event
	svc      *passkey.Service
	store    *dynamo.Store
	clock    *clock
	sessions *fakeSessions
	ctx      context.Context
}

func newEnv(t *testing.T, origin, rpID string) *env {
	t.Helper()
	stack := devstack.StartTestStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	store := &dynamo.Store{DB: stack.DDB, Table: stack.TableName("Table")}
	e := &env{store: store, clock: &clock{t: time.Now()}, sessions: &fakeSessions{}, ctx: ctx}
	onEvent := func(_ context.Context, ev passkey.Event) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events = append(e.events, ev)
	}
	svc, err := passkey.New(passkey.Config{Origin: origin, RPID: rpID, Name: "Takapay", Now: e.clock.Now, OnEvent: onEvent}, store, e.sessions)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	return e
}

// putPasskey stores a passkey record directly (a credential with no usable key).
func (e *env) putPasskey(t *testing.T, userID string, n int) *passkey.Record {
	t.Helper()
	raw := []byte(userID + "-" + string(rune('a'+n)))
	cred, _ := json.Marshal(webauthn.Credential{ID: raw, PublicKey: []byte{1}})
	r := &passkey.Record{ID: passkey.CredentialHash(raw), UserID: userID, Name: "key", CreatedAt: e.clock.Now(), Credential: cred}
	if err := e.store.PutPasskey(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewChecksConfig(t *testing.T) {
	for _, origin := range []string{"", "localhost", "ftp://x", "https://x/path", "https://x?q=1"} {
		if _, err := passkey.New(passkey.Config{Origin: origin, RPID: "x", Name: "n"}, &dynamo.Store{}, &fakeSessions{}); err == nil {
			t.Errorf("origin %q accepted", origin)
		}
	}
	if _, err := passkey.New(passkey.Config{Origin: "https://x", Name: "n"}, &dynamo.Store{}, &fakeSessions{}); err == nil {
		t.Error("no RPID accepted")
	}
}

func TestRegistrationOptions(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice := uuid.NewString()
	old := e.putPasskey(t, alice, 0)
	c, err := e.svc.BeginRegistration(e.ctx, alice, "alice@example.com", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ID) != 43 || !c.ExpiresAt.Equal(e.clock.Now().Add(passkey.CeremonyLifetime)) {
		t.Fatalf("ceremony %+v", c)
	}
	var opts struct {
		PublicKey struct {
			RP        struct{ ID, Name string }
			User      struct{ ID, Name, DisplayName string }
			Challenge string
			Exclude   []struct{ ID string } `json:"excludeCredentials"`
			Selection struct {
				ResidentKey      string
				UserVerification string
			} `json:"authenticatorSelection"`
			Timeout int
		}
	}
	if err := json.Unmarshal([]byte(c.Options), &opts); err != nil {
		t.Fatal(err)
	}
	pk := opts.PublicKey
	if pk.RP.ID != "example.com" || pk.RP.Name != "Takapay" || pk.User.Name != "alice@example.com" ||
		pk.Selection.ResidentKey != "required" || pk.Selection.UserVerification != "required" || pk.Timeout != 300000 {
		t.Fatalf("options %s", c.Options)
	}
	if h, _ := base64.RawURLEncoding.DecodeString(pk.User.ID); string(h) != alice {
		t.Fatalf("user handle %q, want the user id", h)
	}
	if len(pk.Exclude) != 1 {
		t.Fatalf("excludes %v", pk.Exclude)
	}
	if raw, _ := base64.RawURLEncoding.DecodeString(pk.Exclude[0].ID); passkey.CredentialHash(raw) != old.ID {
		t.Fatal("the existing passkey is not excluded")
	}
}

func TestCeremonyRules(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice, bob := uuid.NewString(), uuid.NewString()

	// A ceremony is used once, whatever the first attempt did.
	c, err := e.svc.BeginLogin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FinishLogin(e.ctx, c.ID, `{"id":"nonsense"}`, passkey.Client{}); !errors.Is(err, passkey.ErrRefused) {
		t.Fatalf("garbage response = %v, want ErrRefused", err)
	}
	if _, err := e.svc.FinishLogin(e.ctx, c.ID, `{"id":"nonsense"}`, passkey.Client{}); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("reused ceremony = %v, want ErrCeremony", err)
	}

	// Expired: the injected clock passes the ceremony's lifetime.
	c, _ = e.svc.BeginLogin(e.ctx)
	e.clock.Add(passkey.CeremonyLifetime)
	if _, err := e.svc.FinishLogin(e.ctx, c.ID, `{}`, passkey.Client{}); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("expired ceremony = %v, want ErrCeremony", err)
	}
	c, _ = e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now())
	e.clock.Add(passkey.CeremonyLifetime - time.Nanosecond)
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "Laptop", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrRefused) {
		t.Fatalf("ceremony 1 ns before expiry = %v, want ErrRefused (taken, then the response fails)", err)
	}

	// A registration ceremony is not a login's, nor another user's.
	c, _ = e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now())
	if _, err := e.svc.FinishLogin(e.ctx, c.ID, `{}`, passkey.Client{}); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("registration ceremony used to sign in = %v", err)
	}
	c, _ = e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now())
	if _, err := e.svc.FinishRegistration(e.ctx, bob, c.ID, "Mine", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("alice's ceremony finished by bob = %v", err)
	}
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "Mine", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("alice's ceremony after bob burnt it = %v", err)
	}
	l, _ := e.svc.BeginLogin(e.ctx)
	if _, err := e.svc.FinishRegistration(e.ctx, alice, l.ID, "Mine", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrCeremony) {
		t.Fatalf("login ceremony used to register = %v", err)
	}

	for _, id := range []string{"", "short", strings.Repeat("A", 43) + "=", strings.Repeat("!", 43)} {
		if _, err := e.svc.FinishLogin(e.ctx, id, `{}`, passkey.Client{}); !errors.Is(err, passkey.ErrCeremony) {
			t.Errorf("ceremony id %q = %v", id, err)
		}
	}
	if len(e.sessions.users) != 0 {
		t.Fatalf("sessions started: %v", e.sessions.users)
	}
	// One event: the garbage response (ceremony errors try nothing against a user).
	if got := e.eventSummary(); got != "passkey.signin.failed/refused/" {
		t.Fatalf("events %q", got)
	}
}

func TestNames(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice := uuid.NewString()
	r := e.putPasskey(t, alice, 0)
	for _, bad := range []string{"", " x", "x ", "a\nb", strings.Repeat("ন", 65), "\xff"} {
		if err := e.svc.Rename(e.ctx, alice, r.ID, bad); !isNameRefused(err) {
			t.Errorf("name %q = %v", bad, err)
		}
	}
	if err := e.svc.Rename(e.ctx, alice, r.ID, strings.Repeat("ন", 64)); err != nil {
		t.Fatal(err)
	}
	// A bad name is refused before the ceremony is touched.
	c, _ := e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now())
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "", `{}`, e.clock.Now()); !isNameRefused(err) {
		t.Fatalf("empty name = %v", err)
	}
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "Laptop", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrRefused) {
		t.Fatalf("after a refused name the ceremony = %v, want still usable (ErrRefused on the response)", err)
	}
}

func TestOnlyOwnPasskeys(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice, bob := uuid.NewString(), uuid.NewString()
	r := e.putPasskey(t, alice, 0)
	if err := e.svc.Remove(e.ctx, bob, r.ID); !errors.Is(err, passkey.ErrNotFound) {
		t.Fatalf("bob removes alice's passkey = %v", err)
	}
	if err := e.svc.Rename(e.ctx, bob, r.ID, "mine"); !errors.Is(err, passkey.ErrNotFound) {
		t.Fatalf("bob renames alice's passkey = %v", err)
	}
	if err := e.svc.Remove(e.ctx, alice, "not-a-hash"); !errors.Is(err, passkey.ErrNotFound) {
		t.Fatalf("malformed id = %v", err)
	}
	if l, _ := e.svc.List(e.ctx, bob); len(l) != 0 {
		t.Fatalf("bob lists %v", l)
	}
	if l, _ := e.svc.List(e.ctx, alice); len(l) != 1 || l[0].ID != r.ID {
		t.Fatalf("alice lists %v", l)
	}
	if err := e.svc.Remove(e.ctx, alice, r.ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := e.svc.List(e.ctx, alice); len(l) != 0 {
		t.Fatalf("after remove alice lists %v", l)
	}
}

func TestCap(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice := uuid.NewString()
	for i := range passkey.MaxPerUser - 1 {
		e.putPasskey(t, alice, i)
	}
	c, err := e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now())
	if err != nil {
		t.Fatalf("begin with %d passkeys: %v", passkey.MaxPerUser-1, err)
	}
	e.putPasskey(t, alice, passkey.MaxPerUser) // the tenth arrives meanwhile
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "Eleventh", `{}`, e.clock.Now()); !errors.Is(err, passkey.ErrTooMany) {
		t.Fatalf("finish at the cap = %v", err)
	}
	if _, err := e.svc.BeginRegistration(e.ctx, alice, "a@example.com", e.clock.Now()); !errors.Is(err, passkey.ErrTooMany) {
		t.Fatalf("begin at the cap = %v, want ErrTooMany", err)
	}
}

// eventSummary renders the events as "kind/reason/user" joined by spaces.
func (e *env) eventSummary() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var parts []string
	for _, ev := range e.events {
		parts = append(parts, ev.Kind+"/"+ev.Reason+"/"+ev.UserID)
	}
	return strings.Join(parts, " ")
}

// A stolen session alone cannot add a passkey: beginning and finishing both need the
// session's proof (the password or a sign-in) within FreshProof, checked on the server.
func TestRegistrationNeedsFreshProof(t *testing.T) {
	e := newEnv(t, "https://dash.example.com", "example.com")
	alice := uuid.NewString()
	signedIn := e.clock.Now()
	for name, proved := range map[string]time.Time{
		"never proved":          {},
		"proved 5 min 1 ns ago": signedIn.Add(-passkey.FreshProof - time.Nanosecond),
		"proved an hour ago":    signedIn.Add(-time.Hour),
		"proved in the future":  signedIn.Add(time.Hour),
	} {
		if c, err := e.svc.BeginRegistration(e.ctx, alice, "a@example.com", proved); !errors.Is(err, passkey.ErrStaleProof) || c != nil {
			t.Errorf("begin, %s: %v, %v; want ErrStaleProof", name, c, err)
		}
	}
	c, err := e.svc.BeginRegistration(e.ctx, alice, "a@example.com", signedIn)
	if err != nil {
		t.Fatal(err)
	}
	// The ceremony was begun with a fresh proof, but the proof went stale before the finish.
	e.clock.Add(passkey.FreshProof + time.Second)
	if _, err := e.svc.FinishRegistration(e.ctx, alice, c.ID, "Laptop", `{}`, signedIn); !errors.Is(err, passkey.ErrStaleProof) {
		t.Fatalf("finish with a stale proof = %v, want ErrStaleProof", err)
	}
	if recs, _ := e.svc.List(e.ctx, alice); len(recs) != 0 {
		t.Fatalf("passkeys stored: %d", len(recs))
	}
}

// isNameRefused reports a VALIDATION_FAILED refusal of the name.
func isNameRefused(err error) bool {
	_, v, ok := apierr.FieldOf(err)
	return ok && v.Path == "name"
}
