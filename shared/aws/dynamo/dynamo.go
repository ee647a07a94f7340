// Package dynamo is the DynamoDB implementation of the service's stores, on one table.
//
// Item layout (pk / sk; gsi1pk / gsi1sk and gsi2pk / gsi2sk where listed):
//
//	workspace   WS#<workspace_id>     / WS
//	API key     APIKEY#<sha256 hex>   / APIKEY    gsi1: WS#<workspace_id> / APIKEY#<created_at>#<key_id>
//	payment     PAY#<invoice_id>      / PAY
//	                                              gsi2 (sparse, keys only, with a webhook_url):
//	                                              EXPIRY#<shard> / <expires_at> while PENDING, then
//	                                              OUTBOX#<shard> / <next attempt due>#<event id> until
//	                                              the event is delivered or failed
//	                                              gsi3 (every payment; payments are the payment
//	                                              intents): INTENTS#<ws>#<env> / created_at
//	snapshot    PAY#<invoice_id>      / SNAP#<snap: 16 hex of its SHA-256>   a linked intent's document as priced
//	user        USER#<user_id>        / USER
//	user email  EMAIL#<case-folded email> / EMAIL      user_id (makes emails unique; useremails.go)
//	membership  USER#<user_id>        / MEMBER#<workspace_id>   gsi1: WS#<workspace_id> / MEMBER#<user_id>
//	session     SESSION#<sha256 hex>  / SESSION                 ttl
//	session listing USER#<user_id>    / SESSION#<sha256 hex>    ttl (accounts.go)
//	pending sign-up SIGNUP#<sha256 hex> / SIGNUP  ttl (24 h); pending reset RESET#<sha256 hex> / RESET  ttl (30 min)
//	sign-in counter SIGNIN#acct#<sha256 hex of the email> or SIGNIN#ip#<address> / SIGNIN   version, ttl
//	document    DOC#<ws>#<env>#<kind> / <id, uuid v7>           gsi1 (invoices with a customer): CUSTINV#<ws>#<env>#<customer_id> / <id>
//	create key  IDEM#<ws>#<env>#<kind>#<Idempotency-Key> / IDEM  ttl (24 h)
//	history     HIST#<ws>#<env>#<kind>#<id> / <version, 12 digits>   entries older than the document's latest 20
//	edit key    IDEM#<ws>#<env>#<kind>#<id>#<Idempotency-Key> / EDIT  ttl (24 h after the edit)
//	webhook secrets WHSEC#<workspace_id>#<env> / WHSEC   version (optimistic lock); secret text (KMS in production)
//	rate bucket RATE#<workspace_id>#<env or "dashboard"> / RATE  tat (µs), ttl: see package ratelimit
//	activity    WS#<workspace_id>#ACTIVITY / <at>#<16 hex>  ttl: at + 90 days (activity.go)
//	refund      REFUND#<ws>#<env>     / <id, uuid v7>   gsi2 while a ledger step is owed (refunds.go)
//	refund policy WS#<workspace_id>   / REFUNDPOLICY    two_person_minor (refundlist.go)
//	probe       PROBE                 / PROBE     (never written; readiness reads it)
//
// created_at is GSI3's sort key: on every item that has it, it must be a string (it is: every
// created_at is a time in timeLayout); only payments carry gsi3pk, so only they are listed.
//
// Every state change is one single-item conditional write: no transactions (they cost double
// and dynalite lacks them). Items that expire carry "ttl" (epoch seconds) and are treated as
// absent once it passes, because DynamoDB deletes them only eventually and dynalite never.
package dynamo

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/payment"
)

// GSI1 is the name of the table's first global secondary index.
const GSI1 = "gsi1"

// Store reads and writes the service's items in one table.
type Store struct {
	DB    *dynamodb.Client
	Table string
	// GSI2Shards spreads GSI2's pending expiries and events over this many partition key
	// values (DefaultGSI2Shards when 0; may grow, never shrink).
	GSI2Shards int
}

var (
	_ auth.KeyStore    = (*Store)(nil)
	_ auth.KeyUseStore = (*Store)(nil)
	_ credential.Store = (*Store)(nil)
	_ payment.Store    = (*Store)(nil)
)

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: sk},
	}
}

// isConditionFailed reports whether a write lost its condition.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// oldItem returns the item a failed conditional write reported (real DynamoDB does with
// ReturnValuesOnConditionCheckFailure=ALL_OLD; dynalite does not, so callers fall back to a read).
func oldItem(err error) map[string]types.AttributeValue {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && len(ccf.Item) > 0 {
		return ccf.Item
	}
	return nil
}

// get reads one item with a strongly consistent read; nil when absent.
func (s *Store) get(ctx context.Context, pk, sk string) (map[string]types.AttributeValue, error) {
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.Table),
		Key:            key(pk, sk),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// Ping performs one cheap read that proves the table is reachable and readable.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:            aws.String(s.Table),
		Key:                  key("PROBE", "PROBE"),
		ProjectionExpression: aws.String("pk"),
	})
	return err
}

func validID(s string) bool { return s != "" && !strings.Contains(s, "#") }

// timeLayout stores every time as fixed-width UTC text (always nine fraction digits), so that
// string order is time order in sort keys and in condition expressions.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// formatTime renders t in timeLayout.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// marshalItem encodes an item with times in timeLayout (decoding accepts it as RFC 3339).
func marshalItem(v any) (map[string]types.AttributeValue, error) {
	return attributevalue.MarshalMapWithOptions(v, timeAsText)
}

// timeAsText is the encoder option that writes times in timeLayout.
func timeAsText(o *attributevalue.EncoderOptions) {
	o.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
		return &types.AttributeValueMemberS{Value: formatTime(t)}, nil
	}
}

// workspaceItems queries GSI1 for a workspace's items whose sort key starts with prefix
// (operator listings), decoding every page.
func workspaceItems[T any](ctx context.Context, s *Store, workspaceID, prefix string, decode func(map[string]types.AttributeValue) (T, error)) ([]T, error) {
	var out []T
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI1),
		KeyConditionExpression: aws.String("gsi1pk = :pk AND begins_with(gsi1sk, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "WS#" + workspaceID},
			":sk": &types.AttributeValueMemberS{Value: prefix},
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			v, err := decode(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// putNew writes an item only if no item has its key (one conditional PutItem).
func (s *Store) putNew(ctx context.Context, item any) error {
	av, err := marshalItem(item)
	if err != nil {
		return err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.Table),
		Item:                av,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	return err
}

// revoke sets revoked_at on an existing item once (an already revoked item keeps its time);
// ErrNotFound when there is no such item.
func (s *Store) revoke(ctx context.Context, pk, sk string, t time.Time) error {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(pk, sk),
		UpdateExpression:    aws.String("SET revoked_at = if_not_exists(revoked_at, :t)"),
		ConditionExpression: aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberS{Value: formatTime(t)},
		},
	})
	if isConditionFailed(err) {
		return ErrNotFound
	}
	return err
}
