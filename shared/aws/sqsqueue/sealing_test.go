package sqsqueue_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/fakekms"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// scanValues returns every string and binary value in the whole table (nested lists, maps
// and sets included): what a scan, an export or a restored backup would hand over.
func scanValues(t *testing.T, h *harness) (texts []string, blobs [][]byte) {
	t.Helper()
	var walk func(av types.AttributeValue)
	walk = func(av types.AttributeValue) {
		switch v := av.(type) {
		case *types.AttributeValueMemberS:
			texts = append(texts, v.Value)
		case *types.AttributeValueMemberN:
			texts = append(texts, v.Value)
		case *types.AttributeValueMemberB:
			blobs = append(blobs, v.Value)
		case *types.AttributeValueMemberSS:
			texts = append(texts, v.Value...)
		case *types.AttributeValueMemberBS:
			blobs = append(blobs, v.Value...)
		case *types.AttributeValueMemberL:
			for _, e := range v.Value {
				walk(e)
			}
		case *types.AttributeValueMemberM:
			for k, e := range v.Value {
				texts = append(texts, k)
				walk(e)
			}
		}
	}
	var start map[string]types.AttributeValue
	items := 0
	for {
		out, err := h.a.Stack.DDB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(h.a.Store.Table), ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			items++
			walk(&types.AttributeValueMemberM{Value: it})
		}
		if start = out.LastEvaluatedKey; len(start) == 0 {
			break
		}
	}
	if items == 0 {
		t.Fatal("the scan found no items")
	}
	return texts, blobs
}

// secretInTable lists where the table holds the secret in any form that could sign: the
// whsec_ text, its base64, the raw key, or the key in hex or another base64.
func secretInTable(t *testing.T, h *harness, secret string) []string {
	t.Helper()
	key, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	forms := []string{secret, strings.TrimPrefix(secret, webhook.SecretPrefix), hex.EncodeToString(key), strings.ToUpper(hex.EncodeToString(key)),
		base64.RawStdEncoding.EncodeToString(key), base64.URLEncoding.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key)}
	var found []string
	texts, blobs := scanValues(t, h)
	for _, s := range texts {
		if strings.Contains(s, webhook.SecretPrefix) || bytes.Contains([]byte(s), key) {
			found = append(found, "text value with whsec_ or the raw key")
		}
		for i, f := range forms {
			if strings.Contains(s, f) {
				found = append(found, fmt.Sprintf("text value with form %d", i))
			}
		}
	}
	for _, b := range blobs {
		if bytes.Contains(b, key) {
			found = append(found, "binary value with the raw key")
		}
		for i, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				found = append(found, fmt.Sprintf("binary value with form %d", i))
			}
		}
	}
	return found
}

func assertNoSecretInTable(t *testing.T, h *harness, secret string) {
	t.Helper()
	if found := secretInTable(t, h, secret); len(found) > 0 {
		t.Errorf("the table holds a webhook secret: %v", found)
	}
}

