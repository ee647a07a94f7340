package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/money"
	"github.com/takapay/payments/shared/payment"
)

type paymentItem struct {
	PK              string            `dynamodbav:"pk"`
	SK              string            `dynamodbav:"sk"`
	GSI2PK          string            `dynamodbav:"gsi2pk,omitempty"`
	GSI2SK          string            `dynamodbav:"gsi2sk,omitempty"`
	InvoiceID       string            `dynamodbav:"invoice_id"`
	WorkspaceID     string            `dynamodbav:"workspace_id"`
	Environment     string            `dynamodbav:"environment"`
	Status          string            `dynamodbav:"status"`
	AmountMinor     int64             `dynamodbav:"amount_minor"`
	Currency        string            `dynamodbav:"currency"`
	Reference       string            `dynamodbav:"reference"`
	RedirectURL     string            `dynamodbav:"redirect_url,omitempty"`
	CancelURL       string            `dynamodbav:"cancel_url,omitempty"`
	WebhookURL      string            `dynamodbav:"webhook_url,omitempty"`
	CustomerName    string            `dynamodbav:"customer_name,omitempty"`
	CustomerEmail   string            `dynamodbav:"customer_email,omitempty"`
	CustomerPhone   string            `dynamodbav:"customer_phone,omitempty"`
	Metadata        string            `dynamodbav:"metadata,omitempty"`
	CheckoutHash    []byte            `dynamodbav:"checkout_hash"`
	IdempotencyKey  string            `dynamodbav:"idempotency_key,omitempty"`
	RequestHash     string            `dynamodbav:"request_hash"`
	CreatedAt       time.Time         `dynamodbav:"created_at"`
	UpdatedAt       time.Time         `dynamodbav:"updated_at"`
	FirstVerifiedAt *time.Time        `dynamodbav:"first_verified_at,omitempty"`
	ExpiresAt       time.Time         `dynamodbav:"expires_at"`
	MerchantName    string            `dynamodbav:"merchant_name,omitempty"`
	LockRoute       string            `dynamodbav:"lock_route,omitempty"`
	LockPayer       string            `dynamodbav:"lock_payer,omitempty"`
	LockedAt        *time.Time        `dynamodbav:"locked_at,omitempty"`
	FinishedAt      *time.Time        `dynamodbav:"finished_at,omitempty"`
	Outbox          *payment.Delivery `dynamodbav:"outbox,omitempty"`
}

// GSI2 is sparse and follows a payment with a webhook_url through its life: while PENDING it
// sits in ExpiryPending (sort key: expires_at), so the scheduled sweep can expire it and emit
// payment.expired even if nobody looks at it again; once terminal, in OutboxPending (sort key:
// when the event's next attempt is due) until its event is delivered or failed; then nowhere.
const (
	ExpiryPending = "EXPIRY#PENDING"
	OutboxPending = "OUTBOX#PENDING"
)

// GSI2 is the name of the table's second global secondary index.
const GSI2 = "gsi2"

func paymentPK(invoiceID string) string { return "PAY#" + invoiceID }

func toPaymentItem(p *payment.Payment) paymentItem {
	return paymentItem{
		PK: paymentPK(p.InvoiceID), SK: "PAY",
		GSI2PK: expiryPK(p), GSI2SK: expirySK(p),
		InvoiceID: p.InvoiceID, WorkspaceID: p.WorkspaceID, Environment: string(p.Environment),
		Status: string(p.Status), AmountMinor: int64(p.AmountMinor), Currency: p.Currency, Reference: p.Reference,
		RedirectURL: p.RedirectURL, CancelURL: p.CancelURL, WebhookURL: p.WebhookURL,
		CustomerName: p.CustomerName, CustomerEmail: p.CustomerEmail, CustomerPhone: p.CustomerPhone,
		Metadata: p.Metadata, CheckoutHash: p.CheckoutHash,
		IdempotencyKey: p.IdempotencyKey, RequestHash: p.RequestHash,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), FirstVerifiedAt: p.FirstVerifiedAt,
		ExpiresAt: p.ExpiresAt.UTC(), MerchantName: p.MerchantName, LockRoute: p.LockRoute, LockPayer: p.LockPayer,
		LockedAt: p.LockedAt, FinishedAt: p.FinishedAt, Outbox: p.Outbox,
	}
}

