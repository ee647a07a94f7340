package dynamo

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

type paymentItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	GSI2PK string `dynamodbav:"gsi2pk,omitempty"`
	GSI2SK string `dynamodbav:"gsi2sk,omitempty"`
	GSI3PK string `dynamodbav:"gsi3pk"` // the intents list; its sort key is created_at
	// WorkspaceID and Environment are read from items written before GSI3; a payment now
	// stores them once, in gsi3pk (INTENTS#<ws>#<env>), which keeps every write of it smaller.
	WorkspaceID     string            `dynamodbav:"workspace_id,omitempty"`
	Environment     string            `dynamodbav:"environment,omitempty"`
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
	RequestHash     []byte            `dynamodbav:"request_hash"`
	CreatedAt       time.Time         `dynamodbav:"created_at"`
	UpdatedAt       time.Time         `dynamodbav:"updated_at"`
	FirstVerifiedAt *time.Time        `dynamodbav:"first_verified_at,omitempty"`
	ExpiresAt       time.Time         `dynamodbav:"expires_at"`
	LockBy          *time.Time        `dynamodbav:"lock_by,omitempty"`
	MerchantName    string            `dynamodbav:"merchant_name,omitempty"`
	LockRoute       string            `dynamodbav:"lock_route,omitempty"`
	LockPayer       string            `dynamodbav:"lock_payer,omitempty"`
	LockedAt        *time.Time        `dynamodbav:"locked_at,omitempty"`
	FinishedAt      *time.Time        `dynamodbav:"finished_at,omitempty"`
	Outbox          *payment.Delivery `dynamodbav:"outbox,omitempty"`
	// Locale is the language the merchant set for the payer's pages ("bn", "en"; absent for
	// auto): a short name, as every later write of the item is priced by its size.
	Locale string `dynamodbav:"lc,omitempty"`
	// The source of a linked intent (absent for a standalone payment) and its snapshot's key.
	// Short names: the item's size prices every later write of it.
	SourceKind      string `dynamodbav:"src,omitempty"`
	DocumentID      string `dynamodbav:"document_id,omitempty"`
	DocumentVersion int64  `dynamodbav:"doc_v,omitempty"`
	Quantity        int64  `dynamodbav:"qty,omitempty"`
	SnapshotHash    string `dynamodbav:"snap,omitempty"` // the snapshot item's sort key is SNAP#<snap>
	ReservedUse     bool   `dynamodbav:"use,omitempty"`
	UseHeld         bool   `dynamodbav:"hold,omitempty"`
	// TTL (epoch seconds) is set when the payment ends other than COMPLETED
	// (payment.RetainUntil); past it the item reads as absent.
	TTL int64 `dynamodbav:"ttl,omitempty"`
	// The refund ledger's totals (refunds.go writes them, with their maps): read here, never
	// written from a payment (toPaymentItem leaves them 0, so omitted).
	RefundPromised int64 `dynamodbav:"refund_promised,omitempty"`
	RefundReturned int64 `dynamodbav:"refund_returned,omitempty"`
}

// GSI2 is sparse, KEYS_ONLY, and follows a payment through its life: while PENDING every
// payment sits under EXPIRY#<shard> (sort key: its expiry, payment.Expiry, with "#s" after it
// for a linked intent and "#q" for one that needs no events), so the scheduled sweep can
// expire it — emitting payment.expired when it needs events — and give it its retention ttl
// even if nobody looks at it again (decision 35: an untouched payment ages out too). Once terminal, a linked
// intent's event sits under SETTLE#<shard> (sort key: when it was recorded, "#", the event
// id) until its document has the outcome — whatever happens to the webhook meanwhile — and
// then, like any event, under OUTBOX#<shard> (sort key: when the event's next attempt is due,
// then "#" and the event id) until it is delivered or failed; then nowhere. The shard (FNV-1a of the invoice id,
// modulo GSI2Shards) spreads the writes over many partition key values: no hot partition.
// Projecting keys only means a change that keeps the index keys (a lock, an attempt that keeps
// its due time) writes nothing to the index; the keys carry all the sweep needs.
const (
	expiryPrefix = "EXPIRY#"
	outboxPrefix = "OUTBOX#"
)

