package operator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/devstack"
)

type env struct {
	stack *devstack.Stack
	store *dynamo.Store
	op    *Operator
	ctx   context.Context
}

// setup starts a fresh dynalite-backed stack for one test.
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
	return &env{stack: stack, store: store, op: &Operator{Store: store, Sealer: sealer}, ctx: ctx}
}

func (e *env) workspace(t *testing.T, name string) *auth.Workspace {
	t.Helper()
	w, err := e.op.CreateWorkspace(e.ctx, "", name)
	if err != nil {
		t.Fatalf("CreateWorkspace(%q): %v", name, err)
	}
	return w
}

func (e *env) issue(t *testing.T, wsID string, environment auth.Environment, scopes []auth.Scope, name string) *IssuedKey {
	t.Helper()
	k, err := e.op.IssueKey(e.ctx, wsID, environment, scopes, name)
	if err != nil {
		t.Fatalf("IssueKey(%s, %s, %v, %q): %v", wsID, environment, scopes, name, err)
	}
	return k
}

// getKey reads a key record back from the table by the plaintext's hash.
func (e *env) getKey(t *testing.T, plaintext string) *auth.KeyRecord {
	t.Helper()
	rec, err := e.store.GetKey(e.ctx, auth.HashKey(plaintext))
	if err != nil {
		t.Fatalf("GetKey: %v", err)
	}
	if rec == nil {
		t.Fatalf("GetKey: no record for the issued key")
	}
	return rec
}

func sortedScopes(s []auth.Scope) []auth.Scope {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func keyIDs(keys []*auth.KeyRecord) []string {
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.KeyID)
	}
	slices.Sort(ids)
	return ids
}

// authenticate runs the production authenticator against the store with a bearer key.
func authenticate(ctx context.Context, store *dynamo.Store, now func() time.Time, key string) (*auth.Identity, error) {
	r := &web.Request{Headers: map[string]string{"authorization": "Bearer " + key}}
	return (&auth.Authenticator{Keys: store, Now: now}).Authenticate(ctx, r)
}

func wantInvalidAPIKey(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("Authenticate succeeded; want 401 INVALID_API_KEY")
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("Authenticate error %v is not an *apierr.Error", err)
	}
	if ae.Code != apierr.InvalidAPIKey || ae.Status() != 401 {
		t.Fatalf("Authenticate error = %s (status %d); want INVALID_API_KEY (401)", ae.Code, ae.Status())
	}
}

func TestCreateWorkspaceRandomID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	before := time.Now().UTC()
	w1, err := e.op.CreateWorkspace(e.ctx, "", "  Acme Ltd  ")
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now().UTC()
	u, err := uuid.Parse(w1.ID)
	if err != nil || len(w1.ID) != 36 || u.String() != w1.ID {
		t.Fatalf("random id %q is not a canonical UUID (%v)", w1.ID, err)
	}
	if w1.Name != "Acme Ltd" {
		t.Errorf("name = %q, want it trimmed to %q", w1.Name, "Acme Ltd")
	}
	if w1.CreatedAt.Before(before) || w1.CreatedAt.After(after) {
		t.Errorf("created_at %v not within [%v, %v]", w1.CreatedAt, before, after)
	}
	got, err := e.store.GetWorkspace(e.ctx, w1.ID)
	if err != nil {
		t.Fatalf("GetWorkspace: %v", err)
	}
	if got.ID != w1.ID || got.Name != "Acme Ltd" || !got.CreatedAt.Equal(w1.CreatedAt) {
		t.Errorf("stored workspace = %+v, want %+v", got, w1)
	}
	w2 := e.workspace(t, "Acme Ltd")
	if w2.ID == w1.ID {
		t.Errorf("two random workspaces got the same id %s", w1.ID)
	}
}

func TestCreateWorkspaceGivenID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := uuid.NewString()
	w, err := e.op.CreateWorkspace(e.ctx, id, "Given")
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != id {
		t.Fatalf("id = %q, want %q", w.ID, id)
	}
	if got, err := e.store.GetWorkspace(e.ctx, id); err != nil || got.Name != "Given" {
		t.Fatalf("GetWorkspace(%s) = %+v, %v", id, got, err)
	}

	// An upper-case UUID is the same UUID: stored in canonical (lower-case) form.
	upper := strings.ToUpper(uuid.NewString())
	w, err = e.op.CreateWorkspace(e.ctx, upper, "Upper")
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != strings.ToLower(upper) {
		t.Errorf("id = %q, want canonical %q", w.ID, strings.ToLower(upper))
	}
}

