package dynamo

// The team's items (package team), besides the memberships of sessions.go:
//
//	workspace   WS#<workspace_id> / WS       owners: string set of current ownerships
//	                                         "<user_id>/<grant>"; released: string set of ended
//	                                         ones (never shrinks; about 50 bytes an ownership)
//	invitation  INVITE#<invite_id> / INVITE  gsi1: WS#<workspace_id> / INVITE#<invite_id>
//	            workspace_id, workspace_name, email, role, inviter_user_id, inviter_email,
//	            token_hash (hex SHA-256 of the token; never the token), created_at, expires_at,
//	            ttl: expires_at
//
// The owners set is what makes "the last owner cannot leave" race-free without transactions
// (see package team for the proof): ReleaseOwner is one UpdateItem that deletes an ownership
// from the set only if another stays, and records it released so that AddOwner can never put
// it back. A workspace written before the set existed (or by the operator CLI or
// the sign-up) gets it on first need from its owner memberships, with a create-only update.

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
	"github.com/takapay/payments/shared/team"
)

var _ team.Store = (*Store)(nil)

// WorkspaceName reads a workspace's name.
func (s *Store) WorkspaceName(ctx context.Context, workspaceID string) (string, bool, error) {
	if !validID(workspaceID) {
		return "", false, nil
	}
	item, err := s.get(ctx, "WS#"+workspaceID, "WS")
	if err != nil || item == nil {
		return "", false, err
	}
	return attrS(item, "name"), true, nil
}

// batchGetChunks reads items by key with batchGet, 100 keys a request (whole items: users and
// workspaces are small).
func (s *Store) batchGetChunks(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for len(keys) > 0 {
		n := min(len(keys), 100)
		items, err := s.batchGet(ctx, keys[:n], "")
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		keys = keys[n:]
	}
	return out, nil
}

