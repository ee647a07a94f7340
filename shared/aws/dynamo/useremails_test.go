package dynamo

import (
	"errors"
	"testing"

	"github.com/google/uuid"
)

func TestClaimUserEmail(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	alice, bob := uuid.NewString(), uuid.NewString()
	if err := s.ClaimUserEmail(ctx, "Alice@Example.com", alice); err != nil {
		t.Fatal(err)
	}
	// Any letter case is the same email, for any user (the owner too).
	for _, c := range []struct{ email, user string }{
		{"alice@example.com", bob}, {"ALICE@EXAMPLE.COM", bob}, {"Alice@Example.com", alice},
	} {
		if err := s.ClaimUserEmail(ctx, c.email, c.user); !errors.Is(err, ErrEmailTaken) {
			t.Errorf("ClaimUserEmail(%q) = %v, want ErrEmailTaken", c.email, err)
		}
	}
	// Beyond ASCII: ſ (long s) is a case of s, σ and ς of Σ.
	if err := s.ClaimUserEmail(ctx, "ſam.σ@example.com", alice); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimUserEmail(ctx, "SAM.ς@example.com", bob); !errors.Is(err, ErrEmailTaken) {
		t.Errorf("ClaimUserEmail(a case variant beyond ASCII) = %v, want ErrEmailTaken", err)
	}
	if err := s.ClaimUserEmail(ctx, "alice@example.org", bob); err != nil {
		t.Errorf("ClaimUserEmail(another email) = %v", err)
	}

	// Releasing another user's claim keeps it; the owner's release frees the email.
	if err := s.ReleaseUserEmail(ctx, "alice@example.com", bob); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimUserEmail(ctx, "alice@example.com", bob); !errors.Is(err, ErrEmailTaken) {
		t.Errorf("claim after another user's release = %v, want ErrEmailTaken", err)
	}
	if err := s.ReleaseUserEmail(ctx, "ALICE@example.com", alice); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimUserEmail(ctx, "alice@example.com", bob); err != nil {
		t.Errorf("claim after the owner's release = %v", err)
	}
	// Releasing an unclaimed email is no error.
	if err := s.ReleaseUserEmail(ctx, "nobody@example.com", alice); err != nil {
		t.Errorf("ReleaseUserEmail(unclaimed) = %v", err)
	}
	if err := s.ClaimUserEmail(ctx, "", alice); err == nil {
		t.Error("ClaimUserEmail accepted an empty email")
	}
}
