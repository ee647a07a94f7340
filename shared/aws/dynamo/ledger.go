package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// Store implements intent.Ledger. A linked intent's event waits for its document follow-up
// under GSI2 SETTLE#<shard> / <when it was recorded>#<event id>, from the terminal write that
// recorded it (outboxSet) until FinishSettlement moves it on.

var _ intent.Ledger = (*Store)(nil)

const settlePrefix = "SETTLE#"

func (s *Store) settlePK(invoiceID string) string { return settlePrefix + s.shard(invoiceID) }

// SettlePending lists events whose document follow-up is still to do (every GSI2 settle shard,
// keys only; at most limit).
func (s *Store) SettlePending(ctx context.Context, limit int) ([]payment.EventRef, error) {
	keys, err := s.sweep(ctx, settlePrefix, "~", limit)
	if err != nil {
		return nil, err
	}
	out := make([]payment.EventRef, 0, len(keys))
	for _, k := range keys {
		_, eventID, ok := strings.Cut(k.sk, "#")
		if !ok {
			return nil, fmt.Errorf("gsi2 settle key %q has no event id", k.sk)
		}
		out = append(out, payment.EventRef{InvoiceID: k.invoiceID, EventID: eventID})
	}
	return out, nil
}

// FinishSettlement marks the event of p (as last read) settled and moves the intent from the
// settle index to where its delivery stands: under OUTBOX# by its next attempt while it is
// pending, out of GSI2 once it is delivered or failed. One conditional UpdateItem: the event
// must still be unsettled and its delivery exactly as read (status and next attempt), so an
// attempt recorded meanwhile makes it fail with payment.ErrStateChanged and the current
// payment, to be placed again.
func (s *Store) FinishSettlement(ctx context.Context, p *payment.Payment) (*payment.Payment, error) {
	ob := p.Outbox
	vals := map[string]types.AttributeValue{
		":t":   &types.AttributeValueMemberBOOL{Value: true},
		":eid": &types.AttributeValueMemberS{Value: ob.EventID},
		":st":  &types.AttributeValueMemberS{Value: ob.Status},
	}
	update := "SET outbox.settled = :t REMOVE gsi2pk, gsi2sk"
	cond := "outbox.event_id = :eid AND attribute_not_exists(outbox.settled) AND outbox.#st = :st"
	if ob.Status == payment.DeliveryPending {
		vals[":next"] = &types.AttributeValueMemberS{Value: formatTime(ob.NextAttemptAt)}
		vals[":g2pk"] = &types.AttributeValueMemberS{Value: s.outboxPK(p.InvoiceID)}
		vals[":g2sk"] = &types.AttributeValueMemberS{Value: outboxSK(ob.NextAttemptAt, ob.EventID)}
		update = "SET outbox.settled = :t, gsi2pk = :g2pk, gsi2sk = :g2sk"
		cond += " AND outbox.next_attempt_at = :next"
	}
	return s.updatePayment(ctx, p.InvoiceID, update, cond, map[string]string{"#st": "status"}, vals)
}

// RetainSnapshot gives a linked intent's snapshot item its ttl (one UpdateItem; none when the
// intent has no snapshot, or it is not stored).
func (s *Store) RetainSnapshot(ctx context.Context, p *payment.Payment, until time.Time) error {
	if p.SnapshotKey == "" {
		return nil
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(paymentPK(p.InvoiceID), p.SnapshotKey),
		UpdateExpression:          aws.String("SET #ttl = :ttl"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": epochSeconds(until)},
	})
	if isConditionFailed(err) {
		return nil
	}
	return err
}

// linkedDocKey is the key of the document a linked intent was priced from.
func linkedDocKey(p *payment.Payment) map[string]types.AttributeValue {
	return key(docPK(p.WorkspaceID, p.Environment, document.Kind(p.Source.Kind)), p.Source.DocumentID)
}

