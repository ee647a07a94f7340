package dynamo

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/webhook"
)

// testWebhookSecret is a secret as the operator stores it: sealed. The store keeps the
// ciphertext as it is, so random bytes stand in for a sealer's output here.
func testWebhookSecret(t *testing.T, id string, created time.Time, expires *time.Time) webhook.Secret {
	t.Helper()
	ct := make([]byte, 60)
	if _, err := rand.Read(ct); err != nil {
		t.Fatal(err)
	}
	return webhook.Secret{ID: id, Sealed: webhook.Sealed{KeyRef: "local:0011223344556677", Ciphertext: ct}, CreatedAt: created, ExpiresAt: expires}
}

func TestWebhookSecretsRoundTripAndVersion(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	now := time.Date(2026, 5, 1, 10, 0, 0, 123456789, time.FixedZone("BST", 6*3600))

	list, v, err := s.GetWebhookSecrets(ctx, ws, auth.Sandbox)
	if err != nil || list != nil || v != 0 {
		t.Fatalf("GetWebhookSecrets(absent) = %v, %d, %v", list, v, err)
	}
	cur := testWebhookSecret(t, "whs_a", now, nil)
	if err := s.PutWebhookSecrets(ctx, ws, auth.Sandbox, []webhook.Secret{cur}, 0); err != nil {
		t.Fatalf("first put: %v", err)
	}
	// A second "create" loses.
	if err := s.PutWebhookSecrets(ctx, ws, auth.Sandbox, []webhook.Secret{cur}, 0); !errors.Is(err, ErrVersionConflict) {
		t.Errorf("create over an existing item = %v, want ErrVersionConflict", err)
	}
	list, v, err = s.GetWebhookSecrets(ctx, ws, auth.Sandbox)
	if err != nil || v != 1 || len(list) != 1 || list[0].ID != "whs_a" || !reflect.DeepEqual(list[0].Sealed, cur.Sealed) || list[0].Unsealed ||
		!list[0].CreatedAt.Equal(now) || list[0].ExpiresAt != nil {
		t.Fatalf("after put: %+v, %d, %v", list, v, err)
	}
	// The other environment and another workspace are separate items.
	if l, v, err := s.GetWebhookSecrets(ctx, ws, auth.Live); err != nil || l != nil || v != 0 {
		t.Errorf("live = %v, %d, %v", l, v, err)
	}
	if l, v, err := s.GetWebhookSecrets(ctx, uuid.NewString(), auth.Sandbox); err != nil || l != nil || v != 0 {
		t.Errorf("other workspace = %v, %d, %v", l, v, err)
	}

	exp := now.Add(24 * time.Hour)
	old := list[0]
	old.ExpiresAt = &exp
	next := []webhook.Secret{testWebhookSecret(t, "whs_b", now.Add(time.Minute), nil), old}
	if err := s.PutWebhookSecrets(ctx, ws, auth.Sandbox, next, 2); !errors.Is(err, ErrVersionConflict) {
		t.Errorf("put at a wrong version = %v", err)
	}
	if err := s.PutWebhookSecrets(ctx, ws, auth.Sandbox, next, 1); err != nil {
		t.Fatalf("put at version 1: %v", err)
	}
	if err := s.PutWebhookSecrets(ctx, ws, auth.Sandbox, next, 1); !errors.Is(err, ErrVersionConflict) {
		t.Errorf("stale put = %v", err)
	}
	list, v, err = s.GetWebhookSecrets(ctx, ws, auth.Sandbox)
	if err != nil || v != 2 || len(list) != 2 || list[0].ID != "whs_b" || list[1].ExpiresAt == nil || !list[1].ExpiresAt.Equal(exp) {
		t.Fatalf("after rotation put: %+v, %d, %v", list, v, err)
	}

	// Times are stored as fixed-width UTC text.
	raw := scanAll(t, ctx, s)
	var found bool
	for _, item := range raw {
		if item["pk"].(*types.AttributeValueMemberS).Value != "WHSEC#"+ws+"#sandbox" {
			continue
		}
		found = true
		if item["sk"].(*types.AttributeValueMemberS).Value != "WHSEC" || item["version"].(*types.AttributeValueMemberN).Value != "2" {
			t.Errorf("item keys/version = %v / %v", item["sk"], item["version"])
		}
		first := item["secrets"].(*types.AttributeValueMemberL).Value[1].(*types.AttributeValueMemberM).Value
		if got := first["expires_at"].(*types.AttributeValueMemberS).Value; got != formatTime(exp) || !strings.HasSuffix(got, "Z") {
			t.Errorf("stored expires_at = %q, want %q", got, formatTime(exp))
		}
		// Each secret is its ciphertext (binary) and the key that sealed it; no text attribute.
		for i, av := range item["secrets"].(*types.AttributeValueMemberL).Value {
			m := av.(*types.AttributeValueMemberM).Value
			ct, ok1 := m["sealed"].(*types.AttributeValueMemberB)
			ref, ok2 := m["sealed_with"].(*types.AttributeValueMemberS)
			if _, text := m["secret"]; text || !ok1 || !ok2 || !bytes.Equal(ct.Value, next[i].Sealed.Ciphertext) || ref.Value != next[i].Sealed.KeyRef {
				t.Errorf("stored secret %d = %v", i, m)
			}
		}
	}
	if !found {
		t.Error("no WHSEC item in the table")
	}
}

