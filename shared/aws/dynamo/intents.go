package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// Payment intents are payments (one id space, one item: PAY#<id> / PAY). What the intents
// add:
//
//	snapshot  PAY#<id> / SNAP#<sha256 of the snapshot, 16 bytes hex>   the document as priced
//	gsi3 (keys plus document_id and snap, every payment):
//	          INTENTS#<ws>#<env> / created_at                           the list, newest first
//
// The snapshot is its own item, written once right after the payment and never again, so the
// payment — written at every lock, outcome and delivery attempt — stays under 1 KB however
// many line items the document has. Its key is its content's hash, which the payment names:
// only the create whose conditional write made the payment writes a snapshot, so a losing or
// refused create leaves nothing behind, and a retry that repairs a missing snapshot can only
// write the one the payment names. GSI3's keys and projected
// attributes never change after the create, so no later write of a payment touches GSI3. Its
// sort key is the payment's own created_at (GSI keys need not be unique: DynamoDB orders ties
// by the table key), so the index adds one short attribute to the item, not two: the item's
// size decides every later write's cost.
const (
	// GSI3 is the name of the table's third global secondary index (intent listings).
	GSI3          = "gsi3"
	intentsPrefix = "INTENTS#"
	snapPrefix    = intent.SnapshotKeyPrefix
	// listReadBudget bounds the index queries of one list page when filters discard items
	// (each reads one page's worth of keys): a page never reads more than it shows plus one
	// page.
	// the page may then be short, with a next_cursor to go on from.
	listReadBudget = 2
)

var _ intent.Store = (*Store)(nil)

func intentsPK(ws string, env auth.Environment) string {
	return intentsPrefix + ws + "#" + string(env)
}

// parseIntentsPK returns the workspace and environment an intents key names ("" if none).
func parseIntentsPK(pk string) (string, auth.Environment) {
	ws, env, ok := strings.Cut(strings.TrimPrefix(pk, intentsPrefix), "#")
	if !ok || !strings.HasPrefix(pk, intentsPrefix) {
		return "", ""
	}
	return ws, auth.Environment(env)
}

type snapshotItem struct {
	PK       string `dynamodbav:"pk"`
	SK       string `dynamodbav:"sk"`
	Snapshot string `dynamodbav:"snapshot"`
}

// CreateIntent writes the payment with one conditional PutItem and then, only when that write
// created it, its snapshot (PutSnapshot). A create that loses (the Idempotency-Key's intent
// exists) therefore writes nothing at all; a create that stops between the two writes leaves
// an intent whose snapshot is missing (GetIntent says so) until a retry of the same request
// writes it.
func (s *Store) CreateIntent(ctx context.Context, p *payment.Payment, snap *intent.Snapshot) (*payment.Payment, error) {
	existing, err := s.CreatePayment(ctx, p)
	if err != nil || snap == nil {
		return existing, err
	}
	if err := s.PutSnapshot(ctx, p.InvoiceID, snap); err != nil {
		return p, fmt.Errorf("%w: %w", intent.ErrSnapshotWrite, err)
	}
	return p, nil
}

// HoldUse writes one hold of a payment link's use (intent.UseHoldWrite) with one conditional
// UpdateItem: the link must exist at the version read (doc.Version; every status change is a
// new version, so the link is still as active as it was read) and its holds still at the
// holds version read (the first hold creates the map); the expired holds it names are removed
// in the same write. The request names pk, sk, version, holds and hv — never status — so the
// functions that hold uses (template.yaml) are granted no UpdateItem that could name status.
// intent.ErrHoldsChanged when the condition fails (another hold landed, or the link changed).
func (s *Store) HoldUse(ctx context.Context, doc *document.Record, w intent.UseHoldWrite) error {
	hold := map[string]types.AttributeValue{"u": &types.AttributeValueMemberS{Value: formatTime(w.Hold.Until)}}
	if w.Hold.Client != "" {
		hold["c"] = &types.AttributeValueMemberS{Value: w.Hold.Client}
	}
	names := map[string]string{"#version": "version", "#id": w.ID}
	vals := map[string]types.AttributeValue{
		":v":    &types.AttributeValueMemberN{Value: strconv.FormatInt(doc.Version, 10)},
		":next": &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Version+1, 10)},
	}
	var update, cond string
	if w.Version == 0 {
		update, cond = "SET holds = :holds, hv = :next", "attribute_not_exists(hv)"
		vals[":holds"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{w.ID: &types.AttributeValueMemberM{Value: hold}}}
		delete(names, "#id")
	} else {
		update, cond = "SET holds.#id = :hold, hv = :next", "hv = :hv"
		vals[":hold"] = &types.AttributeValueMemberM{Value: hold}
		vals[":hv"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(w.Version, 10)}
		if len(w.Drop) > 0 {
			drop := make([]string, len(w.Drop))
			for i, id := range w.Drop {
				names["#d"+strconv.Itoa(i)] = id
				drop[i] = "holds.#d" + strconv.Itoa(i)
			}
			update += " REMOVE " + strings.Join(drop, ", ")
		}
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(docPK(doc.WorkspaceID, doc.Environment, doc.Kind), doc.ID),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(pk) AND #version = :v AND " + cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return intent.ErrHoldsChanged
	}
	return err
}

