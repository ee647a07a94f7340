package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/fakekms"
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

// signingKeys returns the stored secrets that sign at now, opened as the sender opens them.
func (e *env) signingKeys(t *testing.T, ws string, environment auth.Environment, now time.Time) [][]byte {
	t.Helper()
	keys, err := (&webhook.Keyring{Store: e.store, Sealer: e.op.Sealer}).Secrets(e.ctx, ws, environment, now)
	if err != nil {
		t.Fatal(err)
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
	if err != nil || len(stored) != 1 || stored[0].ID != third.Info.ID || first.Info.ID == third.Info.ID {
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

// The stored item holds the sealed secret only; it opens (as the sender opens it) for its own
// workspace environment and for no other, so copying it into another workspace's item signs
// nothing.
func TestWebhookSecretSealedAndBoundToItsWorkspace(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w, other := e.workspace(t, "W"), e.workspace(t, "Other")
	iss, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := webhook.ParseSecret(iss.Secret)
	stored, _, err := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Sandbox)
	if err != nil || len(stored) != 1 || stored[0].Unsealed || !strings.HasPrefix(stored[0].Sealed.KeyRef, "local:") ||
		bytes.Contains(stored[0].Sealed.Ciphertext, key) {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	if keys := e.signingKeys(t, w.ID, auth.Sandbox, time.Now()); len(keys) != 1 || !bytes.Equal(keys[0], key) {
		t.Fatal("the sender does not open the issued secret")
	}
	for _, dst := range []struct {
		ws  string
		env auth.Environment
	}{{other.ID, auth.Sandbox}, {w.ID, auth.Live}} {
		if err := e.store.PutWebhookSecrets(e.ctx, dst.ws, dst.env, stored, 0); err != nil {
			t.Fatal(err)
		}
		_, err := (&webhook.Keyring{Store: e.store, Sealer: e.op.Sealer}).Secrets(e.ctx, dst.ws, dst.env, time.Now())
		if err == nil || !strings.Contains(err.Error(), "does not open") {
			t.Errorf("the secret copied to %s/%s: %v, want it not to open", dst.ws, dst.env, err)
		}
	}
}

func TestIssueWithoutSealerStoresNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	op := &Operator{Store: e.store}
	if _, err := op.IssueWebhookSecret(e.ctx, w.ID, auth.Sandbox); !errors.Is(err, webhook.ErrNoSealer) {
		t.Errorf("issue without a sealer = %v, want ErrNoSealer", err)
	}
	if stored, v, err := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Sandbox); err != nil || stored != nil || v != 0 {
		t.Errorf("stored = %v, %d, %v", stored, v, err)
	}
}

// putLegacyWebhookSecret writes a secret the way the release before sealing did: as text.
func (e *env) putLegacyWebhookSecret(t *testing.T, ws string, environment auth.Environment, id, text string) {
	t.Helper()
	_, err := e.store.DB.PutItem(e.ctx, &dynamodb.PutItemInput{TableName: aws.String(e.store.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "WHSEC#" + ws + "#" + string(environment)}, "sk": &types.AttributeValueMemberS{Value: "WHSEC"},
		"workspace_id": &types.AttributeValueMemberS{Value: ws}, "environment": &types.AttributeValueMemberS{Value: string(environment)},
		"version": &types.AttributeValueMemberN{Value: "1"},
		"secrets": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: id}, "secret": &types.AttributeValueMemberS{Value: text},
			"created_at": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339Nano)},
		}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// Migration: a secret an older local stack stored as text is treated as leaked. It never
// signs (the sender reports why), listings flag it, issue refuses (it is still active), and a
// rotation replaces it whatever the grace; the new item holds sealed secrets only.
func TestUnsealedLegacySecretIsReplacedByRotation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	w := e.workspace(t, "W")
	legacy, _ := webhook.NewSecret()
	e.putLegacyWebhookSecret(t, w.ID, auth.Live, "whk_legacy00001", legacy)

	keyring := &webhook.Keyring{Store: e.store, Sealer: e.op.Sealer}
	if _, err := keyring.Secrets(e.ctx, w.ID, auth.Live, time.Now()); !errors.Is(err, webhook.ErrSecretUnsealed) {
		t.Fatalf("signing with a legacy secret = %v, want ErrSecretUnsealed", err)
	}
	list, err := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Live)
	if err != nil || len(list) != 1 || !list[0].Unsealed || !list[0].Current() {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Live); !errors.Is(err, ErrWebhookSecretExists) {
		t.Errorf("issue over a legacy secret = %v", err)
	}
	rot, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, DefaultWebhookGrace)
	if err != nil {
		t.Fatalf("rotate: %v", err)
	}
	if len(rot.Previous) != 0 {
		t.Errorf("the legacy secret kept signing after rotation: %+v", rot.Previous)
	}
	stored, _, _ := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Live)
	if len(stored) != 1 || stored[0].ID != rot.Info.ID || stored[0].Unsealed {
		t.Fatalf("stored after rotation = %+v", stored)
	}
	raw := fmt.Sprint(e.rawItem(t, "WHSEC#"+w.ID+"#live"))
	if strings.Contains(raw, strings.TrimPrefix(legacy, "whsec_")) || strings.Contains(raw, "whsec_") {
		t.Errorf("the rotated item still holds secret text: %s", raw)
	}
	keys, err := keyring.Secrets(e.ctx, w.ID, auth.Live, time.Now())
	newKey, _ := webhook.ParseSecret(rot.Secret)
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0], newKey) {
		t.Errorf("after rotation the sender signs with %d keys, %v", len(keys), err)
	}
}

func (e *env) rawItem(t *testing.T, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.store.DB.GetItem(e.ctx, &dynamodb.GetItemInput{TableName: aws.String(e.store.Table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: "WHSEC"}}})
	if err != nil || out.Item == nil {
		t.Fatalf("GetItem %s: %v", pk, err)
	}
	return out.Item
}

// With KMS, issuing is one Encrypt and rotating one more; the operator never decrypts (it
// needs kms:Encrypt only), and every request names the key and the workspace environment.
func TestOperatorWithKMSEncryptsOnly(t *testing.T) {
	t.Parallel()
	e := setup(t)
	fake := fakekms.Start(t)
	sealer, err := kmsseal.New(fake.AWSConfig(), fake.Alias, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.op.Sealer = sealer
	w := e.workspace(t, "W")
	if _, err := e.op.IssueWebhookSecret(e.ctx, w.ID, auth.Live); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.RotateWebhookSecret(e.ctx, w.ID, auth.Live, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := e.op.ListWebhookSecrets(e.ctx, w.ID, auth.Live); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	want := map[string]string{"workspace_id": w.ID, "environment": "live"}
	if len(reqs) != 2 {
		t.Fatalf("%d KMS requests for issue+rotate+list, want 2 Encrypts: %+v", len(reqs), reqs)
	}
	for _, r := range reqs {
		if r.Op != "Encrypt" || r.KeyID != fake.Alias || !maps.Equal(r.EncryptionContext, want) {
			t.Errorf("KMS request %+v", r)
		}
	}
	stored, _, _ := e.store.GetWebhookSecrets(e.ctx, w.ID, auth.Live)
	for _, s := range stored {
		if s.Sealed.KeyRef != "kms:"+fake.KeyARN {
			t.Errorf("stored %s sealed with %q", s.ID, s.Sealed.KeyRef)
		}
	}
}
