package credential_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/webhook"
)

type env struct {
	stack *devstack.Stack
	store *dynamo.Store
	svc   *credential.Service
	ctx   context.Context
	now   time.Time
}

// setup starts dynalite with the template's table and returns a service over it, with a
// clock the test moves.
func setup(t *testing.T) *env {
	t.Helper()
	stack := devstack.StartTestStack(t)
	store := &dynamo.Store{DB: stack.DDB, Table: stack.TableName("Table")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	sealer, err := kmsseal.NewLocal(stack.SealingKey)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{stack: stack, store: store, ctx: ctx, now: time.Date(2030, 3, 4, 5, 6, 7, 0, time.UTC)}
	e.svc = &credential.Service{Store: store, Sealer: sealer, Now: func() time.Time { return e.now }}
	return e
}

func (e *env) workspace(t *testing.T) string {
	t.Helper()
	id := uuid.NewString()
	if err := e.store.PutWorkspace(e.ctx, auth.Workspace{ID: id, Name: "Acme " + id[:4], CreatedAt: e.now}); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) create(t *testing.T, ws, name string, env auth.Environment, scopes ...auth.Scope) *credential.IssuedKey {
	t.Helper()
	k, err := e.svc.CreateKey(e.ctx, ws, credential.NewKey{Name: name, Environment: env, Scopes: scopes, CreatedBy: "user-1"})
	if err != nil {
		t.Fatalf("CreateKey(%q): %v", name, err)
	}
	return k
}

// authenticate runs the production authenticator against the table.
func (e *env) authenticate(key string) error {
	r := &web.Request{Headers: map[string]string{"authorization": "Bearer " + key}}
	_, err := (&auth.Authenticator{Keys: e.store, Now: func() time.Time { return e.now }}).Authenticate(e.ctx, r)
	return err
}

func wantField(t *testing.T, err error, field, rule string) {
	t.Helper()
	if _, v, ok := apierr.FieldOf(err); !ok || v.Path != field || !strings.Contains(v.Rule, rule) {
		t.Fatalf("error = %v, want a FieldError on %s (%s)", err, field, rule)
	}
	if ae := apierr.As(err); ae.Status() != 422 || ae.Violations[0].Path != field {
		t.Fatalf("apierr.As = %+v, want 422 naming %s", ae, field)
	}
}

func TestCreateListRevoke(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	other := e.workspace(t)

	k1 := e.create(t, ws, "  web server ", auth.Sandbox, auth.PaymentsWrite, auth.PaymentsRead, auth.PaymentsWrite)
	e.now = e.now.Add(time.Minute)
	k2 := e.create(t, ws, "reports", auth.Live, auth.DocumentsRead)
	theirs := e.create(t, other, "theirs", auth.Sandbox, auth.PaymentsRead)

	if !strings.HasPrefix(k1.Key, "sk_sandbox_") || !strings.HasPrefix(k2.Key, "sk_live_") {
		t.Fatalf("keys %q %q", k1.Key, k2.Key)
	}
	if k1.Info.Name != "web server" || !slices.Equal(k1.Info.Scopes, []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}) ||
		k1.Info.Status != credential.StatusActive || k1.Info.CreatedBy != "user-1" {
		t.Errorf("k1 info = %+v", k1.Info)
	}
	// The prefix identifies the key but is not it.
	if p := k1.Info.Prefix; !strings.HasPrefix(p, "sk_sandbox_") || !strings.HasSuffix(k1.Key, p[len(p)-4:]) || len(p) > 20 {
		t.Errorf("prefix %q of %q", p, k1.Key)
	}
	if err := e.authenticate(k1.Key); err != nil {
		t.Fatalf("a created key does not authenticate: %v", err)
	}

	list, err := e.svc.ListKeys(e.ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != k2.Info.ID || list[1].ID != k1.Info.ID {
		t.Fatalf("ListKeys = %+v, want k2, k1 (newest first)", list)
	}
	for _, i := range list {
		if strings.Contains(i.Prefix, k1.Key[11:30]) || strings.Contains(i.Prefix, k2.Key[8:30]) {
			t.Errorf("list shows key material: %+v", i)
		}
	}

	// Attacker cases: another workspace's key id, malformed and unknown ids are all not found,
	// and change nothing.
	for _, id := range []string{theirs.Info.ID, "", "key_", "APIKEY#" + k1.Record.Hash, k1.Record.Hash, "key_00000000000000000000",
		k1.Info.ID + "#", strings.ToUpper(k1.Info.ID), k1.Info.ID + " ", "../" + k1.Info.ID} {
		if _, err := e.svc.RevokeKey(e.ctx, ws, id, "user-1"); !errors.Is(err, credential.ErrKeyNotFound) || apierr.As(err).Status() != 404 {
			t.Errorf("RevokeKey(%q) = %v, want ErrKeyNotFound (404)", id, err)
		}
		if _, err := e.svc.RollKey(e.ctx, ws, id, credential.GraceNow, "user-1"); !errors.Is(err, credential.ErrKeyNotFound) {
			t.Errorf("RollKey(%q) = %v, want ErrKeyNotFound", id, err)
		}
	}
	if err := e.authenticate(theirs.Key); err != nil {
		t.Errorf("the other workspace's key was touched: %v", err)
	}
	// A workspace that does not exist, or cannot be one.
	for _, w := range []string{uuid.NewString(), "", "WS#" + ws, ws + "#x"} {
		if _, err := e.svc.CreateKey(e.ctx, w, credential.NewKey{Name: "n", Environment: auth.Sandbox, Scopes: auth.AllScopes, CreatedBy: "u"}); !credential.IsNotFound(err) {
			t.Errorf("CreateKey(workspace %q) = %v", w, err)
		}
	}

	// Revoke: refused at once by a reader without a cache; idempotent, keeping the first time.
	revokedAt := e.now
	info, err := e.svc.RevokeKey(e.ctx, ws, k1.Info.ID, "user-2")
	if err != nil || info.Status != credential.StatusRevoked || !info.RevokedAt.Equal(revokedAt) || info.ID != k1.Info.ID {
		t.Fatalf("RevokeKey = %+v, %v", info, err)
	}
	if err := e.authenticate(k1.Key); apierr.As(err).Code != apierr.InvalidAPIKey {
		t.Errorf("revoked key authenticates: %v", err)
	}
	e.now = e.now.Add(time.Hour)
	if info, err := e.svc.RevokeKey(e.ctx, ws, k1.Info.ID, "user-2"); err != nil || !info.RevokedAt.Equal(revokedAt) {
		t.Errorf("second RevokeKey = %+v, %v", info, err)
	}
	if err := e.authenticate(k2.Key); err != nil {
		t.Errorf("the other key stopped working: %v", err)
	}
}

func TestCreateKeyValidation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	nk := func(f func(*credential.NewKey)) credential.NewKey {
		k := credential.NewKey{Name: "n", Environment: auth.Sandbox, Scopes: []auth.Scope{auth.PaymentsRead}, CreatedBy: "u"}
		f(&k)
		return k
	}
	cases := []struct {
		in          credential.NewKey
		field, rule string
	}{
		{nk(func(k *credential.NewKey) { k.Name = " " }), "name", "is required"},
		{nk(func(k *credential.NewKey) { k.Name = strings.Repeat("x", 65) }), "name", "at most 64"},
		{nk(func(k *credential.NewKey) { k.Environment = "staging" }), "environment", "sandbox or live"},
		{nk(func(k *credential.NewKey) { k.Environment = "Live" }), "environment", "sandbox or live"},
		{nk(func(k *credential.NewKey) { k.Scopes = nil }), "scopes", "at least one"},
		{nk(func(k *credential.NewKey) { k.Scopes = []auth.Scope{"admin"} }), "scopes", "not a scope"},
	}
	for _, c := range cases {
		_, err := e.svc.CreateKey(e.ctx, ws, c.in)
		wantField(t, err, c.field, c.rule)
	}
	if list, _ := e.svc.ListKeys(e.ctx, ws); len(list) != 0 {
		t.Errorf("refused creations stored keys: %+v", list)
	}
}

func TestActiveKeyLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	var first *credential.IssuedKey
	for i := range credential.MaxActiveKeys {
		k := e.create(t, ws, "k", auth.Sandbox, auth.PaymentsRead)
		if i == 0 {
			first = k
		}
	}
	if _, err := e.svc.CreateKey(e.ctx, ws, credential.NewKey{Name: "one more", Environment: auth.Live, Scopes: auth.AllScopes, CreatedBy: "u"}); !errors.Is(err, credential.ErrTooManyKeys) {
		t.Fatalf("key %d: %v, want ErrTooManyKeys", credential.MaxActiveKeys+1, err)
	}
	// A roll needs a free place too; a revoked key frees one.
	if _, err := e.svc.RollKey(e.ctx, ws, first.Info.ID, credential.Grace1h, "u"); !errors.Is(err, credential.ErrTooManyKeys) {
		t.Fatalf("roll at the limit: %v", err)
	}
	if _, err := e.svc.RevokeKey(e.ctx, ws, first.Info.ID, "u"); err != nil {
		t.Fatal(err)
	}
	e.create(t, ws, "after a revoke", auth.Sandbox, auth.PaymentsRead)
}

func TestRollKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	old := e.create(t, ws, "checkout", auth.Live, auth.PaymentsWrite, auth.DocumentsRead)
	e.now = e.now.Add(time.Second)
	t0 := e.now

	// "2h" is not a dashboard grace: 422 naming the field and rule, and nothing changes.
	_, err := credential.ParseGrace("2h")
	wantField(t, err, "grace", "must be one of now, 1h, 24h, 7d")
	_, err = e.svc.RollKey(e.ctx, ws, old.Info.ID, credential.Grace(2*time.Hour), "user-1")
	wantField(t, err, "grace", "must be one of now, 1h, 24h, 7d")

	g, err := credential.ParseGrace("24h")
	if err != nil {
		t.Fatal(err)
	}
	nk, err := e.svc.RollKey(e.ctx, ws, old.Info.ID, g, "user-2")
	if err != nil {
		t.Fatalf("RollKey: %v", err)
	}
	if nk.Info.ID == old.Info.ID || nk.Key == old.Key || nk.Info.Name != "checkout" || nk.Info.Environment != auth.Live ||
		!slices.Equal(nk.Info.Scopes, old.Info.Scopes) || nk.Info.CreatedBy != "user-2" || nk.Info.Status != credential.StatusActive {
		t.Errorf("new key = %+v", nk.Info)
	}
	if r := nk.Replaced; r == nil || r.ID != old.Info.ID || r.Status != credential.StatusExpiring || !r.ExpiresAt.Equal(t0.Add(24*time.Hour)) {
		t.Errorf("replaced = %+v", nk.Replaced)
	}
	// Both work during the grace.
	if err := e.authenticate(old.Key); err != nil {
		t.Errorf("old key during grace: %v", err)
	}
	if err := e.authenticate(nk.Key); err != nil {
		t.Errorf("new key: %v", err)
	}
	// Rolling the expiring key again is refused (what was chosen: revoke it to end it sooner),
	// and issues nothing.
	if _, err := e.svc.RollKey(e.ctx, ws, old.Info.ID, credential.GraceNow, "user-1"); !errors.Is(err, credential.ErrKeyRolled) || apierr.As(err).Status() != 409 {
		t.Errorf("re-roll = %v, want ErrKeyRolled (409)", err)
	}
	list, _ := e.svc.ListKeys(e.ctx, ws)
	if len(list) != 2 || list[0].ID != nk.Info.ID || list[1].Status != credential.StatusExpiring {
		t.Errorf("list after roll = %+v", list)
	}
	// After the grace the old key is expired: refused by the API and not rollable.
	e.now = t0.Add(24 * time.Hour)
	if err := e.authenticate(old.Key); apierr.As(err).Code != apierr.InvalidAPIKey {
		t.Errorf("old key after grace: %v", err)
	}
	if _, err := e.svc.RollKey(e.ctx, ws, old.Info.ID, credential.Grace1h, "user-1"); !errors.Is(err, credential.ErrKeyInactive) {
		t.Errorf("roll expired = %v", err)
	}
	if list, _ := e.svc.ListKeys(e.ctx, ws); list[1].Status != credential.StatusExpired {
		t.Errorf("old key status = %s", list[1].Status)
	}

	// Grace "now": revoked at once; a revoked key is not rollable.
	now, _ := credential.ParseGrace("now")
	k3, err := e.svc.RollKey(e.ctx, ws, nk.Info.ID, now, "user-1")
	if err != nil || k3.Replaced.Status != credential.StatusRevoked || !k3.Replaced.RevokedAt.Equal(e.now) {
		t.Fatalf("roll now = %+v, %v", k3, err)
	}
	if err := e.authenticate(nk.Key); apierr.As(err).Code != apierr.InvalidAPIKey {
		t.Errorf("key rolled now still works: %v", err)
	}
	if _, err := e.svc.RollKey(e.ctx, ws, nk.Info.ID, credential.Grace7d, "user-1"); !errors.Is(err, credential.ErrKeyInactive) {
		t.Errorf("roll revoked = %v", err)
	}
	if list, _ := e.svc.ListKeys(e.ctx, ws); len(list) != 3 {
		t.Errorf("refused rolls issued keys: %d", len(list))
	}
}