func TestWebhookSecretsConcurrentWritersOneWins(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	if err := s.PutWebhookSecrets(ctx, ws, auth.Live, []webhook.Secret{testWebhookSecret(t, "whs_0", time.Now(), nil)}, 0); err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		sec := testWebhookSecret(t, "whs_"+string(rune('a'+i)), time.Now(), nil)
		wg.Go(func() { errs[i] = s.PutWebhookSecrets(ctx, ws, auth.Live, []webhook.Secret{sec}, 1) })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, ErrVersionConflict):
			t.Errorf("concurrent put: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d concurrent writers at version 1 won, want 1", wins)
	}
}

func TestPutWebhookSecretsRejects(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	now := time.Now()
	exp := now.Add(time.Hour)
	a := testWebhookSecret(t, "whs_a", now, nil)
	for name, tc := range map[string]struct {
		ws   string
		env  auth.Environment
		list []webhook.Secret
		v    int
	}{
		"bad env":         {ws, "prod", []webhook.Secret{a}, 0},
		"bad workspace":   {"a#b", auth.Sandbox, []webhook.Secret{a}, 0},
		"empty workspace": {"", auth.Sandbox, []webhook.Secret{a}, 0},
		"negative":        {ws, auth.Sandbox, []webhook.Secret{a}, -1},
		"two current":     {ws, auth.Sandbox, []webhook.Secret{a, testWebhookSecret(t, "whs_b", now, nil)}, 0},
		"repeated id":     {ws, auth.Sandbox, []webhook.Secret{a, testWebhookSecret(t, "whs_a", now, &exp)}, 0},
		"no id":           {ws, auth.Sandbox, []webhook.Secret{testWebhookSecret(t, "", now, nil)}, 0},
		"unsealed":        {ws, auth.Sandbox, []webhook.Secret{{ID: "whs_x", Unsealed: true, Sealed: a.Sealed, CreatedAt: now}}, 0},
		"no ciphertext":   {ws, auth.Sandbox, []webhook.Secret{{ID: "whs_x", Sealed: webhook.Sealed{KeyRef: "local:x"}, CreatedAt: now}}, 0},
		"no key ref":      {ws, auth.Sandbox, []webhook.Secret{{ID: "whs_x", Sealed: webhook.Sealed{Ciphertext: a.Sealed.Ciphertext}, CreatedAt: now}}, 0},
		"huge ciphertext": {ws, auth.Sandbox, []webhook.Secret{{ID: "whs_x", Sealed: webhook.Sealed{KeyRef: "local:x", Ciphertext: make([]byte, MaxSealedSize+1)}, CreatedAt: now}}, 0},
		"too many": {ws, auth.Sandbox, func() []webhook.Secret {
			var l []webhook.Secret
			for i := range MaxWebhookSecrets + 1 {
				l = append(l, testWebhookSecret(t, "whs_"+string(rune('a'+i)), now, &exp))
			}
			return l
		}(), 0},
	} {
		if err := s.PutWebhookSecrets(ctx, tc.ws, tc.env, tc.list, tc.v); err == nil || errors.Is(err, ErrVersionConflict) {
			t.Errorf("%s: PutWebhookSecrets = %v, want a validation error", name, err)
		}
	}
	if l, v, err := s.GetWebhookSecrets(ctx, ws, auth.Sandbox); err != nil || l != nil || v != 0 {
		t.Errorf("after rejected puts: %v, %d, %v", l, v, err)
	}
}