func TestCreateWorkspaceSameIDTwiceFails(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id := uuid.NewString()
	if _, err := e.op.CreateWorkspace(e.ctx, id, "First"); err != nil {
		t.Fatal(err)
	}
	if w, err := e.op.CreateWorkspace(e.ctx, id, "Second"); err == nil {
		t.Fatalf("second CreateWorkspace(%s) = %+v, want an error", id, w)
	}
	// Same UUID spelled in upper case is the same workspace: also refused.
	if w, err := e.op.CreateWorkspace(e.ctx, strings.ToUpper(id), "Third"); err == nil {
		t.Fatalf("CreateWorkspace(upper-case %s) = %+v, want an error", id, w)
	}
	got, err := e.store.GetWorkspace(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "First" {
		t.Errorf("name = %q after failed re-creates, want the original %q", got.Name, "First")
	}
}

func TestCreateWorkspaceRejects(t *testing.T) {
	t.Parallel()
	e := setup(t)
	valid := uuid.NewString()
	cases := []struct {
		what, id, name string
	}{
		{"not a uuid", "not-a-uuid", "N"},
		{"uuid without hyphens", strings.ReplaceAll(valid, "-", ""), "N"},
		{"uuid in braces", "{" + valid + "}", "N"},
		{"urn uuid", "urn:uuid:" + valid, "N"},
		{"uuid with hash", valid[:35] + "#", "N"},
		{"empty name", "", ""},
		{"blank name", "", " \t\n "},
		{"name of 161 characters", "", strings.Repeat("a", 161)},
	}
	for _, c := range cases {
		if w, err := e.op.CreateWorkspace(e.ctx, c.id, c.name); err == nil {
			t.Errorf("%s: CreateWorkspace(%q, %q) = %+v, want an error", c.what, c.id, c.name, w)
		}
	}
	list, err := e.store.ListWorkspaces(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("rejected creates stored workspaces: %+v", list)
	}

	long := strings.Repeat("a", 160)
	w, err := e.op.CreateWorkspace(e.ctx, "", long)
	if err != nil {
		t.Fatalf("name of exactly 160 characters: %v", err)
	}
	if w.Name != long {
		t.Errorf("160-character name stored as %q", w.Name)
	}
}

// Regression (fixed): CreateWorkspace measures the name with len() (bytes), not characters, while its error
// says "1 to 160 characters" and every other name limit in the service (payment.MaxNameLen via
// jsonbody.StringRule) counts Unicode code points. A 60-character Bengali name (180 bytes in
// UTF-8) is rejected.
func TestCreateWorkspaceNameLimitCountsCharacters(t *testing.T) {
	t.Parallel()
	e := setup(t)
	name := strings.Repeat("ঢাকা", 15) // 60 code points, 180 bytes
	w, err := e.op.CreateWorkspace(e.ctx, "", name)
	if err != nil {
		t.Fatalf("CreateWorkspace(%d-character name) = %v; the limit is 160 characters", len([]rune(name)), err)
	}
	if w.Name != name {
		t.Errorf("name = %q, want %q", w.Name, name)
	}
}

func TestIssueKeyRequiresWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, ws := range []string{uuid.NewString(), "", "WS#x"} {
		if k, err := e.op.IssueKey(e.ctx, ws, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "n"); err == nil {
			t.Errorf("IssueKey(unknown workspace %q) = %+v, want an error", ws, k)
		}
	}
	w := e.workspace(t, "W")
	if k, err := e.op.IssueKey(e.ctx, w.ID, auth.Environment("staging"), []auth.Scope{auth.PaymentsRead}, "n"); err == nil {
		t.Errorf("IssueKey(env staging) = %+v, want an error", k)
	}
	if k, err := e.op.IssueKey(e.ctx, w.ID, auth.Sandbox, nil, "n"); err == nil {
		t.Errorf("IssueKey(no scopes) = %+v, want an error", k)
	}
	out, err := e.stack.DDB.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String(e.store.Table)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 {
		t.Errorf("table holds %d items after refused issues, want only the workspace", out.Count)
	}
}

