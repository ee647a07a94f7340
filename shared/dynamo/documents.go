package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
)

// Documents:
//
//	document     DOC#<ws>#<env>#<kind> / <id (uuid v7)>     gsi1 (linked invoices): CUSTINV#<ws>#<env>#<customer_id> / <id>
//	create key   IDEM#<ws>#<env>#<kind>#<Idempotency-Key> / IDEM   (ttl: 24 h)
//
// A partition per workspace, environment and kind, sorted by time-ordered id, gives newest-first
// pages with one Query and never a Scan.

var _ document.Store = (*Store)(nil)

// IdempotencyRetention is how long a create Idempotency-Key is remembered.
const IdempotencyRetention = 24 * time.Hour

type documentItem struct {
	PK          string                  `dynamodbav:"pk"`
	SK          string                  `dynamodbav:"sk"`
	GSI1PK      string                  `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK      string                  `dynamodbav:"gsi1sk,omitempty"`
	ID          string                  `dynamodbav:"id"`
	WorkspaceID string                  `dynamodbav:"workspace_id"`
	Environment string                  `dynamodbav:"environment"`
	Kind        string                  `dynamodbav:"kind"`
	Reference   string                  `dynamodbav:"reference"`
	Status      string                  `dynamodbav:"status"`
	Version     int64                   `dynamodbav:"version"`
	Body        string                  `dynamodbav:"body"`
	AmountMinor *int64                  `dynamodbav:"amount_minor,omitempty"`
	PaidMinor   int64                   `dynamodbav:"paid_minor"`
	CustomerID  *string                 `dynamodbav:"customer_id,omitempty"`
	PublicToken string                  `dynamodbav:"public_token,omitempty"`
	CreatedAt   time.Time               `dynamodbav:"created_at"`
	UpdatedAt   time.Time               `dynamodbav:"updated_at"`
	History     []document.HistoryEntry `dynamodbav:"history"`
	Payments    []document.PaymentRef   `dynamodbav:"payments"`
	Search      string                  `dynamodbav:"search"`
	EditKeys    map[string]string       `dynamodbav:"edit_keys"`
}

func docPK(ws string, env auth.Environment, kind document.Kind) string {
	return "DOC#" + ws + "#" + string(env) + "#" + string(kind)
}

func custInvPK(ws string, env auth.Environment, customerID string) string {
	return "CUSTINV#" + ws + "#" + string(env) + "#" + customerID
}

func toDocumentItem(r *document.Record) documentItem {
	it := documentItem{
		PK: docPK(r.WorkspaceID, r.Environment, r.Kind), SK: r.ID,
		ID: r.ID, WorkspaceID: r.WorkspaceID, Environment: string(r.Environment), Kind: string(r.Kind),
		Reference: r.Reference, Status: r.Status, Version: r.Version, Body: string(r.Body),
		AmountMinor: r.AmountMinor, PaidMinor: r.PaidMinor, CustomerID: r.CustomerID, PublicToken: r.PublicToken,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, History: r.History, Payments: r.Payments,
		Search: r.SearchText, EditKeys: r.EditKeys,
	}
	if it.History == nil {
		it.History = []document.HistoryEntry{}
	}
	if it.Payments == nil {
		it.Payments = []document.PaymentRef{}
	}
	if it.EditKeys == nil {
		it.EditKeys = map[string]string{}
	}
	if r.Kind == document.Invoices && r.CustomerID != nil {
		it.GSI1PK, it.GSI1SK = custInvPK(r.WorkspaceID, r.Environment, *r.CustomerID), r.ID
	}
	return it
}

func (it *documentItem) record() *document.Record {
	return &document.Record{
		ID: it.ID, WorkspaceID: it.WorkspaceID, Environment: auth.Environment(it.Environment), Kind: document.Kind(it.Kind),
		Reference: it.Reference, Status: it.Status, Version: it.Version, Body: json.RawMessage(it.Body),
		AmountMinor: it.AmountMinor, PaidMinor: it.PaidMinor, CustomerID: it.CustomerID, PublicToken: it.PublicToken,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, History: it.History, Payments: it.Payments,
		SearchText: it.Search, EditKeys: it.EditKeys,
	}
}

func decodeDocument(item map[string]types.AttributeValue) (*document.Record, error) {
	var it documentItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode document item: %w", err)
	}
	if it.History == nil {
		it.History = []document.HistoryEntry{}
	}
	if it.Payments == nil {
		it.Payments = []document.PaymentRef{}
	}
	return it.record(), nil
}

type idemItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	RequestHash string    `dynamodbav:"request_hash"`
	Record      string    `dynamodbav:"record"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	TTL         int64     `dynamodbav:"ttl"`
}

