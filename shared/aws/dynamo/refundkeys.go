package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/refund"
)

// A refund create's Idempotency-Key: REFUNDKEY#<ws>#<env>#<key> / KEY names the refund id it
// made (a uuid v7, so the workspace's refund list stays in time order). It is kept for the
// life of the workspace's refunds, like a payment's key, and is written only once the create
// has passed every check that needs no write (a refused create leaves no key behind).

var _ refund.Keys = (*Store)(nil)

type refundKeyItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	RefundID  string    `dynamodbav:"refund_id"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func refundKeyPK(ws string, env auth.Environment, key string) string {
	return "REFUNDKEY#" + ws + "#" + string(env) + "#" + key
}

// RefundKey reads the refund id key names (one consistent GetItem; "" when unused).
func (s *Store) RefundKey(ctx context.Context, ws string, env auth.Environment, key string) (string, error) {
	if !validID(ws) || !validID(key) {
		return "", fmt.Errorf("refund key %q of workspace %q is not a key", key, ws)
	}
	item, err := s.get(ctx, refundKeyPK(ws, env, key), "KEY")
	if err != nil || item == nil {
		return "", err
	}
	return decodeRefundKey(item)
}

// PutRefundKey records id under key (one conditional PutItem); when a racing create recorded
// the key first it answers that create's id (from the failed write's old item, or one more
// GetItem where the database does not return it).
func (s *Store) PutRefundKey(ctx context.Context, ws string, env auth.Environment, key, id string) (string, error) {
	if !validID(ws) || !validID(key) || !validID(id) {
		return "", fmt.Errorf("refund key %q of workspace %q is not a key", key, ws)
	}
	pk := refundKeyPK(ws, env, key)
	err := s.putNew(ctx, refundKeyItem{PK: pk, SK: "KEY", RefundID: id, CreatedAt: time.Now().UTC()})
	if err == nil || !isConditionFailed(err) {
		return id, err
	}
	item := oldItem(err)
	if item == nil {
		if item, err = s.get(ctx, pk, "KEY"); err != nil {
			return "", err
		}
	}
	if item == nil {
		return "", fmt.Errorf("refund key %s vanished after a conditional failure", key)
	}
	return decodeRefundKey(item)
}

func decodeRefundKey(item map[string]types.AttributeValue) (string, error) {
	var it refundKeyItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return "", fmt.Errorf("decode refund key: %w", err)
	}
	return it.RefundID, nil
}
