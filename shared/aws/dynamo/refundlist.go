package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/refund"
)

// RefundListQueryBudget bounds the Query calls of one refund list page (each of at most
// refundListRead items, strongly consistent: a refund just created is listed). The filter runs
// in Go after each read, so a filtered page keeps reading, never past this budget; it then
// answers what it found with the cursor of the last item examined.
const RefundListQueryBudget = 3

const refundListRead = 100

// ListRefunds reads a workspace's refunds in env newest first (one partition, REFUND#<ws>#<env>,
// uuid v7 ids in time order) from after cursor, keeping those keep accepts, until limit are
// kept and one more proves a next page, the partition ends, or RefundListQueryBudget Queries
// are spent.
func (s *Store) ListRefunds(ctx context.Context, ws string, env auth.Environment, cursor string, limit int, keep func(*refund.Refund) bool) ([]*refund.Refund, string, error) {
	out := []*refund.Refund{}
	if !validID(ws) {
		return out, "", nil
	}
	pk := refundPK(ws, env)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.Table),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ScanIndexForward:          aws.Bool(false),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(max(limit+1, refundListRead))),
	}
	if cursor != "" {
		in.ExclusiveStartKey = key(pk, cursor)
	}
	for queries := 1; ; queries++ {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", err
		}
		for _, item := range res.Items {
			r, err := decodeRefund(item)
			if err != nil {
				return nil, "", err
			}
			if !keep(r) {
				continue
			}
			if len(out) == limit {
				return out, out[len(out)-1].ID, nil
			}
			out = append(out, r)
		}
		if len(res.LastEvaluatedKey) == 0 {
			return out, "", nil
		}
		if queries == RefundListQueryBudget {
			last, _ := res.LastEvaluatedKey["sk"].(*types.AttributeValueMemberS)
			if last == nil {
				return nil, "", fmt.Errorf("refund query: LastEvaluatedKey without sk")
			}
			return out, last.Value, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

var _ refund.Policies = (*Store)(nil)

// refundPolicySK is the sort key of a workspace's refund policy: WS#<workspace_id> / REFUNDPOLICY,
// beside the workspace item, read with one GetItem on an approval.
const refundPolicySK = "REFUNDPOLICY"

type refundPolicyItem struct {
	PK             string `dynamodbav:"pk"`
	SK             string `dynamodbav:"sk"`
	TwoPersonMinor int64  `dynamodbav:"two_person_minor"`
}

// RefundPolicy reads a workspace's refund policy (the zero Policy when none was set).
func (s *Store) RefundPolicy(ctx context.Context, workspaceID string) (refund.Policy, error) {
	if !validID(workspaceID) {
		return refund.Policy{}, nil
	}
	item, err := s.get(ctx, "WS#"+workspaceID, refundPolicySK)
	if err != nil || item == nil {
		return refund.Policy{}, err
	}
	var it refundPolicyItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return refund.Policy{}, fmt.Errorf("decode refund policy: %w", err)
	}
	return refund.Policy{TwoPersonMinor: money.Paisa(it.TwoPersonMinor)}, nil
}

// PutRefundPolicy writes a workspace's refund policy (one PutItem; the last write wins).
func (s *Store) PutRefundPolicy(ctx context.Context, workspaceID string, p refund.Policy) error {
	if !validID(workspaceID) {
		return fmt.Errorf("workspace %q is not a key", workspaceID)
	}
	av, err := marshalItem(refundPolicyItem{PK: "WS#" + workspaceID, SK: refundPolicySK, TwoPersonMinor: int64(p.TwoPersonMinor)})
	if err != nil {
		return err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av})
	return err
}
