package dynamo

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
)

func newSession(t *testing.T, userID string, created, expires time.Time) (*auth.SessionRecord, string) {
	t.Helper()
	token, hash, err := auth.NewSessionToken()
	if err != nil {
		t.Fatal(err)
	}
	return &auth.SessionRecord{Hash: hash, UserID: userID, CreatedAt: created, ExpiresAt: expires}, token
}

func putSession(t *testing.T, ctx context.Context, s *Store, rec *auth.SessionRecord) {
	t.Helper()
	if err := s.PutSession(ctx, rec); err != nil {
		t.Fatalf("PutSession: %v", err)
	}
}

func mustGetSession(t *testing.T, ctx context.Context, s *Store, hash string) *auth.SessionRecord {
	t.Helper()
	rec, err := s.GetSession(ctx, hash)
	if err != nil || rec == nil {
		t.Fatalf("GetSession = %+v, %v", rec, err)
	}
	return rec
}

// scanAll returns every item of the table, raw.
func scanAll(t *testing.T, ctx context.Context, s *Store) []map[string]types.AttributeValue {
	t.Helper()
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(s.DB, &dynamodb.ScanInput{TableName: aws.String(s.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}

// texts returns every string, number and binary value of an attribute value, recursively.
func texts(av types.AttributeValue) []string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return []string{v.Value}
	case *types.AttributeValueMemberN:
		return []string{v.Value}
	case *types.AttributeValueMemberB:
		return []string{string(v.Value)}
	case *types.AttributeValueMemberSS:
		return v.Value
	case *types.AttributeValueMemberL:
		var out []string
		for _, e := range v.Value {
			out = append(out, texts(e)...)
		}
		return out
	case *types.AttributeValueMemberM:
		var out []string
		for k, e := range v.Value {
			out = append(out, k)
			out = append(out, texts(e)...)
		}
		return out
	}
	return nil
}

func TestSessionItemLayout(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	user := uuid.NewString()
	bst := time.FixedZone("BST", 6*3600)
	created := time.Date(2030, 1, 2, 3, 4, 5, 123456789, bst)
	expires := created.Add(12 * time.Hour)
	rec, token := newSession(t, user, created, expires)
	putSession(t, ctx, s, rec)

	items := scanAll(t, ctx, s)
	if len(items) != 1 {
		t.Fatalf("table has %d items, want the one session", len(items))
	}
	item := items[0]
	want := map[string]string{
		"pk": "SESSION#" + auth.HashSessionToken(token), "sk": "SESSION", "user_id": user,
		"created_at": "2030-01-01T21:04:05.123456789Z", "expires_at": "2030-01-02T09:04:05.123456789Z",
	}
	for name, v := range want {
		if got := str(item, name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
	// ttl: epoch seconds, rounded up so DynamoDB never deletes the item before it expires.
	n, ok := item["ttl"].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("ttl is %T, want a number", item["ttl"])
	}
	if want := time.Date(2030, 1, 2, 9, 4, 6, 0, time.UTC).Unix(); n.Value != strconv.FormatInt(want, 10) {
		t.Errorf("ttl = %s, want %d", n.Value, want)
	}
	for _, absent := range []string{"revoked_at", "gsi1pk", "gsi1sk", "token", "session_token"} {
		if _, ok := item[absent]; ok {
			t.Errorf("a fresh session item has %s", absent)
		}
	}
	if len(item) != 6 {
		t.Errorf("session item has %d attributes, want 6 (pk sk user_id created_at expires_at ttl): %v", len(item), item)
	}
	// The token is nowhere in the table: only its hash.
	for _, it := range items {
		for name, av := range it {
			for _, v := range texts(av) {
				if strings.Contains(v, token) || strings.Contains(v, token[:20]) {
					t.Errorf("attribute %s holds the session token", name)
				}
			}
		}
	}

	// A whole-second expiry is its own ttl.
	whole := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	r2, _ := newSession(t, user, created, whole)
	putSession(t, ctx, s, r2)
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table), Key: key("SESSION#"+r2.Hash, "SESSION")})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := out.Item["ttl"].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.FormatInt(whole.Unix(), 10) {
		t.Errorf("ttl of a whole-second expiry = %v, want %d", out.Item["ttl"], whole.Unix())
	}
}

