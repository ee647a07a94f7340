package operator

import (
	"encoding/json"
	"errors"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/dynamo"
	"github.com/takapay/payments/shared/webhook"
)

// clock is a settable operator clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func (e *env) useClock(t time.Time) *clock {
	c := &clock{t: t}
	e.op.Now = c.now
	return c
}

func infoIDs(l []WebhookSecretInfo) string {
	var ids []string
	for _, i := range l {
		ids = append(ids, i.ID)
	}
	return strings.Join(ids, ",")
}

// signingKeys returns the stored secrets that sign at now, parsed.
func (e *env) signingKeys(t *testing.T, ws string, environment auth.Environment, now time.Time) [][]byte {
	t.Helper()
	stored, _, err := e.store.GetWebhookSecrets(e.ctx, ws, environment)
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	for _, s := range stored.ActiveSecrets(now) {
		k, err := webhook.ParseSecret(s.Secret)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

func TestIssueWebhookSecret(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := e.useClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	w := e.workspace(t, "W")

	iss, err := e.op.IssueWebhookSecret(e.ctx, strings.ToUpper(w.ID), auth.Sandbox)
	if err != nil {
		t.Fatalf("IssueWebhookSecret: %v", err)
	}
	key, err := webhook.ParseSecret(iss.Secret)
	if err != nil || len(key) != 32 {
		t.Fatalf("issued secret %q: %v", iss.Secret, err)
	}
	if iss.WorkspaceID != w.ID || iss.Environment != auth.Sandbox || !iss.Info.Current() || !iss.Info.CreatedAt.Equal(c.t) ||
		!strings.HasPrefix(iss.Info.ID, "whk_") || len(iss.Info.ID) != 16 || len(iss.Previous) != 0 {
		t.Errorf("issued = %+v", iss)
	}
	// A message signed with the stored secret verifies with the handed-out one.
	body := []byte(`{"type":"ping"}`)
	h := http.Header{}
	for k, v := range webhook.Headers(e.signingKeys(t, w.ID, auth.Sandbox, c.t), "msg_1", c.t, body) {
		h.Set(k, v)
	}
	if err := verifyIgnoringTime(t, iss.Secret, h, body); err != nil {
		t.Errorf("Verify with the issued secret: %v", err)
	}

	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Sandbox); !errors.Is(err, ErrWebhookSecretExists) {
		t.Errorf("second issue = %v, want ErrWebhookSecretExists", err)
	}
	// Live is separate.
	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Live); err != nil {
		t.Errorf("issue live: %v", err)
	}

	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, "prod"); err == nil {
		t.Error("bad environment accepted")
	}
	if _, err := e.op.IssueWebhookSecret(e.ctx, "nope", auth.Sandbox); err == nil {
		t.Error("bad workspace id accepted")
	}
	if _, err := e.op.IssueWebhookSecret(e.ctx, "0196a000-0000-7000-8000-000000000000", auth.Sandbox); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("unknown workspace = %v, want ErrNotFound", err)
	}
}

