package dynamo

// The dashboard's one-use form tokens (shared/edge/dashboard/once.go):
//
//	form claim  FORM#<64 hex: an HMAC of the form's nonce keyed by the session token> / FORM
//	            state ("claimed", "done"), location, sealed (B, a secret to show once), ttl
//
// A create costs one conditional PutItem (the claim) and one UpdateItem (its outcome); a
// secret's landing page one conditional UpdateItem that removes it (and a GetItem when it is
// gone). A repeat costs a refused PutItem and a GetItem. Expired claims are absent.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/edge/dashboard"
)

var _ dashboard.FormClaims = (*Store)(nil)

func formKey(id string) map[string]types.AttributeValue { return key("FORM#"+id, "FORM") }

func validFormID(id string) bool {
	if len(id) != 64 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ClaimForm writes the claim unless a live one exists (one conditional PutItem; on a refusal
// one strongly consistent GetItem reads the claim that won).
func (s *Store) ClaimForm(ctx context.Context, id string, now, expires time.Time) (bool, *dashboard.FormClaim, error) {
	if !validFormID(id) {
		return false, nil, fmt.Errorf("invalid form claim id")
	}
	for range 2 {
		item := formKey(id)
		item["state"] = &types.AttributeValueMemberS{Value: "claimed"}
		item["ttl"] = epochSeconds(expires)
		_, err := s.DB.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                           aws.String(s.Table),
			Item:                                item,
			ConditionExpression:                 aws.String("attribute_not_exists(pk) OR #ttl <= :now"),
			ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":now": epochSeconds(now)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err == nil {
			return true, nil, nil
		}
		if !isConditionFailed(err) {
			return false, nil, err
		}
		old := oldItem(err)
		if old == nil {
			if old, err = s.get(ctx, "FORM#"+id, "FORM"); err != nil {
				return false, nil, err
			}
		}
		if c := liveClaim(old, now); c != nil {
			return false, c, nil
		}
		// Released or expired between the write and the read: claim it again.
	}
	return false, &dashboard.FormClaim{}, nil
}

// liveClaim decodes a claim item (nil: absent or expired).
func liveClaim(item map[string]types.AttributeValue, now time.Time) *dashboard.FormClaim {
	if item == nil {
		return nil
	}
	if n, ok := item["ttl"].(*types.AttributeValueMemberN); ok {
		if exp, err := strconv.ParseInt(n.Value, 10, 64); err != nil || exp <= now.Unix() {
			return nil
		}
	}
	c := &dashboard.FormClaim{}
	if v, ok := item["state"].(*types.AttributeValueMemberS); ok {
		c.Done = v.Value == "done"
	}
	if v, ok := item["location"].(*types.AttributeValueMemberS); ok {
		c.Location = v.Value
	}
	return c
}

// FinishForm records the claim's outcome (one UpdateItem of the claim, which must exist).
func (s *Store) FinishForm(ctx context.Context, id, location string, sealed []byte) error {
	if !validFormID(id) {
		return fmt.Errorf("invalid form claim id")
	}
	set := "SET #state = :done, #loc = :loc"
	values := map[string]types.AttributeValue{
		":done": &types.AttributeValueMemberS{Value: "done"},
		":loc":  &types.AttributeValueMemberS{Value: location},
	}
	if sealed != nil {
		set += ", sealed = :sealed"
		values[":sealed"] = &types.AttributeValueMemberB{Value: sealed}
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       formKey(id),
		UpdateExpression:          aws.String(set),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  map[string]string{"#state": "state", "#loc": "location"},
		ExpressionAttributeValues: values,
	})
	return err
}

// ReleaseForm deletes the claim.
func (s *Store) ReleaseForm(ctx context.Context, id string) error {
	if !validFormID(id) {
		return fmt.Errorf("invalid form claim id")
	}
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Table), Key: formKey(id)})
	return err
}

// TakeFormSecret removes the sealed secret of a live claim and returns it (one conditional
// UpdateItem: of two concurrent takes, one gets it); when there is none, one GetItem reads
// the claim.
func (s *Store) TakeFormSecret(ctx context.Context, id string, now time.Time) ([]byte, *dashboard.FormClaim, error) {
	if !validFormID(id) {
		return nil, nil, nil
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       formKey(id),
		UpdateExpression:          aws.String("REMOVE sealed"),
		ConditionExpression:       aws.String("attribute_exists(sealed) AND #ttl > :now"),
		ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": epochSeconds(now)},
		ReturnValues:              types.ReturnValueAllOld,
	})
	if err == nil {
		b, ok := out.Attributes["sealed"].(*types.AttributeValueMemberB)
		if !ok {
			return nil, nil, fmt.Errorf("form claim: no sealed secret in the update's answer")
		}
		return b.Value, liveClaim(out.Attributes, now), nil
	}
	if !isConditionFailed(err) {
		return nil, nil, err
	}
	item, err := s.get(ctx, "FORM#"+id, "FORM")
	if err != nil {
		return nil, nil, err
	}
	return nil, liveClaim(item, now), nil
}
