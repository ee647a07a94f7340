package dynamo

// Refunds (shared/refund; decision 100). Item layout:
//
//	refund   REFUND#<ws>#<env> / <id, uuid v7>   the refund (newest last in the partition;
//	                                             a list is one Query, newest first)
//	         gsi2 (sparse, keys only) while the refund owes its payment a ledger step:
//	         REFUNDFIX#<shard of the id, 0..RefundShards-1> / <when the repair pass may do it>#<id>
//	         carries the document its payment was priced from: document_kind, document_id
//	document DOC#<ws>#<env>#<kind> / <id> gains refunds (M, refund id → paisa of the RETURNED
//	         refunds of its payments; refunded_minor is their sum), written only by this file
//	payment  PAY#<invoice_id> / PAY gains the refund ledger, written only by this file:
//	         refund_promised (N, paisa of every refund not REJECTED or CANCELLED),
//	         refund_returned (N, paisa of the RETURNED ones),
//	         refund_claims   (M, refund id → the paisa it counts in refund_promised; 0 = closed:
//	                          voided before any claim, or released; a closed id never counts again),
//	         refund_counted  (M, refund id → paisa, the RETURNED refunds counted in refund_returned).
//
// Every step is one single-item conditional write (no transactions: dynalite has none). What
// each operation costs, measured against dynalite (shared/refund/integration TestRefundRequests
// holds the figures; WRU by DynamoDB's rule: 1 per KB of the larger of the item before and
// after, a write that fails its condition costing its item too, plus GSI2's 1 to add or remove
// the follow-up entry):
//
//	create:          GetItem payment (+ GetItem refund when the id comes from an
//	                 Idempotency-Key), PutItem refund PENDING_CLAIM with its follow-up entry (2),
//	                 UpdateItem payment claim (1), PutItem refund REQUESTED, entry removed (2):
//	                 3 writes, 5 WRU
//	refused create:  refused by the read before any write when the ledger already says so
//	                 (1-2 GetItem, 0 WRU); refused by the claim (a racing refund took the room):
//	                 the failed claim (1), one GetItem to learn why, UpdateItem closing the id (1),
//	                 PutItem refund VOIDED (2)
//	review/approve:  GetItem refund, PutItem refund: 1 write, 1 WRU
//	reject/cancel:   GetItem refund, PutItem refund with follow-up "release" (2), UpdateItem
//	                 payment release (1), PutItem refund follow-up done (2): 3 writes, 5 WRU
//	report-returned: as reject, with the payment's count: 3 writes, 5 WRU; a linked payment's
//	                 refund is counted on its document too: UpdateItem document (1 per KB of
//	                 the document item; decision 121)
//	a repeat:        GetItem refund only (0 WRU), unless a crash left its follow-up: then that
//	repair pass:     one keys-only Query per REFUNDFIX# shard (RefundShards), then per refund
//	                 what its writer would have done
//
// The first claim (and the first count) of a payment also writes the empty map: an update of
// refund_claims.<id> needs the map to exist, so the claim that finds it missing writes the map
// whole, conditional on it still being missing (one more write, once per payment).

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

var _ refund.Store = (*Store)(nil)

// RefundShards is how many GSI2 partition key values the refunds' follow-ups are spread over
// (few: a follow-up lives seconds, and the repair pass reads every shard). It may grow, never
// shrink.
const RefundShards = 8

const refundFixPrefix = "REFUNDFIX#"

// The payment's ledger attributes.
const (
	attrPromised = "refund_promised"
	attrReturned = "refund_returned"
	attrClaims   = "refund_claims"
	attrCounted  = "refund_counted"
	// attrDocRefunds is the document's map of its payments' RETURNED refunds: refund id → paisa.
	attrDocRefunds = "refunds"
)

func refundPK(ws string, env auth.Environment) string { return "REFUND#" + ws + "#" + string(env) }

func refundFixPK(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return refundFixPrefix + strconv.FormatUint(uint64(h.Sum32()%RefundShards), 10)
}

