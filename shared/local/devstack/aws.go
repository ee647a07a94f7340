package devstack

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Fixed identity of the local stack.
const (
	// Region is the AWS region the local stack pretends to be in.
	Region = "us-east-1"
	// AccountID is the account id fauxqs puts into queue ARNs and URLs.
	AccountID = "000000000000"
	// AccessKeyID is the dummy access key the local clients sign with.
	AccessKeyID = "local"
	// SecretAccessKey is the dummy secret key the local clients sign with.
	SecretAccessKey = "local"
)

// AWSConfig returns an aws.Config for the local stack: static dummy
// credentials, region us-east-1, and service options that point DynamoDB and
// SQS clients built with NewFromConfig at the given endpoints (an empty
// endpoint leaves that service alone). The config is built directly rather
// than with config.LoadDefaultConfig, so a developer's AWS_PROFILE, ~/.aws
// files or AWS_ENDPOINT_URL cannot redirect or break the local stack; retry
// and HTTP settings are the SDK defaults. ctx is accepted for symmetry with
// LoadDefaultConfig and is currently unused.
func AWSConfig(ctx context.Context, dynamoEndpoint, sqsEndpoint string) (aws.Config, error) {
	cfg := aws.Config{
		Region:      Region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, "")),
	}
	cfg.ServiceOptions = append(cfg.ServiceOptions, func(serviceID string, options any) {
		switch o := options.(type) {
		case *dynamodb.Options:
			if dynamoEndpoint != "" {
				o.BaseEndpoint = aws.String(dynamoEndpoint)
			}
		case *sqs.Options:
			if sqsEndpoint != "" {
				o.BaseEndpoint = aws.String(sqsEndpoint)
			}
		}
	})
	return cfg, nil
}

// DynamoClient returns a DynamoDB client for cfg whose BaseEndpoint is endpoint.
func DynamoClient(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, optFns...)...)
}

// SQSClient returns an SQS client for cfg whose BaseEndpoint is endpoint.
func SQSClient(cfg aws.Config, endpoint string) *sqs.Client {
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(endpoint) })
}
