package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
)

// Documents:
//
//	document     DOC#<ws>#<env>#<kind> / <id (uuid v7)>     gsi1 (linked invoices): CUSTINV#<ws>#<env>#<customer_id> / <id>
//	create key   IDEM#<ws>#<env>#<kind>#<Idempotency-Key> / IDEM   (ttl: 24 h)
//	history      HIST#<ws>#<env>#<kind>#<id> / <version, 12 digits>  (entries older than the record's window)
//	edit key     IDEM#<ws>#<env>#<kind>#<id>#<Idempotency-Key> / EDIT   (ttl: 24 h after the edit)
//
// A partition per workspace, environment and kind, sorted by time-ordered id, gives newest-first
// pages with one Query and never a Scan.
//
// The document item stays small whatever its age: it holds the latest document.HistoryWindow
// history entries and the Idempotency-Key of the edit that made the current version
// (last_edit), nothing more. The document item is the only place a new version is decided
// (one conditional UpdateItem on the version read). Before that write drops anything from
// the item — the history entry that leaves the window, the previous version's edit key — the
// same write path first copies it to its own item (one BatchWriteItem). Those copies are of
// data the item already holds and never changes, so writing them twice, or by a writer that
// then loses the race, stores the same thing; a crash after the copies and before the
// document write leaves only harmless duplicates, and a crash after the document write leaves
// nothing undone. No state is in flight and nothing needs repair.
//
// keys_until on the document (epoch seconds) is the latest expiry of an edit key moved out
// of it: an edit reads the edit-key item only while that time has not passed.

var _ document.Store = (*Store)(nil)

// IdempotencyRetention is how long a create Idempotency-Key is remembered.
const IdempotencyRetention = 24 * time.Hour

// EditKeyRetention is how long an edit's Idempotency-Key is remembered after the edit.
const EditKeyRetention = 24 * time.Hour

// clockSkew is how long after its expiry an edit key is still copied out of the document,
// so that a writer whose clock runs ahead never drops a key another instance still honours.
const clockSkew = 5 * time.Minute

type documentItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	GSI1PK      string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK      string `dynamodbav:"gsi1sk,omitempty"`
	ID          string `dynamodbav:"id"`
	WorkspaceID string `dynamodbav:"workspace_id"`
	Environment string `dynamodbav:"environment"`
	Kind        string `dynamodbav:"kind"`
	Reference   string `dynamodbav:"reference"`
	Status      string `dynamodbav:"status"`
	Version     int64  `dynamodbav:"version"`
	Body        string `dynamodbav:"body"`
	AmountMinor *int64 `dynamodbav:"amount_minor,omitempty"`
	PaidMinor   int64  `dynamodbav:"paid_minor"`
	// PaidAfterClose is written only by the settlement (ApplyOutcome).
	PaidAfterClose int64                 `dynamodbav:"paid_after_close_minor,omitempty"`
	CustomerID     *string               `dynamodbav:"customer_id,omitempty"`
	PublicToken    string                `dynamodbav:"public_token,omitempty"`
	CreatedAt      time.Time             `dynamodbav:"created_at"`
	UpdatedAt      time.Time             `dynamodbav:"updated_at"`
	History        []historyEntry        `dynamodbav:"history"`
	Payments       []document.PaymentRef `dynamodbav:"payments"`
	// Uses counts a payment link's completed payments (only when it has max_uses; before
	// holds it also counted live intents, which their follow-up releases); Holds are the uses
	// its pending intents hold, {intent id: {u: until, c: client}}, and HoldsVersion (hv)
	// changes with each new hold (intent.UseHoldWrite); Applying holds the intents whose
	// outcome is being recorded (see intent.Ledger).
	Uses         int64              `dynamodbav:"uses,omitempty"`
	Holds        map[string]useHold `dynamodbav:"holds,omitempty"`
	HoldsVersion int64              `dynamodbav:"hv,omitempty"`
	// GSI3PK finds an invoice or payment link by its public token: PUBDOC#<SHA-256 of the
	// token, hex> (GSI3's sort key is created_at, as for every item in it).
	GSI3PK    string    `dynamodbav:"gsi3pk,omitempty"`
	Applying  []string  `dynamodbav:"applying,stringset,omitempty"`
	Search    string    `dynamodbav:"search"`
	LastEdit  *lastEdit `dynamodbav:"last_edit,omitempty"`
	KeysUntil int64     `dynamodbav:"keys_until,omitempty"`
	// LiveIntent is an invoice's live intent from its public page: {i: id, e: expires_at}.
	LiveIntent *liveIntent `dynamodbav:"live_intent,omitempty"`
	// Refunds are the RETURNED refunds of the document's payments, refund id → paisa, written
	// only by the refund follow-up (CountDocumentRefund); refunded_minor is their sum.
	Refunds map[string]int64 `dynamodbav:"refunds,omitempty"`
}

