package dynamo

// A dashboard user's email is unique, compared case-insensitively. The store cannot look a
// user up by email, so creating a user first claims the email with its own item:
//
//	user email  EMAIL#<case-folded email> / EMAIL   user_id, email (as given)
//
// The claim is one create-only PutItem: of two concurrent claims of the same email (in any
// case) exactly one succeeds.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrEmailTaken means another user already has the email (in any letter case).
var ErrEmailTaken = errors.New("email already registered")

type userEmailItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	UserID string `dynamodbav:"user_id"`
	Email  string `dynamodbav:"email"`
}

// userEmailPK keys an email case-insensitively: upper- then lower-casing maps every letter
// case of an address (including ſ/s, K/k/K and σ/ς/Σ) to one text. A few distinct letters
// share a text too (ı and i), which only refuses more.
func userEmailPK(email string) string {
	return "EMAIL#" + strings.ToLower(strings.ToUpper(email))
}

// ClaimUserEmail records that email belongs to userID with one conditional PutItem;
// ErrEmailTaken when any user (userID included) has claimed it, in any letter case.
func (s *Store) ClaimUserEmail(ctx context.Context, email, userID string) error {
	if email == "" || !validID(userID) {
		return fmt.Errorf("invalid email %q or user id %q", email, userID)
	}
	err := s.putNew(ctx, userEmailItem{PK: userEmailPK(email), SK: "EMAIL", UserID: userID, Email: email})
	if isConditionFailed(err) {
		return ErrEmailTaken
	}
	return err
}

// ReleaseUserEmail undoes userID's claim of email (a user that could not be created) with one
// conditional DeleteItem; a claim held by another user, or none, is left as it is.
func (s *Store) ReleaseUserEmail(ctx context.Context, email, userID string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(userEmailPK(email), "EMAIL"),
		ConditionExpression: aws.String("user_id = :u"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":u": &types.AttributeValueMemberS{Value: userID},
		},
	})
	if isConditionFailed(err) {
		return nil
	}
	return err
}