// DefaultGSI2Shards is how many partition key values the pending events and expiries are
// spread over (Store.GSI2Shards overrides it). It may grow, never shrink: the sweep reads
// shards 0..GSI2Shards-1.
const DefaultGSI2Shards = 128

func (s *Store) shards() uint32 {
	if s.GSI2Shards > 0 {
		return uint32(s.GSI2Shards)
	}
	return DefaultGSI2Shards
}

// shard is the GSI2 shard of a payment.
func (s *Store) shard(invoiceID string) string {
	h := fnv.New32a()
	h.Write([]byte(invoiceID))
	return strconv.FormatUint(uint64(h.Sum32()%s.shards()), 10)
}

func (s *Store) expiryPK(invoiceID string) string { return expiryPrefix + s.shard(invoiceID) }
func (s *Store) outboxPK(invoiceID string) string { return outboxPrefix + s.shard(invoiceID) }

// outboxSK orders pending events by due time and carries the event id for the keys-only sweep.
func outboxSK(next time.Time, eventID string) string { return formatTime(next) + "#" + eventID }

// linkedExpiry marks a linked intent's EXPIRY# sort key: its expiry event has a document
// follow-up, which the sweep needs to know without reading the item. quietExpiry marks a
// payment that needs no events (no webhook_url, not linked): its expiry records no event.
const (
	linkedExpiry = "#s"
	quietExpiry  = "#q"
)

// expirySK is a pending payment's EXPIRY# sort key.
func expirySK(p *payment.Payment) string {
	sk := formatTime(p.Expiry())
	switch {
	case p.Linked():
		sk += linkedExpiry
	case !p.NeedsEvents():
		sk += quietExpiry
	}
	return sk
}

// retained reports whether an item is still there as far as readers go: an item whose ttl
// (epoch seconds) has passed is absent, whether or not DynamoDB has deleted it yet.
func retained(item map[string]types.AttributeValue, now time.Time) bool {
	n, ok := item["ttl"].(*types.AttributeValueMemberN)
	if !ok {
		return true
	}
	ttl, err := strconv.ParseInt(n.Value, 10, 64)
	return err != nil || ttl > now.Unix()
}

// GSI2 is the name of the table's second global secondary index.
const GSI2 = "gsi2"

func paymentPK(invoiceID string) string { return "PAY#" + invoiceID }

func (s *Store) toPaymentItem(p *payment.Payment) paymentItem {
	it := paymentItem{
		PK: paymentPK(p.InvoiceID), SK: "PAY",
		Status: string(p.Status), AmountMinor: int64(p.AmountMinor), Currency: p.Currency, Reference: p.Reference,
		RedirectURL: p.RedirectURL, CancelURL: p.CancelURL, WebhookURL: p.WebhookURL,
		CustomerName: p.CustomerName, CustomerEmail: p.CustomerEmail, CustomerPhone: p.CustomerPhone,
		Metadata: p.Metadata, CheckoutHash: p.CheckoutHash,
		RequestHash: hexBytes(p.RequestHash),
		CreatedAt:   p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), FirstVerifiedAt: p.FirstVerifiedAt,
		ExpiresAt: p.ExpiresAt.UTC(), MerchantName: p.MerchantName, LockRoute: p.LockRoute, LockPayer: p.LockPayer,
		LockedAt: p.LockedAt, FinishedAt: p.FinishedAt, Outbox: p.Outbox, LockBy: p.LockBy,
		GSI3PK:     intentsPK(p.WorkspaceID, p.Environment),
		DocumentID: p.Source.DocumentID, DocumentVersion: p.Source.DocumentVersion, Quantity: p.Source.Quantity,
		SnapshotHash: strings.TrimPrefix(p.SnapshotKey, snapPrefix), ReservedUse: p.ReservedUse, UseHeld: p.UseHeld,
		Locale: p.Locale,
	}
	if k := p.Source.Kind; k != "" && k != payment.SourceStandalone {
		it.SourceKind = string(k)
	}
	if p.Status == payment.Pending {
		it.GSI2PK, it.GSI2SK = s.expiryPK(p.InvoiceID), expirySK(p)
	}
	return it
}

