package dynamo

import (
	"errors"
	"testing"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/auth"
)

func TestPendingTokens(t *testing.T) {
	s, ctx := newStore(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	p := &account.PendingToken{Kind: account.TokenReset, Hash: "aa11", UserID: "u1", Email: "u@x.bd", CreatedAt: now, ExpiresAt: now.Add(30 * time.Minute)}
	if err := s.PutPendingToken(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPendingToken(ctx, p); err == nil {
		t.Fatal("a pending token was overwritten")
	}
	// Another kind with the same hash is another item.
	if got, err := s.ClaimPendingToken(ctx, account.TokenSignUp, "aa11", now, now); got != nil || err != nil {
		t.Fatalf("claim of another kind: %+v, %v", got, err)
	}
	got, err := s.ClaimPendingToken(ctx, account.TokenReset, "aa11", now, now.Add(-time.Minute))
	if err != nil || got == nil || got.UserID != "u1" || !got.ClaimedAt.Equal(now) {
		t.Fatalf("claim: %+v, %v", got, err)
	}
	// Claimed: refused until the lease is stale.
	if got, _ := s.ClaimPendingToken(ctx, account.TokenReset, "aa11", now.Add(time.Second), now.Add(-time.Minute)); got != nil {
		t.Fatal("claimed twice within the lease")
	}
	later := now.Add(2 * time.Minute)
	got, err = s.ClaimPendingToken(ctx, account.TokenReset, "aa11", later, later.Add(-time.Minute))
	if err != nil || got == nil {
		t.Fatalf("claim after the lease: %+v, %v", got, err)
	}
	if err := s.DeletePendingToken(ctx, account.TokenReset, "aa11", now); !errors.Is(err, account.ErrConflict) {
		t.Fatalf("delete by a stale claim: %v", err)
	}
	if err := s.DeletePendingToken(ctx, account.TokenReset, "aa11", later); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimPendingToken(ctx, account.TokenReset, "aa11", later.Add(time.Hour), later); got != nil {
		t.Fatal("a deleted token was claimed")
	}
	// Expired: refused (dynalite never deletes it).
	q := &account.PendingToken{Kind: account.TokenSignUp, Hash: "bb22", UserID: "u2", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.PutPendingToken(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimPendingToken(ctx, account.TokenSignUp, "bb22", now.Add(time.Hour), now); got != nil {
		t.Fatal("claimed at its expiry")
	}
}

func TestSignInCounterVersions(t *testing.T) {
	s, ctx := newStore(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	c := &account.Counter{Key: "acct#x", Failures: 1, WindowStart: now, Version: 1, Expires: now.Add(time.Hour)}
	if err := s.PutSignInCounter(ctx, c, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSignInCounter(ctx, c, 0); !errors.Is(err, account.ErrConflict) {
		t.Fatalf("second create: %v", err)
	}
	c2 := *c
	c2.Failures, c2.Version = 2, 2
	if err := s.PutSignInCounter(ctx, &c2, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSignInCounter(ctx, &c2, 1); !errors.Is(err, account.ErrConflict) {
		t.Fatalf("write on a stale version: %v", err)
	}
	got, err := s.GetSignInCounters(ctx, "acct#x", "ip#1.2.3.4")
	if err != nil || len(got) != 1 || got["acct#x"].Failures != 2 || got["acct#x"].Version != 2 ||
		!got["acct#x"].WindowStart.Equal(now) || !got["acct#x"].Expires.Equal(now.Add(time.Hour)) {
		t.Fatalf("counters %+v, %v", got, err)
	}
	if err := s.DeleteSignInCounter(ctx, "acct#x"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetSignInCounters(ctx, "acct#x"); len(got) != 0 {
		t.Fatal("counter not deleted")
	}
}

func TestSessionListingAndTombstones(t *testing.T) {
	s, ctx := newStore(t)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	user := "0190a0a0-0000-7000-8000-000000000009"
	rec, _ := newSession(t, user, now, now.Add(30*time.Minute))
	rec.AbsoluteExpiresAt, rec.SeenAt = now.Add(8*time.Hour), now
	if err := s.PutUserSession(ctx, user, rec.Hash, rec.AbsoluteExpiresAt); err != nil {
		t.Fatal(err)
	}
	putSession(t, ctx, s, rec)
	got := mustGetSession(t, ctx, s, rec.Hash)
	if !got.AbsoluteExpiresAt.Equal(rec.AbsoluteExpiresAt) || !got.SeenAt.Equal(now) {
		t.Fatalf("session %+v", got)
	}
	// The listing outlives the idle deadline (it lasts to the absolute end).
	if hashes, err := s.UserSessions(ctx, user, now.Add(time.Hour)); err != nil || len(hashes) != 1 || hashes[0] != rec.Hash {
		t.Fatalf("listed %v, %v", hashes, err)
	}
	if hashes, _ := s.UserSessions(ctx, user, now.Add(9*time.Hour)); len(hashes) != 0 {
		t.Fatal("an expired listing is still listed")
	}
	// Touch moves the idle deadline once per seen value.
	if err := s.TouchSession(ctx, rec.Hash, now, now.Add(time.Minute), now.Add(31*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchSession(ctx, rec.Hash, now, now.Add(time.Minute), now.Add(31*time.Minute)); !errors.Is(err, account.ErrConflict) {
		t.Fatalf("second touch from the same read: %v", err)
	}
	if got := mustGetSession(t, ctx, s, rec.Hash); !got.ExpiresAt.Equal(now.Add(31 * time.Minute)) {
		t.Fatalf("expires_at %v", got.ExpiresAt)
	}
	uid, err := s.EndSession(ctx, rec.Hash, now, now.Add(time.Hour), true)
	if err != nil || uid != user {
		t.Fatalf("EndSession = %q, %v", uid, err)
	}
	if err := s.TouchSession(ctx, rec.Hash, now.Add(time.Minute), now.Add(2*time.Minute), now.Add(32*time.Minute)); !errors.Is(err, account.ErrConflict) {
		t.Fatalf("touch of a revoked session: %v", err)
	}
	// Ending an unknown session: nothing with mustExist, a tombstone without.
	_, hash, _ := auth.NewSessionToken()
	if _, err := s.EndSession(ctx, hash, now, now.Add(time.Hour), true); !errors.Is(err, account.ErrNoSession) {
		t.Fatalf("EndSession of nothing: %v", err)
	}
	if rec, _ := s.GetSession(ctx, hash); rec != nil {
		t.Fatal("EndSession with mustExist wrote an item")
	}
	if _, err := s.EndSession(ctx, hash, now, now.Add(time.Hour), false); err != nil {
		t.Fatal(err)
	}
	tomb := mustGetSession(t, ctx, s, hash)
	if tomb.Active(now) || tomb.RevokedAt == nil {
		t.Fatalf("tombstone %+v", tomb)
	}
	late := &auth.SessionRecord{Hash: hash, UserID: user, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := s.PutSession(ctx, late); err == nil {
		t.Fatal("a session was stored over its tombstone")
	}
}
