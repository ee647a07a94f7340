package dynamo

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/payment"
)

var _ export.Store = (*Store)(nil)

// DefaultExportPageSize is how many payment keys one GSI3 Query of EachPayment asks for when
// the query does not say: keys only, so a page is small (about 150 bytes a key).
const DefaultExportPageSize = 1000

// batchGetMax is BatchGetItem's limit of keys per call.
const batchGetMax = 100

// EachPayment streams a workspace's payments in one environment created in [q.From, q.To)
// through GSI3 (INTENTS#<ws>#<env> / created_at): one Query of the index's keys per page
// (q.PageSize keys), then the payments by key, BatchGetItem 100 keys a call, each chunk
// handed to fn in index order before the next is read. It holds one page of keys and 100
// payments at most. Requests: ceil(n / page size) Queries (one more when the last page is
// exactly full) and ceil(n / 100) BatchGetItems for n payments, less when fn stops early.
func (s *Store) EachPayment(ctx context.Context, q export.Query, fn func(*payment.Payment) error) error {
	if !validID(q.WorkspaceID) {
		return nil
	}
	size := q.PageSize
	if size <= 0 {
		size = DefaultExportPageSize
	}
	vals := map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: intentsPK(q.WorkspaceID, q.Environment)}}
	cond := "gsi3pk = :pk"
	// The sort key is created_at in timeLayout (fixed width): [From, To) is BETWEEN From
	// and To less a nanosecond, the layout's resolution.
	switch {
	case !q.From.IsZero() && !q.To.IsZero():
		cond += " AND created_at BETWEEN :from AND :to"
	case !q.From.IsZero():
		cond += " AND created_at >= :from"
	case !q.To.IsZero():
		cond += " AND created_at <= :to"
	}
	if !q.From.IsZero() {
		vals[":from"] = &types.AttributeValueMemberS{Value: formatTime(q.From)}
	}
	if !q.To.IsZero() {
		if !q.To.After(q.From) && !q.From.IsZero() {
			return nil
		}
		vals[":to"] = &types.AttributeValueMemberS{Value: formatTime(q.To.Add(-time.Nanosecond))}
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.Table),
		IndexName:                 aws.String(GSI3),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeValues: vals,
		ProjectionExpression:      aws.String("pk"),
		ScanIndexForward:          aws.Bool(!q.NewestFirst),
		Limit:                     aws.Int32(int32(size)),
	}
	for {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return err
		}
		ids := make([]string, 0, len(res.Items))
		for _, item := range res.Items {
			if pk, _ := item["pk"].(*types.AttributeValueMemberS); pk != nil && strings.HasPrefix(pk.Value, "PAY#") {
				ids = append(ids, pk.Value)
			}
		}
		for start := 0; start < len(ids); start += batchGetMax {
			chunk := ids[start:min(start+batchGetMax, len(ids))]
			if err := s.eachByKey(ctx, chunk, fn); err != nil {
				if err == export.ErrStop {
					return nil
				}
				return err
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// eachByKey reads the payments of pks (at most 100) with one BatchGetItem (and its bounded
// retries of unprocessed keys) and calls fn with each in pks' order; a payment gone or past
// its ttl is skipped.
func (s *Store) eachByKey(ctx context.Context, pks []string, fn func(*payment.Payment) error) error {
	keys := make([]map[string]types.AttributeValue, len(pks))
	for i, pk := range pks {
		keys[i] = key(pk, "PAY")
	}
	items, err := s.batchGet(ctx, keys, "")
	if err != nil {
		return err
	}
	byPK := make(map[string]map[string]types.AttributeValue, len(items))
	now := time.Now()
	for _, item := range items {
		if pk, _ := item["pk"].(*types.AttributeValueMemberS); pk != nil && retained(item, now) {
			byPK[pk.Value] = item
		}
	}
	for _, pk := range pks {
		item, ok := byPK[pk]
		if !ok {
			continue
		}
		p, err := decodePayment(item)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}