// attrS returns a string attribute's value ("" when absent or not a string).
func attrS(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// uniqueIDs returns the valid, distinct ids of ids.
func uniqueIDs(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if validID(id) && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// WorkspaceNames reads the names of the workspaces that exist among ids (one BatchGetItem per
// 100).
func (s *Store) WorkspaceNames(ctx context.Context, ids []string) (map[string]string, error) {
	var keys []map[string]types.AttributeValue
	for _, id := range uniqueIDs(ids) {
		keys = append(keys, key("WS#"+id, "WS"))
	}
	items, err := s.batchGetChunks(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(items))
	for _, it := range items {
		out[strings.TrimPrefix(attrS(it, "pk"), "WS#")] = attrS(it, "name")
	}
	return out, nil
}

// UserIDByEmail reads the email claim of an address (any letter case).
func (s *Store) UserIDByEmail(ctx context.Context, email string) (string, bool, error) {
	if email == "" {
		return "", false, nil
	}
	item, err := s.get(ctx, userEmailPK(email), "EMAIL")
	if err != nil || item == nil {
		return "", false, err
	}
	return attrS(item, "user_id"), true, nil
}

// UserEmails reads the emails of the users that exist among ids (one BatchGetItem per 100).
func (s *Store) UserEmails(ctx context.Context, ids []string) (map[string]string, error) {
	var keys []map[string]types.AttributeValue
	for _, id := range uniqueIDs(ids) {
		keys = append(keys, key(userPK(id), "USER"))
	}
	items, err := s.batchGetChunks(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(items))
	for _, it := range items {
		out[attrS(it, "user_id")] = attrS(it, "email")
	}
	return out, nil
}

// UserMemberships lists a user's memberships (one strongly consistent Query of the user's
// partition).
func (s *Store) UserMemberships(ctx context.Context, userID string) ([]*auth.MembershipRecord, error) {
	if !validID(userID) {
		return nil, nil
	}
	var out []*auth.MembershipRecord
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName:              aws.String(s.Table),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: userPK(userID)},
			":sk": &types.AttributeValueMemberS{Value: "MEMBER#"},
		},
		ConsistentRead: aws.Bool(true),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			m, err := decodeMember(item)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// AddMembership creates a membership with one create-only PutItem; when the user already is a
// member it reads and returns that membership, unchanged.
func (s *Store) AddMembership(ctx context.Context, m *auth.MembershipRecord) (*auth.MembershipRecord, bool, error) {
	if !validID(m.UserID) || !validID(m.WorkspaceID) {
		return nil, false, fmt.Errorf("invalid user id %q or workspace id %q", m.UserID, m.WorkspaceID)
	}
	if _, ok := auth.ParseRole(string(m.Role)); !ok {
		return nil, false, fmt.Errorf("invalid role %q", m.Role)
	}
	it := memberItem{
		PK: userPK(m.UserID), SK: memberSK(m.WorkspaceID), GSI1PK: "WS#" + m.WorkspaceID, GSI1SK: memberSK(m.UserID),
		UserID: m.UserID, WorkspaceID: m.WorkspaceID, Role: string(m.Role), CreatedAt: m.CreatedAt.UTC(),
	}
	err := s.putNew(ctx, it)
	if isConditionFailed(err) {
		old, err := s.GetMembership(ctx, m.UserID, m.WorkspaceID)
		if err != nil {
			return nil, false, err
		}
		if old == nil {
			return nil, false, team.ErrConflict
		}
		return old, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := *m
	out.CreatedAt = it.CreatedAt
	return &out, true, nil
}

// SetRole changes a membership's role with one UpdateItem conditional on its role being from;
// never to owner (PromoteOwner, GrantOwner).
func (s *Store) SetRole(ctx context.Context, userID, workspaceID string, from, to auth.Role) error {
	if !validID(userID) || !validID(workspaceID) {
		return team.ErrConflict
	}
	if _, ok := auth.ParseRole(string(to)); !ok || to == auth.RoleOwner {
		return fmt.Errorf("invalid role %q", to)
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key(userPK(userID), memberSK(workspaceID)),
		UpdateExpression:         aws.String("SET #role = :to"),
		ConditionExpression:      aws.String("#role = :from"),
		ExpressionAttributeNames: map[string]string{"#role": "role"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":to":   &types.AttributeValueMemberS{Value: string(to)},
			":from": &types.AttributeValueMemberS{Value: string(from)},
		},
	})
	if isConditionFailed(err) {
		return team.ErrConflict
	}
	return err
}

// DeleteMembership deletes a membership with one DeleteItem conditional on its role.
func (s *Store) DeleteMembership(ctx context.Context, userID, workspaceID string, role auth.Role) error {
	if !validID(userID) || !validID(workspaceID) {
		return team.ErrConflict
	}
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(userPK(userID), memberSK(workspaceID)),
		ConditionExpression:       aws.String("#role = :r"),
		ExpressionAttributeNames:  map[string]string{"#role": "role"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: string(role)}},
	})
	if isConditionFailed(err) {
		return team.ErrConflict
	}
	return err
}

// GetMember reads a membership with its owner grant (one strongly consistent GetItem).
func (s *Store) GetMember(ctx context.Context, userID, workspaceID string) (*team.Membership, error) {
	if !validID(userID) || !validID(workspaceID) {
		return nil, nil
	}
	item, err := s.get(ctx, userPK(userID), memberSK(workspaceID))
	if err != nil || item == nil {
		return nil, err
	}
	m, err := decodeMember(item)
	if err != nil {
		return nil, err
	}
	return &team.Membership{MembershipRecord: *m, OwnerGrant: attrS(item, "owner_grant")}, nil
}

// PromoteOwner makes a membership owner with grant (one UpdateItem conditional on role from).
func (s *Store) PromoteOwner(ctx context.Context, userID, workspaceID string, from auth.Role, grant string) error {
	if !validID(userID) || !validID(workspaceID) || from == auth.RoleOwner || !validGrant(grant) {
		return team.ErrConflict
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key(userPK(userID), memberSK(workspaceID)),
		UpdateExpression:         aws.String("SET #role = :owner, owner_grant = :g"),
		ConditionExpression:      aws.String("#role = :from"),
		ExpressionAttributeNames: map[string]string{"#role": "role"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":owner": &types.AttributeValueMemberS{Value: string(auth.RoleOwner)},
			":from":  &types.AttributeValueMemberS{Value: string(from)},
			":g":     &types.AttributeValueMemberS{Value: grant},
		},
	})
	if isConditionFailed(err) {
		return team.ErrConflict
	}
	return err
}