// Two concurrent rolls of one key: exactly one wins; the loser's replacement is revoked.
func TestConcurrentRolls(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	old := e.create(t, ws, "k", auth.Sandbox, auth.PaymentsRead)
	const n = 4
	var wg sync.WaitGroup
	results := make([]*credential.IssuedKey, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.svc.RollKey(e.ctx, ws, old.Info.ID, credential.Grace1h, "u")
		}()
	}
	wg.Wait()
	won := 0
	for i := range n {
		switch {
		case errs[i] == nil:
			won++
			if err := e.authenticate(results[i].Key); err != nil {
				t.Errorf("the winner's key does not work: %v", err)
			}
		case !errors.Is(errs[i], credential.ErrKeyRolled):
			t.Errorf("roll %d: %v", i, errs[i])
		}
	}
	if won != 1 {
		t.Fatalf("%d rolls won, want 1", won)
	}
	active := 0
	list, _ := e.svc.ListKeys(e.ctx, ws)
	for _, k := range list {
		if k.Status == credential.StatusActive {
			active++
		}
	}
	if active != 1 {
		t.Errorf("%d active keys after concurrent rolls, want 1 (the winner's): %+v", active, list)
	}
}

func TestWebhookSecrets(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	t0 := e.now

	if _, err := e.svc.RollWebhookSecret(e.ctx, ws, auth.Sandbox, credential.Grace24h, "u"); !errors.Is(err, credential.ErrNoWebhookSecret) {
		t.Fatalf("roll before issue = %v", err)
	}
	first, err := e.svc.IssueWebhookSecret(e.ctx, ws, auth.Sandbox, "u")
	if err != nil || !strings.HasPrefix(first.Secret, webhook.SecretPrefix) || !first.Info.Current() {
		t.Fatalf("issue = %+v, %v", first, err)
	}
	if _, err := e.svc.IssueWebhookSecret(e.ctx, ws, auth.Sandbox, "u"); !errors.Is(err, credential.ErrWebhookSecretExists) {
		t.Errorf("second issue = %v", err)
	}
	_, err = e.svc.RollWebhookSecret(e.ctx, ws, auth.Sandbox, credential.Grace(2*time.Hour), "u")
	wantField(t, err, "grace", "must be one of")
	_, err = e.svc.IssueWebhookSecret(e.ctx, ws, "staging", "u")
	wantField(t, err, "environment", "sandbox or live")
	if _, err := e.svc.ListWebhookSecrets(e.ctx, uuid.NewString(), auth.Sandbox); !credential.IsNotFound(err) {
		t.Errorf("list of a missing workspace = %v", err)
	}

	e.now = t0.Add(time.Minute)
	second, err := e.svc.RollWebhookSecret(e.ctx, ws, auth.Sandbox, credential.Grace1h, "u")
	if err != nil || second.Secret == first.Secret || len(second.Previous) != 1 || !second.Previous[0].ExpiresAt.Equal(e.now.Add(time.Hour)) {
		t.Fatalf("roll = %+v, %v", second, err)
	}
	list, err := e.svc.ListWebhookSecrets(e.ctx, ws, auth.Sandbox)
	if err != nil || len(list) != 2 || list[0].ID != second.Info.ID || list[1].ID != first.Info.ID {
		t.Fatalf("list = %+v, %v", list, err)
	}
	// Grace "now" stops every older secret at once; the live environment is separate.
	third, err := e.svc.RollWebhookSecret(e.ctx, ws, auth.Sandbox, credential.GraceNow, "u")
	if err != nil || len(third.Previous) != 0 {
		t.Fatalf("roll now = %+v, %v", third, err)
	}
	if list, _ := e.svc.ListWebhookSecrets(e.ctx, ws, auth.Sandbox); len(list) != 1 || list[0].ID != third.Info.ID {
		t.Errorf("after roll now: %+v", list)
	}
	if list, _ := e.svc.ListWebhookSecrets(e.ctx, ws, auth.Live); len(list) != 0 {
		t.Errorf("live: %+v", list)
	}
	// The list never holds a secret.
	for _, i := range list {
		if strings.Contains(i.ID, "whsec_") {
			t.Errorf("listed %+v", i)
		}
	}
}