type refundItem struct {
	PK                string            `dynamodbav:"pk"`
	SK                string            `dynamodbav:"sk"`
	GSI2PK            string            `dynamodbav:"gsi2pk,omitempty"`
	GSI2SK            string            `dynamodbav:"gsi2sk,omitempty"`
	PaymentID         string            `dynamodbav:"payment_id"`
	AmountMinor       int64             `dynamodbav:"amount_minor"`
	Currency          string            `dynamodbav:"currency"`
	Status            string            `dynamodbav:"status"`
	Reason            string            `dynamodbav:"reason"`
	Note              string            `dynamodbav:"note,omitempty"`
	Reference         string            `dynamodbav:"reference,omitempty"`
	Metadata          map[string]string `dynamodbav:"metadata,omitempty"`
	RequestedBy       string            `dynamodbav:"requested_by"`
	PayerContact      string            `dynamodbav:"payer_contact,omitempty"`
	DueBy             *time.Time        `dynamodbav:"due_by,omitempty"`
	ProviderReference string            `dynamodbav:"provider_reference,omitempty"`
	ReturnedAt        *time.Time        `dynamodbav:"returned_at,omitempty"`
	RejectionReason   string            `dynamodbav:"rejection_reason,omitempty"`
	History           []refund.Entry    `dynamodbav:"history"`
	Version           int64             `dynamodbav:"version"`
	CreatedAt         time.Time         `dynamodbav:"created_at"`
	UpdatedAt         time.Time         `dynamodbav:"updated_at"`
	FollowUp          string            `dynamodbav:"follow,omitempty"`
	FollowUpAt        *time.Time        `dynamodbav:"follow_at,omitempty"`
	// The document the payment was priced from (absent for a standalone payment).
	DocumentKind string `dynamodbav:"document_kind,omitempty"`
	DocumentID   string `dynamodbav:"document_id,omitempty"`
	RequestHash  string `dynamodbav:"request_hash,omitempty"`
	// WebhookURL is the payment's, copied at create; Events the refund's webhook events with
	// their delivery state; W counts the item's writes (every write is conditional on it).
	WebhookURL string        `dynamodbav:"webhook_url,omitempty"`
	Events     []refundEvent `dynamodbav:"ev,omitempty"`
	W          int64         `dynamodbav:"w,omitempty"`
}

// refundEvent is one webhook event of a refund as stored: short names and unix seconds, as
// the refund item's size prices every write of it (decision 116). The kind is stored as the
// status it reports (refund.EventKind gives the type back).
type refundEvent struct {
	ID       string            `dynamodbav:"i"`
	Status   refund.Status     `dynamodbav:"k"`
	Delivery string            `dynamodbav:"s"`
	Created  time.Time         `dynamodbav:"c,unixtime"`
	Next     time.Time         `dynamodbav:"x,unixtime"`
	Attempts int               `dynamodbav:"n,omitempty"`
	Last     *time.Time        `dynamodbav:"a,omitempty,unixtime"`
	HTTP     int               `dynamodbav:"h,omitempty"`
	Detail   string            `dynamodbav:"d,omitempty"`
	Log      []payment.Attempt `dynamodbav:"l,omitempty"`
}

// storedWake is r's WakeAt as the item stores it (its events' times in whole seconds), so the
// key a write computes is the one the next write computes from what it reads.
func storedWake(r *refund.Refund, evs []refundEvent) (time.Time, bool) {
	c := *r
	c.Events = fromRefundEvents(evs)
	return c.WakeAt()
}

func toRefundEvents(ds []payment.Delivery) []refundEvent {
	out := make([]refundEvent, len(ds))
	for i, d := range ds {
		out[i] = refundEvent{ID: d.EventID, Status: refund.Status(strings.ToUpper(strings.TrimPrefix(d.Kind, "refund."))),
			Delivery: d.Status, Created: d.CreatedAt.UTC().Truncate(time.Second), Next: d.NextAttemptAt.UTC().Truncate(time.Second), Attempts: d.Attempts,
			Last: d.LastAttemptAt, HTTP: d.LastHTTPStatus, Detail: d.Detail, Log: d.AttemptLog}
	}
	return out
}

func fromRefundEvents(es []refundEvent) []payment.Delivery {
	if len(es) == 0 {
		return nil
	}
	out := make([]payment.Delivery, len(es))
	for i, e := range es {
		out[i] = payment.Delivery{EventID: e.ID, Kind: refund.EventKind(e.Status), Status: e.Delivery,
			CreatedAt: e.Created.UTC(), NextAttemptAt: e.Next.UTC(), Attempts: e.Attempts, LastAttemptAt: e.Last,
			LastHTTPStatus: e.HTTP, Detail: e.Detail, AttemptLog: e.Log}
	}
	return out
}

