package localapi

import (
	"context"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
)

// make dev's webhook secret: issued on a fresh stack, kept across restarts while it still
// signs, and, when the credentials file does not name the sandbox's secret (an old file, or a
// secret issued with paymentsctl), a new one made current with the old one still signing.
func TestSeedWebhookSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local servers")
	}
	a := StartTestAPI(t, Options{})
	ctx, op := context.Background(), a.Operator(t)
	active := func() int {
		t.Helper()
		list, err := op.ListWebhookSecrets(ctx, a.Creds.WorkspaceID, auth.Sandbox)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	c := *a.Creds
	if err := SeedWebhookSecret(ctx, op, &c); err != nil {
		t.Fatal(err)
	}
	first := c.SandboxWebhookSecret
	if !strings.HasPrefix(first, "whsec_") || active() != 1 {
		t.Fatalf("fresh: secret %.10q…, %d active", first, active())
	}
	// A restart with the same credentials file: nothing changes.
	if err := SeedWebhookSecret(ctx, op, &c); err != nil || c.SandboxWebhookSecret != first || active() != 1 {
		t.Fatalf("restart: %v, secret changed %t, %d active", err, c.SandboxWebhookSecret != first, active())
	}
	// A file that does not know the secret: a new current one, the old one still signing.
	old := *a.Creds
	if err := SeedWebhookSecret(ctx, op, &old); err != nil {
		t.Fatal(err)
	}
	if old.SandboxWebhookSecret == "" || old.SandboxWebhookSecret == first || active() != 2 {
		t.Fatalf("unknown secret: new %t, %d active, want a new one and 2 active", old.SandboxWebhookSecret != first, active())
	}
	// A file naming a secret that no longer signs (or never did): the same.
	stale := *a.Creds
	stale.SandboxWebhookSecret = "whsec_" + strings.Repeat("A", 43)
	if err := SeedWebhookSecret(ctx, op, &stale); err != nil || stale.SandboxWebhookSecret == "whsec_"+strings.Repeat("A", 43) {
		t.Fatalf("stale secret: %v, kept %t", err, stale.SandboxWebhookSecret == "whsec_"+strings.Repeat("A", 43))
	}
}
