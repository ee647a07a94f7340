// Package awsx loads the AWS SDK configuration the functions and tools share, with a
// middleware that counts every AWS operation into the request's obs.Stats.
package awsx

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/takapay/payments/shared/foundation/obs"
)

// Load returns the default AWS configuration (environment, shared files, or the Lambda role)
// with the functions' bounds (Configure). Endpoints can be pointed at local servers with
// AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_SQS, which the SDK reads itself, so
// production code has no local branch.
func Load(ctx context.Context, attemptTimeout time.Duration) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, err
	}
	Configure(&cfg, attemptTimeout)
	return cfg, nil
}

// DefaultAttemptTimeout bounds one attempt of one AWS call (connect, send, answer).
// DynamoDB and SQS answer in milliseconds; an attempt this slow is a hung dependency.
const DefaultAttemptTimeout = 1500 * time.Millisecond

// MaxAttempts and MaxBackoff are the retry budget of every call: with DefaultAttemptTimeout a
// call gives up after at most 3 × 1.5 s + 2 × 0.2 s = 4.9 s, inside the request deadline of a
// 10-second function (its timeout less httpapi's margin).
const (
	MaxAttempts = 3
	MaxBackoff  = 200 * time.Millisecond
)

// Configure gives cfg the functions' bounds — a per-attempt timeout on every request, a
// bounded retry budget — and the request-counting middleware. The local stack applies it to
// its clients too, so local runs fail the way Lambda does.
func Configure(cfg *aws.Config, attemptTimeout time.Duration) {
	if attemptTimeout <= 0 {
		attemptTimeout = DefaultAttemptTimeout
	}
	cfg.Retryer = NewRetryer
	cfg.HTTPClient = awshttp.NewBuildableClient().WithTimeout(attemptTimeout).WithDialerOptions(func(d *net.Dialer) {
		d.Timeout = attemptTimeout
	})
	Instrument(cfg)
}

// NewRetryer is the retry policy of every function: a request has a short budget (the
// function times out after seconds), so MaxAttempts attempts with a small backoff ceiling.
// A timed-out attempt counts as a retryable connection error.
func NewRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = MaxAttempts
		o.MaxBackoff = MaxBackoff
	})
}

// Instrument adds the call-counting middleware to a configuration.
func Instrument(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("takapayCount",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				obs.CountCall(ctx, serviceName(awsmiddleware.GetServiceID(ctx)), awsmiddleware.GetOperationName(ctx))
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

func serviceName(id string) string {
	switch id {
	case "DynamoDB":
		return "dynamodb"
	case "SQS":
		return "sqs"
	case "KMS":
		return "kms"
	}
	return id
}

// IsUnavailable reports whether an error means the dependency could not be reached or was
// throttled (worth a 503 and a retry) rather than a request the service got wrong.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
			"InternalServerError", "ServiceUnavailable", "LimitExceededException":
			return true
		}
		return apiErr.ErrorFault() == smithy.FaultServer
	}
	var opErr *smithy.OperationError
	return errors.As(err, &opErr)
}

// IsItemTooLarge reports whether DynamoDB refused a write because the item would pass its
// 400 KB item limit (a ValidationException: "Item size has exceeded the maximum allowed
// size", or "Item size to update has exceeded …" from UpdateItem). Retrying cannot help.
func IsItemTooLarge(err error) bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ValidationException" {
		return false
	}
	msg := apiErr.ErrorMessage()
	return strings.Contains(msg, "Item size") && strings.Contains(msg, "exceeded the maximum allowed size")
}
