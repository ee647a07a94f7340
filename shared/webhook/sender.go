package webhook

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// Message is the queue message of one delivery: which payment or refund, which event. The
// payload itself is built from the stored item at send time, so a message can never invent an
// event. A payment's message is {"invoice_id", "event_id"} (as every message before refunds);
// a refund's is {"refund_id", "workspace_id", "environment", "event_id"} (its item's key), and
// never has an invoice_id: the two kinds cannot be mistaken for each other.
type Message struct {
	InvoiceID   string           `json:"invoice_id,omitempty"`
	EventID     string           `json:"event_id"`
	RefundID    string           `json:"refund_id,omitempty"`
	WorkspaceID string           `json:"workspace_id,omitempty"`
	Environment auth.Environment `json:"environment,omitempty"`
}

// IsRefund reports whether m is a refund event's message.
func (m Message) IsRefund() bool { return m.RefundID != "" }

// ErrMalformedMessage means a queue message is not a delivery message; it is dropped.
var ErrMalformedMessage = errors.New("malformed webhook message")

// ParseMessage decodes a queue message body: a payment's event (invoice_id) or a refund's
// (refund_id with its workspace and environment), never both.
func ParseMessage(body []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil || m.EventID == "" {
		return Message{}, ErrMalformedMessage
	}
	if m.IsRefund() {
		if _, ok := auth.ParseEnvironment(string(m.Environment)); !ok || m.InvoiceID != "" || m.WorkspaceID == "" {
			return Message{}, ErrMalformedMessage
		}
		return m, nil
	}
	if m.InvoiceID == "" || m.WorkspaceID != "" || m.Environment != "" {
		return Message{}, ErrMalformedMessage
	}
	return m, nil
}

// Encode is the queue message body of m.
func (m Message) Encode() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// Enqueuer hands a recorded event to the delivery queue (package sqsqueue in production).
type Enqueuer interface {
	Enqueue(ctx context.Context, invoiceID, eventID string) error
}

// Store is what the sender reads and writes.
type Store interface {
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	// RecordAttempt records an attempt's outcome and, for a pending event, when the next
	// attempt is due. unsettled is true for a linked intent's event whose document follow-up
	// is not done: the attempt then leaves the event in the settle index (payment.ErrStateChanged
	// when it was settled meanwhile).
	// log is the event's attempt log with this attempt appended (payment.Delivery.LogAttempt),
	// written in the same write.
	RecordAttempt(ctx context.Context, invoiceID, eventID string, attempts int, status string, httpStatus int, detail string, log []payment.Attempt, unsettled bool, now, next time.Time) error
}

// SecretSource returns the secrets that sign a workspace's events in an environment (all active
// ones: during a rotation both sign).
type SecretSource func(ctx context.Context, workspaceID string, env auth.Environment, now time.Time) ([][]byte, error)

// DefaultSchedule is the delay before each retry (Standard Webhooks' example, capped by SQS's
// 12-hour visibility limit): 12 attempts — the first at once, then after 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h and five times 12 h — spanning 77 h 35 min (about 3.2 days) from the event to
// the last attempt; then the delivery is failed and the message goes to the dead-letter queue
// (maxReceiveCount 12 in template.yaml).
var DefaultSchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour}

// Sender makes delivery attempts: for each queue message it reads the payment, signs and
// posts the event the payment recorded, records the attempt and says when to retry. The queue
// itself (SQS, its visibility timeout and dead-letter queue) is driven by package sqsqueue.
type Sender struct {
	Store Store
	// Refunds reads refunds and records their events' attempts (nil: refund messages are
	// retried until one is set).
	Refunds RefundStore
	// Documents settles a linked intent's outcome on its document (intent.Settle) as soon as
	// the event's first message arrives, before and whatever the webhook attempt (nil: only the
	// re-drive settles).
	Documents intent.Ledger
	Secrets   SecretSource
	Client    *http.Client
	URLs      urlcheck.Policy
	Schedule  []time.Duration
	Logger    *slog.Logger
	Now       func() time.Time
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Payload is the JSON body of a webhook (Standard Webhooks shape: type, timestamp, data).
// It carries data, never secrets; receivers must still call verify before delivering goods.
type Payload struct {
	ID        string      `json:"id"`
	Type      string      `json:"type"`
	Timestamp time.Time   `json:"timestamp"`
	Data      PayloadData `json:"data"`
}

// PayloadData is the payment intent the event is about. invoice_id and intent_id are the
// same id (every hosted payment is an intent); source says where the amount came from, and
// document_id names the invoice or payment link of a linked intent.
type PayloadData struct {
	InvoiceID   string           `json:"invoice_id"`
	IntentID    string           `json:"intent_id"`
	Status      payment.Status   `json:"status"`
	AmountMinor int64            `json:"amount_minor"`
	Currency    string           `json:"currency"`
	Reference   string           `json:"reference"`
	Environment auth.Environment `json:"environment"`
	Source      payment.Source   `json:"source"`
	DocumentID  string           `json:"document_id,omitempty"`
}

// DataOf is the payload data of an event about p.
func DataOf(p *payment.Payment) PayloadData {
	return PayloadData{InvoiceID: p.InvoiceID, IntentID: p.InvoiceID, Status: p.Status,
		AmountMinor: int64(p.AmountMinor), Currency: p.Currency, Reference: p.Reference,
		Environment: p.Environment, Source: p.SourceOf(), DocumentID: p.Source.DocumentID}
}

func (s *Sender) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if s.Logger != nil {
		s.Logger.LogAttrs(ctx, level, msg, attrs...)
	}
}

