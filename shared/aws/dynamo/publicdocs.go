package dynamo

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
)

// An invoice or payment link is found by its public token through GSI3: its item carries
// gsi3pk PUBDOC#<SHA-256 of the token>, written once at create (the token never changes), so
// the index holds only a hash of the token and no later write of the document touches it.
const publicDocPrefix = "PUBDOC#"

func publicDocPK(token string) string {
	sum := sha256.Sum256([]byte(token))
	return publicDocPrefix + hex.EncodeToString(sum[:])
}

// PublicDocument reads the document a public token names and its workspace's name: one GSI3
// Query (keys only) and one strongly consistent BatchGetItem of the document and the
// workspace. The stored token is compared in constant time; nil when nothing matches.
func (s *Store) PublicDocument(ctx context.Context, token string) (*document.Record, *auth.Workspace, error) {
	out, err := s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI3),
		KeyConditionExpression: aws.String("gsi3pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: publicDocPK(token)},
		},
		Limit: aws.Int32(2),
	})
	if err != nil || len(out.Items) != 1 {
		return nil, nil, err // none, or (a SHA-256 collision) two: nothing is shown
	}
	pk, _ := out.Items[0]["pk"].(*types.AttributeValueMemberS)
	sk, _ := out.Items[0]["sk"].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return nil, nil, nil
	}
	// DOC#<ws>#<env>#<kind>: the workspace's item is read in the same request.
	parts := strings.SplitN(pk.Value, "#", 4)
	if len(parts) != 4 || parts[0] != "DOC" {
		return nil, nil, nil
	}
	items, err := s.batchGet(ctx, []map[string]types.AttributeValue{key(pk.Value, sk.Value), key("WS#"+parts[1], "WS")}, "")
	if err != nil {
		return nil, nil, err
	}
	var rec *document.Record
	var ws workspaceItem
	for _, item := range items {
		if v, _ := item["sk"].(*types.AttributeValueMemberS); v != nil && v.Value == "WS" {
			if err := attributevalue.UnmarshalMap(item, &ws); err != nil {
				return nil, nil, err
			}
		} else if rec, err = decodeDocument(item); err != nil {
			return nil, nil, err
		}
	}
	if rec == nil || subtle.ConstantTimeCompare([]byte(rec.PublicToken), []byte(token)) != 1 {
		return nil, nil, nil
	}
	return rec, &ws.Workspace, nil
}

// ReserveInvoiceIntent makes id the invoice's live intent until expires, with one conditional
// UpdateItem: the invoice must still be at the version read (doc.Version: every status change
// is a new version, so it is still issued, and still priced as read) and name no live intent,
// or name replace — the one the caller read and found ended other than COMPLETED
// (intent.Linker decides; time plays no part here, so a COMPLETED live intent is never
// replaced however old its reservation). The request names pk, sk, version and live_intent
// only — never status — so the functions that reserve (template.yaml) are granted no
// UpdateItem that could name status. intent.ErrLiveIntentTaken when another request got
// there first or the invoice changed (the Linker reads it again).
func (s *Store) ReserveInvoiceIntent(ctx context.Context, doc *document.Record, id string, expires time.Time, replace string) error {
	cond := "#version = :v AND attribute_not_exists(live_intent)"
	vals := map[string]types.AttributeValue{
		":live": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"i": &types.AttributeValueMemberS{Value: id},
			"e": &types.AttributeValueMemberS{Value: formatTime(expires)},
		}},
		":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(doc.Version, 10)},
	}
	if replace != "" {
		cond = "#version = :v AND live_intent.i = :replace"
		vals[":replace"] = &types.AttributeValueMemberS{Value: replace}
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(docPK(doc.WorkspaceID, doc.Environment, doc.Kind), doc.ID),
		UpdateExpression:          aws.String("SET live_intent = :live"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#version": "version"},
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return intent.ErrLiveIntentTaken
	}
	return err
}