func toRefundItem(r *refund.Refund) refundItem {
	it := refundItem{
		PK: refundPK(r.WorkspaceID, r.Environment), SK: r.ID, PaymentID: r.PaymentID, AmountMinor: int64(r.AmountMinor),
		Currency: r.Currency, Status: string(r.Status), Reason: string(r.Reason), Note: r.Note, Reference: r.Reference,
		Metadata: r.Metadata, RequestedBy: string(r.RequestedBy), PayerContact: r.PayerContact, DueBy: r.DueBy, ProviderReference: r.ProviderReference,
		ReturnedAt: r.ReturnedAt, RejectionReason: r.RejectionReason, History: r.History, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), FollowUp: string(r.FollowUp),
		DocumentKind: string(r.Document.Kind), DocumentID: r.Document.ID,
		WebhookURL: r.WebhookURL, Events: toRefundEvents(r.Events), W: r.Writes,
	}
	it.RequestHash = r.RequestHash
	if r.FollowUp != refund.NoFollowUp {
		at := r.FollowUpAt.UTC()
		it.FollowUpAt = &at
	}
	// One GSI2 entry serves the repair pass and the webhook re-drive: the refund sits under
	// REFUNDFIX# while it owes a follow-up or has an event pending, at the earliest (decision 116).
	if at, ok := storedWake(r, it.Events); ok {
		it.GSI2PK, it.GSI2SK = refundFixPK(r.ID), formatTime(at.UTC())+"#"+r.ID
	}
	return it
}

func decodeRefund(item map[string]types.AttributeValue) (*refund.Refund, error) {
	var it refundItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode refund item: %w", err)
	}
	ws, env, ok := parseRefundPK(it.PK)
	if !ok {
		return nil, fmt.Errorf("refund item key %q", it.PK)
	}
	r := &refund.Refund{
		ID: it.SK, WorkspaceID: ws, Environment: env, PaymentID: it.PaymentID, AmountMinor: money.Paisa(it.AmountMinor),
		Currency: it.Currency, Status: refund.Status(it.Status), Reason: refund.Reason(it.Reason), Note: it.Note,
		Reference: it.Reference, Metadata: it.Metadata, RequestedBy: refund.Requester(it.RequestedBy), PayerContact: it.PayerContact, DueBy: it.DueBy,
		ProviderReference: it.ProviderReference, ReturnedAt: it.ReturnedAt, RejectionReason: it.RejectionReason,
		History: it.History, Version: it.Version, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
		FollowUp: refund.FollowUp(it.FollowUp), Document: refund.Document{Kind: payment.SourceKind(it.DocumentKind), ID: it.DocumentID},
		WebhookURL: it.WebhookURL, Events: fromRefundEvents(it.Events), Writes: it.W,
	}
	if it.FollowUpAt != nil {
		r.FollowUpAt = *it.FollowUpAt
	}
	r.RequestHash = it.RequestHash
	return r, nil
}

func parseRefundPK(pk string) (string, auth.Environment, bool) {
	rest, ok := strings.CutPrefix(pk, "REFUND#")
	if !ok {
		return "", "", false
	}
	ws, env, ok := strings.Cut(rest, "#")
	return ws, auth.Environment(env), ok && ws != "" && env != ""
}

// RefundPayment reads a payment with its refund ledger (one consistent GetItem; nil when
// absent or past its retention).
func (s *Store) RefundPayment(ctx context.Context, paymentID string) (*refund.Payment, error) {
	if !validID(paymentID) {
		return nil, nil
	}
	item, err := s.get(ctx, paymentPK(paymentID), "PAY")
	if err != nil || item == nil || !retained(item, time.Now()) {
		return nil, err
	}
	return decodeRefundPayment(item)
}

func decodeRefundPayment(item map[string]types.AttributeValue) (*refund.Payment, error) {
	var it paymentItem // the payment with its ledger's totals
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode payment item: %w", err)
	}
	p := it.payment()
	var l struct { // the ledger's maps
		Claims  map[string]int64 `dynamodbav:"refund_claims"`
		Counted map[string]int64 `dynamodbav:"refund_counted"`
		Payer   string           `dynamodbav:"refund_payer"`
	}
	if err := attributevalue.UnmarshalMap(item, &l); err != nil {
		return nil, fmt.Errorf("decode refund ledger: %w", err)
	}
	out := &refund.Payment{ID: p.InvoiceID, WorkspaceID: p.WorkspaceID, Environment: p.Environment, Status: p.Status,
		AmountMinor: p.AmountMinor, Promised: money.Paisa(it.RefundPromised), Returned: money.Paisa(it.RefundReturned),
		Document: refund.DocumentOf(p), WebhookURL: p.WebhookURL, PayerRequest: l.Payer}
	if l.Claims != nil {
		out.Claims = make(map[string]money.Paisa, len(l.Claims))
		for id, v := range l.Claims {
			out.Claims[id] = money.Paisa(v)
		}
	}
	if l.Counted != nil {
		out.Counted = make(map[string]bool, len(l.Counted))
		for id := range l.Counted {
			out.Counted[id] = true
		}
	}
	return out, nil
}