func (it *paymentItem) payment() *payment.Payment {
	p := &payment.Payment{
		InvoiceID: strings.TrimPrefix(it.PK, "PAY#"), WorkspaceID: it.WorkspaceID, Environment: auth.Environment(it.Environment),
		Status: payment.Status(it.Status), AmountMinor: money.Paisa(it.AmountMinor), Currency: it.Currency,
		Reference: it.Reference, RedirectURL: it.RedirectURL, CancelURL: it.CancelURL, WebhookURL: it.WebhookURL,
		CustomerName: it.CustomerName, CustomerEmail: it.CustomerEmail, CustomerPhone: it.CustomerPhone,
		Metadata: it.Metadata, CheckoutHash: it.CheckoutHash,
		RequestHash: hex.EncodeToString(it.RequestHash),
		CreatedAt:   it.CreatedAt, UpdatedAt: it.UpdatedAt, FirstVerifiedAt: it.FirstVerifiedAt,
		ExpiresAt: it.ExpiresAt, MerchantName: it.MerchantName, LockRoute: it.LockRoute, LockPayer: it.LockPayer,
		LockedAt: it.LockedAt, FinishedAt: it.FinishedAt, Outbox: it.Outbox, LockBy: it.LockBy,
		Source: payment.Source{Kind: payment.SourceKind(it.SourceKind), DocumentID: it.DocumentID,
			DocumentVersion: it.DocumentVersion, Quantity: it.Quantity},
		ReservedUse: it.ReservedUse, UseHeld: it.UseHeld, Locale: it.Locale,
	}
	if it.SnapshotHash != "" {
		p.SnapshotKey = snapPrefix + it.SnapshotHash
	}
	if p.WorkspaceID == "" {
		p.WorkspaceID, p.Environment = parseIntentsPK(it.GSI3PK)
	}
	l := it.ledger(p)
	p.Refunded, p.Refundable = l.Refunded(), l.Refundable()
	return p
}

// ledger is the payment's refund ledger as the item holds it (refund.Ledger computes its
// figures).
func (it *paymentItem) ledger(p *payment.Payment) refund.Ledger {
	return refund.Ledger{PaymentID: p.InvoiceID, Status: p.Status, Paid: p.AmountMinor,
		Promised: money.Paisa(it.RefundPromised), Returned: money.Paisa(it.RefundReturned)}
}

