package dynamo

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// The form claims on dynalite: of concurrent claims of one token exactly one wins; a repeat
// reads the winner's outcome; the sealed secret is taken once; an expired claim is absent.
func TestFormClaims(t *testing.T) {
	s, ctx := newStore(t)
	id := strings.Repeat("a1", 32)
	now := time.Now()
	exp := now.Add(15 * time.Minute)

	var wins int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, prior, err := s.ClaimForm(ctx, id, now, exp)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if ok {
				wins++
			} else if prior == nil || prior.Done {
				t.Errorf("a losing claim read %+v, want the pending winner", prior)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d of 8 concurrent claims won", wins)
	}
	if sealed, c, err := s.TakeFormSecret(ctx, id, now); err != nil || sealed != nil || c == nil || c.Done {
		t.Fatalf("take before the outcome: %q %+v %v", sealed, c, err)
	}
	if err := s.FinishForm(ctx, id, "/dashboard/keys?shown=x", []byte("sealed bytes")); err != nil {
		t.Fatal(err)
	}
	if ok, prior, err := s.ClaimForm(ctx, id, now, exp); err != nil || ok || prior == nil || !prior.Done || prior.Location != "/dashboard/keys?shown=x" {
		t.Fatalf("a repeat: %v %+v %v", ok, prior, err)
	}
	if sealed, c, err := s.TakeFormSecret(ctx, id, now); err != nil || !bytes.Equal(sealed, []byte("sealed bytes")) || c == nil || !c.Done {
		t.Fatalf("first take: %q %+v %v", sealed, c, err)
	}
	if sealed, c, err := s.TakeFormSecret(ctx, id, now); err != nil || sealed != nil || c == nil {
		t.Fatalf("second take: %q %+v %v", sealed, c, err)
	}

	// Expired: the secret is not shown, and the token can be claimed again.
	other := strings.Repeat("b2", 32)
	if ok, _, err := s.ClaimForm(ctx, other, now, now.Add(time.Minute)); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := s.FinishForm(ctx, other, "/dashboard/webhook-secrets?shown=y", []byte("s")); err != nil {
		t.Fatal(err)
	}
	later := now.Add(2 * time.Minute)
	if sealed, c, err := s.TakeFormSecret(ctx, other, later); err != nil || sealed != nil || c != nil {
		t.Fatalf("take after expiry: %q %+v %v", sealed, c, err)
	}
	if ok, _, err := s.ClaimForm(ctx, other, later, later.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("claim after expiry: %v %v", ok, err)
	}
	// Released: claimable again.
	if err := s.ReleaseForm(ctx, other); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := s.ClaimForm(ctx, other, later, later.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("claim after release: %v %v", ok, err)
	}
}
