// Package sqspoll does locally what Lambda's SQS event source does in AWS: receive a batch,
// invoke the handler with an SQS event, delete the messages it did not report as failures.
// `make dev` and the tests run the very same sqsqueue.Consumer through it. Local tooling:
// no Lambda links it.
package sqspoll

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Poller feeds a queue's messages to an SQS Lambda handler.
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