// PutRefund writes a new refund (one conditional PutItem); when the id is taken it returns
// refund.ErrExists and the stored refund (one more GetItem).
func (s *Store) PutRefund(ctx context.Context, r *refund.Refund) (*refund.Refund, error) {
	if !validID(r.ID) || !validID(r.WorkspaceID) {
		return nil, fmt.Errorf("refund id %q or workspace %q is not a key", r.ID, r.WorkspaceID)
	}
	r.Writes = 1
	err := s.putNew(ctx, toRefundItem(r))
	if err == nil {
		return r, nil
	}
	if !isConditionFailed(err) {
		return nil, err
	}
	stored, err := s.GetRefund(ctx, r.WorkspaceID, r.Environment, r.ID)
	if err != nil {
		return nil, err
	}
	if stored == nil {
		return nil, fmt.Errorf("refund %s vanished after a conditional failure", r.ID)
	}
	return stored, refund.ErrExists
}

// GetRefund reads a refund with one consistent GetItem (nil when absent).
func (s *Store) GetRefund(ctx context.Context, ws string, env auth.Environment, id string) (*refund.Refund, error) {
	if !validID(id) || !validID(ws) {
		return nil, nil
	}
	item, err := s.get(ctx, refundPK(ws, env), id)
	if err != nil || item == nil {
		return nil, err
	}
	return decodeRefund(item)
}

// UpdateRefund replaces prev by next with one PutItem conditional on prev's version, status,
// follow-up and write count (next is written as prev's next write: next.Writes is set);
// refund.ErrStateChanged when the refund is not as read. A delivery attempt (package webhook)
// writes through here too, so it and a transition never overwrite each other's change.
func (s *Store) UpdateRefund(ctx context.Context, prev, next *refund.Refund) error {
	next.Writes = prev.Writes + 1
	av, err := marshalItem(toRefundItem(next))
	if err != nil {
		return err
	}
	cond := "attribute_exists(pk) AND version = :v AND #status = :st AND "
	vals := map[string]types.AttributeValue{
		":v":  &types.AttributeValueMemberN{Value: strconv.FormatInt(prev.Version, 10)},
		":st": &types.AttributeValueMemberS{Value: string(prev.Status)},
	}
	if prev.Writes == 0 { // an item written before the count
		cond += "attribute_not_exists(w) AND "
	} else {
		cond += "w = :w AND "
		vals[":w"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(prev.Writes, 10)}
	}
	if prev.FollowUp == refund.NoFollowUp {
		cond += "attribute_not_exists(follow)"
	} else {
		cond += "follow = :f"
		vals[":f"] = &types.AttributeValueMemberS{Value: string(prev.FollowUp)}
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.Table), Item: av, ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: map[string]string{"#status": "status"}, ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) {
		return refund.ErrStateChanged
	}
	return err
}

// ledgerWrite is one attempt at a payment ledger step: its update of an entry of a map
// attribute that exists, and the update that writes the map whole when it does not yet.
type ledgerWrite struct {
	paymentID, refundID string
	// item is the key written (nil: the payment's).
	item         map[string]types.AttributeValue
	mapAttr      string
	update, cond string
	firstUpdate  string
	firstCond    string
	vals         map[string]types.AttributeValue
	// wrote is what a write that applied means (Claimed for a claim, Closed for a void).
	wrote refund.Claim
}

// runLedger tries a ledger write (first: the one that writes the map whole); a write that
// fails its condition (or finds the map missing) answers errCondition, classified from a read.
func (s *Store) runLedger(ctx context.Context, w ledgerWrite, first bool) error {
	update, cond := w.update, w.cond
	if first {
		update, cond = w.firstUpdate, w.firstCond
	}
	// DynamoDB refuses names and values an expression does not use: pass only those it does.
	expr := update + " " + cond
	names := map[string]string{}
	for k, v := range map[string]string{"#id": w.refundID, "#m": w.mapAttr, "#status": "status"} {
		if strings.Contains(expr, k) {
			names[k] = v
		}
	}
	vals := map[string]types.AttributeValue{}
	for k, v := range w.vals {
		if strings.Contains(expr, k) {
			vals[k] = v
		}
	}
	k := w.item
	if k == nil {
		k = key(paymentPK(w.paymentID), "PAY")
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       k,
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_exists(pk) AND " + cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
	})
	if isConditionFailed(err) || isPathInvalid(err) {
		return errCondition
	}
	return err
}

