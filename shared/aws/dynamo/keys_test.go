package dynamo

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
	"github.com/takapay/payments/shared/local/devstack"
)

func newStore(t *testing.T) (*Store, context.Context) {
	t.Helper()
	stack := devstack.StartTestStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &Store{DB: stack.DDB, Table: stack.TableName("Table")}, ctx
}

// testKey returns a fresh key record (and its plaintext) for a workspace created at createdAt.
func testKey(t *testing.T, ws string, createdAt time.Time) (*auth.KeyRecord, string) {
	t.Helper()
	plaintext, hash, err := auth.NewKey(auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	id, err := auth.NewKeyID()
	if err != nil {
		t.Fatal(err)
	}
	return &auth.KeyRecord{
		Hash: hash, KeyID: id, WorkspaceID: ws, Environment: auth.Sandbox,
		Scopes: []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead}, Name: "n", Hint: auth.KeyHint(plaintext),
		CreatedAt: createdAt,
	}, plaintext
}

func putKey(t *testing.T, ctx context.Context, s *Store, k *auth.KeyRecord) {
	t.Helper()
	if err := s.PutKey(ctx, k); err != nil {
		t.Fatalf("PutKey(%s): %v", k.KeyID, err)
	}
}

func mustGetKey(t *testing.T, ctx context.Context, s *Store, hash string) *auth.KeyRecord {
	t.Helper()
	rec, err := s.GetKey(ctx, hash)
	if err != nil || rec == nil {
		t.Fatalf("GetKey = %+v, %v", rec, err)
	}
	return rec
}

func listIDs(t *testing.T, ctx context.Context, s *Store, ws string) []string {
	t.Helper()
	keys, err := s.ListKeys(ctx, ws)
	if err != nil {
		t.Fatalf("ListKeys(%s): %v", ws, err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.KeyID)
	}
	return ids
}

func str(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func TestKeyItemLayout(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	created := time.Date(2030, 1, 2, 3, 4, 5, 123456789, time.FixedZone("BST", 6*3600))
	k, plaintext := testKey(t, ws, created)
	putKey(t, ctx, s, k)

	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table), Key: key("APIKEY#"+k.Hash, "APIKEY")})
	if err != nil {
		t.Fatal(err)
	}
	item := out.Item
	want := map[string]string{
		"pk": "APIKEY#" + k.Hash, "sk": "APIKEY",
		"gsi1pk": "WS#" + ws, "gsi1sk": "APIKEY#2030-01-01T21:04:05.123456789Z#" + k.KeyID,
		"key_hash": auth.HashKey(plaintext), "key_id": k.KeyID, "workspace_id": ws, "environment": "sandbox",
		"hint": k.Hint, "name": "n", "created_at": "2030-01-01T21:04:05.123456789Z",
	}
	for name, v := range want {
		if got := str(item, name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
	ss, ok := item["scopes"].(*types.AttributeValueMemberSS)
	if !ok {
		t.Fatalf("scopes is %T, want a string set", item["scopes"])
	}
	if got := slices.Sorted(slices.Values(ss.Value)); !slices.Equal(got, []string{"payments:read", "payments:write"}) {
		t.Errorf("scopes = %v", got)
	}
	for _, absent := range []string{"revoked_at", "expires_at", "ttl"} {
		if _, ok := item[absent]; ok {
			t.Errorf("a fresh key item has %s", absent)
		}
	}
	for name, av := range item {
		if v, ok := av.(*types.AttributeValueMemberS); ok && strings.Contains(v.Value, plaintext) {
			t.Errorf("attribute %s holds the plaintext key", name)
		}
	}
}

func TestPutKeyNeverOverwrites(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	k, _ := testKey(t, ws, time.Now())
	putKey(t, ctx, s, k)
	dup := *k
	dup.KeyID, dup.WorkspaceID, dup.Name = "key_other0000000000000", uuid.NewString(), "attacker"
	err := s.PutKey(ctx, &dup)
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("PutKey(same hash) = %v, want ConditionalCheckFailedException", err)
	}
	rec := mustGetKey(t, ctx, s, k.Hash)
	if rec.KeyID != k.KeyID || rec.WorkspaceID != ws || rec.Name != "n" {
		t.Errorf("record after refused overwrite = %+v", rec)
	}
}

func TestGetKeyAbsent(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	rec, err := s.GetKey(ctx, auth.HashKey("nothing"))
	if rec != nil || err != nil {
		t.Errorf("GetKey(absent) = %+v, %v; want nil, nil", rec, err)
	}
}

