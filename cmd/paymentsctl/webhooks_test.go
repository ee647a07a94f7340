package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/fakekms"
	"github.com/takapay/payments/shared/local/samtemplate"
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

// verifies reports whether a message signed with the stored active secrets, opened as the
// sender opens them, verifies with the plaintext secret.
func (c *cli) verifies(t *testing.T, ws string, env auth.Environment, secret string) bool {
	t.Helper()
	now := time.Now()
	keys, err := (&webhook.Keyring{Store: c.store, Sealer: c.sealer}).Secrets(c.ctx, ws, env, now)
	if err != nil {
		t.Fatal(err)
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

func TestNewSealer(t *testing.T) {
	local := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	if s, err := newSealer(aws.Config{}, "alias/takapay-webhook-secrets", ""); err != nil {
		t.Errorf("--kms-key: %v", err)
	} else if k, ok := s.(*kmsseal.KMS); !ok || k.KeyID != "alias/takapay-webhook-secrets" {
		t.Errorf("--kms-key: %T", s)
	}
	if s, err := newSealer(aws.Config{}, "", local); err != nil {
		t.Errorf("LOCAL_SEALING_KEY: %v", err)
	} else if _, ok := s.(*kmsseal.Local); !ok {
		t.Errorf("LOCAL_SEALING_KEY: %T", s)
	}
	if s, err := newSealer(aws.Config{}, "", ""); s != nil || err != nil {
		t.Errorf("neither: %v, %v (listing needs no key)", s, err)
	}
	if _, err := newSealer(aws.Config{}, "alias/x", local); err == nil || !strings.Contains(err.Error(), "unset LOCAL_SEALING_KEY") {
		t.Errorf("both: %v", err)
	}
	if _, err := newSealer(aws.Config{}, "", "c2hvcnQ="); err == nil || !strings.Contains(err.Error(), "LOCAL_SEALING_KEY") {
		t.Errorf("bad local key: %v", err)
	}
}

// Without a sealing key, issue and rotate say what to pass; list still works.
func TestWebhookSecretIssueWithoutKey(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	c.sealer = nil
	if _, _, err := c.run("webhook", "secret", "issue", "--workspace", ws, "--env", "live"); err == nil ||
		!strings.Contains(err.Error(), "--kms-key") || !strings.Contains(err.Error(), ".dev/stack.env") {
		t.Errorf("issue without a key = %v", err)
	}
	if l := c.listWebhookSecrets(t, ws, "live"); len(l) != 0 {
		t.Errorf("list = %+v", l)
	}
}

// A secret stored as text by an older release is flagged in the listing (id only).
func TestWebhookSecretListFlagsUnsealed(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	text, _ := webhook.NewSecret()
	_, err := c.store.DB.PutItem(c.ctx, &dynamodb.PutItemInput{TableName: aws.String(c.store.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "WHSEC#" + ws + "#live"}, "sk": &types.AttributeValueMemberS{Value: "WHSEC"},
		"version": &types.AttributeValueMemberN{Value: "1"},
		"secrets": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "whk_legacy00001"}, "secret": &types.AttributeValueMemberS{Value: text},
			"created_at": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339Nano)},
		}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := c.ok(t, "webhook", "secret", "list", "--workspace", ws, "--env", "live")
	if !strings.Contains(out, "whk_legacy00001") || !strings.Contains(out, "unsealed: rotate --grace 0") || strings.Contains(out, text[6:]) {
		t.Errorf("list =\n%s", out)
	}
	c.ok(t, "webhook", "secret", "rotate", "--workspace", ws, "--env", "live", "--grace", "0")
	if l := c.listWebhookSecrets(t, ws, "live"); len(l) != 1 || l[0].ID == "whk_legacy00001" || strings.Contains(l[0].State, "unsealed") {
		t.Errorf("list after rotation = %+v", l)
	}
}

// The real CLI process seals with KMS: --kms-key names the key, the SDK finds the endpoint
// in AWS_ENDPOINT_URL_KMS (here fakekms, which checks the signature), the table gets the
// ciphertext, and the sender's KMS sealer opens it to the printed secret. With
// LOCAL_SEALING_KEY instead (what .dev/stack.env exports), the stack's local key seals.
func TestProcessSealsWithKMSOrTheLocalKey(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fake := fakekms.Start(t)
	ws := c.createWorkspace(t, "W")
	goRun := func(extraEnv []string, args ...string) (string, string, error) {
		cmd := exec.CommandContext(c.ctx, goBin, append([]string{"run", "./cmd/paymentsctl", "--table", c.store.Table, "--endpoint", c.stack.Dynamo.Endpoint}, args...)...)
		cmd.Dir = root
		cmd.Env = append(processEnv(), extraEnv...)
		var out, errw bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errw
		err := cmd.Run()
		return out.String(), errw.String(), err
	}
	kmsEnv := []string{"AWS_ENDPOINT_URL_KMS=" + fake.URL, "AWS_REGION=" + fakekms.Region,
		"AWS_ACCESS_KEY_ID=" + fakekms.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + fakekms.SecretAccessKey}
	out, stderr, err := goRun(kmsEnv, "--kms-key", fake.Alias, "webhook", "secret", "issue", "--workspace", ws, "--env", "live")
	if err != nil {
		t.Fatalf("issue with KMS: %v\n%s\n%s", err, out, stderr)
	}
	secret := fields(out)["secret"]
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Op != "Encrypt" || reqs[0].KeyID != fake.Alias || reqs[0].EncryptionContext["workspace_id"] != ws ||
		reqs[0].EncryptionContext["environment"] != "live" || reqs[0].Status != 200 {
		t.Fatalf("KMS requests of issue: %+v", reqs)
	}
	kmsCfg := fake.AWSConfig()
	opener, _ := kmsseal.New(kmsCfg, fake.KeyARN, nil)
	keys, err := (&webhook.Keyring{Store: c.store, Sealer: opener}).Secrets(c.ctx, ws, auth.Live, time.Now())
	want, _ := webhook.ParseSecret(secret)
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0], want) {
		t.Fatalf("the sender's KMS sealer opens %d keys (%v), want the printed secret", len(keys), err)
	}
	// Listing needs no key and makes no KMS request.
	if out, stderr, err := goRun(kmsEnv, "webhook", "secret", "list", "--workspace", ws, "--env", "live"); err != nil ||
		strings.Contains(out, secret[6:]) || len(fake.Requests()) != 2 {
		t.Errorf("list: %v\n%s\n%s (KMS requests %d)", err, out, stderr, len(fake.Requests())-1)
	}

	local := "LOCAL_SEALING_KEY=" + base64.StdEncoding.EncodeToString(c.stack.SealingKey)
	out, stderr, err = goRun([]string{local}, "webhook", "secret", "issue", "--workspace", ws, "--env", "sandbox")
	if err != nil {
		t.Fatalf("issue with the local key: %v\n%s\n%s", err, out, stderr)
	}
	want, _ = webhook.ParseSecret(fields(out)["secret"])
	keys, err = (&webhook.Keyring{Store: c.store, Sealer: c.sealer}).Secrets(c.ctx, ws, auth.Sandbox, time.Now())
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0], want) {
		t.Fatalf("the stack's local key opens %d keys (%v)", len(keys), err)
	}
	// Both at once is refused rather than guessed.
	if _, stderr, err := goRun(append(kmsEnv, local), "--kms-key", fake.Alias, "webhook", "secret", "rotate", "--workspace", ws, "--env", "live"); err == nil ||
		!strings.Contains(stderr, "both set") {
		t.Errorf("both keys: %v\n%s", err, stderr)
	}
}
