package dynamo

// Passkeys (WebAuthn credentials) of dashboard users, and the server-side state of a begun
// passkey ceremony:
//
//	passkey     USER#<user_id>          / PASSKEY#<sha256 hex of the credential id>
//	ceremony    PKCEREMONY#<sha256 hex> / PKCEREMONY   ttl: expires_at (epoch seconds)
//
// A passkey lives under its user, so a user's passkeys are one Query and "someone else's
// passkey" cannot be named at all. A discoverable sign-in needs no lookup item: the user
// handle the authenticator returns is the user id (shared/passkey), so the sign-in reads that
// user's passkeys. A ceremony is stored under the SHA-256 of its id and taken with one
// conditional DeleteItem (ALL_OLD): single use even against concurrent finishes.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/passkey/record"
)

var _ record.Store = (*Store)(nil)

const passkeySKPrefix = "PASSKEY#"

type passkeyItem struct {
	PK         string     `dynamodbav:"pk"`
	SK         string     `dynamodbav:"sk"`
	UserID     string     `dynamodbav:"user_id"`
	Name       string     `dynamodbav:"name"`
	CreatedAt  time.Time  `dynamodbav:"created_at"`
	LastUsedAt *time.Time `dynamodbav:"last_used_at,omitempty"`
	SignCount  uint32     `dynamodbav:"sign_count"`
	Credential []byte     `dynamodbav:"credential"`
	Pending    bool       `dynamodbav:"pending,omitempty"`
}

func validPasskeyKey(userID, id string) bool { return validID(userID) && validID(id) }

// PutPasskey stores a new passkey (one conditional PutItem); record.ErrDuplicate when the
// user already has it.
func (s *Store) PutPasskey(ctx context.Context, r *record.Passkey) error {
	if !validPasskeyKey(r.UserID, r.ID) || len(r.Credential) == 0 {
		return fmt.Errorf("invalid passkey user %q or id %q, or no credential", r.UserID, r.ID)
	}
	err := s.putNew(ctx, passkeyItem{
		PK: userPK(r.UserID), SK: passkeySKPrefix + r.ID, UserID: r.UserID, Name: r.Name,
		CreatedAt: r.CreatedAt.UTC(), LastUsedAt: r.LastUsedAt, SignCount: r.SignCount, Credential: r.Credential,
		Pending: r.Pending,
	})
	if isConditionFailed(err) {
		return record.ErrDuplicate
	}
	return err
}

// ListPasskeys returns a user's passkeys in id order with one strongly consistent Query
// (following pages, should there ever be more than 1 MB).
func (s *Store) ListPasskeys(ctx context.Context, userID string) ([]*record.Passkey, error) {
	if !validID(userID) {
		return nil, nil
	}
	var out []*record.Passkey
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		ConsistentRead:         aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: userPK(userID)},
			":sk": &types.AttributeValueMemberS{Value: passkeySKPrefix},
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			var it passkeyItem
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return nil, fmt.Errorf("decode passkey item: %w", err)
			}
			out = append(out, &record.Passkey{
				ID: strings.TrimPrefix(it.SK, passkeySKPrefix), UserID: it.UserID, Name: it.Name,
				CreatedAt: it.CreatedAt, LastUsedAt: it.LastUsedAt, SignCount: it.SignCount, Credential: it.Credential,
				Pending: it.Pending,
			})
		}
	}
	return out, nil
}

// RenamePasskey sets a passkey's name (one conditional UpdateItem); record.ErrNotFound when
// the user has no such record.
func (s *Store) RenamePasskey(ctx context.Context, userID, id, name string) error {
	if !validPasskeyKey(userID, id) {
		return record.ErrNotFound
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key(userPK(userID), passkeySKPrefix+id),
		UpdateExpression:         aws.String("SET #name = :name"),
		ConditionExpression:      aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":name": &types.AttributeValueMemberS{Value: name},
		},
	})
	if isConditionFailed(err) {
		return record.ErrNotFound
	}
	return err
}

