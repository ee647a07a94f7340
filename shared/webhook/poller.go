package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/payment"
)

// Poller does locally what Lambda's SQS event source does in AWS: receive a batch, invoke the
// handler with an SQS event, delete the messages it did not report as failures. `make dev` and
// the tests run the very same Sender.Handle through it.
type Poller struct {
	SQS      *sqs.Client
	QueueURL string
	Handler  func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	// Wait is the long-poll time in seconds (0: return at once when the queue is empty).
	Wait int32
}

// RunOnce handles one batch and returns how many messages it received.
func (p *Poller) RunOnce(ctx context.Context) (int, error) {
	out, err := p.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(p.QueueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: p.Wait,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
	})
	if err != nil || len(out.Messages) == 0 {
		return 0, err
	}
	ev := events.SQSEvent{}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), Attributes: m.Attributes, EventSource: "aws:sqs",
		})
	}
	resp, err := p.Handler(ctx, ev)
	if err != nil {
		return len(out.Messages), err // the whole batch is retried, as Lambda does
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	for _, r := range ev.Records {
		if !failed[r.MessageId] {
			if _, err := p.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(p.QueueURL), ReceiptHandle: aws.String(r.ReceiptHandle)}); err != nil {
				return len(out.Messages), err
			}
		}
	}
	return len(out.Messages), nil
}

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if n, err := p.RunOnce(ctx); err != nil || n == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// PendingStore lists events still waiting for delivery and payments past their expiry.
type PendingStore interface {
	PendingDeliveries(ctx context.Context, olderThan time.Time, limit int) ([]payment.EventRef, error)
	ExpiredPending(ctx context.Context, now time.Time, limit int) ([]*payment.Payment, error)
	ExpirePayment(ctx context.Context, invoiceID string, d *payment.Delivery, now time.Time) (*payment.Payment, error)
}

// Redrive re-enqueues events still pending after a while: the recovery for a crash between a
// state change (which recorded the event) and its SQS send. Sending twice is harmless: the
// sender reads the delivery state first, and receivers dedupe on webhook-id.
type Redrive struct {
	Store PendingStore
	Queue *Queue
	// After is how old a pending event must be to be re-enqueued (default 5 minutes).
	After time.Duration
	Limit int
	Now   func() time.Time
}

// Expire records EXPIRED (and its event) for payments past their expiry that nobody has
// looked at since, and enqueues those events; it returns how many it expired.
func (r *Redrive) Expire(ctx context.Context) (int, error) {
	now := time.Now().UTC()
	if r.Now != nil {
		now = r.Now().UTC()
	}
	ps, err := r.Store.ExpiredPending(ctx, now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range ps {
		d, err := p.NewDelivery(payment.Expired, now)
		if err != nil {
			return n, err
		}
		if _, err := r.Store.ExpirePayment(ctx, p.InvoiceID, d, now); err != nil {
			if errors.Is(err, payment.ErrStateChanged) {
				continue // finished or expired meanwhile
			}
			return n, err
		}
		n++
		if d != nil {
			if err := r.Queue.Enqueue(ctx, p.InvoiceID, d.EventID); err != nil {
				return n, err // recorded: the next round's re-drive sends it
			}
		}
	}
	return n, nil
}

// Run expires overdue payments, then re-enqueues one round of pending events; it returns how
// many events it re-enqueued.
func (r *Redrive) Run(ctx context.Context) (int, error) {
	if _, err := r.Expire(ctx); err != nil {
		return 0, err
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	after, limit := r.After, r.Limit
	if after <= 0 {
		after = 5 * time.Minute
	}
	if limit <= 0 {
		limit = 500
	}
	refs, err := r.Store.PendingDeliveries(ctx, now().Add(-after), limit)
	if err != nil {
		return 0, err
	}
	for i, ref := range refs {
		if err := r.Queue.Enqueue(ctx, ref.InvoiceID, ref.EventID); err != nil {
			return i, err
		}
	}
	return len(refs), nil
}