// ReleaseHold drops the hold of an intent that was certainly not written (one UpdateItem).
func (s *Store) ReleaseHold(ctx context.Context, doc *document.Record, id string) error {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key(docPK(doc.WorkspaceID, doc.Environment, doc.Kind), doc.ID),
		UpdateExpression:         aws.String("REMOVE holds.#id"),
		ConditionExpression:      aws.String("attribute_exists(holds.#id)"),
		ExpressionAttributeNames: map[string]string{"#id": id},
	})
	if isConditionFailed(err) {
		return nil
	}
	return err
}

// PutSnapshot writes a snapshot item with one PutItem, unless one with its key exists (the key
// is the content's hash, so an existing one is the same snapshot).
func (s *Store) PutSnapshot(ctx context.Context, intentID string, snap *intent.Snapshot) error {
	sk, raw, err := snap.Encode()
	if err != nil {
		return err
	}
	av, err := marshalItem(snapshotItem{PK: paymentPK(intentID), SK: sk, Snapshot: string(raw)})
	if err != nil {
		return err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av,
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	if isConditionFailed(err) {
		return nil
	}
	return err
}

// GetIntent reads the payment and its snapshot with one strongly consistent Query of the
// payment's partition.
func (s *Store) GetIntent(ctx context.Context, id string) (*intent.Stored, error) {
	out, err := s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: paymentPK(id)},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	var st intent.Stored
	snaps := map[string]map[string]types.AttributeValue{}
	now := time.Now()
	for _, item := range out.Items {
		sk, _ := item["sk"].(*types.AttributeValueMemberS)
		switch {
		case !retained(item, now):
		case sk == nil:
		case sk.Value == "PAY":
			if st.Payment, err = decodePayment(item); err != nil {
				return nil, err
			}
		case strings.HasPrefix(sk.Value, snapPrefix):
			snaps[sk.Value] = item
		}
	}
	if st.Payment == nil {
		return nil, nil
	}
	if err := attachSnapshot(&st, snaps); err != nil {
		return nil, err
	}
	return &st, nil
}

// attachSnapshot sets the snapshot the payment names from the snapshot items read with it.
func attachSnapshot(st *intent.Stored, snaps map[string]map[string]types.AttributeValue) error {
	k := st.Payment.SnapshotKey
	if k == "" {
		return nil
	}
	item, ok := snaps[k]
	if !ok {
		st.SnapshotMissing = true // its create stopped between the two writes
		return nil
	}
	v, _ := item["snapshot"].(*types.AttributeValueMemberS)
	if v == nil {
		return fmt.Errorf("intent %s: snapshot %s has no body", st.Payment.InvoiceID, k)
	}
	var snap intent.Snapshot
	if err := json.Unmarshal([]byte(v.Value), &snap); err != nil {
		return fmt.Errorf("intent %s: snapshot %s: %w", st.Payment.InvoiceID, k, err)
	}
	st.Snapshot = &snap
	return nil
}

// PayableDocument reads the invoice and the payment link with this id in one BatchGetItem
// (strongly consistent): a document id does not say its kind, and a customer is never payable.
func (s *Store) PayableDocument(ctx context.Context, ws string, env auth.Environment, id string) (*document.Record, error) {
	if !validID(ws) || !validID(id) {
		return nil, nil
	}
	keys := []map[string]types.AttributeValue{
		key(docPK(ws, env, document.Invoices), id),
		key(docPK(ws, env, document.PaymentLinks), id),
	}
	items, err := s.batchGet(ctx, keys, "")
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		return decodeDocument(item)
	}
	return nil, nil
}