// ActivatePasskey clears a pending passkey's pending flag (one conditional UpdateItem);
// record.ErrNotFound when the user has no such pending passkey.
func (s *Store) ActivatePasskey(ctx context.Context, userID, id string) error {
	if !validPasskeyKey(userID, id) {
		return record.ErrNotFound
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(userPK(userID), passkeySKPrefix+id),
		UpdateExpression:          aws.String("REMOVE pending"),
		ConditionExpression:       aws.String("pending = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if isConditionFailed(err) {
		return record.ErrNotFound
	}
	return err
}

// DeletePasskey removes a passkey (one conditional DeleteItem); record.ErrNotFound when the
// user has no such record.
func (s *Store) DeletePasskey(ctx context.Context, userID, id string) error {
	if !validPasskeyKey(userID, id) {
		return record.ErrNotFound
	}
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(userPK(userID), passkeySKPrefix+id),
		ConditionExpression: aws.String("attribute_exists(pk)"),
	})
	if isConditionFailed(err) {
		return record.ErrNotFound
	}
	return err
}

// UsePasskey records a sign-in with one UpdateItem conditioned on the counter read before
// verification: of two sign-ins racing on the same reading, one records; the other, like a
// sign-in with a passkey removed meanwhile, gets record.ErrNotFound.
func (s *Store) UsePasskey(ctx context.Context, userID, id string, prevCount, newCount uint32, credential []byte, at time.Time) error {
	if !validPasskeyKey(userID, id) {
		return record.ErrNotFound
	}
	if len(credential) == 0 {
		return errors.New("a passkey use needs its credential")
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(userPK(userID), passkeySKPrefix+id),
		UpdateExpression:    aws.String("SET sign_count = :new, credential = :cred, last_used_at = :at"),
		ConditionExpression: aws.String("attribute_exists(pk) AND sign_count = :prev"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":new":  &types.AttributeValueMemberN{Value: strconv.FormatUint(uint64(newCount), 10)},
			":prev": &types.AttributeValueMemberN{Value: strconv.FormatUint(uint64(prevCount), 10)},
			":cred": &types.AttributeValueMemberB{Value: credential},
			":at":   &types.AttributeValueMemberS{Value: formatTime(at)},
		},
	})
	if isConditionFailed(err) {
		return record.ErrNotFound
	}
	return err
}

const ceremonyPrefix = "PKCEREMONY#"

type ceremonyItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	Kind      string    `dynamodbav:"kind"`
	UserID    string    `dynamodbav:"user_id,omitempty"`
	ExpiresAt time.Time `dynamodbav:"expires_at"`
	Session   []byte    `dynamodbav:"session"`
	TTL       int64     `dynamodbav:"ttl"`
}

// PutCeremony stores a begun ceremony under the hash of its id (create-only PutItem).
func (s *Store) PutCeremony(ctx context.Context, hash string, c *record.Ceremony) error {
	if !validID(hash) || c.ExpiresAt.IsZero() {
		return errors.New("invalid ceremony hash or expiry")
	}
	return s.putNew(ctx, ceremonyItem{
		PK: ceremonyPrefix + hash, SK: "PKCEREMONY", Kind: c.Kind, UserID: c.UserID,
		ExpiresAt: c.ExpiresAt.UTC(), Session: c.Session, TTL: ttlSeconds(c.ExpiresAt),
	})
}

// TakeCeremony deletes a ceremony and returns it (one conditional DeleteItem, ALL_OLD);
// (nil, nil) when there is none (never stored, already taken). An expired one is returned:
// the caller compares ExpiresAt with its clock.
func (s *Store) TakeCeremony(ctx context.Context, hash string) (*record.Ceremony, error) {
	if !validID(hash) {
		return nil, nil
	}
	out, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(ceremonyPrefix+hash, "PKCEREMONY"),
		ConditionExpression: aws.String("attribute_exists(pk)"),
		ReturnValues:        types.ReturnValueAllOld,
	})
	if isConditionFailed(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var it ceremonyItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return nil, fmt.Errorf("decode ceremony item: %w", err)
	}
	return &record.Ceremony{Kind: it.Kind, UserID: it.UserID, ExpiresAt: it.ExpiresAt, Session: it.Session}, nil
}