// strings collects every string (and number text) anywhere inside an attribute value.
func collectStrings(av types.AttributeValue, out *[]string) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		*out = append(*out, v.Value)
	case *types.AttributeValueMemberN:
		*out = append(*out, v.Value)
	case *types.AttributeValueMemberB:
		*out = append(*out, string(v.Value))
	case *types.AttributeValueMemberSS:
		*out = append(*out, v.Value...)
	case *types.AttributeValueMemberNS:
		*out = append(*out, v.Value...)
	case *types.AttributeValueMemberBS:
		for _, b := range v.Value {
			*out = append(*out, string(b))
		}
	case *types.AttributeValueMemberL:
		for _, x := range v.Value {
			collectStrings(x, out)
		}
	case *types.AttributeValueMemberM:
		for k, x := range v.Value {
			*out = append(*out, k)
			collectStrings(x, out)
		}
	}
}

func TestIssueKeyStoresOnlyTheHash(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	scopes := []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}
	issued := []*IssuedKey{
		e.issue(t, w.ID, auth.Sandbox, scopes, "sandbox key"),
		e.issue(t, w.ID, auth.Live, scopes, "live key"),
	}

	out, err := e.stack.DDB.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String(e.store.Table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 3 {
		t.Fatalf("scan returned %d items, want a workspace and two keys", len(out.Items))
	}
	for _, k := range issued {
		env, hash, err := auth.ParseKey(k.Plaintext)
		if err != nil {
			t.Fatalf("issued key %q does not parse: %v", k.Plaintext, err)
		}
		if env != k.Record.Environment || hash != k.Record.Hash || hash != auth.HashKey(k.Plaintext) {
			t.Errorf("issued key env/hash = %s/%s, record %s/%s", env, hash, k.Record.Environment, k.Record.Hash)
		}
		secret := k.Plaintext[strings.LastIndexByte(k.Plaintext, '_')+1:]
		found := 0
		for _, item := range out.Items {
			var all []string
			for name, av := range item {
				all = append(all, name)
				collectStrings(av, &all)
			}
			for _, s := range all {
				if strings.Contains(s, k.Plaintext) || strings.Contains(s, secret[:len(secret)-4]) {
					t.Errorf("a stored attribute value contains the plaintext key (or its secret part): %q", s)
				}
			}
			if kh, ok := item["key_hash"].(*types.AttributeValueMemberS); ok && kh.Value == auth.HashKey(k.Plaintext) {
				found++
				if pk := item["pk"].(*types.AttributeValueMemberS).Value; pk != "APIKEY#"+auth.HashKey(k.Plaintext) {
					t.Errorf("key item pk = %q", pk)
				}
			}
		}
		if found != 1 {
			t.Errorf("%d items carry key_hash == HashKey(key %s), want 1", found, k.Record.KeyID)
		}
	}
}

func TestGetKeyRoundTrip(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	scopes := []auth.Scope{auth.DocumentsWrite, auth.PaymentsWrite, auth.PaymentsRead}
	k := e.issue(t, w.ID, auth.Live, scopes, "server 1")
	if !strings.HasPrefix(k.Record.KeyID, "key_") || len(k.Record.KeyID) != 24 {
		t.Errorf("key id = %q", k.Record.KeyID)
	}
	if !strings.HasPrefix(k.Plaintext, "sk_live_") {
		t.Errorf("live key %q lacks the sk_live_ prefix", k.Plaintext)
	}
	rec := e.getKey(t, k.Plaintext)
	if rec.KeyID != k.Record.KeyID || rec.WorkspaceID != w.ID || rec.Environment != auth.Live ||
		rec.Name != "server 1" || rec.Hint != auth.KeyHint(k.Plaintext) || rec.Hash != auth.HashKey(k.Plaintext) {
		t.Errorf("stored record = %+v, issued %+v", rec, k.Record)
	}
	if !slices.Equal(sortedScopes(rec.Scopes), sortedScopes(scopes)) {
		t.Errorf("scopes = %v, want %v", rec.Scopes, scopes)
	}
	if !rec.CreatedAt.Equal(k.Record.CreatedAt) || rec.RevokedAt != nil || rec.ExpiresAt != nil || !rec.Active(time.Now()) {
		t.Errorf("times: created %v (issued %v) revoked %v expires %v", rec.CreatedAt, k.Record.CreatedAt, rec.RevokedAt, rec.ExpiresAt)
	}
	if strings.Contains(rec.Hint, k.Plaintext[len("sk_live_"):len(k.Plaintext)-4]) {
		t.Errorf("hint %q reveals the secret", rec.Hint)
	}

	// An unknown hash is (nil, nil).
	if got, err := e.store.GetKey(e.ctx, auth.HashKey("sk_sandbox_unknown")); got != nil || err != nil {
		t.Errorf("GetKey(unknown) = %+v, %v; want nil, nil", got, err)
	}
}

func TestListKeysPerWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.workspace(t, "A")
	b := e.workspace(t, "B")
	empty := e.workspace(t, "Empty")
	a1 := e.issue(t, a.ID, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "a1")
	b1 := e.issue(t, b.ID, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "b1")
	a2 := e.issue(t, a.ID, auth.Live, []auth.Scope{auth.PaymentsWrite}, "a2")

	check := func(ws string, want ...*IssuedKey) {
		t.Helper()
		got, err := e.op.ListKeys(e.ctx, ws)
		if err != nil {
			t.Fatalf("ListKeys(%s): %v", ws, err)
		}
		var wantIDs []string
		for _, k := range want {
			wantIDs = append(wantIDs, k.Record.KeyID)
		}
		slices.Sort(wantIDs)
		if !slices.Equal(keyIDs(got), wantIDs) {
			t.Errorf("ListKeys(%s) = %v, want %v", ws, keyIDs(got), wantIDs)
		}
		for _, k := range got {
			if k.WorkspaceID != ws || k.Hint == "" || k.Hash == "" {
				t.Errorf("ListKeys(%s) returned %+v", ws, k)
			}
		}
	}
	check(a.ID, a1, a2)
	check(b.ID, b1)
	check(empty.ID)
	check(uuid.NewString())
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	other := e.workspace(t, "Other")
	k := e.issue(t, w.ID, auth.Sandbox, []auth.Scope{auth.PaymentsWrite}, "to revoke")
	keep := e.issue(t, w.ID, auth.Sandbox, []auth.Scope{auth.PaymentsWrite}, "kept")

	id, err := authenticate(e.ctx, e.store, nil, k.Plaintext)
	if err != nil {
		t.Fatalf("Authenticate before revoke: %v", err)
	}
	if id.WorkspaceID != w.ID || id.CredentialID != k.Record.KeyID || !slices.Equal(id.Environments, []auth.Environment{auth.Sandbox}) {
		t.Errorf("identity = %+v", id)
	}

	// Revoking through the wrong workspace or an unknown key id fails and changes nothing.
	if err := e.op.RevokeKey(e.ctx, other.ID, k.Record.KeyID); err == nil {
		t.Error("RevokeKey with another workspace's id succeeded")
	}
	if err := e.op.RevokeKey(e.ctx, w.ID, "key_doesnotexist0000000"); err == nil {
		t.Error("RevokeKey(unknown key id) succeeded")
	} else if !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("RevokeKey(unknown key id) = %v, want it to wrap dynamo.ErrNotFound", err)
	}
	if rec := e.getKey(t, k.Plaintext); rec.RevokedAt != nil {
		t.Fatalf("failed revokes set revoked_at %v", rec.RevokedAt)
	}

	t1 := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	e.op.Now = func() time.Time { return t1 }
	if err := e.op.RevokeKey(e.ctx, w.ID, k.Record.KeyID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	rec := e.getKey(t, k.Plaintext)
	if rec.RevokedAt == nil || !rec.RevokedAt.Equal(t1) {
		t.Fatalf("revoked_at = %v, want %v", rec.RevokedAt, t1)
	}
	if rec.Active(time.Now()) || rec.Active(t1.Add(-time.Hour)) {
		t.Error("a revoked key is Active")
	}

	// Idempotent: a second revoke succeeds and keeps the first time.
	e.op.Now = func() time.Time { return t1.Add(48 * time.Hour) }
	if err := e.op.RevokeKey(e.ctx, w.ID, k.Record.KeyID); err != nil {
		t.Fatalf("second RevokeKey: %v", err)
	}
	if rec := e.getKey(t, k.Plaintext); rec.RevokedAt == nil || !rec.RevokedAt.Equal(t1) {
		t.Errorf("revoked_at after second revoke = %v, want the first time %v", rec.RevokedAt, t1)
	}

	_, err = authenticate(e.ctx, e.store, nil, k.Plaintext)
	wantInvalidAPIKey(t, err)
	if _, err := authenticate(e.ctx, e.store, nil, keep.Plaintext); err != nil {
		t.Errorf("the other key of the workspace stopped working: %v", err)
	}
	if rec := e.getKey(t, keep.Plaintext); rec.RevokedAt != nil {
		t.Errorf("revoking one key revoked another: %v", rec.RevokedAt)
	}
}

