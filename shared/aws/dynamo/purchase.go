package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// PurchaseAnswers reads what a payment link's payer chose (checkout.PurchaseReader): the
// answers kept in the intent's snapshot (one strongly consistent GetItem of that attribute)
// and, only when they answer custom fields, the link's fields as it is now, for their labels
// (one GetItem of the body). Nothing for a payment that is not a linked one or has no
// snapshot (yet).
func (s *Store) PurchaseAnswers(ctx context.Context, p *payment.Payment) (json.RawMessage, []document.CustomField, error) {
	if !p.Linked() || p.SnapshotKey == "" {
		return nil, nil, nil
	}
	raw, err := s.getString(ctx, key(paymentPK(p.InvoiceID), p.SnapshotKey), "snapshot")
	if err != nil || raw == "" {
		return nil, nil, err
	}
	var snap intent.Snapshot
	if err := json.Unmarshal([]byte(raw), &snap); err != nil {
		return nil, nil, fmt.Errorf("intent %s: snapshot %s: %w", p.InvoiceID, p.SnapshotKey, err)
	}
	var answered struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if len(snap.Answers) == 0 || json.Unmarshal(snap.Answers, &answered) != nil || len(answered.Fields) == 0 {
		return snap.Answers, nil, nil
	}
	body, err := s.getString(ctx, linkedDocKey(p), "body")
	if err != nil || body == "" {
		return snap.Answers, nil, err
	}
	b, err := document.DecodeStored(json.RawMessage(body))
	if err != nil {
		return nil, nil, fmt.Errorf("document %s: stored body: %w", p.Source.DocumentID, err)
	}
	return snap.Answers, b.Fields, nil
}

// getString reads one string attribute of an item (strongly consistent); "" when the item or
// the attribute is absent.
func (s *Store) getString(ctx context.Context, k map[string]types.AttributeValue, attr string) (string, error) {
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.Table), Key: k, ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#a"), ExpressionAttributeNames: map[string]string{"#a": attr},
	})
	if err != nil {
		return "", err
	}
	v, _ := out.Item[attr].(*types.AttributeValueMemberS)
	if v == nil {
		return "", nil
	}
	return v.Value, nil
}