// Issue 9: a secret issued through the operator is in the table only as ciphertext — a scan
// finds it in no form — and the sender still signs every delivery so that the official
// Standard Webhooks library verifies it; with KMS the path is the production one (the real
// SDK client, against fakekms), and a delivery costs no KMS request once the key is cached.
func TestWebhookSecretSealedAtRestAndDeliveriesVerify(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"local key", "kms"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			opts := localapi.Options{AllowLocalhostURLs: true}
			var fake *fakekms.Server
			if mode == "kms" {
				fake = fakekms.StartWith(t, fakekms.Identity{Region: devstack.Region, AccessKeyID: devstack.AccessKeyID, SecretAccessKey: devstack.SecretAccessKey})
				opts.Env = map[string]string{"WEBHOOK_SECRETS_KEY_ID": fake.KeyARN}
				opts.KMSEndpoint = fake.URL
			}
			h := setupWith(t, opts)
			assertNoSecretInTable(t, h, h.secret)
			stored, _, err := h.a.Store.GetWebhookSecrets(context.Background(), h.a.Creds.WorkspaceID, auth.Sandbox)
			wantRef := "local:"
			if fake != nil {
				wantRef = "kms:" + fake.KeyARN
			}
			if err != nil || len(stored) != 1 || !strings.HasPrefix(stored[0].Sealed.KeyRef, wantRef) {
				t.Fatalf("stored = %+v, %v", stored, err)
			}

			rc := newReceiver(t, h.secret, nil)
			if fake != nil {
				// KMS refuses once (say, a grant not yet propagated): that attempt fails, is
				// recorded and retried, and the retry signs.
				fake.Fail("Decrypt", 1, 400, "AccessDeniedException")
			}
			first := h.pay(t, rc.srv.URL+"/hook", "order-sealed-0")
			h.drain(t, 1, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1 })
			wantAttempts := 1
			if fake != nil {
				wantAttempts = 2
			}
			if ob := h.outbox(t, first); ob.Status != payment.DeliveryDelivered || ob.Attempts != wantAttempts || rc.attempts[ob.EventID] != 1 {
				t.Fatalf("first delivery: outbox %+v, receiver saw %d requests", ob, rc.attempts[ob.EventID])
			}

			const more = 5
			for i := range more {
				h.pay(t, rc.srv.URL+"/hook", fmt.Sprintf("order-sealed-%d", i+1))
			}
			h.drain(t, 2, func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.ok) == 1+more })
			if rc.badSigs != 0 {
				t.Fatalf("%d deliveries failed the Standard Webhooks check", rc.badSigs)
			}
			assertNoSecretInTable(t, h, h.secret)
			if fake == nil {
				return
			}
			// KMS requests: the operator's one Encrypt; the sender's failed Decrypt and one more,
			// whose key then signed all six deliveries from this instance's cache.
			wantCtx := map[string]string{"workspace_id": h.a.Creds.WorkspaceID, "environment": "sandbox"}
			var ops []string
			for _, r := range fake.Requests() {
				ops = append(ops, r.Op)
				if r.KeyID != fake.KeyARN || !maps.Equal(r.EncryptionContext, wantCtx) {
					t.Errorf("KMS request %+v: want key %s and context %v", r, fake.KeyARN, wantCtx)
				}
			}
			if strings.Join(ops, ",") != "Encrypt,Decrypt,Decrypt" {
				t.Errorf("KMS requests %v, want Encrypt,Decrypt,Decrypt", ops)
			}
			t.Logf("%d deliveries, %d successful KMS Decrypt (cached for %s per instance)", 1+more, fake.Count("Decrypt")-1, webhook.DefaultKeyTTL)
		})
	}
}

// A secret an older release stored as text never signs: the attempt records why and what to
// do; after the operator rotates it, the next attempt is signed with the new sealed secret.
func TestUnsealedLegacySecretNeverSigns(t *testing.T) {
	t.Parallel()
	h := setup(t, nil)
	ws := h.a.Creds.WorkspaceID
	legacy, _ := webhook.NewSecret()
	_, err := h.a.Stack.DDB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(h.a.Store.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "WHSEC#" + ws + "#sandbox"}, "sk": &types.AttributeValueMemberS{Value: "WHSEC"},
		"workspace_id": &types.AttributeValueMemberS{Value: ws}, "environment": &types.AttributeValueMemberS{Value: "sandbox"},
		"version": &types.AttributeValueMemberN{Value: "7"},
		"secrets": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "whk_legacy00001"}, "secret": &types.AttributeValueMemberS{Value: legacy},
			"created_at": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339Nano)},
		}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The receiver accepts whatever secret is current at the time of the request.
	var mu sync.Mutex
	var verifier *standardwebhooks.Webhook
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		requests++
		if verifier == nil || verifier.Verify(body, r.Header) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)

	if len(secretInTable(t, h, legacy)) == 0 {
		t.Fatal("the scan check does not see a secret stored as text")
	}
	id := h.pay(t, srv.URL+"/hook", "order-legacy")
	if _, err := h.poller.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ob := h.outbox(t, id)
	if ob.Status != payment.DeliveryPending || ob.Attempts != 1 || !strings.Contains(ob.Detail, "unsealed") || !strings.Contains(ob.Detail, "rotate") || requests != 0 {
		t.Fatalf("attempt with a legacy secret: outbox %+v, %d requests reached the receiver", ob, requests)
	}
	rot, err := h.a.Operator(t).RotateWebhookSecret(context.Background(), ws, auth.Sandbox, 0)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(rot.Secret)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	verifier = wh
	mu.Unlock()
	h.drain(t, 1, func() bool { return h.outbox(t, id).Status == payment.DeliveryDelivered })
	if ob := h.outbox(t, id); ob.Attempts != 2 || requests != 1 {
		t.Errorf("after rotation: outbox %+v, %d requests", ob, requests)
	}
	assertNoSecretInTable(t, h, legacy)
	assertNoSecretInTable(t, h, rot.Secret)
}