func TestRotateKeyNoGrace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	scopes := []auth.Scope{auth.PaymentsWrite, auth.DocumentsRead}
	old := e.issue(t, w.ID, auth.Live, scopes, "checkout")

	before := time.Now().UTC()
	nk, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, 0)
	if err != nil {
		t.Fatalf("RotateKey: %v", err)
	}
	after := time.Now().UTC()
	if nk.Record.KeyID == old.Record.KeyID || nk.Plaintext == old.Plaintext || nk.Record.Hash == old.Record.Hash {
		t.Fatalf("rotation returned the old key: %+v", nk.Record)
	}
	fresh := e.getKey(t, nk.Plaintext)
	if fresh.KeyID != nk.Record.KeyID || fresh.WorkspaceID != w.ID || fresh.Environment != auth.Live ||
		fresh.Name != "checkout" || !slices.Equal(sortedScopes(fresh.Scopes), sortedScopes(scopes)) || !fresh.Active(time.Now()) {
		t.Errorf("new key record = %+v", fresh)
	}
	oldRec := e.getKey(t, old.Plaintext)
	if oldRec.RevokedAt == nil || oldRec.RevokedAt.Before(before) || oldRec.RevokedAt.After(after) {
		t.Errorf("old key revoked_at = %v, want within [%v, %v]", oldRec.RevokedAt, before, after)
	}
	if oldRec.Active(time.Now()) {
		t.Error("old key still Active after a rotation without grace")
	}
	keys, err := e.op.ListKeys(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{old.Record.KeyID, nk.Record.KeyID}; !slices.Equal(keyIDs(keys), sortedCopy(want)) {
		t.Errorf("ListKeys = %v, want %v", keyIDs(keys), want)
	}
	_, err = authenticate(e.ctx, e.store, nil, old.Plaintext)
	wantInvalidAPIKey(t, err)
	if _, err := authenticate(e.ctx, e.store, nil, nk.Plaintext); err != nil {
		t.Errorf("new key does not authenticate: %v", err)
	}

	// A revoked key cannot be rotated, and nothing new is issued by the attempt.
	if k, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, 0); err == nil {
		t.Errorf("rotating a revoked key = %+v, want an error", k.Record)
	}
	if k, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, time.Hour); err == nil {
		t.Errorf("rotating a revoked key with grace = %+v, want an error", k.Record)
	}
	if k, err := e.op.RotateKey(e.ctx, w.ID, "key_doesnotexist0000000", 0); err == nil {
		t.Errorf("rotating an unknown key = %+v, want an error", k.Record)
	}
	keys, err = e.op.ListKeys(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Errorf("failed rotations issued keys: %v", keyIDs(keys))
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestRotateKeyWithGrace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	old := e.issue(t, w.ID, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "reader")

	before := time.Now().UTC()
	nk, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, time.Hour)
	if err != nil {
		t.Fatalf("RotateKey: %v", err)
	}
	after := time.Now().UTC()
	oldRec := e.getKey(t, old.Plaintext)
	if oldRec.RevokedAt != nil {
		t.Errorf("old key revoked at %v despite a grace period", oldRec.RevokedAt)
	}
	if oldRec.ExpiresAt == nil || oldRec.ExpiresAt.Before(before.Add(time.Hour)) || oldRec.ExpiresAt.After(after.Add(time.Hour)) {
		t.Fatalf("old key expires_at = %v, want within [%v, %v]", oldRec.ExpiresAt, before.Add(time.Hour), after.Add(time.Hour))
	}
	now := time.Now()
	if !oldRec.Active(now) {
		t.Error("old key not Active during its grace period")
	}
	if oldRec.Active(now.Add(2 * time.Hour)) {
		t.Error("old key still Active after its grace period")
	}
	if fresh := e.getKey(t, nk.Plaintext); fresh.ExpiresAt != nil || fresh.RevokedAt != nil || fresh.Name != "reader" {
		t.Errorf("new key = %+v", fresh)
	}

	// Both keys authenticate during the grace period; the old one fails after it.
	if _, err := authenticate(e.ctx, e.store, nil, old.Plaintext); err != nil {
		t.Errorf("old key during grace: %v", err)
	}
	if _, err := authenticate(e.ctx, e.store, nil, nk.Plaintext); err != nil {
		t.Errorf("new key: %v", err)
	}
	later := func() time.Time { return now.Add(2 * time.Hour) }
	_, err = authenticate(e.ctx, e.store, later, old.Plaintext)
	wantInvalidAPIKey(t, err)
	if _, err := authenticate(e.ctx, e.store, later, nk.Plaintext); err != nil {
		t.Errorf("new key after the old one's grace: %v", err)
	}

	// A key whose grace has run out cannot be rotated.
	e.op.Now = later
	if k, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, 0); err == nil {
		t.Errorf("rotating an expired key = %+v, want an error", k.Record)
	}
}

