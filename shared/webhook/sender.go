package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/urlcheck"
)

// Message is the SQS body of one delivery: which payment, which event. The payload itself is
// built from the stored payment at send time, so a message can never invent an event.
type Message struct {
	InvoiceID string `json:"invoice_id"`
	EventID   string `json:"event_id"`
}

// SQSAPI is the part of the SQS client the queue, the sender and the poller use.
type SQSAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// Queue sends delivery messages to the webhook queue.
type Queue struct {
	SQS SQSAPI
	URL string
}

// Enqueue sends one delivery message.
func (q *Queue) Enqueue(ctx context.Context, invoiceID, eventID string) error {
	body, _ := json.Marshal(Message{InvoiceID: invoiceID, EventID: eventID})
	_, err := q.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(string(body))})
	return err
}

// Store is what the sender reads and writes.
type Store interface {
	GetPayment(ctx context.Context, invoiceID string) (*payment.Payment, error)
	RecordAttempt(ctx context.Context, invoiceID, eventID string, attempts int, status string, httpStatus int, detail string, now time.Time) error
}

// Secrets returns the secrets that sign a workspace's events in an environment (all active
// ones: during a rotation both sign).
type Secrets func(ctx context.Context, workspaceID string, env auth.Environment, now time.Time) ([][]byte, error)

// DefaultSchedule is the delay before each retry (Standard Webhooks' example, capped by SQS's
// 12-hour visibility limit): 12 attempts over about 2.5 days, then the delivery is failed and
// the message goes to the dead-letter queue (maxReceiveCount 12 in template.yaml).
var DefaultSchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour}

// Sender delivers webhook events from SQS (Lambda event source with partial batch failures).
type Sender struct {
	Store    Store
	Secrets  Secrets
	Client   *http.Client
	URLs     urlcheck.Policy
	SQS      SQSAPI
	QueueURL string
	Schedule []time.Duration
	Logger   *slog.Logger
	Now      func() time.Time
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

// PayloadData is the payment the event is about.
type PayloadData struct {
	InvoiceID   string           `json:"invoice_id"`
	Status      payment.Status   `json:"status"`
	AmountMinor int64            `json:"amount_minor"`
	Currency    string           `json:"currency"`
	Reference   string           `json:"reference"`
	Environment auth.Environment `json:"environment"`
}

// Handle processes one SQS batch and reports the messages to retry.
func (s *Sender) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	for _, rec := range ev.Records {
		retry, delay := s.deliver(ctx, rec)
		if !retry {
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		if s.SQS != nil && rec.ReceiptHandle != "" {
			secs := int32(min(delay, 12*time.Hour) / time.Second)
			if _, err := s.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
				QueueUrl: aws.String(s.QueueURL), ReceiptHandle: aws.String(rec.ReceiptHandle), VisibilityTimeout: secs,
			}); err != nil {
				s.log(ctx, slog.LevelWarn, "visibility", slog.String("error", err.Error()))
			}
		}
	}
	return resp, nil
}

func (s *Sender) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if s.Logger != nil {
		s.Logger.LogAttrs(ctx, level, msg, attrs...)
	}
}

// deliver makes one attempt for one message and says whether SQS should retry it, and when.
func (s *Sender) deliver(ctx context.Context, rec events.SQSMessage) (retry bool, delay time.Duration) {
	var m Message
	if err := json.Unmarshal([]byte(rec.Body), &m); err != nil || m.InvoiceID == "" || m.EventID == "" {
		s.log(ctx, slog.LevelError, "webhook message dropped: malformed", slog.String("message_id", rec.MessageId))
		return false, 0
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
	switch p.Outbox.Status {
	case payment.DeliveryDelivered:
		return false, 0 // a duplicate message (re-drive, SQS at-least-once)
	case payment.DeliveryFailed:
		return true, 0 // keep failing fast so SQS moves it to the dead-letter queue
	}
	attempt := p.Outbox.Attempts + 1
	code, detail := s.post(ctx, p)
	now := s.now()
	status := payment.DeliveryPending
	switch {
	case code >= 200 && code < 300:
		status = payment.DeliveryDelivered
	case code == http.StatusGone:
		status, detail = payment.DeliveryFailed, "receiver answered 410 Gone: no more retries"
	case attempt > len(s.schedule()):
		status = payment.DeliveryFailed
	}
	if err := s.Store.RecordAttempt(ctx, p.InvoiceID, m.EventID, attempt, status, code, detail, now); err != nil {
		if errors.Is(err, payment.ErrStateChanged) {
			return false, 0 // another sender recorded this event meanwhile
		}
		s.log(ctx, slog.LevelError, "webhook attempt not recorded", slog.String("error", err.Error()))
	}
	s.log(ctx, slog.LevelInfo, "webhook attempt", slog.String("event_id", m.EventID), slog.String("invoice_id", p.InvoiceID),
		slog.Int("attempt", attempt), slog.Int("http_status", code), slog.String("delivery", status), slog.String("detail", detail))
	switch status {
	case payment.DeliveryDelivered:
		return false, 0
	case payment.DeliveryFailed:
		return code != http.StatusGone, 0 // exhausted: to the DLQ; 410: done
	}
	return true, s.schedule()[attempt-1]
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

// post signs and sends the event; 0 with a detail when no HTTP answer came back.
func (s *Sender) post(ctx context.Context, p *payment.Payment) (int, string) {
	secrets, err := s.Secrets(ctx, p.WorkspaceID, p.Environment, s.now())
	if err != nil {
		return 0, "webhook secrets unavailable"
	}
	if len(secrets) == 0 {
		return 0, "no webhook secret issued for this workspace and environment (paymentsctl webhook secret issue)"
	}
	body, _ := json.Marshal(Payload{ID: p.Outbox.EventID, Type: p.Outbox.Kind, Timestamp: p.Outbox.CreatedAt,
		Data: PayloadData{InvoiceID: p.InvoiceID, Status: p.Status, AmountMinor: int64(p.AmountMinor),
			Currency: p.Currency, Reference: p.Reference, Environment: p.Environment}})
	headers := Headers(secrets, p.Outbox.EventID, s.now(), body)
	code, err := Post(ctx, s.Client, s.URLs, p.WebhookURL, headers, body)
	if err != nil {
		return 0, fmt.Sprintf("not delivered: %v", err)
	}
	return code, "HTTP " + strconv.Itoa(code)
}