// useHold is one hold of a payment link's use (document.UseHold).
type useHold struct {
	Until  string `dynamodbav:"u"`
	Client string `dynamodbav:"c,omitempty"`
}

type liveIntent struct {
	ID        string `dynamodbav:"i"`
	ExpiresAt string `dynamodbav:"e"`
}

// historyEntry is a history entry inside the document item, with one-letter names (they are
// rewritten with every version, so their bytes count).
type historyEntry struct {
	Version    int64  `dynamodbav:"v"`
	Status     string `dynamodbav:"s"`
	OccurredAt string `dynamodbav:"t"`
	Action     string `dynamodbav:"a"`
}

func toHistoryEntries(h []document.HistoryEntry) []historyEntry {
	out := make([]historyEntry, len(h))
	for i, e := range h {
		out[i] = historyEntry{Version: e.Version, Status: e.Status, OccurredAt: formatTime(e.OccurredAt), Action: e.Action}
	}
	return out
}

func (e historyEntry) entry() (document.HistoryEntry, error) {
	t, err := time.Parse(time.RFC3339Nano, e.OccurredAt)
	if err != nil {
		return document.HistoryEntry{}, fmt.Errorf("history entry %d: %w", e.Version, err)
	}
	return document.HistoryEntry{Version: e.Version, Status: e.Status, OccurredAt: t, Action: e.Action}, nil
}

// lastEdit is the edit that made the document's current version (document.AppliedEdit).
type lastEdit struct {
	Key         string `dynamodbav:"k"`
	RequestHash string `dynamodbav:"h"`
	Version     int64  `dynamodbav:"v"`
	AppliedAt   string `dynamodbav:"t"`
}

// historyItem is a history entry stored apart from its document.
type historyItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	Version    int64  `dynamodbav:"version"`
	Status     string `dynamodbav:"status"`
	OccurredAt string `dynamodbav:"occurred_at"`
	Action     string `dynamodbav:"action"`
}

// editKeyItem is an applied edit's Idempotency-Key stored apart from its document.
type editKeyItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	RequestHash string `dynamodbav:"request_hash"`
	Version     int64  `dynamodbav:"version"`
	AppliedAt   string `dynamodbav:"applied_at"`
	TTL         int64  `dynamodbav:"ttl"`
}

func docPK(ws string, env auth.Environment, kind document.Kind) string {
	return "DOC#" + ws + "#" + string(env) + "#" + string(kind)
}

func custInvPK(ws string, env auth.Environment, customerID string) string {
	return "CUSTINV#" + ws + "#" + string(env) + "#" + customerID
}

func historyPK(r *document.Record) string {
	return "HIST#" + r.WorkspaceID + "#" + string(r.Environment) + "#" + string(r.Kind) + "#" + r.ID
}

func historySK(version int64) string { return fmt.Sprintf("%012d", version) }

func editKeyPK(r *document.Record, key string) string {
	return "IDEM#" + r.WorkspaceID + "#" + string(r.Environment) + "#" + string(r.Kind) + "#" + r.ID + "#" + key
}

func toDocumentItem(r *document.Record) documentItem {
	it := documentItem{
		PK: docPK(r.WorkspaceID, r.Environment, r.Kind), SK: r.ID,
		ID: r.ID, WorkspaceID: r.WorkspaceID, Environment: string(r.Environment), Kind: string(r.Kind),
		Reference: r.Reference, Status: r.Status, Version: r.Version, Body: string(r.Body),
		AmountMinor: r.AmountMinor, PaidMinor: r.PaidMinor, CustomerID: r.CustomerID, PublicToken: r.PublicToken,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, History: toHistoryEntries(r.History), Payments: r.Payments,
		Search: r.SearchText,
	}
	if it.Payments == nil {
		it.Payments = []document.PaymentRef{}
	}
	if e := r.LastEdit; e != nil {
		it.LastEdit = &lastEdit{Key: e.Key, RequestHash: e.RequestHash, Version: e.Version, AppliedAt: formatTime(e.AppliedAt)}
	}
	if !r.EditKeysUntil.IsZero() {
		it.KeysUntil = r.EditKeysUntil.Unix()
	}
	if r.Kind == document.Invoices && r.CustomerID != nil {
		it.GSI1PK, it.GSI1SK = custInvPK(r.WorkspaceID, r.Environment, *r.CustomerID), r.ID
	}
	if r.PublicToken != "" {
		it.GSI3PK = publicDocPK(r.PublicToken)
	}
	return it
}

