package dynamo

// Dashboard users, their workspace memberships and their sessions:
//
//	user        USER#<user_id>        / USER
//	membership  USER#<user_id>        / MEMBER#<workspace_id>   gsi1: WS#<workspace_id> / MEMBER#<user_id>
//	            role, created_at, owner_grant (an owner's current ownership; see team.go)
//	session     SESSION#<sha256 hex>  / SESSION                 ttl: the later of expires_at and
//	                                                            absolute_expires_at (epoch seconds)
//
// A sign-in session (package account) also has absolute_expires_at and seen_at: expires_at is
// then its idle deadline, moved by TouchSession (accounts.go) up to absolute_expires_at.
//
// A request with a session cookie reads the session and then the membership: two strongly
// consistent GetItems, so a revocation or a role change takes effect on the next request.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
)

var _ auth.SessionStore = (*Store)(nil)

type userItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	auth.User
}

func userPK(userID string) string { return "USER#" + userID }

// PutUser creates a user (never overwriting one).
func (s *Store) PutUser(ctx context.Context, u auth.User) error {
	if !validID(u.ID) {
		return fmt.Errorf("invalid user id %q", u.ID)
	}
	u.CreatedAt = u.CreatedAt.UTC()
	return s.putNew(ctx, userItem{PK: userPK(u.ID), SK: "USER", User: u})
}

// GetUser reads a user; ErrNotFound when absent.
func (s *Store) GetUser(ctx context.Context, id string) (*auth.User, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	item, err := s.get(ctx, userPK(id), "USER")
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, ErrNotFound
	}
	var it userItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode user item: %w", err)
	}
	return &it.User, nil
}

type memberItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	GSI1PK      string    `dynamodbav:"gsi1pk"`
	GSI1SK      string    `dynamodbav:"gsi1sk"`
	UserID      string    `dynamodbav:"user_id"`
	WorkspaceID string    `dynamodbav:"workspace_id"`
	Role        string    `dynamodbav:"role"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	// OwnerGrant is the id of the membership's current ownership (package team; "" when none).
	OwnerGrant string `dynamodbav:"owner_grant,omitempty"`
}

func memberSK(workspaceID string) string { return "MEMBER#" + workspaceID }

func decodeMember(item map[string]types.AttributeValue) (*auth.MembershipRecord, error) {
	var it memberItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode membership item: %w", err)
	}
	return &auth.MembershipRecord{UserID: it.UserID, WorkspaceID: it.WorkspaceID, Role: auth.Role(it.Role), CreatedAt: it.CreatedAt}, nil
}

// PutMembership gives a user a role in a workspace, replacing the role of an existing
// membership (whose created_at is kept; a zero CreatedAt means now), with one UpdateItem. It
// returns the stored membership.
// It does not check that the user and the workspace exist (the operator does).
func (s *Store) PutMembership(ctx context.Context, m *auth.MembershipRecord) (*auth.MembershipRecord, error) {
	if !validID(m.UserID) || !validID(m.WorkspaceID) {
		return nil, fmt.Errorf("invalid user id %q or workspace id %q", m.UserID, m.WorkspaceID)
	}
	if _, ok := auth.ParseRole(string(m.Role)); !ok {
		return nil, fmt.Errorf("invalid role %q", m.Role)
	}
	created := m.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Table),
		Key:       key(userPK(m.UserID), memberSK(m.WorkspaceID)),
		UpdateExpression: aws.String("SET #role = :role, created_at = if_not_exists(created_at, :c), " +
			"user_id = :u, workspace_id = :w, gsi1pk = :g1pk, gsi1sk = :g1sk"),
		ExpressionAttributeNames: map[string]string{"#role": "role"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":role": &types.AttributeValueMemberS{Value: string(m.Role)},
			":c":    &types.AttributeValueMemberS{Value: formatTime(created)},
			":u":    &types.AttributeValueMemberS{Value: m.UserID},
			":w":    &types.AttributeValueMemberS{Value: m.WorkspaceID},
			":g1pk": &types.AttributeValueMemberS{Value: "WS#" + m.WorkspaceID},
			":g1sk": &types.AttributeValueMemberS{Value: memberSK(m.UserID)},
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		return nil, err
	}
	return decodeMember(out.Attributes)
}

// GetMembership reads a user's membership of a workspace with one strongly consistent
// GetItem; (nil, nil) when the user is no member.
func (s *Store) GetMembership(ctx context.Context, userID, workspaceID string) (*auth.MembershipRecord, error) {
	if !validID(userID) || !validID(workspaceID) {
		return nil, nil
	}
	item, err := s.get(ctx, userPK(userID), memberSK(workspaceID))
	if err != nil || item == nil {
		return nil, err
	}
	return decodeMember(item)
}

// ListMembers returns a workspace's members ordered by user id (GSI1 query; operator use only).
func (s *Store) ListMembers(ctx context.Context, workspaceID string) ([]*auth.MembershipRecord, error) {
	return workspaceItems(ctx, s, workspaceID, "MEMBER#", decodeMember)
}

type sessionItem struct {
	PK        string     `dynamodbav:"pk"`
	SK        string     `dynamodbav:"sk"`
	UserID    string     `dynamodbav:"user_id"`
	CreatedAt time.Time  `dynamodbav:"created_at"`
	ExpiresAt time.Time  `dynamodbav:"expires_at"`
	RevokedAt *time.Time `dynamodbav:"revoked_at,omitempty"`
	// AbsoluteExpiresAt and SeenAt: sign-in sessions only (auth.SessionRecord).
	AbsoluteExpiresAt *time.Time `dynamodbav:"absolute_expires_at,omitempty"`
	SeenAt            *time.Time `dynamodbav:"seen_at,omitempty"`
	// ProvedAt: the last proof of who the user is in this session (auth.SessionRecord).
	ProvedAt *time.Time `dynamodbav:"proved_at,omitempty"`
	// TTL lets DynamoDB delete the item some time after it expires (epoch seconds).
	TTL int64 `dynamodbav:"ttl"`
}

const sessionPrefix = "SESSION#"

func sessionPK(hash string) string { return sessionPrefix + hash }

// ttlSeconds is the epoch second at or after t (TTL never deletes an item before it expires).
func ttlSeconds(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// PutSession stores a new session under its token's hash (never overwriting one). The item
// holds the hash (in its key), the user, the times and ttl; never the token.
func (s *Store) PutSession(ctx context.Context, rec *auth.SessionRecord) error {
	if !validID(rec.Hash) || !validID(rec.UserID) {
		return fmt.Errorf("invalid session hash or user id %q", rec.UserID)
	}
	if rec.ExpiresAt.IsZero() {
		return fmt.Errorf("a session needs an expiry")
	}
	it := sessionItem{
		PK: sessionPK(rec.Hash), SK: "SESSION", UserID: rec.UserID,
		CreatedAt: rec.CreatedAt.UTC(), ExpiresAt: rec.ExpiresAt.UTC(), RevokedAt: rec.RevokedAt,
		TTL: ttlSeconds(rec.ExpiresAt),
	}
	if !rec.AbsoluteExpiresAt.IsZero() {
		abs, seen := rec.AbsoluteExpiresAt.UTC(), rec.SeenAt.UTC()
		it.AbsoluteExpiresAt, it.SeenAt = &abs, &seen
		if abs.After(rec.ExpiresAt) {
			it.TTL = ttlSeconds(abs)
		}
	}
	if !rec.ProvedAt.IsZero() {
		proved := rec.ProvedAt.UTC()
		it.ProvedAt = &proved
	}
	return s.putNew(ctx, it)
}

// GetSession looks a session up by its token's hash with one strongly consistent GetItem;
// (nil, nil) when absent. Revoked and expired sessions are returned as stored (DynamoDB TTL
// deletes expired items only eventually): auth.SessionRecord.Active decides.
func (s *Store) GetSession(ctx context.Context, hash string) (*auth.SessionRecord, error) {
	if !validID(hash) {
		return nil, nil
	}
	item, err := s.get(ctx, sessionPK(hash), "SESSION")
	if err != nil || item == nil {
		return nil, err
	}
	var it sessionItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode session item: %w", err)
	}
	rec := &auth.SessionRecord{
		Hash: strings.TrimPrefix(it.PK, sessionPrefix), UserID: it.UserID,
		CreatedAt: it.CreatedAt, ExpiresAt: it.ExpiresAt, RevokedAt: it.RevokedAt,
	}
	if it.AbsoluteExpiresAt != nil {
		rec.AbsoluteExpiresAt = *it.AbsoluteExpiresAt
	}
	if it.SeenAt != nil {
		rec.SeenAt = *it.SeenAt
	}
	if it.ProvedAt != nil {
		rec.ProvedAt = *it.ProvedAt
	}
	return rec, nil
}

// RevokeSession marks a session revoked at t (idempotent: an already revoked session keeps
// its time); ErrNotFound when no session has that hash.
func (s *Store) RevokeSession(ctx context.Context, hash string, t time.Time) error {
	if !validID(hash) {
		return ErrNotFound
	}
	return s.revoke(ctx, sessionPK(hash), "SESSION", t)
}