func (it *paymentItem) payment() *payment.Payment {
	return &payment.Payment{
		InvoiceID: it.InvoiceID, WorkspaceID: it.WorkspaceID, Environment: auth.Environment(it.Environment),
		Status: payment.Status(it.Status), AmountMinor: money.Paisa(it.AmountMinor), Currency: it.Currency,
		Reference: it.Reference, RedirectURL: it.RedirectURL, CancelURL: it.CancelURL, WebhookURL: it.WebhookURL,
		CustomerName: it.CustomerName, CustomerEmail: it.CustomerEmail, CustomerPhone: it.CustomerPhone,
		Metadata: it.Metadata, CheckoutHash: it.CheckoutHash,
		IdempotencyKey: it.IdempotencyKey, RequestHash: it.RequestHash,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, FirstVerifiedAt: it.FirstVerifiedAt,
		ExpiresAt: it.ExpiresAt, MerchantName: it.MerchantName, LockRoute: it.LockRoute, LockPayer: it.LockPayer,
		LockedAt: it.LockedAt, FinishedAt: it.FinishedAt, Outbox: it.Outbox,
	}
}

func decodePayment(item map[string]types.AttributeValue) (*payment.Payment, error) {
	var it paymentItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode payment item: %w", err)
	}
	return it.payment(), nil
}

// CreatePayment writes the payment with one conditional PutItem. When the invoice id exists
// it returns payment.ErrExists and the stored payment: from the failed write itself on
// DynamoDB (ALL_OLD), or from one consistent GetItem where the server does not return it.
func (s *Store) CreatePayment(ctx context.Context, p *payment.Payment) (*payment.Payment, error) {
	av, err := marshalItem(toPaymentItem(p))
	if err != nil {
		return nil, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(s.Table),
		Item:                                av,
		ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return p, nil
	}
	if !isConditionFailed(err) {
		return nil, err
	}
	item := oldItem(err)
	if item == nil {
		if item, err = s.get(ctx, paymentPK(p.InvoiceID), "PAY"); err != nil {
			return nil, err
		}
	}
	if item == nil { // deleted in between: nothing to replay; the caller may retry
		return nil, fmt.Errorf("payment %s vanished after a conditional failure", p.InvoiceID)
	}
	existing, err := decodePayment(item)
	if err != nil {
		return nil, err
	}
	return existing, payment.ErrExists
}

// GetPayment reads a payment with one strongly consistent GetItem; nil when absent.
func (s *Store) GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error) {
	item, err := s.get(ctx, paymentPK(invoiceID), "PAY")
	if err != nil || item == nil {
		return nil, err
	}
	return decodePayment(item)
}

// MarkFirstVerified sets first_verified_at once, with one conditional UpdateItem.
func (s *Store) MarkFirstVerified(ctx context.Context, invoiceID string, at time.Time) (time.Time, bool, error) {
	ts := &types.AttributeValueMemberS{Value: formatTime(at)}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.Table),
		Key:                                 key(paymentPK(invoiceID), "PAY"),
		UpdateExpression:                    aws.String("SET first_verified_at = :t"),
		ConditionExpression:                 aws.String("attribute_exists(pk) AND attribute_not_exists(first_verified_at)"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":t": ts},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return at.UTC(), true, nil
	}
	if !isConditionFailed(err) {
		return time.Time{}, false, err
	}
	item := oldItem(err)
	if item == nil {
		if item, err = s.get(ctx, paymentPK(invoiceID), "PAY"); err != nil {
			return time.Time{}, false, err
		}
	}
	if item == nil {
		return time.Time{}, false, ErrNotFound
	}
	p, err := decodePayment(item)
	if err != nil {
		return time.Time{}, false, err
	}
	if p.FirstVerifiedAt == nil {
		return time.Time{}, false, fmt.Errorf("first_verified_at condition failed but is unset")
	}
	return *p.FirstVerifiedAt, false, nil
}

