package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/ratelimit"
)

var _ ratelimit.Store = (*Store)(nil)

// The rate-limit bucket item: RATE#<key> / RATE with tat (the theoretical arrival time, epoch
// microseconds) and ttl (epoch seconds). Each lease is one conditional UpdateItem of it; it is
// never read.
func bucketKey(name string) map[string]types.AttributeValue { return key("RATE#"+name, "RATE") }

func micros(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMicro(), 10)}
}

func epochSeconds(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.Unix(), 10)}
}

// AdvanceBucket moves a busy bucket's TAT forward by cost (one conditional UpdateItem whose
// condition is now <= tat <= maxTAT) and returns the new TAT.
func (s *Store) AdvanceBucket(ctx context.Context, key string, now, maxTAT time.Time, cost time.Duration, expires time.Time) (time.Time, bool, error) {
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      bucketKey(key),
		UpdateExpression:         aws.String("SET tat = tat + :cost, #ttl = :ttl"),
		ConditionExpression:      aws.String("tat BETWEEN :now AND :max"),
		ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":cost": &types.AttributeValueMemberN{Value: strconv.FormatInt(cost.Microseconds(), 10)},
			":ttl":  epochSeconds(expires),
			":now":  micros(now),
			":max":  micros(maxTAT),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if isConditionFailed(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	n, ok := out.Attributes["tat"].(*types.AttributeValueMemberN)
	if !ok {
		return time.Time{}, false, fmt.Errorf("rate bucket %s: no tat in the update's answer", key)
	}
	us, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("rate bucket %s: tat %q: %w", key, n.Value, err)
	}
	return time.UnixMicro(us).UTC(), true, nil
}

// RestartBucket sets an idle bucket's TAT to now+cost: one conditional UpdateItem that succeeds
// when the item is absent, expired (ttl past: treated as absent) or its TAT is before now.
func (s *Store) RestartBucket(ctx context.Context, key string, now time.Time, cost time.Duration, expires time.Time) (bool, error) {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      bucketKey(key),
		UpdateExpression:         aws.String("SET tat = :tat, #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(tat) OR tat < :now OR #ttl < :nowSeconds"),
		ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":tat":        micros(now.Add(cost)),
			":ttl":        epochSeconds(expires),
			":now":        micros(now),
			":nowSeconds": epochSeconds(now),
		},
	})
	if isConditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

var _ ratelimit.WindowStore = (*Store)(nil)

// CountInWindow adds one to a quota's counter item, LIMIT#<key> / LIMIT with n (the count) and
// ttl (epoch seconds): one conditional UpdateItem whose condition is that n is below limit (an
// absent item counts 0; the key names its window, so an item is never reset, only forgotten).
// A refusal is the failed condition; nothing is read.
func (s *Store) CountInWindow(ctx context.Context, key string, limit int, expires time.Time) (bool, error) {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      quotaKey(key),
		UpdateExpression:         aws.String("ADD n :one SET #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(n) OR n < :limit"),
		ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":   &types.AttributeValueMemberN{Value: "1"},
			":limit": &types.AttributeValueMemberN{Value: strconv.Itoa(limit)},
			":ttl":   epochSeconds(expires),
		},
	})
	if isConditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// QuotaPrefix starts the partition key of every quota counter item (IAM's LeadingKeys).
const QuotaPrefix = "LIMIT#"

func quotaKey(name string) map[string]types.AttributeValue { return key(QuotaPrefix+name, "LIMIT") }
