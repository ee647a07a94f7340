package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/refund"
)

// The payer's refund requests (decision 108): the payment item PAY#<invoice_id> / PAY gains
// refund_payer, the id of its latest payer request, written only here.

var _ refund.PayerStore = (*Store)(nil)

const attrPayer = "refund_payer"

// MarkPayerRequest names id as the payment's latest payer request (refund.PayerStore): one
// UpdateItem conditional on the one named being prev (absent when prev is ""); false when it
// is not.
func (s *Store) MarkPayerRequest(ctx context.Context, paymentID, prev, id string) (bool, error) {
	if !validID(paymentID) || !validID(id) {
		return false, nil
	}
	cond := "attribute_exists(pk) AND attribute_not_exists(" + attrPayer + ")"
	vals := map[string]types.AttributeValue{":id": &types.AttributeValueMemberS{Value: id}}
	if prev != "" {
		cond = "attribute_exists(pk) AND " + attrPayer + " = :prev"
		vals[":prev"] = &types.AttributeValueMemberS{Value: prev}
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(paymentPK(paymentID), "PAY"),
		UpdateExpression:          aws.String("SET " + attrPayer + " = :id"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}