// updatePayment runs one conditional UpdateItem on a payment and returns the new state; when
// the condition fails it returns ErrStateChanged and the current state.
func (s *Store) updatePayment(ctx context.Context, invoiceID, update, cond string, names map[string]string, vals map[string]types.AttributeValue) (*payment.Payment, error) {
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.Table),
		Key:                                 key(paymentPK(invoiceID), "PAY"),
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String("attribute_exists(pk) AND " + cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           vals,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return decodePayment(out.Attributes)
	}
	if !isConditionFailed(err) {
		return nil, err
	}
	item := oldItem(err)
	if item == nil {
		if item, err = s.get(ctx, paymentPK(invoiceID), "PAY"); err != nil {
			return nil, err
		}
	}
	if item == nil {
		return nil, ErrNotFound
	}
	p, err := decodePayment(item)
	if err != nil {
		return nil, err
	}
	return p, payment.ErrStateChanged
}

// LockPayment records the payer's route and identity once: only a PENDING, unexpired,
// unlocked payment takes a lock (one conditional UpdateItem).
func (s *Store) LockPayment(ctx context.Context, invoiceID, route, payer string, now time.Time) (*payment.Payment, error) {
	return s.updatePayment(ctx, invoiceID,
		"SET lock_route = :route, lock_payer = :payer, locked_at = :now, updated_at = :now",
		"#status = :pending AND expires_at > :now AND attribute_not_exists(lock_route)",
		map[string]string{"#status": "status"},
		map[string]types.AttributeValue{
			":route":   &types.AttributeValueMemberS{Value: route},
			":payer":   &types.AttributeValueMemberS{Value: payer},
			":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
			":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
		})
}

// outboxSet adds the pending delivery to an update: set in the same conditional write as the
// state change, so an event is recorded if and only if the change happened.
func expiryPK(p *payment.Payment) string {
	if p.WebhookURL == "" || p.Status != payment.Pending {
		return ""
	}
	return ExpiryPending
}

func expirySK(p *payment.Payment) string {
	if expiryPK(p) == "" {
		return ""
	}
	return formatTime(p.ExpiresAt)
}

func outboxSet(update string, vals map[string]types.AttributeValue, d *payment.Delivery) (string, error) {
	if d == nil {
		return update + " REMOVE gsi2pk, gsi2sk", nil
	}
	av, err := attributevalue.MarshalWithOptions(d, func(o *attributevalue.EncoderOptions) {
		o.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
			return &types.AttributeValueMemberS{Value: formatTime(t)}, nil
		}
	})
	if err != nil {
		return "", err
	}
	vals[":outbox"] = av
	vals[":g2pk"] = &types.AttributeValueMemberS{Value: OutboxPending}
	vals[":g2sk"] = &types.AttributeValueMemberS{Value: formatTime(d.NextAttemptAt)}
	return update + ", outbox = :outbox, gsi2pk = :g2pk, gsi2sk = :g2sk", nil
}

// FinishPayment moves a PENDING, unexpired payment to a terminal status with one conditional
// UpdateItem whose condition names the state it leaves, so of two racing outcomes only one
// can win. requireLock demands that the payer has locked a route (provider outcomes). The
// webhook delivery d (nil for none) is recorded in the same write.
func (s *Store) FinishPayment(ctx context.Context, invoiceID string, to payment.Status, requireLock bool, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	cond := "#status = :pending AND expires_at > :now"
	if requireLock {
		cond += " AND attribute_exists(lock_route)"
	}
	vals := map[string]types.AttributeValue{
		":to":      &types.AttributeValueMemberS{Value: string(to)},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
	}
	update, err := outboxSet("SET #status = :to, finished_at = :now, updated_at = :now", vals, d)
	if err != nil {
		return nil, err
	}
	return s.updatePayment(ctx, invoiceID, update, cond, map[string]string{"#status": "status"}, vals)
}

// ExpirePayment records EXPIRED for a PENDING payment whose expiry has passed (readers treat
// it as expired either way; this makes the state explicit and emits its event).
func (s *Store) ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	vals := map[string]types.AttributeValue{
		":expired": &types.AttributeValueMemberS{Value: string(payment.Expired)},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
	}
	update, err := outboxSet("SET #status = :expired, finished_at = expires_at, updated_at = :now", vals, d)
	if err != nil {
		return nil, err
	}
	return s.updatePayment(ctx, invoiceID, update, "#status = :pending AND expires_at <= :now", map[string]string{"#status": "status"}, vals)
}