// CreateDocument records the Idempotency-Key with the complete record (one conditional
// PutItem), then writes the document (one conditional PutItem). The record is fully decided
// before either write, so a retry — or a request racing the first — writes the very same
// document from the key's record: no in-flight state, no lost create after a crash between
// the two writes, and never two documents for one key. Expired keys count as absent.
func (s *Store) CreateDocument(ctx context.Context, key, hash string, rec *document.Record) (*document.Record, bool, error) {
	now := rec.CreatedAt
	recJSON, err := json.Marshal(storedRecord(rec))
	if err != nil {
		return nil, false, err
	}
	idemPK := "IDEM#" + rec.WorkspaceID + "#" + string(rec.Environment) + "#" + string(rec.Kind) + "#" + key
	av, err := marshalItem(idemItem{PK: idemPK, SK: "IDEM", RequestHash: hash, Record: string(recJSON),
		CreatedAt: now, TTL: now.Add(IdempotencyRetention).Unix()})
	if err != nil {
		return nil, false, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(s.Table),
		Item:                                av,
		ConditionExpression:                 aws.String("attribute_not_exists(pk) OR #ttl < :now"),
		ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Unix(), 10)}},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	replay := false
	if err != nil {
		if !isConditionFailed(err) {
			return nil, false, err
		}
		item := oldItem(err)
		if item == nil {
			if item, err = s.get(ctx, idemPK, "IDEM"); err != nil {
				return nil, false, err
			}
		}
		if item == nil {
			return nil, false, fmt.Errorf("idempotency record %s vanished after a conditional failure", key)
		}
		var it idemItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, false, err
		}
		if it.RequestHash != hash {
			return nil, false, document.ErrIdempotencyReuse
		}
		var stored document.Record
		if err := json.Unmarshal([]byte(it.Record), &stored); err != nil {
			return nil, false, err
		}
		var sr storedRec
		_ = json.Unmarshal([]byte(it.Record), &sr)
		stored.SearchText = sr.Search
		rec, replay = &stored, true
	}
	doc, err := marshalItem(toDocumentItem(rec))
	if err != nil {
		return nil, false, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.Table),
		Item:                doc,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if err != nil && !isConditionFailed(err) {
		return nil, false, err
	}
	return rec, replay, nil
}

// storedRec is a record with the fields the JSON form hides (kept in the idempotency item).
type storedRec struct {
	*document.Record
	Search string `json:"search"`
}

func storedRecord(r *document.Record) storedRec { return storedRec{Record: r, Search: r.SearchText} }

// GetDocument reads one document with a strongly consistent GetItem.
func (s *Store) GetDocument(ctx context.Context, ws string, env auth.Environment, kind document.Kind, id string) (*document.Record, error) {
	item, err := s.get(ctx, docPK(ws, env, kind), id)
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, document.ErrNotFound
	}
	return decodeDocument(item)
}

