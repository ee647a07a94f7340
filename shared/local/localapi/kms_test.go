package localapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// kmsStack is the API as make dev runs it: every function's bootstrap under the emulator, the
// stack's KMS local-kms, the sandbox's webhook secret seeded by SeedWebhookSecret (sealed
// through local-kms), a receiver for the deliveries, and the functions' output kept.
type kmsStack struct {
	api    *localapi.TestAPI
	secret []byte
	out    *localapi.LogBuffer

	mu         sync.Mutex
	deliveries []http.Header
	bodies     [][]byte
	receiver   string
}

func startKMSStack(t *testing.T) *kmsStack {
	t.Helper()
	k := &kmsStack{out: &localapi.LogBuffer{}}
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true, KMS: true, Emulator: &rie.Options{PoolSize: 2, Output: k.out}})
	k.api = a
	// The functions the template gives the key name local-kms's, with no local key.
	sender := a.Emulated.Pools["WebhookSenderFunction"].Function().Env
	if sender[app.EnvWebhookSecretsKeyID] != devstack.KMSKeyARN || sender["AWS_ENDPOINT_URL_KMS"] != a.Stack.KMS.Endpoint || sender[app.EnvLocalSealingKey] != "" {
		t.Fatalf("the sender's environment: key %q, endpoint %q, local key set %t", sender[app.EnvWebhookSecretsKeyID], sender["AWS_ENDPOINT_URL_KMS"], sender[app.EnvLocalSealingKey] != "")
	}
	c := *a.Creds
	if err := localapi.SeedWebhookSecret(context.Background(), a.Operator(t), &c); err != nil {
		t.Fatal(err)
	}
	stored, _, err := a.Store.GetWebhookSecrets(context.Background(), c.WorkspaceID, auth.Sandbox)
	if err != nil || len(stored) != 1 || stored[0].Sealed.KeyRef != kmsseal.KMSPrefix+devstack.KMSKeyARN {
		t.Fatalf("the seeded secret: %+v, %v", stored, err)
	}
	if k.secret, err = webhook.ParseSecret(c.SandboxWebhookSecret); err != nil {
		t.Fatal(err)
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		k.mu.Lock()
		k.deliveries, k.bodies = append(k.deliveries, r.Header.Clone()), append(k.bodies, body)
		k.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	k.receiver = recv.URL + "/hooks"
	return k
}