// batchGet reads keys (at most 100) with strongly consistent BatchGetItem calls, retrying
// unprocessed keys a bounded number of times; projection "" reads whole items.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, projection string) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	req := &types.KeysAndAttributes{Keys: keys, ConsistentRead: aws.Bool(true)}
	if projection != "" {
		req.ProjectionExpression = aws.String(projection)
	}
	pending := map[string]types.KeysAndAttributes{s.Table: *req}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 5 {
			return nil, fmt.Errorf("batch get: keys still unprocessed after %d attempts", attempt)
		}
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
			}
		}
		res, err := s.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Responses[s.Table]...)
		pending = res.UnprocessedKeys
	}
	return out, nil
}

// ListIntents pages a workspace's intents in one environment through GSI3, newest first:
// one Query for the keys (the created range as its key condition; document_id and
// standalone-or-linked filtered in the index), one BatchGetItem for the payments and their
// snapshots, then q.Keep. When filters discard items, further rounds of a page's worth of
// keys fill the page, at most listReadBudget of them; a page may then be short and still
// have a next cursor. A cursor costs one GetItem (the intent's index key).
func (s *Store) ListIntents(ctx context.Context, q intent.ListQuery) ([]intent.Stored, string, error) {
	pk := intentsPK(q.WorkspaceID, q.Environment)
	in, lo, hi := intentsQuery(s.Table, pk, q)
	filtered := in.FilterExpression != nil || q.Keep != nil
	if q.Cursor != "" {
		if err := s.startAfterCursor(ctx, in, q.Cursor, pk, lo, hi); err != nil {
			return nil, "", err
		}
	}
	var page []intent.Stored
	for round := 0; round < listReadBudget; round++ {
		in.Limit = aws.Int32(int32(q.Limit - len(page)))
		if filtered {
			// Filters discard: each round reads one page's worth of keys (never more than the
			// page shows), at most listReadBudget rounds.
			in.Limit = aws.Int32(int32(q.Limit))
		}
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", err
		}
		ids, keys := intentKeys(res.Items)
		got, err := s.readIntents(ctx, keys)
		if err != nil {
			return nil, "", err
		}
		for i, id := range ids {
			st, ok := got[id]
			if !ok || (q.Keep != nil && !q.Keep(st.Payment)) {
				continue
			}
			page = append(page, *st)
			if len(page) == q.Limit {
				// More may follow unless this was the index's last item.
				if i < len(ids)-1 || len(res.LastEvaluatedKey) > 0 {
					return page, id, nil
				}
				return page, "", nil
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			return page, "", nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	// The read budget is spent: go on after the last key examined.
	last, _ := in.ExclusiveStartKey["pk"].(*types.AttributeValueMemberS)
	if last == nil {
		return page, "", nil
	}
	return page, strings.TrimPrefix(last.Value, "PAY#"), nil
}

// intentsQuery is ListIntents' Query on GSI3's partition pk, newest first: the created range
// as its key condition (GSI3's sort key is created_at, in timeLayout: string order is time
// order, so a range reads only its own intents), and document_id and standalone-or-linked as
// its filter. lo and hi are the range's bounds as stored ("" for none).
func intentsQuery(table, pk string, q intent.ListQuery) (in *dynamodb.QueryInput, lo, hi string) {
	in = &dynamodb.QueryInput{
		TableName:              aws.String(table),
		IndexName:              aws.String(GSI3),
		KeyConditionExpression: aws.String("gsi3pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pk},
		},
		ScanIndexForward: aws.Bool(false),
	}
	switch from, before := q.CreatedFrom, q.CreatedBefore; {
	case !from.IsZero() && !before.IsZero():
		lo, hi = formatTime(from), formatTime(before.Add(-time.Nanosecond))
		in.KeyConditionExpression = aws.String("gsi3pk = :pk AND created_at BETWEEN :lo AND :hi")
	case !from.IsZero():
		lo = formatTime(from)
		in.KeyConditionExpression = aws.String("gsi3pk = :pk AND created_at >= :lo")
	case !before.IsZero():
		hi = formatTime(before.Add(-time.Nanosecond))
		in.KeyConditionExpression = aws.String("gsi3pk = :pk AND created_at <= :hi")
	}
	if lo != "" {
		in.ExpressionAttributeValues[":lo"] = &types.AttributeValueMemberS{Value: lo}
	}
	if hi != "" {
		in.ExpressionAttributeValues[":hi"] = &types.AttributeValueMemberS{Value: hi}
	}
	var filters []string
	if q.DocumentID != "" {
		filters = append(filters, "document_id = :doc")
		in.ExpressionAttributeValues[":doc"] = &types.AttributeValueMemberS{Value: q.DocumentID}
	}
	switch q.Source {
	case "":
	case payment.SourceStandalone:
		filters = append(filters, "attribute_not_exists(document_id)")
	default:
		filters = append(filters, "attribute_exists(document_id)") // the kind: q.Keep
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	return in, lo, hi
}

// startAfterCursor starts in after the cursor's intent (one GetItem of its index key): the
// intent must be in partition pk and within the range lo..hi, else the cursor is
// intent.ErrBadCursor.
func (s *Store) startAfterCursor(ctx context.Context, in *dynamodb.QueryInput, cursor, pk, lo, hi string) error {
	item, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.Table), Key: key(paymentPK(cursor), "PAY"),
		ProjectionExpression: aws.String("gsi3pk, created_at"), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return err
	}
	gpk, _ := item.Item["gsi3pk"].(*types.AttributeValueMemberS)
	gsk, _ := item.Item["created_at"].(*types.AttributeValueMemberS)
	if gpk == nil || gsk == nil || gpk.Value != pk || (lo != "" && gsk.Value < lo) || (hi != "" && gsk.Value > hi) {
		return intent.ErrBadCursor
	}
	in.ExclusiveStartKey = map[string]types.AttributeValue{
		"gsi3pk": gpk, "created_at": gsk,
		"pk": &types.AttributeValueMemberS{Value: paymentPK(cursor)}, "sk": &types.AttributeValueMemberS{Value: "PAY"},
	}
	return nil
}

// intentKeys are the ids of the intents among GSI3's items, in order, and the keys of their
// payments and snapshots to read.
func intentKeys(items []map[string]types.AttributeValue) (ids []string, keys []map[string]types.AttributeValue) {
	ids = make([]string, 0, len(items))
	keys = make([]map[string]types.AttributeValue, 0, 2*len(items))
	for _, item := range items {
		pkv, _ := item["pk"].(*types.AttributeValueMemberS)
		if pkv == nil || !strings.HasPrefix(pkv.Value, "PAY#") {
			continue
		}
		ids = append(ids, strings.TrimPrefix(pkv.Value, "PAY#"))
		keys = append(keys, key(pkv.Value, "PAY"))
		if h, _ := item["snap"].(*types.AttributeValueMemberS); h != nil && h.Value != "" {
			keys = append(keys, key(pkv.Value, snapPrefix+h.Value))
		}
	}
	return ids, keys
}

// readIntents reads payments and snapshots by key (BatchGetItem, 100 keys a call) and pairs them.
func (s *Store) readIntents(ctx context.Context, keys []map[string]types.AttributeValue) (map[string]*intent.Stored, error) {
	out := map[string]*intent.Stored{}
	snaps := map[string]map[string]map[string]types.AttributeValue{}
	now := time.Now()
	for start := 0; start < len(keys); start += 100 {
		items, err := s.batchGet(ctx, keys[start:min(start+100, len(keys))], "")
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			pkv, _ := item["pk"].(*types.AttributeValueMemberS)
			skv, _ := item["sk"].(*types.AttributeValueMemberS)
			if pkv == nil || skv == nil || !retained(item, now) {
				continue
			}
			id := strings.TrimPrefix(pkv.Value, "PAY#")
			if skv.Value == "PAY" {
				p, err := decodePayment(item)
				if err != nil {
					return nil, err
				}
				out[id] = &intent.Stored{Payment: p}
			} else if strings.HasPrefix(skv.Value, snapPrefix) {
				if snaps[id] == nil {
					snaps[id] = map[string]map[string]types.AttributeValue{}
				}
				snaps[id][skv.Value] = item
			}
		}
	}
	for id, st := range out {
		if err := attachSnapshot(st, snaps[id]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