func TestActiveSecrets(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	past, future, exactly := now.Add(-time.Second), now.Add(time.Second), now
	l := webhook.Secrets{
		{ID: "cur"}, {ID: "grace", ExpiresAt: &future}, {ID: "gone", ExpiresAt: &past}, {ID: "edge", ExpiresAt: &exactly},
	}
	var ids []string
	for _, s := range l.ActiveSecrets(now) {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "cur,grace" {
		t.Errorf("ActiveSecrets = %v, want cur,grace", ids)
	}
	if got := (webhook.Secrets{{ID: "gone", ExpiresAt: &past}}).ActiveSecrets(now); len(got) != 0 {
		t.Errorf("all expired: ActiveSecrets = %v", got)
	}
}

func TestWebhookSecretJSONOmitsSealed(t *testing.T) {
	sec := webhook.Secret{ID: "whs_a", Sealed: webhook.Sealed{KeyRef: "kms:KEYREF", Ciphertext: []byte("CIPHERTEXT")}, CreatedAt: time.Now()}
	b, err := json.Marshal(sec)
	if err != nil || strings.Contains(string(b), "KEYREF") || strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("CIPHERTEXT"))) {
		t.Errorf("json = %s, %v", b, err)
	}
}

// An item an older release wrote holds the secret as text: it reads as Unsealed, with
// nothing of the text in the result, and cannot be written back.
func TestLegacyUnsealedWebhookSecret(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	ws := uuid.NewString()
	text, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "WHSEC#" + ws + "#live"}, "sk": &types.AttributeValueMemberS{Value: "WHSEC"},
		"workspace_id": &types.AttributeValueMemberS{Value: ws}, "environment": &types.AttributeValueMemberS{Value: "live"},
		"version": &types.AttributeValueMemberN{Value: "1"},
		"secrets": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "whk_legacy"}, "secret": &types.AttributeValueMemberS{Value: text},
			"created_at": &types.AttributeValueMemberS{Value: formatTime(time.Now())},
		}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	list, v, err := s.GetWebhookSecrets(ctx, ws, auth.Live)
	if err != nil || v != 1 || len(list) != 1 || list[0].ID != "whk_legacy" || !list[0].Unsealed || list[0].Sealed.KeyRef != "" ||
		len(list[0].Sealed.Ciphertext) != 0 {
		t.Fatalf("legacy item read as %+v, %d, %v", list, v, err)
	}
	if strings.Contains(fmt.Sprintf("%#v", list), strings.TrimPrefix(text, "whsec_")) {
		t.Fatal("the legacy text reached the result")
	}
	if err := s.PutWebhookSecrets(ctx, ws, auth.Live, list, 1); err == nil || errors.Is(err, ErrVersionConflict) {
		t.Errorf("writing the unsealed secret back = %v, want a refusal", err)
	}
}