// GrantOwner makes userID an owner of the workspace with a fresh grant, creating the
// membership when there is none (operator CLI), and adds that ownership to the owners set:
// one UpdateItem conditional on the membership not being owner already (then it changes
// nothing), then AddOwner. It returns the membership.
func (s *Store) GrantOwner(ctx context.Context, userID, workspaceID string, now time.Time) (*auth.MembershipRecord, error) {
	if !validID(userID) || !validID(workspaceID) {
		return nil, fmt.Errorf("invalid user id %q or workspace id %q", userID, workspaceID)
	}
	grant, err := team.NewGrant()
	if err != nil {
		return nil, err
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Table),
		Key:       key(userPK(userID), memberSK(workspaceID)),
		UpdateExpression: aws.String("SET #role = :owner, owner_grant = :g, created_at = if_not_exists(created_at, :c), " +
			"user_id = :u, workspace_id = :w, gsi1pk = :g1pk, gsi1sk = :g1sk"),
		ConditionExpression:      aws.String("attribute_not_exists(pk) OR #role <> :owner"),
		ExpressionAttributeNames: map[string]string{"#role": "role"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":owner": &types.AttributeValueMemberS{Value: string(auth.RoleOwner)},
			":g":     &types.AttributeValueMemberS{Value: grant},
			":c":     &types.AttributeValueMemberS{Value: formatTime(now)},
			":u":     &types.AttributeValueMemberS{Value: userID},
			":w":     &types.AttributeValueMemberS{Value: workspaceID},
			":g1pk":  &types.AttributeValueMemberS{Value: "WS#" + workspaceID},
			":g1sk":  &types.AttributeValueMemberS{Value: memberSK(userID)},
		},
	})
	if err != nil && !isConditionFailed(err) {
		return nil, err
	}
	m, err := s.GetMember(ctx, userID, workspaceID)
	if err != nil {
		return nil, err
	}
	if m == nil || m.Role != auth.RoleOwner {
		return nil, team.ErrConflict
	}
	if err := s.AddOwner(ctx, workspaceID, userID, m.OwnerGrant); err != nil {
		return nil, err
	}
	return &m.MembershipRecord, nil
}

func validGrant(g string) bool { return !strings.ContainsAny(g, "/#") }

// ownership is an element of a workspace's owners and released sets.
func ownership(userID, grant string) string { return userID + "/" + grant }

// ownersState reads the workspace item's owners set: exists false when there is no workspace.
func (s *Store) ownersState(ctx context.Context, workspaceID string) (owners []string, hasSet, exists bool, err error) {
	item, err := s.get(ctx, "WS#"+workspaceID, "WS")
	if err != nil || item == nil {
		return nil, false, false, err
	}
	ss, ok := item["owners"].(*types.AttributeValueMemberSS)
	if !ok {
		return nil, false, true, nil
	}
	return ss.Value, true, true, nil
}

// initOwners gives a workspace item without an owners set one: the ownerships of the
// memberships that say owner (GSI1: one that has just changed may be missing, which only
// counts too few), plus known (one whose membership was just written). Create-only: a set
// written meanwhile is kept. No owner at all leaves the item as it is (a set cannot be empty).
func (s *Store) initOwners(ctx context.Context, workspaceID string, known ...string) error {
	members, err := workspaceItems(ctx, s, workspaceID, "MEMBER#", func(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
		return item, nil
	})
	if err != nil {
		return err
	}
	owners := uniqueIDs(known)
	for _, m := range members {
		if attrS(m, "role") == string(auth.RoleOwner) {
			owners = uniqueIDs(append(owners, ownership(attrS(m, "user_id"), attrS(m, "owner_grant"))))
		}
	}
	if len(owners) == 0 {
		return nil
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key("WS#"+workspaceID, "WS"),
		UpdateExpression:          aws.String("SET owners = :o"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND attribute_not_exists(owners)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": &types.AttributeValueMemberSS{Value: owners}},
	})
	if isConditionFailed(err) {
		return nil
	}
	return err
}

