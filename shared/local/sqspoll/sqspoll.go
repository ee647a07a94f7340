// Package sqspoll does locally what Lambda's SQS event source does in AWS: gather a batch as
// the event source mapping declares it (batch size, batching window), invoke the handler with an
// SQS event, delete the messages it did not report as failures (or the whole batch when the
// mapping does not ask for partial batch responses). `make dev` and the tests run the very same
// sqsqueue.Consumer through it, in-process or as the real bootstrap under the emulator. Local
// tooling: no Lambda links it.
package sqspoll

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// DefaultBatchSize is the batch size of an SQS event without BatchSize (SAM's and Lambda's).
const DefaultBatchSize = 10

// maxReceive is the most messages one ReceiveMessage returns.
const maxReceive = 10

// idlePause is the pause between two empty short polls while a batching window is open.
const idlePause = 50 * time.Millisecond

// Poller feeds a queue's messages to an SQS Lambda handler. Its zero configuration is one
// ReceiveMessage of up to 10 messages per invocation, the answer's batchItemFailures honoured.
type Poller struct {
	SQS      *sqs.Client
	QueueURL string
	Handler  func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	// Wait is the long-poll time in seconds of the receive that starts a batch (0: return at
	// once when the queue is empty).
	Wait int32
	// BatchSize is the most messages per invocation (0: DefaultBatchSize).
	BatchSize int
	// Window is the batching window (MaximumBatchingWindowInSeconds): once a receive has
	// returned the batch's first messages, more are received until the batch is full or the
	// window has passed, then the handler is invoked once. 0: the first receive is the batch.
	Window time.Duration
	// IgnoreBatchItemFailures is set for a mapping without ReportBatchItemFailures: Lambda then
	// ignores the function's answer, and an invocation that did not fail deletes the whole
	// batch, the messages it named in batchItemFailures too. FromTemplate sets it.
	IgnoreBatchItemFailures bool
}

// FromTemplate returns a poller configured as fn's SQS event declares (BatchSize,
// MaximumBatchingWindowInSeconds, FunctionResponseTypes); the caller sets SQS, QueueURL,
// Handler and Wait.
func FromTemplate(fn samtemplate.Function) (*Poller, error) {
	if fn.SQS == nil {
		return nil, fmt.Errorf("sqspoll: %s has no SQS event in template.yaml", fn.LogicalID)
	}
	return &Poller{BatchSize: fn.SQS.BatchSize, Window: fn.SQS.Window, IgnoreBatchItemFailures: !fn.SQS.ReportBatchItemFailures}, nil
}

func (p *Poller) batchSize() int {
	if p.BatchSize > 0 {
		return p.BatchSize
	}
	return DefaultBatchSize
}

// receive returns up to max messages, waiting up to wait seconds for the first.
func (p *Poller) receive(ctx context.Context, max int, wait int32) ([]sqstypes.Message, error) {
	out, err := p.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(p.QueueURL), MaxNumberOfMessages: int32(min(max, maxReceive)), WaitTimeSeconds: wait,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
	})
	if err != nil {
		return nil, err
	}
	return out.Messages, nil
}

// gather receives one batch: the first receive long-polls for Wait seconds; while the window
// is open and the batch is not full, short polls add to it.
func (p *Poller) gather(ctx context.Context) ([]sqstypes.Message, error) {
	size := p.batchSize()
	batch, err := p.receive(ctx, size, p.Wait)
	if err != nil || len(batch) == 0 {
		return nil, err
	}
	seen := map[string]int{}
	for i, m := range batch {
		seen[aws.ToString(m.MessageId)] = i
	}
	deadline := time.Now().Add(p.Window)
	for len(batch) < size && time.Now().Before(deadline) {
		more, err := p.receive(ctx, size-len(batch), 0)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err() // the received messages come back after their visibility timeout
			}
			return batch, nil // invoke with what was gathered, as the event source would
		}
		for _, m := range more {
			// A message received again (its visibility timeout shorter than the window) keeps
			// one record, with the newest receipt handle.
			if i, dup := seen[aws.ToString(m.MessageId)]; dup {
				batch[i] = m
				continue
			}
			seen[aws.ToString(m.MessageId)] = len(batch)
			batch = append(batch, m)
		}
		if len(more) == 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(min(idlePause, time.Until(deadline))):
			}
		}
	}
	return batch, nil
}

// RunOnce handles one batch and returns how many messages it received.
func (p *Poller) RunOnce(ctx context.Context) (int, error) {
	msgs, err := p.gather(ctx)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	ev := events.SQSEvent{}
	for _, m := range msgs {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), Attributes: m.Attributes, EventSource: "aws:sqs",
		})
	}
	resp, err := p.Handler(ctx, ev)
	if err != nil {
		return len(msgs), err // the whole batch is retried, as Lambda does
	}
	failed := map[string]bool{}
	if !p.IgnoreBatchItemFailures {
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
	}
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, r := range ev.Records {
		if !failed[r.MessageId] {
			entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r.ReceiptHandle)})
		}
	}
	// As the event source does: DeleteMessageBatch, ten entries a call.
	for len(entries) > 0 {
		n := min(len(entries), maxReceive)
		out, err := p.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(p.QueueURL), Entries: entries[:n]})
		if err != nil {
			return len(msgs), err
		}
		if len(out.Failed) > 0 {
			f := out.Failed[0]
			return len(msgs), fmt.Errorf("sqspoll: DeleteMessageBatch: %d of %d entries failed, the first: %s %s", len(out.Failed), n, aws.ToString(f.Code), aws.ToString(f.Message))
		}
		entries = entries[n:]
	}
	return len(msgs), nil
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