// Deliver makes one attempt for one message and says whether the queue should offer it again,
// and after how long.
func (s *Sender) Deliver(ctx context.Context, m Message) (retry bool, delay time.Duration) {
	if m.IsRefund() {
		return s.deliverRefund(ctx, m)
	}
	p, err := s.Store.GetPayment(ctx, m.InvoiceID)
	if err != nil {
		return true, 5 * time.Second // the store is unreachable: try again soon
	}
	// Only an event the payment actually recorded is ever sent.
	if p == nil || p.Outbox == nil || p.Outbox.EventID != m.EventID || p.Status != statusOf(p.Outbox.Kind) {
		s.log(ctx, slog.LevelWarn, "webhook message dropped: no such event", slog.String("invoice_id", m.InvoiceID), slog.String("event_id", m.EventID))
		return false, 0
	}
	s.settleDocument(ctx, p, m.EventID)
	switch p.Outbox.Status {
	case payment.DeliveryDelivered:
		return false, 0 // a duplicate message (re-drive, SQS at-least-once)
	case payment.DeliveryFailed:
		return true, 0 // keep failing fast so SQS moves it to the dead-letter queue
	}
	attempt := p.Outbox.Attempts + 1
	code, detail, took := s.send(ctx, p)
	now := s.now()
	status, detail, delay := s.outcome(attempt, code, detail)
	entry := payment.Attempt{At: now, HTTPStatus: code, DurationMS: took.Milliseconds()}
	if code == 0 {
		// The full reason is the delivery's detail; the log keeps its start (LogAttempt).
		entry.Error = strings.TrimPrefix(detail, notDelivered)
	}
	log := p.Outbox.LogAttempt(entry)
	if err := s.record(ctx, p, m.EventID, attempt, status, code, detail, log, now, now.Add(delay)); err != nil {
		if errors.Is(err, payment.ErrStateChanged) {
			return false, 0 // another sender recorded this event meanwhile
		}
		s.log(ctx, slog.LevelError, "webhook attempt not recorded", slog.String("error", err.Error()))
	}
	// correlation_id is the request's that caused the event (none for the re-drive's expiry):
	// one query finds that request's log line and every attempt of its event.
	s.log(ctx, slog.LevelInfo, "webhook attempt", slog.String("event_id", m.EventID), slog.String("invoice_id", p.InvoiceID),
		slog.Int("attempt", attempt), slog.Int("http_status", code), slog.String("delivery", status), slog.String("detail", detail),
		slog.String("correlation_id", hex.EncodeToString(p.Outbox.CID)))
	switch status {
	case payment.DeliveryDelivered:
		return false, 0
	case payment.DeliveryFailed:
		return code != http.StatusGone, 0 // exhausted: to the DLQ; 410: done
	}
	return true, delay
}

// settleDocument tells a linked intent's document the outcome first, from the payment: never
// from, or after, the merchant's endpoint answering. A failure here is retried by the
// re-drive's settle sweep.
func (s *Sender) settleDocument(ctx context.Context, p *payment.Payment, eventID string) {
	if !p.Linked() || p.Outbox.Settled || s.Documents == nil {
		return
	}
	done, err := intent.Settle(ctx, s.Documents, p, s.now())
	if err != nil {
		s.log(ctx, slog.LevelWarn, "document settlement failed: the re-drive settles it", slog.String("invoice_id", p.InvoiceID),
			slog.String("event_id", eventID), slog.String("error", err.Error()))
	}
	if done {
		p.Outbox.Settled = true
	}
}