// AddOwner adds the ownership (userID, grant) to the owners set with one UpdateItem ADD
// (idempotent) conditional on the set existing and the ownership never having been released;
// it creates the set from the memberships first when the workspace has none.
func (s *Store) AddOwner(ctx context.Context, workspaceID, userID, grant string) error {
	if !validID(workspaceID) || !validID(userID) || !validGrant(grant) {
		return team.ErrNotFound
	}
	o := ownership(userID, grant)
	for range 3 {
		_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:           aws.String(s.Table),
			Key:                 key("WS#"+workspaceID, "WS"),
			UpdateExpression:    aws.String("ADD owners :set"),
			ConditionExpression: aws.String("attribute_exists(owners) AND NOT contains(released, :o)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":set": &types.AttributeValueMemberSS{Value: []string{o}},
				":o":   &types.AttributeValueMemberS{Value: o},
			},
		})
		if !isConditionFailed(err) {
			return err
		}
		_, hasSet, exists, err := s.ownersState(ctx, workspaceID)
		switch {
		case err != nil:
			return err
		case !exists:
			return team.ErrNotFound
		case hasSet:
			return team.ErrConflict // released
		}
		if err := s.initOwners(ctx, workspaceID, o); err != nil {
			return err
		}
	}
	return team.ErrConflict
}

// ReleaseOwner removes the ownership (userID, grant) from the owners set and adds it to the
// released set, with one UpdateItem whose condition is: the set exists, and either it holds
// the ownership and another one, or it does not hold it (never added, or released before by a
// Leave whose membership write did not happen). The set is created from the memberships
// first when the workspace has none. ErrLastOwner when the ownership is the set's only one.
func (s *Store) ReleaseOwner(ctx context.Context, workspaceID, userID, grant string) error {
	if !validID(workspaceID) || !validID(userID) || !validGrant(grant) {
		return team.ErrNotFound
	}
	o := ownership(userID, grant)
	for range 3 {
		_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:        aws.String(s.Table),
			Key:              key("WS#"+workspaceID, "WS"),
			UpdateExpression: aws.String("DELETE owners :set ADD released :set"),
			ConditionExpression: aws.String("attribute_exists(owners) AND " +
				"((contains(owners, :o) AND size(owners) > :one) OR NOT contains(owners, :o))"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":set": &types.AttributeValueMemberSS{Value: []string{o}},
				":o":   &types.AttributeValueMemberS{Value: o},
				":one": &types.AttributeValueMemberN{Value: "1"},
			},
		})
		if !isConditionFailed(err) {
			return err
		}
		_, hasSet, exists, err := s.ownersState(ctx, workspaceID)
		switch {
		case err != nil:
			return err
		case !exists:
			return team.ErrNotFound
		case hasSet:
			return team.ErrLastOwner
		}
		if err := s.initOwners(ctx, workspaceID); err != nil {
			return err
		}
	}
	return team.ErrLastOwner
}

type inviteItem struct {
	PK            string    `dynamodbav:"pk"`
	SK            string    `dynamodbav:"sk"`
	GSI1PK        string    `dynamodbav:"gsi1pk"`
	GSI1SK        string    `dynamodbav:"gsi1sk"`
	InviteID      string    `dynamodbav:"invite_id"`
	WorkspaceID   string    `dynamodbav:"workspace_id"`
	WorkspaceName string    `dynamodbav:"workspace_name"`
	Email         string    `dynamodbav:"email"`
	Role          string    `dynamodbav:"role"`
	InviterUserID string    `dynamodbav:"inviter_user_id"`
	InviterEmail  string    `dynamodbav:"inviter_email"`
	TokenHash     string    `dynamodbav:"token_hash"`
	CreatedAt     time.Time `dynamodbav:"created_at"`
	ExpiresAt     time.Time `dynamodbav:"expires_at"`
	TTL           int64     `dynamodbav:"ttl"`
}