var errCondition = errors.New("ledger condition failed")

// isPathInvalid reports the error of an update of a map entry whose map does not exist.
func isPathInvalid(err error) bool {
	return err != nil && strings.Contains(err.Error(), "document path provided in the update expression is invalid")
}

func num(n money.Paisa) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(n), 10)}
}

// ClaimRefund counts amount for refundID on the payment (refund.Store): one conditional
// UpdateItem when it applies; when its condition fails, one GetItem says why (and the first
// claim of a payment writes the map whole).
func (s *Store) ClaimRefund(ctx context.Context, paymentID, refundID string, amount, maxPromised money.Paisa) (refund.Claim, error) {
	if maxPromised < 0 {
		return refund.OverLimit, nil
	}
	w := ledgerWrite{paymentID: paymentID, refundID: refundID, mapAttr: attrClaims,
		update:      "SET #m.#id = :amt, " + attrPromised + " = " + attrPromised + " + :amt",
		cond:        "#status = :completed AND attribute_exists(#m) AND attribute_not_exists(#m.#id) AND " + attrPromised + " <= :max",
		firstUpdate: "SET #m = :first, " + attrPromised + " = :amt",
		firstCond:   "#status = :completed AND attribute_not_exists(#m) AND attribute_not_exists(" + attrPromised + ")",
		vals: map[string]types.AttributeValue{":amt": num(amount), ":max": num(maxPromised),
			":completed": &types.AttributeValueMemberS{Value: string(payment.Completed)},
			":first":     &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{refundID: num(amount)}}},
	}
	return s.ledgerStep(ctx, w, func(p *refund.Payment) (refund.Claim, bool) {
		if p.Status != payment.Completed {
			return refund.NotCompleted, true
		}
		if p.Promised > maxPromised {
			return refund.OverLimit, true
		}
		return 0, false
	})
}

// VoidClaim closes refundID on the payment unless it is claimed (refund.Store).
func (s *Store) VoidClaim(ctx context.Context, paymentID, refundID string) (refund.Claim, error) {
	w := ledgerWrite{paymentID: paymentID, refundID: refundID, mapAttr: attrClaims, wrote: refund.Closed,
		update:      "SET #m.#id = :zero",
		cond:        "attribute_exists(#m) AND attribute_not_exists(#m.#id)",
		firstUpdate: "SET #m = :first, " + attrPromised + " = if_not_exists(" + attrPromised + ", :zero)",
		firstCond:   "attribute_not_exists(#m)",
		vals: map[string]types.AttributeValue{":zero": num(0),
			":first": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{refundID: num(0)}}},
	}
	c, err := s.ledgerStep(ctx, w, func(*refund.Payment) (refund.Claim, bool) { return 0, false })
	if c == refund.Claimed && err == nil {
		return c, nil
	}
	return refund.Closed, err
}

// ledgerStep runs a claim or a void: the entry's write, else a read that classifies the
// failure — the id already seen on the payment (Claimed or Closed), refused (as refuse
// says), the map missing (the first write), or a race lost (again).
func (s *Store) ledgerStep(ctx context.Context, w ledgerWrite, refuse func(*refund.Payment) (refund.Claim, bool)) (refund.Claim, error) {
	first := false
	for range 8 {
		err := s.runLedger(ctx, w, first)
		if err == nil {
			return w.wrote, nil
		}
		if !errors.Is(err, errCondition) {
			return 0, err
		}
		p, err := s.RefundPayment(ctx, w.paymentID)
		if err != nil {
			return 0, err
		}
		if p == nil {
			return refund.NotCompleted, nil
		}
		if v, seen := p.Claims[w.refundID]; seen {
			if v > 0 {
				return refund.Claimed, nil
			}
			return refund.Closed, nil
		}
		if c, refused := refuse(p); refused {
			return c, nil
		}
		first = p.Claims == nil
	}
	return 0, fmt.Errorf("ledger step on payment %s: too many lost races", w.paymentID)
}