// send posts p's event to its webhook_url and says what the receiver answered (code 0 and
// the reason when nothing came back) and how long it took; without a webhook_url there is
// nothing to send, which counts as delivered.
func (s *Sender) send(ctx context.Context, p *payment.Payment) (code int, detail string, took time.Duration) {
	if p.WebhookURL == "" {
		return http.StatusNoContent, "no webhook_url: nothing to send (the document learns the outcome)", 0
	}
	start := time.Now()
	code, detail = s.post(ctx, p)
	return code, detail, time.Since(start)
}

// outcome is the delivery's status after attempt number attempt answered code: delivered on a
// 2xx, failed for good on 410 Gone or when the schedule is spent, else pending, to be tried
// again after delay.
func (s *Sender) outcome(attempt, code int, detail string) (status, newDetail string, delay time.Duration) {
	switch {
	case code >= 200 && code < 300:
		return payment.DeliveryDelivered, detail, 0
	case code == http.StatusGone:
		return payment.DeliveryFailed, "receiver answered 410 Gone: no more retries", 0
	case attempt > len(s.schedule()):
		return payment.DeliveryFailed, detail, 0
	}
	return payment.DeliveryPending, detail, s.schedule()[attempt-1]
}

// record stores an attempt. A linked intent's event whose document follow-up is not done stays
// in the settle index; if it was settled meanwhile (by the re-drive), the attempt is recorded
// again as settled.
func (s *Sender) record(ctx context.Context, p *payment.Payment, eventID string, attempt int, status string, code int, detail string, log []payment.Attempt, now, next time.Time) error {
	unsettled := p.Linked() && !p.Outbox.Settled
	err := s.Store.RecordAttempt(ctx, p.InvoiceID, eventID, attempt, status, code, detail, log, unsettled, now, next)
	if !unsettled || !errors.Is(err, payment.ErrStateChanged) {
		return err
	}
	cur, rerr := s.Store.GetPayment(ctx, p.InvoiceID)
	if rerr != nil {
		return rerr
	}
	if cur == nil || cur.Outbox == nil || cur.Outbox.EventID != eventID || !cur.Outbox.Settled ||
		cur.Outbox.Status != payment.DeliveryPending || cur.Outbox.Attempts != p.Outbox.Attempts {
		return err // another sender recorded this event meanwhile
	}
	return s.Store.RecordAttempt(ctx, p.InvoiceID, eventID, attempt, status, code, detail, log, false, now, next)
}

func (s *Sender) schedule() []time.Duration {
	if s.Schedule != nil {
		return s.Schedule
	}
	return DefaultSchedule
}

// statusOf maps an event kind back to the payment status it reports.
func statusOf(kind string) payment.Status {
	for _, st := range []payment.Status{payment.Completed, payment.Failed, payment.Cancelled, payment.Expired} {
		if payment.EventKind(st) == kind {
			return st
		}
	}
	return ""
}

// secrets reads the signing secrets of a workspace environment; detail says why not (then
// the attempt records it and is retried).
func (s *Sender) secrets(ctx context.Context, ws string, env auth.Environment) ([][]byte, string) {
	secrets, err := s.Secrets(ctx, ws, env, s.now())
	if err != nil {
		s.log(ctx, slog.LevelError, "webhook secrets unavailable", slog.String("workspace_id", ws),
			slog.String("environment", string(env)), slog.String("error", err.Error()))
		if errors.Is(err, ErrSecretUnsealed) || errors.Is(err, ErrNoSealer) {
			return nil, err.Error() // the operator's action is named in the message
		}
		return nil, "webhook secrets unavailable"
	}
	return secrets, ""
}

// notDelivered starts the detail of an attempt that got no HTTP answer.
const notDelivered = "not delivered: "

// post signs and sends the event; 0 with a detail when no HTTP answer came back.
func (s *Sender) post(ctx context.Context, p *payment.Payment) (int, string) {
	secrets, detail := s.secrets(ctx, p.WorkspaceID, p.Environment)
	if detail != "" {
		return 0, detail
	}
	if len(secrets) == 0 {
		return 0, "no webhook secret issued for this workspace and environment (paymentsctl webhook secret issue)"
	}
	body, _ := json.Marshal(Payload{ID: p.Outbox.EventID, Type: p.Outbox.Kind, Timestamp: p.Outbox.CreatedAt,
		Data: DataOf(p)})
	return s.postSigned(ctx, secrets, p.WebhookURL, p.Outbox.EventID, body)
}

// postSigned signs body as event eventID with secrets and posts it to url.
func (s *Sender) postSigned(ctx context.Context, secrets [][]byte, url, eventID string, body []byte) (int, string) {
	headers := Headers(secrets, eventID, s.now(), body)
	code, err := Post(ctx, s.Client, s.URLs, url, headers, body)
	if err != nil {
		return 0, notDelivered + err.Error()
	}
	return code, "HTTP " + strconv.Itoa(code)
}