// pay creates a payment whose webhook goes to the receiver and completes it on the checkout.
func (k *kmsStack) pay(t *testing.T, ref string) string {
	t.Helper()
	a := k.api
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 150.50, "reference": "`+ref+`", "webhook_url": "`+k.receiver+`"}`,
		"Idempotency-Key", "kms-key-"+ref+"-000000001")
	var created struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &created); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	u, err := url.Parse(created.PaymentURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ path, body string }{{u.Path + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {u.Path + "/notices/approve", ""}} {
		if r := a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	return created.InvoiceID
}

// delivered waits up to d for a delivery of invoiceID and checks its signature with the seeded
// secret, as a receiver verifies it.
func (k *kmsStack) delivered(t *testing.T, invoiceID string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		k.mu.Lock()
		for i, h := range k.deliveries {
			if !strings.Contains(string(k.bodies[i]), invoiceID) {
				continue
			}
			ts, err := strconv.ParseInt(h.Get(webhook.HeaderTimestamp), 10, 64)
			want := webhook.Sign(k.secret, h.Get(webhook.HeaderID), time.Unix(ts, 0), k.bodies[i])
			sig := h.Get(webhook.HeaderSignature)
			k.mu.Unlock()
			if err != nil || sig != want {
				t.Fatalf("the delivery's signature %q does not verify with the seeded secret (want %q)", sig, want)
			}
			return
		}
		k.mu.Unlock()
	}
	t.Fatalf("no delivery of %s in %s; the functions' output:\n%s", invoiceID, d, k.out.String())
}

// recorded waits up to 10 s for the sender to record invoiceID's delivery as delivered (it
// records an attempt after the receiver answered) and returns it.
func (k *kmsStack) recorded(t *testing.T, invoiceID string) *payment.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := k.attempts(t, invoiceID)
		if d.Status == payment.DeliveryDelivered || time.Now().After(deadline) {
			return d
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (k *kmsStack) attempts(t *testing.T, invoiceID string) *payment.Delivery {
	t.Helper()
	ds, err := k.api.Operator(t).WebhookDeliveries(context.Background(), invoiceID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries of %s: %+v %v", invoiceID, ds, err)
	}
	return &ds[0].Delivery
}

// make dev's webhooks: the sender's real bootstrap, under the emulator and fed by the SQS
// poller, opens the secret make dev sealed through local-kms with KMS Decrypt — as the deployed
// sender does, with no local key — and delivers a webhook that verifies with that secret.
func TestWebhookThroughLocalKMSEmulated(t *testing.T) {
	t.Parallel()
	k := startKMSStack(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	k.api.RunWebhookWorkers(ctx, t, 200*time.Millisecond)
	id := k.pay(t, "kms-1")
	k.delivered(t, id, 30*time.Second)
	if d := k.recorded(t, id); d.Status != payment.DeliveryDelivered || d.Attempts != 1 {
		t.Errorf("delivery: %s after %d attempts (%s), want delivered after 1", d.Status, d.Attempts, d.Detail)
	}
	if !strings.Contains(k.out.String(), `"msg":"webhook attempt"`) {
		t.Errorf("the sender's bootstrap logged no attempt:\n%s", k.out.String())
	}
}

// A hung KMS (local-kms stopped with SIGSTOP): the sender's bootstrap fails the attempt within
// its KMS bound ("webhook secrets unavailable", retried on the schedule, nothing sent
// unsigned), and once KMS answers again the retry is delivered and verifies.
func TestWebhookWhileLocalKMSHungEmulated(t *testing.T) {
	t.Parallel()
	k := startKMSStack(t)
	id := k.pay(t, "kms-hung")
	kmsServer := k.api.Stack.KMS
	if err := kmsServer.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kmsServer.Resume() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	start := time.Now()
	k.api.RunWebhookWorkers(ctx, t, 200*time.Millisecond)
	var d *payment.Delivery
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if d = k.attempts(t, id); d.Attempts > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no attempt recorded in 20 s while KMS was hung; the functions' output:\n%s", k.out.String())
		}
	}
	took := time.Since(start)
	if d.Status != payment.DeliveryPending || d.Detail != "webhook secrets unavailable" {
		t.Fatalf("the attempt while KMS hung: %s, %q", d.Status, d.Detail)
	}
	// kmsseal.DefaultTimeout bounds the open; the rest is the poll and the emulator's start.
	if took > kmsseal.DefaultTimeout+10*time.Second {
		t.Errorf("the failed attempt took %s", took)
	}
	k.mu.Lock()
	n := len(k.deliveries)
	k.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d deliveries while the secret could not be opened", n)
	}
	if err := kmsServer.Resume(); err != nil {
		t.Fatal(err)
	}
	k.delivered(t, id, 30*time.Second)
	if d := k.recorded(t, id); d.Status != payment.DeliveryDelivered || d.Attempts != 2 {
		t.Errorf("after KMS came back: %s after %d attempts, want delivered after 2", d.Status, d.Attempts)
	}
}

// A .dev/ from before make dev ran local-kms: the sandbox's secret was sealed with the local
// key (.dev/sealing.key), which the KMS-only sender cannot open — and one unopenable active
// secret fails every delivery. SeedWebhookSecret replaces it at once with one sealed through
// KMS, even when the credentials file names it.
func TestSeedWebhookSecretReplacesLocallySealed(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{KMS: true})
	ctx := context.Background()
	local, err := kmsseal.NewLocal(devstack.NewSealingKey())
	if err != nil {
		t.Fatal(err)
	}
	old := a.Operator(t)
	old.Sealer = local
	sec, err := old.IssueWebhookSecret(ctx, a.Creds.WorkspaceID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	c := *a.Creds
	c.SandboxWebhookSecret = sec.Secret
	if err := localapi.SeedWebhookSecret(ctx, a.Operator(t), &c); err != nil {
		t.Fatal(err)
	}
	if c.SandboxWebhookSecret == sec.Secret {
		t.Fatal("the locally sealed secret was kept")
	}
	stored, _, err := a.Store.GetWebhookSecrets(ctx, c.WorkspaceID, auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	active := stored.ActiveSecrets(time.Now())
	if len(active) != 1 || active[0].Sealed.KeyRef != kmsseal.KMSPrefix+devstack.KMSKeyARN {
		t.Fatalf("active secrets after the seed: %+v", active)
	}
	// The sender's keyring opens what is left, and the next run keeps it.
	keys, err := (&webhook.Keyring{Store: a.Store, Sealer: a.Operator(t).Sealer, TTL: -1}).Secrets(ctx, c.WorkspaceID, auth.Sandbox, time.Now())
	if err != nil || len(keys) != 1 {
		t.Fatalf("open: %d keys, %v", len(keys), err)
	}
	kept := c.SandboxWebhookSecret
	if err := localapi.SeedWebhookSecret(ctx, a.Operator(t), &c); err != nil || c.SandboxWebhookSecret != kept {
		t.Fatalf("restart: %v, changed %t", err, c.SandboxWebhookSecret != kept)
	}
}