func TestRotateWebhookSecret(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := e.useClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	w := e.workspace(t, "W")

	if _, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, DefaultWebhookGrace); !errors.Is(err, ErrNoWebhookSecret) {
		t.Errorf("rotate with none = %v, want ErrNoWebhookSecret", err)
	}
	first, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Live)
	if err != nil {
		t.Fatal(err)
	}
	c.add(time.Hour)
	second, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, DefaultWebhookGrace)
	if err != nil {
		t.Fatalf("rotate: %v", err)
	}
	if second.Secret == first.Secret || second.Info.ID == first.Info.ID || !second.Info.Current() ||
		len(second.Previous) != 1 || second.Previous[0].ID != first.Info.ID || !second.Previous[0].ExpiresAt.Equal(c.t.Add(24*time.Hour)) {
		t.Fatalf("rotated = %+v", second)
	}
	list, err := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Live)
	if err != nil || infoIDs(list) != second.Info.ID+","+first.Info.ID {
		t.Fatalf("list = %+v, %v", list, err)
	}
	// Issue refuses while the old one is in grace, too.
	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Live); !errors.Is(err, ErrWebhookSecretExists) {
		t.Errorf("issue during rotation = %v", err)
	}

	// During the grace period both sign; a receiver with either secret accepts.
	body := []byte(`{"type":"invoice.paid"}`)
	h := http.Header{}
	keys := e.signingKeys(t, w.ID, auth.Live, c.t)
	if len(keys) != 2 {
		t.Fatalf("%d signing keys during grace, want 2", len(keys))
	}
	for k, v := range webhook.Headers(keys, "msg_r", c.t, body) {
		h.Set(k, v)
	}
	for _, s := range []string{first.Secret, second.Secret} {
		if err := verifyIgnoringTime(t, s, h, body); err != nil {
			t.Errorf("Verify during grace: %v", err)
		}
	}

	// A second rotation within the grace does not extend the first secret's expiry.
	c.add(time.Hour)
	third, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, 48*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if infoIDs(third.Previous) != second.Info.ID+","+first.Info.ID ||
		!third.Previous[0].ExpiresAt.Equal(c.t.Add(48*time.Hour)) || !third.Previous[1].ExpiresAt.Equal(*second.Previous[0].ExpiresAt) {
		t.Errorf("second rotation previous = %+v", third.Previous)
	}

	// After the grace the old secrets are absent: listing and signing.
	c.add(23 * time.Hour)
	if list, _ := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Live); infoIDs(list) != third.Info.ID+","+second.Info.ID {
		t.Errorf("list after first expiry = %s", infoIDs(list))
	}
	c.add(48 * time.Hour)
	if list, _ := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Live); infoIDs(list) != third.Info.ID {
		t.Errorf("list after grace = %s", infoIDs(list))
	}
	if keys := e.signingKeys(t, w.ID, auth.Live, c.t); len(keys) != 1 {
		t.Errorf("%d signing keys after grace", len(keys))
	}
	// The next write prunes expired secrets from the item.
	if _, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, time.Hour); err != nil {
		t.Fatal(err)
	}
	if stored, v, _ := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Live); len(stored) != 2 || v != 4 {
		t.Errorf("stored after pruning rotation = %d secrets, version %d", len(stored), v)
	}
}

func TestRotateWebhookSecretNoGrace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	first, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Sandbox, time.Hour); err != nil {
		t.Fatal(err)
	}
	// grace 0 (a leaked secret): every older secret stops at once.
	third, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Sandbox, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Previous) != 0 {
		t.Errorf("previous after grace 0 = %+v", third.Previous)
	}
	stored, _, err := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Sandbox)
	if err != nil || len(stored) != 1 || stored[0].ID != third.Info.ID || stored[0].Secret == first.Secret {
		t.Errorf("stored = %+v, %v", stored, err)
	}
	for _, g := range []time.Duration{-time.Second, MaxWebhookGrace + time.Second} {
		if _, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Sandbox, g); err == nil {
			t.Errorf("grace %s accepted", g)
		}
	}
}

func TestListWebhookSecretsNeverShowsSecret(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	if list, err := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Sandbox); err != nil || list == nil || len(list) != 0 {
		t.Errorf("empty list = %#v, %v", list, err)
	}
	iss, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), strings.TrimPrefix(iss.Secret, "whsec_")) || !strings.Contains(string(b), iss.Info.ID) {
		t.Errorf("list json = %s", b)
	}
}

// verifyIgnoringTime checks a message as a receiver holding secret would, with the official
// Standard Webhooks library (the test clock is fixed, so the timestamp tolerance is not applied).
func verifyIgnoringTime(t *testing.T, secret string, h http.Header, body []byte) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.VerifyIgnoringTimestamp(body, h)
}