// hexBytes stores a hex digest as bytes (half the size); anything else is kept as its text.
func hexBytes(s string) []byte {
	if b, err := hex.DecodeString(s); err == nil {
		return b
	}
	return []byte(s)
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
	av, err := marshalItem(s.toPaymentItem(p))
	if err != nil {
		return nil, err
	}
	// An item past its ttl is absent (DynamoDB deletes it only eventually; dynalite never):
	// its id may be created again.
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(s.Table),
		Item:                                av,
		ConditionExpression:                 aws.String("attribute_not_exists(pk) OR #ttl < :now"),
		ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": epochSeconds(time.Now())},
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

// GetPayment reads a payment with one strongly consistent GetItem; nil when absent (or past
// its retention).
func (s *Store) GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error) {
	item, err := s.get(ctx, paymentPK(invoiceID), "PAY")
	if err != nil || item == nil || !retained(item, time.Now()) {
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

// LockPayment records the payer's route and identity once: only a PENDING, unexpired
// (payment.Expiry), unlocked payment takes a lock (one conditional UpdateItem). The lock ends
// the use hold (lock_by): the intent now lives to its expires_at, and a pending one in the
// expiry index moves there.
func (s *Store) LockPayment(ctx context.Context, p *payment.Payment, route, payer string, now time.Time) (*payment.Payment, error) {
	vals := map[string]types.AttributeValue{
		":route":   &types.AttributeValueMemberS{Value: route},
		":payer":   &types.AttributeValueMemberS{Value: payer},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
	}
	update := "SET lock_route = :route, lock_payer = :payer, locked_at = :now, updated_at = :now"
	if p.LockBy != nil {
		locked := *p
		locked.LockBy = nil
		vals[":g2sk"] = &types.AttributeValueMemberS{Value: expirySK(&locked)}
		update += ", gsi2sk = :g2sk"
	}
	if p.LockBy != nil {
		update += " REMOVE lock_by"
	}
	return s.updatePayment(ctx, p.InvoiceID, update,
		"#status = :pending AND expires_at > :now AND (attribute_not_exists(lock_by) OR lock_by > :now) AND attribute_not_exists(lock_route)",
		map[string]string{"#status": "status"}, vals)
}

// outboxSet adds the pending delivery to an update: set in the same conditional write as the
// state change, so an event is recorded if and only if the change happened. A linked intent's
// event (d.Settle) goes to the settle index first, any other to the pending-delivery index.
func (s *Store) outboxSet(invoiceID, update string, vals map[string]types.AttributeValue, d *payment.Delivery) (string, error) {
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
	vals[":g2pk"] = &types.AttributeValueMemberS{Value: s.outboxPK(invoiceID)}
	if d.Settle {
		vals[":g2pk"] = &types.AttributeValueMemberS{Value: s.settlePK(invoiceID)}
	}
	vals[":g2sk"] = &types.AttributeValueMemberS{Value: outboxSK(d.NextAttemptAt, d.EventID)}
	return update + ", outbox = :outbox, gsi2pk = :g2pk, gsi2sk = :g2sk", nil
}

// retainSet adds the ttl of a payment that reaches status to at now (payment.RetainUntil) to
// an update.
func retainSet(update string, names map[string]string, vals map[string]types.AttributeValue, to payment.Status, now time.Time) string {
	until := payment.RetainUntil(to, now)
	if until.IsZero() {
		return update
	}
	names["#ttl"], vals[":ttl"] = "ttl", epochSeconds(until)
	return update + ", #ttl = :ttl"
}

// FinishPayment moves a PENDING, unexpired (payment.Expiry) payment to a terminal status with
// one conditional UpdateItem whose condition names the state it leaves, so of two racing
// outcomes only one can win. requireLock demands that the payer has locked a route (provider
// outcomes). The webhook delivery d (nil for none) is recorded in the same write, and so is
// the retention of an outcome other than COMPLETED.
func (s *Store) FinishPayment(ctx context.Context, invoiceID string, to payment.Status, requireLock bool, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	cond := "#status = :pending AND expires_at > :now AND (attribute_not_exists(lock_by) OR lock_by > :now)"
	if requireLock {
		cond += " AND attribute_exists(lock_route)"
	}
	vals := map[string]types.AttributeValue{
		":to":      &types.AttributeValueMemberS{Value: string(to)},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
	}
	names := map[string]string{"#status": "status"}
	update, err := s.outboxSet(invoiceID, retainSet("SET #status = :to, finished_at = :now, updated_at = :now", names, vals, to, now), vals, d)
	if err != nil {
		return nil, err
	}
	return s.updatePayment(ctx, invoiceID, update, cond, names, vals)
}

// ExpirePayment records EXPIRED for a PENDING payment whose expiry has passed (readers treat
// it as expired either way; this makes the state explicit and emits its event). Its expiry is
// expires_at, or lock_by while nobody has locked it (the lock removes lock_by, and lock_by is
// never after expires_at), and that is when it finished.
func (s *Store) ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error) {
	vals := map[string]types.AttributeValue{
		":expired": &types.AttributeValueMemberS{Value: string(payment.Expired)},
		":now":     &types.AttributeValueMemberS{Value: formatTime(now)},
		":pending": &types.AttributeValueMemberS{Value: string(payment.Pending)},
	}
	names := map[string]string{"#status": "status"}
	update := retainSet("SET #status = :expired, finished_at = if_not_exists(lock_by, expires_at), updated_at = :now", names, vals, payment.Expired, now)
	update, err := s.outboxSet(invoiceID, update, vals, d)
	if err != nil {
		return nil, err
	}
	return s.updatePayment(ctx, invoiceID, update, "#status = :pending AND (expires_at <= :now OR lock_by <= :now)", names, vals)
}

// RecordAttempt stores the outcome of one delivery attempt of a pending event (one
// conditional UpdateItem: the event must still be the payment's and still pending). A pending
// event's next attempt is due at next (its GSI2 sort key follows); a final status (delivered,
// failed) takes the payment out of the pending-delivery index. unsettled says the event is a
// linked intent's whose document follow-up is not done: it is in the settle index, which the
// attempt leaves alone (the condition requires it still unsettled; FinishSettlement then
// places it by the delivery state it finds), and ErrStateChanged means it was settled
// meanwhile: record the attempt again as settled. log (nil: left as it is) is the event's
// new attempt log (payment.Delivery.LogAttempt), written in the same UpdateItem; with it the
// condition also requires the attempts the log was built on (attempts-1), so two senders of
// one event cannot both append.
func (s *Store) RecordAttempt(ctx context.Context, invoiceID, eventID string, attempts int, status string, httpStatus int, detail string, log []payment.Attempt, unsettled bool, now, next time.Time) error {
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
	cond := "outbox.event_id = :eid AND outbox.#st = :pending"
	names := map[string]string{"#st": "status"}
	if log != nil {
		av, err := attributevalue.Marshal(log)
		if err != nil {
			return err
		}
		vals[":log"], vals[":prev"], names["#log"] = av, &types.AttributeValueMemberN{Value: strconv.Itoa(attempts - 1)}, "log"
		update += ", outbox.#log = :log"
		cond += " AND outbox.attempts = :prev"
	}
	if status == payment.DeliveryPending {
		vals[":next"] = &types.AttributeValueMemberS{Value: formatTime(next)}
		update += ", outbox.next_attempt_at = :next"
	}
	switch {
	case unsettled:
		cond += " AND attribute_not_exists(outbox.settled)"
	case status == payment.DeliveryPending:
		vals[":g2sk"] = &types.AttributeValueMemberS{Value: outboxSK(next, eventID)}
		update += ", gsi2sk = :g2sk"
	default:
		update += " REMOVE gsi2pk, gsi2sk"
	}
	_, err := s.updatePayment(ctx, invoiceID, update, cond, names, vals)
	return err
}

// RescheduleDelivery moves a pending event's next attempt to next (the re-drive, after it
// re-enqueued the event, so the next run does not enqueue it again while that message is on
// its way). One conditional UpdateItem: ErrStateChanged when the event is no longer pending.
func (s *Store) RescheduleDelivery(ctx context.Context, invoiceID, eventID string, next time.Time) error {
	_, err := s.updatePayment(ctx, invoiceID, "SET outbox.next_attempt_at = :next, gsi2sk = :g2sk",
		"outbox.event_id = :eid AND outbox.#st = :pending", map[string]string{"#st": "status"},
		map[string]types.AttributeValue{
			":next":    &types.AttributeValueMemberS{Value: formatTime(next)},
			":g2sk":    &types.AttributeValueMemberS{Value: outboxSK(next, eventID)},
			":eid":     &types.AttributeValueMemberS{Value: eventID},
			":pending": &types.AttributeValueMemberS{Value: payment.DeliveryPending},
		})
	return err
}

// PendingDeliveries lists pending events whose next attempt was due before dueBefore (every
// GSI2 outbox shard, keys only; at most limit) — what the re-drive re-enqueues.
func (s *Store) PendingDeliveries(ctx context.Context, dueBefore time.Time, limit int) ([]payment.EventRef, error) {
	keys, err := s.sweep(ctx, outboxPrefix, formatTime(dueBefore), limit)
	if err != nil {
		return nil, err
	}
	out := make([]payment.EventRef, 0, len(keys))
	for _, k := range keys {
		_, eventID, ok := strings.Cut(k.sk, "#")
		if !ok {
			return nil, fmt.Errorf("gsi2 outbox key %q has no event id", k.sk)
		}
		out = append(out, payment.EventRef{InvoiceID: k.invoiceID, EventID: eventID})
	}
	return out, nil
}

// ExpiredPending lists PENDING payments whose expiry has passed (every GSI2 expiry shard, keys
// only; at most limit): the sweep expires them so their payment.expired event is sent (when
// they need events), their document learns it, and they carry their retention ttl.
func (s *Store) ExpiredPending(ctx context.Context, now time.Time, limit int) ([]payment.Expiring, error) {
	keys, err := s.sweep(ctx, expiryPrefix, formatTime(now)+"~", limit) // "~" sorts after any fraction and "#s"
	if err != nil {
		return nil, err
	}
	out := make([]payment.Expiring, 0, len(keys))
	for _, k := range keys {
		out = append(out, payment.Expiring{InvoiceID: k.invoiceID, Linked: strings.HasSuffix(k.sk, linkedExpiry),
			Quiet: strings.HasSuffix(k.sk, quietExpiry)})
	}
	return out, nil
}

type sweptKey struct{ invoiceID, sk string }

// sweep reads, from every shard of one GSI2 prefix, the payments' keys whose sort key is below
// before, at most limit in all.
func (s *Store) sweep(ctx context.Context, prefix, before string, limit int) ([]sweptKey, error) {
	return sweepGSI2(ctx, s, prefix, int(s.shards()), before, limit, func(item map[string]types.AttributeValue) (sweptKey, bool) {
		pkv, _ := item["pk"].(*types.AttributeValueMemberS)
		skv, _ := item["gsi2sk"].(*types.AttributeValueMemberS)
		if pkv == nil || skv == nil || !strings.HasPrefix(pkv.Value, "PAY#") {
			return sweptKey{}, false
		}
		return sweptKey{invoiceID: strings.TrimPrefix(pkv.Value, "PAY#"), sk: skv.Value}, true
	})
}

// sweepGSI2 reads, from shards prefix0..prefix<n-1> of GSI2 (eight at a time), the keys whose
// sort key is below before, decoded by decode (an item it refuses is skipped), at most limit
// in all: the outbox's, the settlement's and the refunds' follow-up sweeps.
func sweepGSI2[T any](ctx context.Context, s *Store, prefix string, n int, before string, limit int, decode func(map[string]types.AttributeValue) (T, bool)) ([]T, error) {
	results := make([][]T, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i], errs[i] = sweepGSI2Shard(ctx, s, prefix+strconv.Itoa(i), before, limit, decode)
		}()
	}
	wg.Wait()
	var out []T
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, k := range results[i] {
			if len(out) < limit {
				out = append(out, k)
			}
		}
	}
	return out, nil
}

func sweepGSI2Shard[T any](ctx context.Context, s *Store, pk, before string, limit int, decode func(map[string]types.AttributeValue) (T, bool)) ([]T, error) {
	var out []T
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		IndexName:              aws.String(GSI2),
		KeyConditionExpression: aws.String("gsi2pk = :pk AND gsi2sk < :before"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":before": &types.AttributeValueMemberS{Value: before},
		},
		Limit: aws.Int32(int32(min(limit, 1000))),
	}
	for len(out) < limit {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, item := range res.Items {
			if k, ok := decode(item); ok {
				out = append(out, k)
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}