func invitePK(id string) string { return "INVITE#" + id }

func decodeInvite(item map[string]types.AttributeValue) (*team.InviteRecord, error) {
	var it inviteItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode invitation item: %w", err)
	}
	return &team.InviteRecord{TokenHash: it.TokenHash, Invitation: team.Invitation{
		ID: it.InviteID, WorkspaceID: it.WorkspaceID, WorkspaceName: it.WorkspaceName, Email: it.Email,
		Role: auth.Role(it.Role), InviterUserID: it.InviterUserID, InviterEmail: it.InviterEmail,
		CreatedAt: it.CreatedAt, ExpiresAt: it.ExpiresAt,
	}}, nil
}

// PutInvite stores a new invitation (create-only PutItem).
func (s *Store) PutInvite(ctx context.Context, r *team.InviteRecord) error {
	if !validID(r.ID) || !validID(r.WorkspaceID) || r.TokenHash == "" {
		return fmt.Errorf("invalid invitation id %q or workspace id %q", r.ID, r.WorkspaceID)
	}
	return s.putNew(ctx, inviteItem{
		PK: invitePK(r.ID), SK: "INVITE", GSI1PK: "WS#" + r.WorkspaceID, GSI1SK: "INVITE#" + r.ID,
		InviteID: r.ID, WorkspaceID: r.WorkspaceID, WorkspaceName: r.WorkspaceName, Email: r.Email,
		Role: string(r.Role), InviterUserID: r.InviterUserID, InviterEmail: r.InviterEmail, TokenHash: r.TokenHash,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), TTL: ttlSeconds(r.ExpiresAt),
	})
}

// GetInvite reads an invitation (one strongly consistent GetItem).
func (s *Store) GetInvite(ctx context.Context, id string) (*team.InviteRecord, error) {
	if !validID(id) {
		return nil, nil
	}
	item, err := s.get(ctx, invitePK(id), "INVITE")
	if err != nil || item == nil {
		return nil, err
	}
	return decodeInvite(item)
}

// ConsumeInvite deletes an invitation with one DeleteItem conditional on its token hash and on
// it not having expired at now.
func (s *Store) ConsumeInvite(ctx context.Context, id, tokenHash string, now time.Time) error {
	if !validID(id) {
		return team.ErrInviteNotFound
	}
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(invitePK(id), "INVITE"),
		ConditionExpression: aws.String("token_hash = :h AND expires_at > :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":h":   &types.AttributeValueMemberS{Value: tokenHash},
			":now": &types.AttributeValueMemberS{Value: formatTime(now)},
		},
	})
	if isConditionFailed(err) {
		return team.ErrInviteNotFound
	}
	return err
}

// DeleteInvite deletes a workspace's invitation with one DeleteItem conditional on the
// workspace, returning what it deleted.
func (s *Store) DeleteInvite(ctx context.Context, workspaceID, id string) (*team.InviteRecord, error) {
	if !validID(id) || !validID(workspaceID) {
		return nil, team.ErrNotFound
	}
	out, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(invitePK(id), "INVITE"),
		ConditionExpression:       aws.String("workspace_id = :w"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": &types.AttributeValueMemberS{Value: workspaceID}},
		ReturnValues:              types.ReturnValueAllOld,
	})
	if isConditionFailed(err) {
		return nil, team.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return decodeInvite(out.Attributes)
}

// ListInvites lists a workspace's invitations (GSI1 query), expired ones included.
func (s *Store) ListInvites(ctx context.Context, workspaceID string) ([]*team.InviteRecord, error) {
	if !validID(workspaceID) {
		return nil, nil
	}
	return workspaceItems(ctx, s, workspaceID, "INVITE#", decodeInvite)
}