func TestListAndFindKeys(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	a, b := uuid.NewString(), uuid.NewString()
	base := time.Now().UTC().Truncate(time.Second)
	// Stored out of order, a second apart: listed oldest first.
	k3, _ := testKey(t, a, base.Add(3*time.Second))
	k1, _ := testKey(t, a, base.Add(1*time.Second))
	kb, _ := testKey(t, b, base.Add(2*time.Second))
	k2, _ := testKey(t, a, base.Add(2*time.Second))
	for _, k := range []*auth.KeyRecord{k3, k1, kb, k2} {
		putKey(t, ctx, s, k)
	}
	if got, want := listIDs(t, ctx, s, a), []string{k1.KeyID, k2.KeyID, k3.KeyID}; !slices.Equal(got, want) {
		t.Errorf("ListKeys(a) = %v, want %v (oldest first)", got, want)
	}
	if got := listIDs(t, ctx, s, b); !slices.Equal(got, []string{kb.KeyID}) {
		t.Errorf("ListKeys(b) = %v, want [%s]", got, kb.KeyID)
	}
	if got := listIDs(t, ctx, s, uuid.NewString()); len(got) != 0 {
		t.Errorf("ListKeys(unknown) = %v", got)
	}

	f, err := s.FindKey(ctx, a, k2.KeyID)
	if err != nil || f.Hash != k2.Hash || f.KeyID != k2.KeyID {
		t.Errorf("FindKey(a, k2) = %+v, %v", f, err)
	}
	if f, err := s.FindKey(ctx, b, k2.KeyID); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindKey(other workspace) = %+v, %v; want ErrNotFound", f, err)
	}
	if f, err := s.FindKey(ctx, a, "key_missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindKey(unknown id) = %+v, %v; want ErrNotFound", f, err)
	}
}

// Regression (fixed): ListKeys promises "oldest first", but the GSI sort key embeds created_at formatted with
// time.RFC3339Nano, which drops trailing zeros of the fraction, so the strings do not sort in
// time order within one second: "…:05Z" sorts after "…:05.1Z" ('Z' > '.'), and "…:05.5Z" after
// "…:05.55Z" ('Z' > '5'). Keys issued in the same second (localapi.Seed issues three in a row)
// are then listed out of order whenever one timestamp has a trailing zero (1 in 10 per key).
func TestListKeysOldestFirstWithinASecond(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	cases := []struct {
		what         string
		older, newer time.Time
	}{
		{"whole second then .1s", time.Date(2030, 1, 1, 0, 0, 5, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 5, 100_000_000, time.UTC)},
		{".5s then .55s", time.Date(2030, 1, 1, 0, 0, 5, 500_000_000, time.UTC), time.Date(2030, 1, 1, 0, 0, 5, 550_000_000, time.UTC)},
		{"…780ns then …785ns", time.Date(2030, 1, 1, 0, 0, 5, 123_456_780, time.UTC), time.Date(2030, 1, 1, 0, 0, 5, 123_456_785, time.UTC)},
	}
	for _, c := range cases {
		ws := uuid.NewString()
		older, _ := testKey(t, ws, c.older)
		newer, _ := testKey(t, ws, c.newer)
		putKey(t, ctx, s, older)
		putKey(t, ctx, s, newer)
		if got, want := listIDs(t, ctx, s, ws), []string{older.KeyID, newer.KeyID}; !slices.Equal(got, want) {
			t.Errorf("%s: ListKeys = %v, want oldest first %v", c.what, got, want)
		}
	}
}

func TestRevokeKeyStore(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	k, _ := testKey(t, uuid.NewString(), time.Now())
	putKey(t, ctx, s, k)

	if err := s.RevokeKey(ctx, auth.HashKey("unknown"), time.Now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeKey(unknown hash) = %v, want ErrNotFound", err)
	}
	if rec, err := s.GetKey(ctx, auth.HashKey("unknown")); rec != nil || err != nil {
		t.Errorf("RevokeKey(unknown hash) created an item: %+v, %v", rec, err)
	}

	t1 := time.Date(2030, 3, 4, 5, 6, 7, 890, time.UTC)
	if err := s.RevokeKey(ctx, k.Hash, t1); err != nil {
		t.Fatal(err)
	}
	rec := mustGetKey(t, ctx, s, k.Hash)
	if rec.RevokedAt == nil || !rec.RevokedAt.Equal(t1) || rec.Active(t1.Add(-time.Hour)) {
		t.Fatalf("after revoke: revoked_at %v, active %v", rec.RevokedAt, rec.Active(t1.Add(-time.Hour)))
	}
	if err := s.RevokeKey(ctx, k.Hash, t1.Add(time.Hour)); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if rec := mustGetKey(t, ctx, s, k.Hash); rec.RevokedAt == nil || !rec.RevokedAt.Equal(t1) {
		t.Errorf("second revoke changed revoked_at to %v, want %v", rec.RevokedAt, t1)
	}
	if rec.KeyID != k.KeyID || rec.Name != k.Name {
		t.Errorf("revoke changed the record: %+v", rec)
	}
}

