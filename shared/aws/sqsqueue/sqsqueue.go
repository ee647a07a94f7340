// Package sqsqueue is the SQS side of webhook delivery: Queue sends delivery messages, and
// Consumer is the Lambda handler of the queue's event source (partial batch failures), which
// hands each message to webhook.Sender and turns its answer into SQS terms — delete, or offer
// again after the retry schedule's delay through the message's visibility timeout.
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

// MaxVisibility is SQS's longest visibility timeout: no retry waits longer in one step.
const MaxVisibility = 12 * time.Hour

// SendAPI is the part of the SQS client Queue uses.
type SendAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Queue sends delivery messages to the webhook queue.
type Queue struct {
	SQS SendAPI
	URL string
}

var (
	_ webhook.Enqueuer       = (*Queue)(nil)
	_ webhook.BatchEnqueuer  = (*Queue)(nil)
	_ webhook.RefundEnqueuer = (*Queue)(nil)
)

// maxBatch is SendMessageBatch's limit of messages per request.
const maxBatch = 10

// Enqueue sends one delivery message.
func (q *Queue) Enqueue(ctx context.Context, invoiceID, eventID string) error {
	body := webhook.Message{InvoiceID: invoiceID, EventID: eventID}.Encode()
	_, err := q.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body)})
	return err
}

// EnqueueRefund sends one refund event's delivery message (webhook.RefundMessage).
func (q *Queue) EnqueueRefund(ctx context.Context, workspaceID string, env auth.Environment, refundID, eventID string) error {
	body := webhook.RefundMessage(workspaceID, env, refundID, eventID).Encode()
	_, err := q.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(body)})
	return err
}

// EnqueueBatch sends delivery messages ten to a SendMessageBatch request (the re-drive's
// drains) and returns those SQS accepted; the error names how many it did not.
func (q *Queue) EnqueueBatch(ctx context.Context, refs []payment.EventRef) ([]payment.EventRef, error) {
	var sent []payment.EventRef
	var errs []error
	for start := 0; start < len(refs); start += maxBatch {
		chunk := refs[start:min(start+maxBatch, len(refs))]
		entries := make([]types.SendMessageBatchRequestEntry, len(chunk))
		for i, ref := range chunk {
			body := webhook.Message{InvoiceID: ref.InvoiceID, EventID: ref.EventID}.Encode()
			entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body)}
		}
		out, err := q.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ok := range out.Successful {
			if i, err := strconv.Atoi(aws.ToString(ok.Id)); err == nil && i >= 0 && i < len(chunk) {
				sent = append(sent, chunk[i])
			}
		}
		if len(out.Failed) > 0 {
			errs = append(errs, fmt.Errorf("%d messages refused (first: %s %s)", len(out.Failed),
				aws.ToString(out.Failed[0].Code), aws.ToString(out.Failed[0].Message)))
		}
	}
	return sent, errors.Join(errs...)
}

// VisibilityAPI is the part of the SQS client Consumer uses.
type VisibilityAPI interface {
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// Consumer is the webhook queue's Lambda handler.
type Consumer struct {
	Sender   *webhook.Sender
	SQS      VisibilityAPI
	QueueURL string
	Logger   *slog.Logger
}

// Handle processes one SQS batch and reports the messages to offer again. A message to retry
// gets the schedule's delay as its visibility timeout; a malformed one is dropped (deleted).
// The messages of a batch are delivered concurrently: each attempt may wait up to the webhook
// client's timeout on a slow receiver, and a batch must finish well inside the function's
// timeout (else Lambda retries the whole batch). Two messages of one event in a batch (a
// re-drive's and a late original) make one attempt; the duplicate is deleted, so one message
// per event stays in flight.
func (c *Consumer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	retry := make([]bool, len(ev.Records))
	seen := map[webhook.Message]bool{}
	var wg sync.WaitGroup
	for i, rec := range ev.Records {
		m, err := webhook.ParseMessage([]byte(rec.Body))
		if err != nil {
			c.log(ctx, slog.LevelError, "webhook message dropped: malformed", slog.String("message_id", rec.MessageId))
			continue
		}
		if seen[m] {
			c.log(ctx, slog.LevelInfo, "webhook message dropped: duplicate in batch", slog.String("event_id", m.EventID))
			continue
		}
		seen[m] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			again, delay := c.Sender.Deliver(ctx, m)
			if !again {
				return
			}
			retry[i] = true
			if c.SQS != nil && rec.ReceiptHandle != "" {
				secs := int32(min(delay, MaxVisibility) / time.Second)
				if _, err := c.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
					QueueUrl: aws.String(c.QueueURL), ReceiptHandle: aws.String(rec.ReceiptHandle), VisibilityTimeout: secs,
				}); err != nil {
					c.log(ctx, slog.LevelWarn, "visibility", slog.String("error", err.Error()))
				}
			}
		}()
	}
	wg.Wait()
	var resp events.SQSEventResponse
	for i, rec := range ev.Records {
		if retry[i] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		}
	}
	return resp, nil
}

func (c *Consumer) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if c.Logger != nil {
		c.Logger.LogAttrs(ctx, level, msg, attrs...)
	}
}