func TestGetSession(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	now := time.Now().UTC()

	for _, h := range []string{auth.HashSessionToken("nothing"), "", "a#b"} {
		if rec, err := s.GetSession(ctx, h); rec != nil || err != nil {
			t.Errorf("GetSession(%q) = %+v, %v; want nil, nil", h, rec, err)
		}
	}

	rec, _ := newSession(t, uuid.NewString(), now, now.Add(time.Hour))
	putSession(t, ctx, s, rec)
	got := mustGetSession(t, ctx, s, rec.Hash)
	if got.Hash != rec.Hash || got.UserID != rec.UserID || !got.CreatedAt.Equal(now) || !got.ExpiresAt.Equal(now.Add(time.Hour)) ||
		got.RevokedAt != nil || !got.Active(now) {
		t.Errorf("GetSession = %+v, want %+v", got, rec)
	}

	// Never overwritten: a second put under the same hash fails and changes nothing.
	dup := *rec
	dup.UserID, dup.ExpiresAt = uuid.NewString(), now.Add(1000*time.Hour)
	var ccf *types.ConditionalCheckFailedException
	if err := s.PutSession(ctx, &dup); !errors.As(err, &ccf) {
		t.Errorf("PutSession(same hash) = %v, want ConditionalCheckFailedException", err)
	}
	if got := mustGetSession(t, ctx, s, rec.Hash); got.UserID != rec.UserID || !got.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Errorf("session after refused overwrite = %+v", got)
	}

	// Refused before any write: no expiry, bad ids.
	for _, bad := range []*auth.SessionRecord{
		{Hash: auth.HashSessionToken("x"), UserID: "u", CreatedAt: now},
		{Hash: "", UserID: "u", CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
		{Hash: auth.HashSessionToken("y"), UserID: "", CreatedAt: now, ExpiresAt: now.Add(time.Hour)},
	} {
		if err := s.PutSession(ctx, bad); err == nil {
			t.Errorf("PutSession(%+v) succeeded", bad)
		}
	}
}

// TestExpiredSession checks an expired session is still returned as stored (dynalite never
// deletes by ttl, DynamoDB only eventually) and is inactive from its expiry on.
func TestExpiredSession(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	now := time.Now().UTC()
	rec, _ := newSession(t, uuid.NewString(), now.Add(-2*time.Hour), now.Add(-time.Hour))
	putSession(t, ctx, s, rec)
	got := mustGetSession(t, ctx, s, rec.Hash)
	if !got.ExpiresAt.Equal(rec.ExpiresAt) || got.Active(now) || !got.Active(rec.ExpiresAt.Add(-time.Nanosecond)) || got.Active(rec.ExpiresAt) {
		t.Errorf("expired session = %+v: Active must stop exactly at expires_at", got)
	}
}

func TestRevokeSessionStore(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	now := time.Now().UTC()
	rec, _ := newSession(t, uuid.NewString(), now, now.Add(time.Hour))
	putSession(t, ctx, s, rec)

	unknown := auth.HashSessionToken("unknown")
	for _, h := range []string{unknown, ""} {
		if err := s.RevokeSession(ctx, h, now); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevokeSession(%q) = %v, want ErrNotFound", h, err)
		}
	}
	if got, err := s.GetSession(ctx, unknown); got != nil || err != nil {
		t.Errorf("revoking an unknown hash created an item: %+v, %v", got, err)
	}

	t1 := time.Date(2030, 3, 4, 5, 6, 7, 890, time.UTC)
	if err := s.RevokeSession(ctx, rec.Hash, t1); err != nil {
		t.Fatal(err)
	}
	got := mustGetSession(t, ctx, s, rec.Hash)
	if got.RevokedAt == nil || !got.RevokedAt.Equal(t1) || got.Active(now) {
		t.Fatalf("after revoke: %+v", got)
	}
	if err := s.RevokeSession(ctx, rec.Hash, t1.Add(time.Hour)); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if got := mustGetSession(t, ctx, s, rec.Hash); !got.RevokedAt.Equal(t1) || got.UserID != rec.UserID || !got.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Errorf("second revoke changed the session: %+v (revoked_at want %v)", got, t1)
	}
}

func TestUsers(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	created := time.Date(2030, 1, 1, 0, 0, 0, 42, time.FixedZone("BST", 6*3600))
	u := auth.User{ID: uuid.NewString(), Email: "rahim@example.com.bd", CreatedAt: created}
	if err := s.PutUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetUser(ctx, u.ID)
	if err != nil || got.ID != u.ID || got.Email != u.Email || !got.CreatedAt.Equal(created) {
		t.Fatalf("GetUser = %+v, %v; want %+v", got, err, u)
	}
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table), Key: key("USER#"+u.ID, "USER")})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"user_id": u.ID, "email": u.Email, "created_at": "2029-12-31T18:00:00.000000042Z"} {
		if got := str(out.Item, name); got != v {
			t.Errorf("user item %s = %q, want %q", name, got, v)
		}
	}

	var ccf *types.ConditionalCheckFailedException
	if err := s.PutUser(ctx, auth.User{ID: u.ID, Email: "other@example.com", CreatedAt: time.Now()}); !errors.As(err, &ccf) {
		t.Errorf("PutUser(existing id) = %v, want ConditionalCheckFailedException", err)
	}
	if got, _ := s.GetUser(ctx, u.ID); got == nil || got.Email != u.Email {
		t.Errorf("user after refused overwrite = %+v", got)
	}
	for _, id := range []string{uuid.NewString(), "", "USER#" + u.ID} {
		if got, err := s.GetUser(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetUser(%q) = %+v, %v; want ErrNotFound", id, got, err)
		}
	}
	if err := s.PutUser(ctx, auth.User{ID: "a#b", Email: "x@example.com"}); err == nil {
		t.Error("PutUser accepted an id with #")
	}
}