func (it *documentItem) record() (*document.Record, error) {
	r := &document.Record{
		ID: it.ID, WorkspaceID: it.WorkspaceID, Environment: auth.Environment(it.Environment), Kind: document.Kind(it.Kind),
		Reference: it.Reference, Status: it.Status, Version: it.Version, Body: json.RawMessage(it.Body),
		AmountMinor: it.AmountMinor, PaidMinor: it.PaidMinor, CustomerID: it.CustomerID, PublicToken: it.PublicToken,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Payments: lastPayments(it.Payments), SearchText: it.Search,
		PaidAfterCloseMinor: it.PaidAfterClose,
	}
	for _, v := range it.Refunds {
		r.RefundedMinor += v
	}
	history := make([]document.HistoryEntry, len(it.History))
	for i, e := range it.History {
		var err error
		if history[i], err = e.entry(); err != nil {
			return nil, fmt.Errorf("document %s: %w", it.ID, err)
		}
	}
	r.SetHistory(history)
	if e := it.LastEdit; e != nil {
		t, err := time.Parse(time.RFC3339Nano, e.AppliedAt)
		if err != nil {
			return nil, fmt.Errorf("document %s: last edit: %w", it.ID, err)
		}
		r.LastEdit = &document.AppliedEdit{Key: e.Key, RequestHash: e.RequestHash, Version: e.Version, AppliedAt: t}
	}
	if it.KeysUntil > 0 {
		r.EditKeysUntil = time.Unix(it.KeysUntil, 0).UTC()
	}
	r.UsesCounted, r.HoldsVersion = it.Uses, it.HoldsVersion
	if len(it.Holds) > 0 {
		r.Holds = make(map[string]document.UseHold, len(it.Holds))
		for id, h := range it.Holds {
			until, err := time.Parse(time.RFC3339Nano, h.Until)
			if err != nil {
				return nil, fmt.Errorf("document %s: hold %s: %w", it.ID, id, err)
			}
			r.Holds[id] = document.UseHold{Until: until, Client: h.Client}
		}
	}
	if l := it.LiveIntent; l != nil {
		r.LiveIntentID = l.ID
		exp, err := time.Parse(time.RFC3339Nano, l.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("document %s: live_intent: %w", it.ID, err)
		}
		r.LiveIntentExpires = exp
	}
	r.Decode() // once, here: pricing, the public page and the dashboard share it
	return r, nil
}

// lastPayments is the record's window of payments: the latest PaymentsWindow by when they
// happened, oldest first (the item holds them in the order the follow-ups recorded them, up to
// twice the window until one trims it).
func lastPayments(ps []document.PaymentRef) []document.PaymentRef {
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b document.PaymentRef) int { return a.OccurredAt.Compare(b.OccurredAt) })
	if len(ps) > document.PaymentsWindow {
		return ps[len(ps)-document.PaymentsWindow:]
	}
	return ps
}

func decodeDocument(item map[string]types.AttributeValue) (*document.Record, error) {
	var it documentItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode document item: %w", err)
	}
	if it.Payments == nil {
		it.Payments = []document.PaymentRef{}
	}
	return it.record()
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
		stored.SetHistory(stored.History)
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

