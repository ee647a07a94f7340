package dynamo

// A workspace's activity log (package activity):
//
//	activity event  WS#<workspace_id>#ACTIVITY / <at, timeLayout>#<16 hex random>   ttl: at + activity.Retention
//	                actor (user id), email, action, target, ip, ua (each omitted when empty)
//
// One partition per workspace, sorted by time: the list is one Query, newest first
// (ScanIndexForward false), bounded below by the retention cutoff in the key condition, so
// expired events are never read even where TTL has not deleted them (dynalite never does).
// Activity is written at human speed (sign-ins, key and team changes), far below a
// partition's 1,000 writes per second.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/activity"
)

var _ activity.Store = (*Store)(nil)

type activityItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	TTL       int64  `dynamodbav:"ttl"`
	Actor     string `dynamodbav:"actor,omitempty"`
	Email     string `dynamodbav:"email,omitempty"`
	Action    string `dynamodbav:"action"`
	Target    string `dynamodbav:"target,omitempty"`
	IP        string `dynamodbav:"ip,omitempty"`
	UserAgent string `dynamodbav:"ua,omitempty"`
}

func activityPK(workspaceID string) string { return "WS#" + workspaceID + "#ACTIVITY" }

// activitySKLen is the length of an event's sort key: the time, "#", 16 hex digits.
var activitySKLen = len(timeLayout) + 1 + 16

// validActivitySK reports whether sk has the form of an event's sort key.
func validActivitySK(sk string) bool {
	if len(sk) != activitySKLen || sk[len(timeLayout)] != '#' {
		return false
	}
	if _, err := time.Parse(timeLayout, sk[:len(timeLayout)]); err != nil {
		return false
	}
	_, err := hex.DecodeString(sk[len(timeLayout)+1:])
	return err == nil && strings.ToLower(sk[len(timeLayout)+1:]) == sk[len(timeLayout)+1:]
}

func activityEntryItem(e activity.Event) (activityItem, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return activityItem{}, err
	}
	return activityItem{
		PK: activityPK(e.WorkspaceID), SK: formatTime(e.At) + "#" + hex.EncodeToString(r[:]),
		TTL:   ttlSeconds(e.At.Add(activity.Retention)),
		Actor: e.ActorUserID, Email: e.ActorEmail, Action: e.Action, Target: e.Target, IP: e.IP, UserAgent: e.UserAgent,
	}, nil
}

// PutEvent stores one event (a create-only PutItem; the random suffix makes its key unique).
// The entry's ID is the event's sort key.
func (s *Store) PutEvent(ctx context.Context, e activity.Event) (activity.Entry, error) {
	if !validID(e.WorkspaceID) {
		return activity.Entry{}, fmt.Errorf("invalid workspace id %q", e.WorkspaceID)
	}
	it, err := activityEntryItem(e)
	if err != nil {
		return activity.Entry{}, err
	}
	if err := s.putNew(ctx, it); err != nil {
		return activity.Entry{}, err
	}
	return activity.Entry{ID: it.SK, Event: e}, nil
}

// ListEvents returns a workspace's events newest first (one Query of at most limit+1 items):
// those older than the position after, none older than notBefore.
func (s *Store) ListEvents(ctx context.Context, workspaceID, after string, notBefore time.Time, limit int) ([]activity.Entry, string, error) {
	if after != "" && !validActivitySK(after) {
		return nil, "", activity.ErrBadCursor
	}
	if !validID(workspaceID) || limit < 1 {
		return nil, "", nil
	}
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		KeyConditionExpression: aws.String("pk = :pk AND sk >= :cutoff"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: activityPK(workspaceID)},
			":cutoff": &types.AttributeValueMemberS{Value: formatTime(notBefore)},
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(limit + 1)),
	}
	if after != "" {
		if after < formatTime(notBefore) {
			return nil, "", nil
		}
		in.ExclusiveStartKey = key(activityPK(workspaceID), after)
	}
	out, err := s.DB.Query(ctx, in)
	if err != nil {
		return nil, "", err
	}
	var list []activity.Entry
	next := ""
	for i, item := range out.Items {
		if i == limit {
			next = list[limit-1].ID
			break
		}
		var it activityItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, "", fmt.Errorf("decode activity item: %w", err)
		}
		at, err := time.Parse(timeLayout, it.SK[:min(len(it.SK), len(timeLayout))])
		if err != nil {
			return nil, "", fmt.Errorf("decode activity item: sort key %q: %w", it.SK, err)
		}
		list = append(list, activity.Entry{ID: it.SK, Event: activity.Event{
			WorkspaceID: workspaceID, ActorUserID: it.Actor, ActorEmail: it.Email, Action: it.Action,
			Target: it.Target, IP: it.IP, UserAgent: it.UserAgent, At: at,
		}})
	}
	return list, next, nil
}