func TestMemberships(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws, other := uuid.NewString(), uuid.NewString()
	// Fixed user ids so the listing order (by user id) is known.
	u1, u2, u3 := "00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002", "00000000-0000-7000-8000-000000000003"
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

	if m, err := s.GetMembership(ctx, u1, ws); m != nil || err != nil {
		t.Fatalf("GetMembership(none) = %+v, %v; want nil, nil", m, err)
	}
	put := func(user, w string, role auth.Role, at time.Time) *auth.MembershipRecord {
		t.Helper()
		m, err := s.PutMembership(ctx, &auth.MembershipRecord{UserID: user, WorkspaceID: w, Role: role, CreatedAt: at})
		if err != nil {
			t.Fatalf("PutMembership(%s, %s, %s): %v", user, w, role, err)
		}
		return m
	}
	m := put(u2, ws, auth.RoleViewer, t0)
	if m.UserID != u2 || m.WorkspaceID != ws || m.Role != auth.RoleViewer || !m.CreatedAt.Equal(t0) {
		t.Errorf("PutMembership returned %+v", m)
	}
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table), Key: key("USER#"+u2, "MEMBER#"+ws)})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{
		"pk": "USER#" + u2, "sk": "MEMBER#" + ws, "gsi1pk": "WS#" + ws, "gsi1sk": "MEMBER#" + u2,
		"role": "viewer", "created_at": "2030-01-01T00:00:00.000000000Z", "user_id": u2, "workspace_id": ws,
	} {
		if got := str(out.Item, name); got != v {
			t.Errorf("membership item %s = %q, want %q", name, got, v)
		}
	}

	// Upsert: the role changes, created_at stays.
	m = put(u2, ws, auth.RoleAdmin, t0.Add(time.Hour))
	if m.Role != auth.RoleAdmin || !m.CreatedAt.Equal(t0) {
		t.Errorf("upserted membership = %+v, want role admin and created_at %v", m, t0)
	}
	got, err := s.GetMembership(ctx, u2, ws)
	if err != nil || got == nil || got.Role != auth.RoleAdmin || !got.CreatedAt.Equal(t0) || got.UserID != u2 || got.WorkspaceID != ws {
		t.Errorf("GetMembership after upsert = %+v, %v", got, err)
	}
	if got, err := s.GetMembership(ctx, u2, other); got != nil || err != nil {
		t.Errorf("GetMembership(other workspace) = %+v, %v; want nil, nil", got, err)
	}
	for _, bad := range [][2]string{{"", ws}, {u2, ""}, {u2 + "#x", ws}} {
		if got, err := s.GetMembership(ctx, bad[0], bad[1]); got != nil || err != nil {
			t.Errorf("GetMembership(%q, %q) = %+v, %v", bad[0], bad[1], got, err)
		}
	}

	// Refused: unknown role, bad ids.
	for _, bad := range []*auth.MembershipRecord{
		{UserID: u1, WorkspaceID: ws, Role: "root"},
		{UserID: u1, WorkspaceID: ws, Role: ""},
		{UserID: "", WorkspaceID: ws, Role: auth.RoleViewer},
		{UserID: u1, WorkspaceID: "a#b", Role: auth.RoleViewer},
	} {
		if m, err := s.PutMembership(ctx, bad); err == nil {
			t.Errorf("PutMembership(%+v) = %+v, want an error", bad, m)
		}
	}

	put(u3, ws, auth.RoleOwner, t0)
	put(u1, ws, auth.RoleDeveloper, t0)
	put(u1, other, auth.RoleViewer, t0)
	// An API key shares the workspace's GSI1 partition; it is no member.
	k, _ := testKey(t, ws, t0)
	putKey(t, ctx, s, k)

	list, err := s.ListMembers(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range list {
		rows = append(rows, m.UserID+" "+string(m.Role)+" "+m.WorkspaceID)
	}
	if want := []string{u1 + " developer " + ws, u2 + " admin " + ws, u3 + " owner " + ws}; !slices.Equal(rows, want) {
		t.Errorf("ListMembers(ws) =\n%v\nwant\n%v", rows, want)
	}
	if list, err := s.ListMembers(ctx, other); err != nil || len(list) != 1 || list[0].UserID != u1 || list[0].Role != auth.RoleViewer {
		t.Errorf("ListMembers(other) = %+v, %v", list, err)
	}
	if list, err := s.ListMembers(ctx, uuid.NewString()); err != nil || len(list) != 0 {
		t.Errorf("ListMembers(unknown) = %+v, %v", list, err)
	}
	// The key listing is not confused by members either.
	if ids := listIDs(t, ctx, s, ws); !slices.Equal(ids, []string{k.KeyID}) {
		t.Errorf("ListKeys(ws) = %v, want only the key", ids)
	}
}