// UpdateDocument writes the next version (an edit or a lifecycle transition). First it
// copies out what the document item is about to drop — the history entries that leave the
// window and the previous version's edit key while it is retained — with one
// BatchWriteItem (none when there is nothing to copy). Then one conditional UpdateItem
// writes the version: the stored version must still be cur.Version, so of racing writers
// exactly one wins, and since the edit key was looked up in the version read (FindEdit),
// the key cannot have been applied in between.
func (s *Store) UpdateDocument(ctx context.Context, cur, next *document.Record, edit *document.AppliedEdit) error {
	if len(next.History) == 0 || next.History[len(next.History)-1].Version != next.Version {
		return fmt.Errorf("document %s: version %d without its history entry", next.ID, next.Version)
	}
	var copies []map[string]types.AttributeValue
	for _, h := range cur.History {
		if h.Version >= next.History[0].Version {
			continue
		}
		av, err := marshalItem(historyItem{PK: historyPK(cur), SK: historySK(h.Version), Version: h.Version,
			Status: h.Status, OccurredAt: formatTime(h.OccurredAt), Action: h.Action})
		if err != nil {
			return err
		}
		copies = append(copies, av)
	}
	keysUntil := cur.EditKeysUntil
	if e := cur.LastEdit; e != nil {
		expires := e.AppliedAt.Add(EditKeyRetention)
		if expires.After(time.Now().Add(-clockSkew)) {
			av, err := marshalItem(editKeyItem{PK: editKeyPK(cur, e.Key), SK: "EDIT", RequestHash: e.RequestHash,
				Version: e.Version, AppliedAt: formatTime(e.AppliedAt), TTL: expires.Unix()})
			if err != nil {
				return err
			}
			copies = append(copies, av)
			if expires.After(keysUntil) {
				keysUntil = expires
			}
		}
	}
	if err := s.putAll(ctx, copies); err != nil {
		return err
	}

	it := toDocumentItem(next)
	vals, err := attributevalue.MarshalMapWithOptions(map[string]any{
		":prev": cur.Version, ":version": it.Version, ":reference": it.Reference, ":status": it.Status,
		":body": it.Body, ":updated": formatTime(it.UpdatedAt), ":search": it.Search, ":history": it.History,
	})
	if err != nil {
		return err
	}
	names := map[string]string{"#status": "status", "#version": "version", "#reference": "reference", "#body": "body",
		"#updated": "updated_at", "#search": "search", "#history": "history"}
	set := []string{"#version = :version", "#reference = :reference", "#status = :status", "#body = :body",
		"#updated = :updated", "#search = :search", "#history = :history"}
	var remove []string
	if edit != nil {
		av, err := attributevalue.Marshal(lastEdit{Key: edit.Key, RequestHash: edit.RequestHash, Version: edit.Version,
			AppliedAt: formatTime(edit.AppliedAt)})
		if err != nil {
			return err
		}
		set, vals[":edit"] = append(set, "last_edit = :edit"), av
	} else {
		remove = append(remove, "last_edit")
	}
	if !keysUntil.IsZero() {
		set = append(set, "keys_until = :keys")
		vals[":keys"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(keysUntil.Unix(), 10)}
	}
	if it.AmountMinor != nil {
		set = append(set, "#amount = :amount")
		names["#amount"] = "amount_minor"
		vals[":amount"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(*it.AmountMinor, 10)}
	} else {
		remove = append(remove, "amount_minor")
	}
	if it.CustomerID != nil {
		set = append(set, "#customer = :customer")
		names["#customer"] = "customer_id"
		vals[":customer"] = &types.AttributeValueMemberS{Value: *it.CustomerID}
	} else {
		remove = append(remove, "customer_id")
	}
	if it.GSI1PK != "" {
		set = append(set, "gsi1pk = :g1pk", "gsi1sk = :g1sk")
		vals[":g1pk"] = &types.AttributeValueMemberS{Value: it.GSI1PK}
		vals[":g1sk"] = &types.AttributeValueMemberS{Value: it.GSI1SK}
	} else {
		remove = append(remove, "gsi1pk", "gsi1sk")
	}
	expr := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(it.PK, it.SK),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String("attribute_exists(pk) AND #version = :prev"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return document.ErrConflict
	}
	return err
}

// FindEdit looks key up in the document as read (last_edit), then — only while keys_until
// has not passed — in its edit-key item (one consistent GetItem). The order matters: an edit
// key leaves the document only after its item is written, so a document read that no longer
// shows it is followed by an item read that does. Expired keys count as absent.
func (s *Store) FindEdit(ctx context.Context, cur *document.Record, key string) (*document.AppliedEdit, error) {
	now := time.Now()
	if e := cur.LastEdit; e != nil && e.Key == key {
		// An earlier use of the same key is older still, so expired too.
		if e.AppliedAt.Add(EditKeyRetention).After(now) {
			return e, nil
		}
		return nil, nil
	}
	if !cur.EditKeysUntil.After(now) {
		return nil, nil
	}
	item, err := s.get(ctx, editKeyPK(cur, key), "EDIT")
	if err != nil || item == nil {
		return nil, err
	}
	var it editKeyItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode edit key item: %w", err)
	}
	if it.TTL <= now.Unix() {
		return nil, nil
	}
	at, err := time.Parse(time.RFC3339Nano, it.AppliedAt)
	if err != nil {
		return nil, fmt.Errorf("edit key item: %w", err)
	}
	return &document.AppliedEdit{Key: key, RequestHash: it.RequestHash, Version: it.Version, AppliedAt: at}, nil
}