// ApplyOutcome records a linked intent's terminal status on its document with one conditional
// UpdateItem, as e (intent.EffectOf) says: the payments entry is appended, a COMPLETED
// intent's amount is added, a payment link's reserved use is released by any other outcome,
// and the intent id joins the document's in-flight set — all on the condition that the id is
// not in that set, so a second application changes nothing. The amount goes to paid_minor
// while the document is open (issued, active); on a closed one (cancelled, archived) it goes
// to paid_after_close_minor and the entry says after_close — decided by the write's own
// condition, so a close racing the outcome cannot hide it. A document that no longer exists
// (documents are never deleted) has nothing to learn.
func (s *Store) ApplyOutcome(ctx context.Context, p *payment.Payment, e intent.Effect) error {
	if !p.Linked() || p.FinishedAt == nil || !p.Status.Terminal() {
		return fmt.Errorf("apply outcome: %s is not a finished linked intent", p.InvoiceID)
	}
	apply := func(afterClose bool) error {
		// A document.PaymentRef as the document item stores it.
		entry := map[string]types.AttributeValue{
			"i": &types.AttributeValueMemberS{Value: p.InvoiceID},
			"s": &types.AttributeValueMemberS{Value: string(p.Status)},
			"a": &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(p.AmountMinor), 10)},
			"t": &types.AttributeValueMemberS{Value: formatTime(*p.FinishedAt)},
		}
		if afterClose {
			entry["c"] = &types.AttributeValueMemberBOOL{Value: true}
		}
		update := "SET payments = list_append(if_not_exists(payments, :none), :ref) ADD applying :ids"
		vals := map[string]types.AttributeValue{
			":ref":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: entry}}},
			":none": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":ids":  &types.AttributeValueMemberSS{Value: []string{p.InvoiceID}},
			":id":   &types.AttributeValueMemberS{Value: p.InvoiceID},
		}
		cond := "attribute_exists(pk) AND NOT contains(applying, :id)"
		var names map[string]string
		if e.Paid > 0 {
			vals[":amount"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(e.Paid, 10)}
			names = map[string]string{"#status": "status"}
			if afterClose {
				update += ", paid_after_close_minor :amount"
				cond += " AND #status IN (:cancelled, :archived)"
				vals[":cancelled"] = &types.AttributeValueMemberS{Value: document.StatusCancelled}
				vals[":archived"] = &types.AttributeValueMemberS{Value: document.StatusArchived}
			} else {
				update += ", paid_minor :amount"
				cond += " AND #status IN (:issued, :active)"
				vals[":issued"] = &types.AttributeValueMemberS{Value: document.StatusIssued}
				vals[":active"] = &types.AttributeValueMemberS{Value: document.StatusActive}
			}
		}
		switch {
		case e.ReleaseUse:
			update += ", uses :release"
			vals[":release"] = &types.AttributeValueMemberN{Value: "-1"}
		case e.CountUse:
			update += ", uses :count"
			vals[":count"] = &types.AttributeValueMemberN{Value: "1"}
		}
		if e.DropHold {
			// Removing a hold that is gone already (dropped as expired) changes nothing.
			if names == nil {
				names = map[string]string{}
			}
			names["#hold"] = e.HoldID
			update += " REMOVE holds.#hold"
		}
		_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.Table),
			Key:                       linkedDocKey(p),
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: vals,
		})
		return err
	}
	err := apply(false)
	if isConditionFailed(err) && e.Paid > 0 {
		err = apply(true) // the document was closed: the money is recorded as paid after close
	}
	if isConditionFailed(err) {
		return nil // applied already (or no such document)
	}
	return err
}

// DocumentStatus reads the status of the document a linked intent was priced from (one
// strongly consistent GetItem of that attribute); "" when there is none.
func (s *Store) DocumentStatus(ctx context.Context, p *payment.Payment) (string, error) {
	if !p.Linked() {
		return "", nil
	}
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.Table), Key: linkedDocKey(p), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#status"), ExpressionAttributeNames: map[string]string{"#status": "status"},
	})
	if err != nil {
		return "", err
	}
	v, _ := out.Item["status"].(*types.AttributeValueMemberS)
	if v == nil {
		return "", nil
	}
	return v.Value, nil
}