// UpdateDocument writes the next version (an edit or a lifecycle transition) with one
// conditional UpdateItem: the stored version must still be prev and, for an edit, its
// Idempotency-Key must not have been applied. History grows by the new version's entry.
func (s *Store) UpdateDocument(ctx context.Context, next *document.Record, prev int64, editKey, editValue string) error {
	it := toDocumentItem(next)
	last := next.History[len(next.History)-1]
	vals, err := attributevalue.MarshalMapWithOptions(map[string]any{
		":prev": prev, ":version": it.Version, ":reference": it.Reference, ":status": it.Status,
		":body": it.Body, ":updated": formatTime(it.UpdatedAt), ":search": it.Search,
		":history": []any{map[string]any{"version": last.Version, "status": last.Status,
			"occurred_at": formatTime(last.OccurredAt), "action": last.Action}},
	})
	if err != nil {
		return err
	}
	names := map[string]string{"#status": "status", "#version": "version", "#reference": "reference", "#body": "body",
		"#updated": "updated_at", "#search": "search", "#history": "history"}
	set := "SET #version = :version, #reference = :reference, #status = :status, #body = :body, #updated = :updated, " +
		"#search = :search, #history = list_append(#history, :history)"
	cond := "attribute_exists(pk) AND #version = :prev"
	if editKey != "" {
		names["#ek"] = editKey
		vals[":edit"] = &types.AttributeValueMemberS{Value: editValue}
		set += ", edit_keys.#ek = :edit"
		cond += " AND attribute_not_exists(edit_keys.#ek)"
	}
	remove := []string{}
	if it.AmountMinor != nil {
		set += ", #amount = :amount"
		names["#amount"] = "amount_minor"
		vals[":amount"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(*it.AmountMinor, 10)}
	} else {
		remove = append(remove, "amount_minor")
	}
	if it.CustomerID != nil {
		set += ", #customer = :customer"
		names["#customer"] = "customer_id"
		vals[":customer"] = &types.AttributeValueMemberS{Value: *it.CustomerID}
	} else {
		remove = append(remove, "customer_id")
	}
	if it.GSI1PK != "" {
		set += ", gsi1pk = :g1pk, gsi1sk = :g1sk"
		vals[":g1pk"] = &types.AttributeValueMemberS{Value: it.GSI1PK}
		vals[":g1sk"] = &types.AttributeValueMemberS{Value: it.GSI1SK}
	} else {
		remove = append(remove, "gsi1pk", "gsi1sk")
	}
	expr := set
	if len(remove) > 0 {
		expr += " REMOVE "
		for i, r := range remove {
			if i > 0 {
				expr += ", "
			}
			expr += r
		}
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(it.PK, it.SK),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return document.ErrConflict
	}
	return err
}

// ListDocuments pages a kind's partition newest first.
func (s *Store) ListDocuments(ctx context.Context, q document.ListQuery) ([]*document.Record, string, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: docPK(q.WorkspaceID, q.Environment, q.Kind)},
		},
		ConsistentRead: aws.Bool(true),
	}
	if q.Cursor != "" {
		in.ExclusiveStartKey = key(docPK(q.WorkspaceID, q.Environment, q.Kind), q.Cursor)
	}
	return s.page(ctx, in, q)
}

// ListCustomerInvoices pages the invoices linked to a customer through GSI1, newest first.
func (s *Store) ListCustomerInvoices(ctx context.Context, customerID string, q document.ListQuery) ([]*document.Record, string, error) {
	gpk := custInvPK(q.WorkspaceID, q.Environment, customerID)
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI1),
		KeyConditionExpression: aws.String("gsi1pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: gpk},
		},
	}
	if q.Cursor != "" {
		start := key(docPK(q.WorkspaceID, q.Environment, document.Invoices), q.Cursor)
		start["gsi1pk"] = &types.AttributeValueMemberS{Value: gpk}
		start["gsi1sk"] = &types.AttributeValueMemberS{Value: q.Cursor}
		in.ExclusiveStartKey = start
	}
	return s.page(ctx, in, q)
}

// page runs a newest-first query until it has Limit matches plus one (which proves there is a
// next page) or the partition ends. With q, the filter runs after each read, so it keeps
// reading: a filtered page is still full when enough matches exist.
func (s *Store) page(ctx context.Context, in *dynamodb.QueryInput, q document.ListQuery) ([]*document.Record, string, error) {
	in.ScanIndexForward = aws.Bool(false)
	in.Limit = aws.Int32(int32(q.Limit + 1))
	if q.Q != "" {
		in.FilterExpression = aws.String("contains(#search, :q)")
		in.ExpressionAttributeNames = map[string]string{"#search": "search"}
		in.ExpressionAttributeValues[":q"] = &types.AttributeValueMemberS{Value: q.Q}
		in.Limit = aws.Int32(int32(max(q.Limit+1, 100)))
	}
	var out []*document.Record
	for {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", err
		}
		for _, item := range res.Items {
			r, err := decodeDocument(item)
			if err != nil {
				return nil, "", err
			}
			out = append(out, r)
		}
		if len(out) > q.Limit || len(res.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	if len(out) > q.Limit {
		out = out[:q.Limit]
		return out, out[len(out)-1].ID, nil
	}
	return out, "", nil
}
