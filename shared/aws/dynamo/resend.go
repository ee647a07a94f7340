package dynamo

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/payment"
)

// Resending a payment's webhook event (webhook.Resend: paymentsctl webhook resend and the
// dashboard's Resend button, DashboardPaymentsFunction).

// priorAttr counts the attempts an event made before operators resent it (outbox.prior, set
// by ResendDelivery only, so no other event's item grows): the attempts counter restarts at
// 0 with each resend, because the retry schedule (and the new SQS message's receive count,
// which sends it to the dead-letter queue) counts from the resend.
const priorAttr = "prior"

// WebhookDelivery reads a payment and the attempts its event made before being resent (one
// strongly consistent GetItem); nil when there is no such payment.
func (s *Store) WebhookDelivery(ctx context.Context, invoiceID string) (*payment.Payment, int, error) {
	item, err := s.get(ctx, paymentPK(invoiceID), "PAY")
	if err != nil || item == nil {
		return nil, 0, err
	}
	p, err := decodePayment(item)
	if err != nil {
		return nil, 0, err
	}
	prior := 0
	if ob, ok := item["outbox"].(*types.AttributeValueMemberM); ok {
		if n, ok := ob.Value[priorAttr].(*types.AttributeValueMemberN); ok {
			prior, _ = strconv.Atoi(n.Value)
		}
	}
	return p, prior, nil
}

// ResendDelivery makes the payment's event (seen as prev) due now, so that the message the
// operator enqueues next is sent, with one conditional UpdateItem that requires the event to be
// exactly as seen (the same id, status and attempts). A pending event only moves its next
// attempt to now. A delivered or failed one becomes pending again: its attempts restart at 0
// (the count so far is added to outbox.prior), its last attempt's time and HTTP status stay,
// detail says it was resent, and the payment goes back under GSI2 OUTBOX#<shard> with its
// next attempt due now — so if the enqueue is lost, the re-drive re-enqueues the event once it
// is overdue, as for any new event. It returns the payment as written, or
// payment.ErrStateChanged with the current payment when the event changed meanwhile.
func (s *Store) ResendDelivery(ctx context.Context, invoiceID string, prev *payment.Delivery, detail string, now time.Time) (*payment.Payment, error) {
	vals := map[string]types.AttributeValue{
		":eid":  &types.AttributeValueMemberS{Value: prev.EventID},
		":st":   &types.AttributeValueMemberS{Value: prev.Status},
		":now":  &types.AttributeValueMemberS{Value: formatTime(now)},
		":g2pk": &types.AttributeValueMemberS{Value: s.outboxPK(invoiceID)},
		":g2sk": &types.AttributeValueMemberS{Value: outboxSK(now, prev.EventID)},
	}
	names := map[string]string{"#st": "status"}
	update := "SET outbox.next_attempt_at = :now, gsi2pk = :g2pk, gsi2sk = :g2sk"
	// A linked intent's event stays in the settle index until its document has the outcome
	// (FinishSettlement places it then): a resend never moves it out early.
	cond := "outbox.event_id = :eid AND outbox.#st = :st AND (attribute_not_exists(src) OR attribute_exists(outbox.settled))"
	if prev.Status != payment.DeliveryPending {
		vals[":pending"] = &types.AttributeValueMemberS{Value: payment.DeliveryPending}
		vals[":n"] = &types.AttributeValueMemberN{Value: strconv.Itoa(prev.Attempts)}
		vals[":zero"] = &types.AttributeValueMemberN{Value: "0"}
		vals[":detail"] = &types.AttributeValueMemberS{Value: detail}
		update += ", outbox.#st = :pending, outbox.attempts = :zero, outbox.detail = :detail" +
			", outbox.#prior = if_not_exists(outbox.#prior, :zero) + :n"
		cond += " AND outbox.attempts = :n"
		names["#prior"] = priorAttr // a reserved word
	}
	return s.updatePayment(ctx, invoiceID, update, cond, names, vals)
}