// RecordAttempt stores the outcome of one delivery attempt of a pending event (one
// conditional UpdateItem: the event must still be the payment's and still pending). A pending
// event's next attempt is due at next (its GSI2 sort key follows); a final status (delivered,
// failed) takes the payment out of the pending-delivery index.
func (s *Store) RecordAttempt(ctx context.Context, invoiceID, eventID string, attempts int, status string, httpStatus int, detail string, now, next time.Time) error {
	vals := map[string]types.AttributeValue{
		":n":       &types.AttributeValueMemberN{Value: strconv.Itoa(attempts)},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":st":      &types.AttributeValueMemberS{Value: status},
		":code":    &types.AttributeValueMemberN{Value: strconv.Itoa(httpStatus)},
		":detail":  &types.AttributeValueMemberS{Value: detail},
		":eid":     &types.AttributeValueMemberS{Value: eventID},
		":pending": &types.AttributeValueMemberS{Value: payment.DeliveryPending},
	}
	update := "SET outbox.attempts = :n, outbox.last_attempt_at = :now, outbox.#st = :st, outbox.last_http_status = :code, outbox.detail = :detail"
	if status == payment.DeliveryPending {
		vals[":next"] = &types.AttributeValueMemberS{Value: formatTime(next)}
		update += ", outbox.next_attempt_at = :next, gsi2sk = :next"
	} else {
		update += " REMOVE gsi2pk, gsi2sk"
	}
	_, err := s.updatePayment(ctx, invoiceID, update, "outbox.event_id = :eid AND outbox.#st = :pending",
		map[string]string{"#st": "status"}, vals)
	return err
}

// RescheduleDelivery moves a pending event's next attempt to next (the re-drive, after it
// re-enqueued the event, so the next run does not enqueue it again while that message is on
// its way). One conditional UpdateItem: ErrStateChanged when the event is no longer pending.
func (s *Store) RescheduleDelivery(ctx context.Context, invoiceID, eventID string, next time.Time) error {
	_, err := s.updatePayment(ctx, invoiceID, "SET outbox.next_attempt_at = :next, gsi2sk = :next",
		"outbox.event_id = :eid AND outbox.#st = :pending", map[string]string{"#st": "status"},
		map[string]types.AttributeValue{
			":next":    &types.AttributeValueMemberS{Value: formatTime(next)},
			":eid":     &types.AttributeValueMemberS{Value: eventID},
			":pending": &types.AttributeValueMemberS{Value: payment.DeliveryPending},
		})
	return err
}

// PendingDeliveries lists pending events whose next attempt was due before dueBefore (GSI2,
// most overdue first, at most limit) — what the re-drive re-enqueues.
func (s *Store) PendingDeliveries(ctx context.Context, dueBefore time.Time, limit int) ([]payment.EventRef, error) {
	var out []payment.EventRef
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI2),
		KeyConditionExpression: aws.String("gsi2pk = :pk AND gsi2sk < :before"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: OutboxPending},
			":before": &types.AttributeValueMemberS{Value: formatTime(dueBefore)},
		},
	}
	for len(out) < limit {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, item := range res.Items {
			p, err := decodePayment(item)
			if err != nil {
				return nil, err
			}
			if p.Outbox != nil && p.Outbox.Status == payment.DeliveryPending && len(out) < limit {
				out = append(out, payment.EventRef{InvoiceID: p.InvoiceID, EventID: p.Outbox.EventID})
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// ExpiredPending lists PENDING payments with a webhook_url whose expiry has passed (GSI2, at
// most limit): the sweep expires them so their payment.expired event is sent.
func (s *Store) ExpiredPending(ctx context.Context, now time.Time, limit int) ([]*payment.Payment, error) {
	out, err := s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI2),
		KeyConditionExpression: aws.String("gsi2pk = :pk AND gsi2sk <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":  &types.AttributeValueMemberS{Value: ExpiryPending},
			":now": &types.AttributeValueMemberS{Value: formatTime(now)},
		},
		Limit: aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, err
	}
	var ps []*payment.Payment
	for _, item := range out.Items {
		p, err := decodePayment(item)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}