// ReleaseClaim gives refundID's amount back (refund.Store): one UpdateItem conditional on the
// claim being there with that amount; nothing when it is not (released already).
func (s *Store) ReleaseClaim(ctx context.Context, paymentID, refundID string, amount money.Paisa) error {
	err := s.runLedger(ctx, ledgerWrite{paymentID: paymentID, refundID: refundID, mapAttr: attrClaims,
		update: "SET #m.#id = :zero, " + attrPromised + " = " + attrPromised + " - :amt",
		cond:   "#m.#id = :amt AND attribute_exists(#status)",
		vals:   map[string]types.AttributeValue{":zero": num(0), ":amt": num(amount)},
	}, false)
	if errors.Is(err, errCondition) {
		return nil
	}
	return err
}

// CountReturned adds amount to refund_returned once per refundID (refund.Store).
func (s *Store) CountReturned(ctx context.Context, paymentID, refundID string, amount money.Paisa) error {
	w := ledgerWrite{paymentID: paymentID, refundID: refundID, mapAttr: attrCounted,
		update:      "SET #m.#id = :amt, " + attrReturned + " = " + attrReturned + " + :amt",
		cond:        "attribute_exists(#m) AND attribute_not_exists(#m.#id) AND attribute_exists(#status)",
		firstUpdate: "SET #m = :first, " + attrReturned + " = :amt",
		firstCond:   "attribute_not_exists(#m) AND attribute_exists(#status)",
		vals: map[string]types.AttributeValue{":amt": num(amount),
			":first": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{refundID: num(amount)}}},
	}
	first := false
	for range 8 {
		err := s.runLedger(ctx, w, first)
		if !errors.Is(err, errCondition) {
			return err
		}
		p, err := s.RefundPayment(ctx, paymentID)
		if err != nil || p == nil || p.Counted[refundID] {
			return err
		}
		first = p.Counted == nil
	}
	return fmt.Errorf("count refund %s on payment %s: too many lost races", refundID, paymentID)
}

// CountDocumentRefund adds a RETURNED refund's amount to the record of the invoice or payment
// link its payment was priced from (refund.Store), once per refund id: refunds.<refund id> =
// amount on the document item, on condition that the id is not there yet (the record's
// refunded_minor is the map's sum, decodeDocument). One UpdateItem; the document's first
// refund writes the map whole, on condition that it is still missing (one failed write more,
// once per document). A repeat finds its id and writes nothing; a document that is gone has
// nothing to learn. Nothing for a refund of a standalone payment.
func (s *Store) CountDocumentRefund(ctx context.Context, r *refund.Refund) error {
	if r.Document.ID == "" {
		return nil
	}
	w := ledgerWrite{refundID: r.ID, mapAttr: attrDocRefunds,
		item:        key(docPK(r.WorkspaceID, r.Environment, document.Kind(r.Document.Kind)), r.Document.ID),
		update:      "SET #m.#id = :amt",
		cond:        "attribute_exists(#m) AND attribute_not_exists(#m.#id)",
		firstUpdate: "SET #m = :first",
		firstCond:   "attribute_exists(pk) AND attribute_not_exists(#m)", // never a document out of nothing
		vals: map[string]types.AttributeValue{":amt": num(r.AmountMinor),
			":first": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{r.ID: num(r.AmountMinor)}}},
	}
	// The entry, else the map (the first refund), else the entry again (another refund wrote
	// the map meanwhile): a third refusal means the id is counted already, or no document.
	for _, first := range []bool{false, true, false} {
		if err := s.runLedger(ctx, w, first); !errors.Is(err, errCondition) {
			return err // written (nil), or failed
		}
	}
	return nil
}

// RefundFollowUps lists refunds whose follow-up was due before dueBefore (refund.Store): one
// keys-only GSI2 Query per shard.
func (s *Store) RefundFollowUps(ctx context.Context, dueBefore time.Time, limit int) ([]refund.Ref, error) {
	return sweepGSI2(ctx, s, refundFixPrefix, RefundShards, formatTime(dueBefore), limit, func(item map[string]types.AttributeValue) (refund.Ref, bool) {
		pkv, _ := item["pk"].(*types.AttributeValueMemberS)
		skv, _ := item["sk"].(*types.AttributeValueMemberS)
		if pkv == nil || skv == nil {
			return refund.Ref{}, false
		}
		ws, env, ok := parseRefundPK(pkv.Value)
		return refund.Ref{WorkspaceID: ws, Environment: env, ID: skv.Value}, ok
	})
}
