package dynamo

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/passkey/record"
)

func TestPasskeyStore(t *testing.T) {
	s, ctx := newStore(t)
	alice, bob := uuid.NewString(), uuid.NewString()
	created := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rec := &record.Passkey{ID: record.CredentialHash([]byte("cred-1")), UserID: alice, Name: "Laptop",
		CreatedAt: created, SignCount: 3, Credential: []byte(`{"id":"x"}`)}
	if err := s.PutPasskey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPasskey(ctx, rec); !errors.Is(err, record.ErrDuplicate) {
		t.Fatalf("second put = %v, want ErrDuplicate", err)
	}
	got, err := s.ListPasskeys(ctx, alice)
	if err != nil || len(got) != 1 {
		t.Fatalf("list = %v, %v", got, err)
	}
	g := got[0]
	if g.ID != rec.ID || g.UserID != alice || g.Name != "Laptop" || !g.CreatedAt.Equal(created) || g.SignCount != 3 ||
		string(g.Credential) != `{"id":"x"}` || g.LastUsedAt != nil {
		t.Fatalf("listed %+v", g)
	}
	if got, _ := s.ListPasskeys(ctx, bob); len(got) != 0 {
		t.Fatalf("bob lists alice's passkey: %v", got)
	}

	// Someone else's passkey cannot be renamed, used or removed: it is not found.
	if err := s.RenamePasskey(ctx, bob, rec.ID, "mine"); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("bob renames = %v", err)
	}
	if err := s.DeletePasskey(ctx, bob, rec.ID); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("bob removes = %v", err)
	}
	if err := s.UsePasskey(ctx, bob, rec.ID, 3, 4, []byte("{}"), created); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("bob uses = %v", err)
	}

	if err := s.RenamePasskey(ctx, alice, rec.ID, "Phone"); err != nil {
		t.Fatal(err)
	}
	// A use is recorded only against the counter it read.
	used := created.Add(time.Hour)
	if err := s.UsePasskey(ctx, alice, rec.ID, 2, 5, []byte(`{"id":"y"}`), used); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("stale counter use = %v, want ErrNotFound", err)
	}
	if err := s.UsePasskey(ctx, alice, rec.ID, 3, 4, []byte(`{"id":"y"}`), used); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ListPasskeys(ctx, alice)
	if g := got[0]; g.Name != "Phone" || g.SignCount != 4 || string(g.Credential) != `{"id":"y"}` || g.LastUsedAt == nil || !g.LastUsedAt.Equal(used) {
		t.Fatalf("after rename and use: %+v", g)
	}
	if err := s.DeletePasskey(ctx, alice, rec.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePasskey(ctx, alice, rec.ID); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("second delete = %v", err)
	}
}

func TestCeremonyTakenOnce(t *testing.T) {
	s, ctx := newStore(t)
	hash := record.CredentialHash([]byte(uuid.NewString()))
	exp := time.Now().Add(5 * time.Minute).UTC()
	if err := s.PutCeremony(ctx, hash, &record.Ceremony{Kind: record.KindLogin, ExpiresAt: exp, Session: []byte(`{"challenge":"c"}`)}); err != nil {
		t.Fatal(err)
	}
	// Ten concurrent takes: exactly one gets the ceremony.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []*record.Ceremony
	for range 10 {
		wg.Go(func() {
			c, err := s.TakeCeremony(ctx, hash)
			if err != nil {
				t.Error(err)
				return
			}
			if c != nil {
				mu.Lock()
				got = append(got, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != 1 {
		t.Fatalf("%d takes got the ceremony, want 1", len(got))
	}
	if c := got[0]; c.Kind != record.KindLogin || c.UserID != "" || !c.ExpiresAt.Equal(exp) || string(c.Session) != `{"challenge":"c"}` {
		t.Fatalf("took %+v", c)
	}
	if c, err := s.TakeCeremony(ctx, record.CredentialHash([]byte("never"))); c != nil || err != nil {
		t.Fatalf("unknown ceremony = %v, %v", c, err)
	}
}
