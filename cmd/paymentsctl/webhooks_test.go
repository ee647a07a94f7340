package main

import (
	"encoding/json"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/webhook"
)

// webhookSecretJSON is the --json output of webhook secret issue and rotate.
type webhookSecretJSON struct {
	Secret      string `json:"secret"`
	SecretID    string `json:"secret_id"`
	WorkspaceID string `json:"workspace_id"`
	Environment string `json:"environment"`
	CreatedAt   string `json:"created_at"`
	Previous    []struct {
		ID        string `json:"secret_id"`
		ExpiresAt string `json:"expires_at"`
		State     string `json:"state"`
		Current   bool   `json:"current"`
	} `json:"previous"`
}

type listedWebhookSecret struct {
	ID        string `json:"secret_id"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
	State     string `json:"state"`
	Current   bool   `json:"current"`
}

func (c *cli) listWebhookSecrets(t *testing.T, ws, env string) []listedWebhookSecret {
	t.Helper()
	out, _ := c.ok(t, "--json", "webhook", "secret", "list", "--workspace", ws, "--env", env)
	var list []listedWebhookSecret
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("webhook secret list --json: %v\n%s", err, out)
	}
	return list
}

// verifies reports whether a message signed with the stored active secrets verifies with the
// plaintext secret.
func (c *cli) verifies(t *testing.T, ws string, env auth.Environment, secret string) bool {
	t.Helper()
	stored, _, err := c.store.GetWebhookSecrets(c.ctx, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var keys [][]byte
	for _, s := range stored.ActiveSecrets(now) {
		k, err := webhook.ParseSecret(s.Secret)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	body := []byte(`{"type":"ping"}`)
	h := http.Header{}
	for k, v := range webhook.Headers(keys, "msg_cli", now, body) {
		h.Set(k, v)
	}
	if _, err := webhook.ParseSecret(secret); err != nil {
		t.Fatalf("printed secret does not parse: %v", err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	return err == nil && wh.VerifyIgnoringTimestamp(body, h) == nil
}

func TestWebhookSecretIssueRotateList(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")

	// Nothing yet: an empty table, and JSON [].
	out, _ := c.ok(t, "webhook", "secret", "list", "--workspace", ws, "--env", "live")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "SECRET_ID") {
		t.Errorf("empty list =\n%s", out)
	}
	if out, _ := c.ok(t, "--json", "webhook", "secret", "list", "--workspace", ws, "--env", "live"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty --json list = %s", out)
	}
	if _, _, err := c.run("webhook", "secret", "rotate", "--workspace", ws, "--env", "live"); err == nil || !strings.Contains(err.Error(), "use issue") {
		t.Errorf("rotate with none = %v", err)
	}

	out, _ = c.ok(t, "webhook", "secret", "issue", "--workspace", ws, "--env", "live")
	f := fields(out)
	first := f["secret"]
	if !strings.HasPrefix(first, "whsec_") || !strings.HasPrefix(f["secret_id"], "whk_") || f["workspace_id"] != ws || f["environment"] != "live" {
		t.Fatalf("issue output =\n%s", out)
	}
	if !c.verifies(t, ws, auth.Live, first) {
		t.Error("a message signed with the stored secrets does not verify with the printed one")
	}
	if _, _, err := c.run("webhook", "secret", "issue", "--workspace", ws, "--env", "live"); err == nil || !strings.Contains(err.Error(), "use rotate") {
		t.Errorf("second issue = %v", err)
	}

	// Rotate with the default grace (24h), JSON.
	before := time.Now()
	out, stderr := c.ok(t, "--json", "webhook", "secret", "rotate", "--workspace", ws, "--env", "live")
	var rot webhookSecretJSON
	if err := json.Unmarshal([]byte(out), &rot); err != nil {
		t.Fatalf("rotate --json: %v\n%s", err, out)
	}
	if rot.Secret == first || !strings.HasPrefix(rot.Secret, "whsec_") || rot.SecretID == f["secret_id"] || rot.WorkspaceID != ws ||
		rot.Environment != "live" || len(rot.Previous) != 1 || rot.Previous[0].ID != f["secret_id"] {
		t.Fatalf("rotate --json = %s", out)
	}
	exp, err := time.Parse(time.RFC3339, rot.Previous[0].ExpiresAt)
	if err != nil || exp.Before(before.Add(24*time.Hour-time.Second)) || exp.After(time.Now().Add(24*time.Hour)) {
		t.Errorf("previous expires_at = %q (%v), want about now+24h", rot.Previous[0].ExpiresAt, err)
	}
	if rot.Previous[0].State != "active" || rot.Previous[0].Current {
		t.Errorf("previous secret: state %q, current %v; want active, not current", rot.Previous[0].State, rot.Previous[0].Current)
	}
	if !strings.Contains(stderr, f["secret_id"]) || !strings.Contains(stderr, "keeps signing until") {
		t.Errorf("rotate stderr = %q", stderr)
	}
	// Both secrets verify during the grace period.
	if !c.verifies(t, ws, auth.Live, first) || !c.verifies(t, ws, auth.Live, rot.Secret) {
		t.Error("during grace, a receiver with either secret must accept")
	}

	// List: text and JSON, ids only, never the secret text.
	out, _ = c.ok(t, "webhook", "secret", "list", "--workspace", ws, "--env", "live")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], rot.SecretID) || !strings.Contains(lines[1], "current") ||
		!strings.HasPrefix(lines[2], f["secret_id"]) || !strings.Contains(lines[2], "expires ") {
		t.Errorf("list =\n%s", out)
	}
	jsonOut, _ := c.ok(t, "--json", "webhook", "secret", "list", "--workspace", ws, "--env", "live")
	for _, text := range []string{out, jsonOut} {
		if strings.Contains(text, "whsec_") || strings.Contains(text, first[6:]) || strings.Contains(text, rot.Secret[6:]) {
			t.Errorf("listing shows secret text:\n%s", text)
		}
	}
	list := c.listWebhookSecrets(t, ws, "live")
	// JSON: a machine state and the expiry in a field of its own.
	if len(list) != 2 || list[0].ID != rot.SecretID || list[0].State != "active" || !list[0].Current || list[0].ExpiresAt != "" ||
		list[1].ID != f["secret_id"] || list[1].State != "active" || list[1].Current || list[1].ExpiresAt != rot.Previous[0].ExpiresAt {
		t.Errorf("--json list = %+v", list)
	}
	// Sandbox is separate.
	if l := c.listWebhookSecrets(t, ws, "sandbox"); len(l) != 0 {
		t.Errorf("sandbox list = %+v", l)
	}

	// --grace 0: the old secrets stop signing at once.
	out, stderr = c.ok(t, "webhook", "secret", "rotate", "--workspace", ws, "--env", "live", "--grace", "0")
	third := fields(out)["secret"]
	if !strings.Contains(stderr, "stopped signing now") {
		t.Errorf("rotate --grace 0 stderr = %q", stderr)
	}
	if l := c.listWebhookSecrets(t, ws, "live"); len(l) != 1 || l[0].State != "active" || !l[0].Current {
		t.Errorf("list after --grace 0 = %+v", l)
	}
	if c.verifies(t, ws, auth.Live, first) || c.verifies(t, ws, auth.Live, rot.Secret) || !c.verifies(t, ws, auth.Live, third) {
		t.Error("after --grace 0 only the newest secret may verify")
	}

	// An explicit grace is honoured.
	out, _ = c.ok(t, "--json", "webhook", "secret", "rotate", "--workspace", ws, "--env", "live", "--grace", "2h")
	if err := json.Unmarshal([]byte(out), &rot); err != nil || len(rot.Previous) != 1 {
		t.Fatalf("rotate --grace 2h = %s (%v)", out, err)
	}
	if exp, err := time.Parse(time.RFC3339, rot.Previous[0].ExpiresAt); err != nil || exp.After(time.Now().Add(2*time.Hour)) || exp.Before(time.Now().Add(time.Hour)) {
		t.Errorf("--grace 2h expiry = %q", rot.Previous[0].ExpiresAt)
	}
}

func TestWebhookSecretUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	// Code 2: a usage error; 1: the command line is fine but the command failed.
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"webhook", "secret"}, 2},
		{[]string{"webhook", "secrets", "issue", "--workspace", ws, "--env", "live"}, 2},
		{[]string{"webhook", "secret", "revoke", "--workspace", ws, "--env", "live"}, 2},
		{[]string{"webhook", "secret", "issue", "--env", "live"}, 2},
		{[]string{"webhook", "secret", "issue", "--workspace", ws}, 2},
		{[]string{"webhook", "secret", "issue", "--workspace", ws, "--env", "prod"}, 2},
		{[]string{"webhook", "secret", "list", "--workspace", "not-a-uuid", "--env", "live"}, 2},
		{[]string{"webhook", "secret", "issue", "--workspace", "0196a000-0000-7000-8000-000000000000", "--env", "live"}, 1},
		{[]string{"webhook", "secret", "rotate", "--workspace", ws, "--env", "live", "--grace", "-1h"}, 2},
		{[]string{"webhook", "secret", "rotate", "--workspace", ws, "--env", "live", "--grace", "1000h"}, 2},
		{[]string{"webhook", "secret", "rotate", "--workspace", ws, "--env", "live"}, 1}, // none to rotate
	} {
		out, _, err := c.run(tc.args...)
		if err == nil {
			t.Errorf("paymentsctl %v succeeded:\n%s", tc.args, out)
		} else if got := exitCode(err); got != tc.code {
			t.Errorf("paymentsctl %v = %v: exit code %d, want %d", tc.args, err, got, tc.code)
		}
	}
	if l := c.listWebhookSecrets(t, ws, "live"); len(l) != 0 {
		t.Errorf("failed commands stored secrets: %+v", l)
	}
}