// ClaimSettlement takes the event's follow-up until until (one conditional UpdateItem: the
// event must be the intent's, not applied, and not held by an unexpired claim).
func (s *Store) ClaimSettlement(ctx context.Context, invoiceID, eventID string, now, until time.Time) (bool, error) {
	_, err := s.updatePayment(ctx, invoiceID, "SET outbox.claim = :until",
		"outbox.event_id = :eid AND attribute_not_exists(outbox.applied) AND (attribute_not_exists(outbox.claim) OR outbox.claim < :now)",
		nil, map[string]types.AttributeValue{
			":until": &types.AttributeValueMemberS{Value: formatTime(until)},
			":now":   &types.AttributeValueMemberS{Value: formatTime(now)},
			":eid":   &types.AttributeValueMemberS{Value: eventID},
		})
	if errors.Is(err, payment.ErrStateChanged) {
		return false, nil
	}
	return err == nil, err
}

// MarkApplied records in the intent's outbox that its document has the outcome (one
// conditional UpdateItem: the event must still be the intent's, and the claim the caller's).
func (s *Store) MarkApplied(ctx context.Context, invoiceID, eventID string, claim time.Time) error {
	_, err := s.updatePayment(ctx, invoiceID, "SET outbox.applied = :t", "outbox.event_id = :eid AND outbox.claim = :claim",
		nil, map[string]types.AttributeValue{
			":t":     &types.AttributeValueMemberBOOL{Value: true},
			":eid":   &types.AttributeValueMemberS{Value: eventID},
			":claim": &types.AttributeValueMemberS{Value: formatTime(claim)},
		})
	return err
}

// Forget removes the intent id from its document's in-flight set (one UpdateItem; repeating it
// is harmless). The payments list grows by appends; once it holds twice the record's window,
// the call that sees it trims it back to the window with a second, conditional write (the
// list must still have the length it saw, or the trim is left to a later settle).
func (s *Store) Forget(ctx context.Context, p *payment.Payment) error {
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 linkedDocKey(p),
		UpdateExpression:    aws.String("DELETE applying :ids"),
		ConditionExpression: aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":ids": &types.AttributeValueMemberSS{Value: []string{p.InvoiceID}},
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return nil // no such document
	}
	if err != nil {
		return err
	}
	list, _ := out.Attributes["payments"].(*types.AttributeValueMemberL)
	if list == nil || len(list.Value) < 2*document.PaymentsWindow {
		return nil
	}
	n := len(list.Value)
	drop := make([]string, 0, n-document.PaymentsWindow)
	for i := range n - document.PaymentsWindow {
		drop = append(drop, "payments["+strconv.Itoa(i)+"]")
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 linkedDocKey(p),
		UpdateExpression:    aws.String("REMOVE " + strings.Join(drop, ", ")),
		ConditionExpression: aws.String("size(payments) = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)},
		},
	})
	if isConditionFailed(err) {
		return nil // another outcome changed the list meanwhile: a later call trims it
	}
	return err
}

// Deliveries reads the webhook deliveries of payment intents: one BatchGetItem (100 keys a
// call) of their webhook_url and outbox; intents without either have none.
func (s *Store) Deliveries(ctx context.Context, intentIDs []string) ([]document.Delivery, error) {
	var out []document.Delivery
	for start := 0; start < len(intentIDs); start += 100 {
		var keys []map[string]types.AttributeValue
		for _, id := range intentIDs[start:min(start+100, len(intentIDs))] {
			keys = append(keys, key(paymentPK(id), "PAY"))
		}
		items, err := s.batchGet(ctx, keys, "webhook_url, outbox")
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			// Read by hand: the documents function links no payment decoding.
			ob, _ := item["outbox"].(*types.AttributeValueMemberM)
			if _, hook := item["webhook_url"]; !hook || ob == nil {
				continue
			}
			str := func(name string) string {
				v, _ := ob.Value[name].(*types.AttributeValueMemberS)
				if v == nil {
					return ""
				}
				return v.Value
			}
			created, err := time.Parse(time.RFC3339Nano, str("created_at"))
			if err != nil {
				return nil, fmt.Errorf("payment outbox created_at: %w", err)
			}
			out = append(out, document.Delivery{ID: str("event_id"), Kind: str("kind"), Status: str("status"), CreatedAt: created})
		}
	}
	return out, nil
}
