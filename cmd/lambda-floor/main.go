// Command lambda-floor is the size and init-time baseline of `make build`: the least a function
// of this project can be — lambda.Start with the AWS configuration and a DynamoDB and an SQS
// client built at cold start, built with the same flags as the functions. Each function's
// bootstrap is reported as a ratio to this one. It is never deployed.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "aws configuration:", err)
		os.Exit(1)
	}
	db := dynamodb.NewFromConfig(cfg)
	q := sqs.NewFromConfig(cfg)
	lambda.Start(func(ctx context.Context) (string, error) {
		return fmt.Sprintf("%T %T", db, q), nil
	})
}
