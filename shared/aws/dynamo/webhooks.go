package dynamo

// Webhook signing secrets, one item per workspace and environment:
//
//	webhook secrets  WHSEC#<workspace_id>#<env>  / WHSEC   version (optimistic locking)
//
// The item holds the list of secrets that sign (the current one, expires_at absent, and
// rotated-out ones still in their grace period) and a version number; every write is one
// PutItem conditional on the version it read, so two concurrent rotations cannot both win.
//
// Each secret is stored sealed (webhook.Sealer, package kmsseal): "sealed" is the ciphertext
// (binary), bound to the workspace and environment, and "sealed_with" names the key
// ("kms:<key ARN>" or "local:<fingerprint>"). Nothing in the item can sign; only the sender
// can open it. An item an older release wrote holds the text under "secret": it is read as
// webhook.Secret.Unsealed (the text is not even decoded), never signs, and this package
// refuses to write it back, so the operator's next rotation drops it.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/webhook"
)

// ErrVersionConflict means a versioned write lost: the item changed (or appeared) since the
// caller read it. Read again and retry.
var ErrVersionConflict = errors.New("changed concurrently; read again and retry")

// MaxWebhookSecrets bounds how many secrets one workspace environment may hold at once (the
// rule is package credential's).
const MaxWebhookSecrets = credential.MaxWebhookSecrets

// MaxSealedSize bounds one sealed secret's ciphertext (a KMS blob of a 32-byte secret is
// under 200 bytes; KMS ciphertexts never exceed 6 KB).
const MaxSealedSize = 6144

type webhookSecretsItem struct {
	PK          string                `dynamodbav:"pk"`
	SK          string                `dynamodbav:"sk"`
	WorkspaceID string                `dynamodbav:"workspace_id"`
	Environment string                `dynamodbav:"environment"`
	Secrets     []storedWebhookSecret `dynamodbav:"secrets"`
	Version     int                   `dynamodbav:"version"`
}

type storedWebhookSecret struct {
	ID         string     `dynamodbav:"id"`
	SealedWith string     `dynamodbav:"sealed_with,omitempty"`
	Sealed     []byte     `dynamodbav:"sealed,omitempty"`
	CreatedAt  time.Time  `dynamodbav:"created_at"`
	ExpiresAt  *time.Time `dynamodbav:"expires_at,omitempty"`
	// Text is the whsec_ text of an item written before sealing: only its presence is read.
	Text present `dynamodbav:"secret,omitempty"`
}

// present records that an attribute exists without keeping its value.
type present bool

// UnmarshalDynamoDBAttributeValue notes the attribute and drops its value.
func (p *present) UnmarshalDynamoDBAttributeValue(types.AttributeValue) error {
	*p = true
	return nil
}

// MarshalDynamoDBAttributeValue never writes a value: PutWebhookSecrets refuses unsealed secrets.
func (p present) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberNULL{Value: true}, nil
}

func webhookSecretsPK(workspaceID string, env auth.Environment) string {
	return "WHSEC#" + workspaceID + "#" + string(env)
}

func checkWebhookScope(workspaceID string, env auth.Environment) error {
	if !validID(workspaceID) {
		return fmt.Errorf("invalid workspace id %q", workspaceID)
	}
	if _, ok := auth.ParseEnvironment(string(env)); !ok {
		return fmt.Errorf("invalid environment %q", env)
	}
	return nil
}

// GetWebhookSecrets reads a workspace environment's secrets as stored (expired ones
// included: use ActiveSecrets) and the item's version, with one strongly consistent GetItem.
// No item gives (nil, 0, nil); version 0 is what PutWebhookSecrets then expects.
func (s *Store) GetWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) (webhook.Secrets, int, error) {
	if err := checkWebhookScope(workspaceID, env); err != nil {
		return nil, 0, err
	}
	item, err := s.get(ctx, webhookSecretsPK(workspaceID, env), "WHSEC")
	if err != nil || item == nil {
		return nil, 0, err
	}
	var it webhookSecretsItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, 0, fmt.Errorf("decode webhook secrets item: %w", err)
	}
	list := make(webhook.Secrets, 0, len(it.Secrets))
	for _, st := range it.Secrets {
		list = append(list, webhook.Secret{ID: st.ID, Sealed: webhook.Sealed{KeyRef: st.SealedWith, Ciphertext: st.Sealed},
			CreatedAt: st.CreatedAt, ExpiresAt: st.ExpiresAt, Unsealed: bool(st.Text) || len(st.Sealed) == 0})
	}
	return list, it.Version, nil
}

// PutWebhookSecrets replaces a workspace environment's secret list if the item is still at
// expectedVersion (0: the item must not exist), storing it as expectedVersion+1;
// ErrVersionConflict otherwise. Every secret must be sealed (a key reference and 1 to
// MaxSealedSize bytes of ciphertext; an Unsealed one is refused) and have a distinct id; at
// most one may be current (no expiry); at most MaxWebhookSecrets.
func (s *Store) PutWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment, secrets []webhook.Secret, expectedVersion int) error {
	if err := checkWebhookScope(workspaceID, env); err != nil {
		return err
	}
	if expectedVersion < 0 {
		return fmt.Errorf("invalid expected version %d", expectedVersion)
	}
	if len(secrets) > MaxWebhookSecrets {
		return fmt.Errorf("at most %d webhook secrets", MaxWebhookSecrets)
	}
	list := make([]storedWebhookSecret, 0, len(secrets))
	ids := map[string]bool{}
	current := 0
	for _, sec := range secrets {
		if !validID(sec.ID) || ids[sec.ID] {
			return fmt.Errorf("webhook secret id %q is empty, invalid or repeated", sec.ID)
		}
		ids[sec.ID] = true
		if sec.Unsealed || sec.Sealed.KeyRef == "" || len(sec.Sealed.Ciphertext) == 0 || len(sec.Sealed.Ciphertext) > MaxSealedSize {
			return fmt.Errorf("webhook secret %s is not sealed: only sealed secrets are stored", sec.ID)
		}
		st := storedWebhookSecret{ID: sec.ID, SealedWith: sec.Sealed.KeyRef, Sealed: sec.Sealed.Ciphertext, CreatedAt: sec.CreatedAt.UTC()}
		if sec.ExpiresAt == nil {
			current++
		} else {
			t := sec.ExpiresAt.UTC()
			st.ExpiresAt = &t
		}
		list = append(list, st)
	}
	if current > 1 {
		return fmt.Errorf("at most one current webhook secret (no expiry), not %d", current)
	}
	av, err := marshalItem(webhookSecretsItem{
		PK: webhookSecretsPK(workspaceID, env), SK: "WHSEC", WorkspaceID: workspaceID, Environment: string(env),
		Secrets: list, Version: expectedVersion + 1,
	})
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av}
	if expectedVersion == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(pk)")
	} else {
		in.ConditionExpression = aws.String("version = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: fmt.Sprint(expectedVersion)},
		}
	}
	_, err = s.DB.PutItem(ctx, in)
	if isConditionFailed(err) {
		return ErrVersionConflict
	}
	return err
}