func TestRotateKeyGraceNeverExtends(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	old := e.issue(t, w.ID, auth.Sandbox, []auth.Scope{auth.PaymentsRead}, "r")
	t0 := time.Date(2030, 5, 6, 7, 8, 9, 123456789, time.UTC)
	e.op.Now = func() time.Time { return t0 }
	if _, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, time.Hour); err != nil {
		t.Fatal(err)
	}
	// Rotating again during the grace with a longer grace must not extend the old key.
	e.op.Now = func() time.Time { return t0.Add(10 * time.Minute) }
	if _, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if rec := e.getKey(t, old.Plaintext); rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("expires_at = %v, want the first grace's end %v", rec.ExpiresAt, t0.Add(time.Hour))
	}
	// A shorter grace does shorten it.
	if _, err := e.op.RotateKey(e.ctx, w.ID, old.Record.KeyID, time.Minute); err != nil {
		t.Fatal(err)
	}
	if rec := e.getKey(t, old.Plaintext); rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(t0.Add(11*time.Minute)) {
		t.Errorf("expires_at = %v, want %v", rec.ExpiresAt, t0.Add(11*time.Minute))
	}
	keys, err := e.op.ListKeys(e.ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 4 {
		t.Errorf("ListKeys has %d keys, want the original and three replacements", len(keys))
	}
}

func TestParseScopes(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want []auth.Scope
	}{
		{"payments:write", []auth.Scope{auth.PaymentsWrite}},
		{"payments:write,payments:read", []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}},
		{" payments:read , payments:write ,payments:read,", []auth.Scope{auth.PaymentsRead, auth.PaymentsWrite}},
		{"documents:read,documents:write,documents:read,documents:write", []auth.Scope{auth.DocumentsRead, auth.DocumentsWrite}},
		{"payments:write,payments:read,documents:read,documents:write,refunds:write,refunds:approve", auth.AllScopes},
	}
	for _, c := range good {
		got, err := ParseScopes(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseScopes(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", " ", ",", " , ,", "admin", "payments:write,admin", "PAYMENTS:WRITE", "payments:*", "payments:write;payments:read"} {
		if got, err := ParseScopes(in); err == nil {
			t.Errorf("ParseScopes(%q) = %v, want an error", in, got)
		}
	}
}