// History reads the history entries from..to stored apart from rec (one Query on the
// document's history partition, strongly consistent, oldest first).
func (s *Store) History(ctx context.Context, rec *document.Record, from, to int64) ([]document.HistoryEntry, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		KeyConditionExpression: aws.String("pk = :pk AND sk BETWEEN :from AND :to"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: historyPK(rec)},
			":from": &types.AttributeValueMemberS{Value: historySK(from)},
			":to":   &types.AttributeValueMemberS{Value: historySK(to)},
		},
		ConsistentRead: aws.Bool(true),
	}
	var out []document.HistoryEntry
	p := dynamodb.NewQueryPaginator(s.DB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			var it historyItem
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return nil, fmt.Errorf("decode history item: %w", err)
			}
			e, err := historyEntry{Version: it.Version, Status: it.Status, OccurredAt: it.OccurredAt, Action: it.Action}.entry()
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// maxBatchWrite is BatchWriteItem's limit of items per request.
const maxBatchWrite = 25

// putAll writes items unconditionally with BatchWriteItem (25 a request), resending what
// DynamoDB leaves unprocessed a few times; items still unprocessed are a throttling error.
func (s *Store) putAll(ctx context.Context, items []map[string]types.AttributeValue) error {
	for len(items) > 0 {
		n := min(len(items), maxBatchWrite)
		reqs := make([]types.WriteRequest, n)
		for i, av := range items[:n] {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: av}}
		}
		items = items[n:]
		for attempt := 0; len(reqs) > 0; attempt++ {
			if attempt == 4 {
				return &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException",
					Message: fmt.Sprintf("%d items left unprocessed by BatchWriteItem", len(reqs))}
			}
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
				}
			}
			out, err := s.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{s.Table: reqs},
			})
			if err != nil {
				return err
			}
			reqs = out.UnprocessedItems[s.Table]
		}
	}
	return nil
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

// MaxPageBytes bounds one page of records by size (each counted as its stored body plus
// 2 KiB for the other fields and the history window). A page stops before the record that
// would pass it, with a next_cursor, so a page of large documents stays far below Lambda's
// 6 MB response limit even when the response is escaped into the Lambda payload.
const MaxPageBytes = 2 << 20

func recordBytes(r *document.Record) int { return len(r.Body) + 2048 }

// SearchQueryBudget bounds the Query calls of one page with q: the filter runs after each
// read, so a page keeps reading until it has its matches, but never past this many Queries (each
// of max(limit+1, 100) items and at most 1 MB). The page found so far is then the answer, with
// a next_cursor to go on from: it may be short, or even empty.
const SearchQueryBudget = 5

// page runs a newest-first query until it has Limit matches (or MaxPageBytes of them) plus
// one more record, which proves there is a next page, or the partition ends. With q, the
// filter runs after each read, so it keeps reading, at most SearchQueryBudget Queries; a
// filtered page is full when enough matches exist within that many reads, else short with a
// next_cursor naming the last item examined (the last read's LastEvaluatedKey).
func (s *Store) page(ctx context.Context, in *dynamodb.QueryInput, q document.ListQuery) ([]*document.Record, string, error) {
	in.ScanIndexForward = aws.Bool(false)
	in.Limit = aws.Int32(int32(q.Limit + 1))
	budget := 0 // no bound: without a filter every read fills the page
	if q.Q != "" {
		in.FilterExpression = aws.String("contains(#search, :q)")
		in.ExpressionAttributeNames = map[string]string{"#search": "search"}
		in.ExpressionAttributeValues[":q"] = &types.AttributeValueMemberS{Value: q.Q}
		in.Limit = aws.Int32(int32(max(q.Limit+1, 100)))
		budget = SearchQueryBudget
	}
	var out []*document.Record
	size := 0
	for queries := 1; ; queries++ {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", err
		}
		for _, item := range res.Items {
			r, err := decodeDocument(item)
			if err != nil {
				return nil, "", err
			}
			if len(out) == q.Limit || (len(out) > 0 && size+recordBytes(r) > MaxPageBytes) {
				return out, out[len(out)-1].ID, nil
			}
			size += recordBytes(r)
			out = append(out, r)
		}
		if len(res.LastEvaluatedKey) == 0 {
			return out, "", nil
		}
		if queries == budget {
			// The read budget is spent: the next page starts after the last item examined.
			last, _ := res.LastEvaluatedKey["sk"].(*types.AttributeValueMemberS)
			if last == nil {
				return nil, "", fmt.Errorf("document query: LastEvaluatedKey without sk")
			}
			return out, last.Value, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}