func TestExpireKeyOnlyShortens(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	k, _ := testKey(t, uuid.NewString(), time.Now())
	putKey(t, ctx, s, k)
	t1 := time.Date(2030, 3, 4, 5, 6, 7, 123456789, time.UTC)

	if err := s.ExpireKey(ctx, k.Hash, t1); err != nil {
		t.Fatal(err)
	}
	rec := mustGetKey(t, ctx, s, k.Hash)
	if rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(t1) || rec.RevokedAt != nil {
		t.Fatalf("expires_at = %v revoked_at = %v", rec.ExpiresAt, rec.RevokedAt)
	}
	if !rec.Active(t1.Add(-time.Nanosecond)) || rec.Active(t1) || rec.Active(t1.Add(time.Hour)) {
		t.Error("Active does not stop exactly at expires_at")
	}
	// Later: ignored.
	if err := s.ExpireKey(ctx, k.Hash, t1.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if rec := mustGetKey(t, ctx, s, k.Hash); !rec.ExpiresAt.Equal(t1) {
		t.Errorf("a later expiry extended the key to %v", rec.ExpiresAt)
	}
	// Sooner: applied.
	t0 := t1.Add(-time.Hour)
	if err := s.ExpireKey(ctx, k.Hash, t0); err != nil {
		t.Fatal(err)
	}
	if rec := mustGetKey(t, ctx, s, k.Hash); !rec.ExpiresAt.Equal(t0) {
		t.Errorf("a sooner expiry left expires_at at %v, want %v", rec.ExpiresAt, t0)
	}
}

// Regression (fixed): ExpireKey's condition "expires_at > :t" compares RFC3339Nano strings, which drop
// trailing zeros of the fraction, so a later time can compare as smaller within the same
// second and extend the key ("…:07Z" > "…:07.5Z" because 'Z' > '.'; ".1Z" > ".15Z").
// Reproduction: ExpireKey(T=…:07Z), then ExpireKey(T+500ms) → expires_at becomes T+500ms.
func TestExpireKeyNeverExtendsWithinASecond(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	cases := []struct {
		what         string
		first, later time.Time
	}{
		{"whole second then +0.5s", time.Date(2030, 3, 4, 5, 6, 7, 0, time.UTC), time.Date(2030, 3, 4, 5, 6, 7, 500_000_000, time.UTC)},
		{".1s then .15s", time.Date(2030, 3, 4, 5, 6, 7, 100_000_000, time.UTC), time.Date(2030, 3, 4, 5, 6, 7, 150_000_000, time.UTC)},
	}
	for _, c := range cases {
		k, _ := testKey(t, uuid.NewString(), time.Now())
		putKey(t, ctx, s, k)
		if err := s.ExpireKey(ctx, k.Hash, c.first); err != nil {
			t.Fatal(err)
		}
		if err := s.ExpireKey(ctx, k.Hash, c.later); err != nil {
			t.Fatal(err)
		}
		if rec := mustGetKey(t, ctx, s, k.Hash); rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(c.first) {
			t.Errorf("%s: expires_at = %v, want the sooner %v kept", c.what, rec.ExpiresAt, c.first)
		}
	}
}

func TestWorkspaces(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	if list, err := s.ListWorkspaces(ctx); err != nil || len(list) != 0 {
		t.Fatalf("ListWorkspaces(empty table) = %+v, %v", list, err)
	}
	created := time.Date(2030, 1, 1, 0, 0, 0, 42, time.UTC)
	w1 := auth.Workspace{ID: uuid.NewString(), Name: "One", CreatedAt: created}
	w2 := auth.Workspace{ID: uuid.NewString(), Name: "Two", CreatedAt: created.Add(time.Hour)}
	for _, w := range []auth.Workspace{w1, w2} {
		if err := s.PutWorkspace(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	// A key item in the table must not be listed as a workspace.
	k, _ := testKey(t, w1.ID, time.Now())
	putKey(t, ctx, s, k)

	got, err := s.GetWorkspace(ctx, w1.ID)
	if err != nil || got.ID != w1.ID || got.Name != "One" || !got.CreatedAt.Equal(created) {
		t.Errorf("GetWorkspace = %+v, %v; want %+v", got, err, w1)
	}
	if err := s.PutWorkspace(ctx, auth.Workspace{ID: w1.ID, Name: "Overwrite", CreatedAt: time.Now()}); err == nil {
		t.Error("PutWorkspace overwrote an existing workspace")
	} else {
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Errorf("PutWorkspace(existing) = %v, want ConditionalCheckFailedException", err)
		}
	}
	if got, _ := s.GetWorkspace(ctx, w1.ID); got == nil || got.Name != "One" {
		t.Errorf("workspace after refused overwrite = %+v", got)
	}
	for _, id := range []string{uuid.NewString(), "", "WS#" + w1.ID, w1.ID + "#x"} {
		if got, err := s.GetWorkspace(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetWorkspace(%q) = %+v, %v; want ErrNotFound", id, got, err)
		}
	}

	list, err := s.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list, func(a, b auth.Workspace) int { return a.CreatedAt.Compare(b.CreatedAt) })
	if len(list) != 2 || list[0].ID != w1.ID || list[0].Name != "One" || list[1].ID != w2.ID || list[1].Name != "Two" {
		t.Errorf("ListWorkspaces = %+v, want exactly %+v and %+v", list, w1, w2)
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	missing := &Store{DB: s.DB, Table: "no-such-table"}
	if err := missing.Ping(ctx); err == nil {
		t.Error("Ping(missing table) succeeded")
	}
}

func TestTouchAndRetireKey(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	k, _ := testKey(t, uuid.NewString(), t0)
	k.CreatedBy = "user-1"
	putKey(t, ctx, s, k)
	if rec := mustGetKey(t, ctx, s, k.Hash); rec.CreatedBy != "user-1" || rec.LastUsedAt != nil {
		t.Fatalf("new key = %+v", rec)
	}
	// TouchKey writes when absent, not again within the interval, again after it.
	for i, c := range []struct {
		at   time.Time
		want time.Time
	}{{t0, t0}, {t0.Add(59 * time.Minute), t0}, {t0.Add(time.Hour + time.Nanosecond), t0.Add(time.Hour + time.Nanosecond)}} {
		if err := s.TouchKey(ctx, k.Hash, c.at, time.Hour); err != nil {
			t.Fatalf("touch %d: %v", i, err)
		}
		if rec := mustGetKey(t, ctx, s, k.Hash); rec.LastUsedAt == nil || !rec.LastUsedAt.Equal(c.want) {
			t.Fatalf("touch %d: last_used_at = %v, want %v", i, rec.LastUsedAt, c.want)
		}
	}
	// RetireKey wins once; a retired (expiring or revoked) or missing key is not retired again.
	if ok, err := s.RetireKey(ctx, k.Hash, t0.Add(time.Hour), false); !ok || err != nil {
		t.Fatalf("RetireKey = %v, %v", ok, err)
	}
	if ok, err := s.RetireKey(ctx, k.Hash, t0, true); ok || err != nil {
		t.Fatalf("second RetireKey = %v, %v", ok, err)
	}
	rec := mustGetKey(t, ctx, s, k.Hash)
	if rec.RevokedAt != nil || rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after retire: %+v", rec)
	}
	k2, _ := testKey(t, k.WorkspaceID, t0)
	putKey(t, ctx, s, k2)
	if ok, err := s.RetireKey(ctx, k2.Hash, t0, true); !ok || err != nil {
		t.Fatalf("RetireKey(revoke) = %v, %v", ok, err)
	}
	if rec := mustGetKey(t, ctx, s, k2.Hash); rec.RevokedAt == nil || !rec.RevokedAt.Equal(t0) || rec.ExpiresAt != nil {
		t.Fatalf("after retire(revoke): %+v", rec)
	}
	missing := strings.Repeat("0", 64)
	if ok, err := s.RetireKey(ctx, missing, t0, true); ok || err != nil {
		t.Fatalf("RetireKey(missing) = %v, %v", ok, err)
	}
	if rec, err := s.GetKey(ctx, missing); rec != nil || err != nil {
		t.Fatalf("RetireKey created %+v, %v", rec, err)
	}
}
