package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/auth"
)

// ErrNotFound means the addressed item does not exist.
var ErrNotFound = errors.New("not found")

type keyItem struct {
	PK          string     `dynamodbav:"pk"`
	SK          string     `dynamodbav:"sk"`
	GSI1PK      string     `dynamodbav:"gsi1pk"`
	GSI1SK      string     `dynamodbav:"gsi1sk"`
	Hash        string     `dynamodbav:"key_hash"`
	KeyID       string     `dynamodbav:"key_id"`
	WorkspaceID string     `dynamodbav:"workspace_id"`
	WorkspaceNm string     `dynamodbav:"workspace_name,omitempty"`
	Environment string     `dynamodbav:"environment"`
	Scopes      []string   `dynamodbav:"scopes,stringset"`
	Name        string     `dynamodbav:"name,omitempty"`
	Hint        string     `dynamodbav:"hint,omitempty"`
	CreatedAt   time.Time  `dynamodbav:"created_at"`
	RevokedAt   *time.Time `dynamodbav:"revoked_at,omitempty"`
	ExpiresAt   *time.Time `dynamodbav:"expires_at,omitempty"`
	CreatedBy   string     `dynamodbav:"created_by,omitempty"`
	LastUsedAt  *time.Time `dynamodbav:"last_used_at,omitempty"`
}

func keyPK(hash string) string { return "APIKEY#" + hash }

func (it *keyItem) record() *auth.KeyRecord {
	scopes := make([]auth.Scope, 0, len(it.Scopes))
	for _, s := range it.Scopes {
		scopes = append(scopes, auth.Scope(s))
	}
	return &auth.KeyRecord{
		Hash: it.Hash, KeyID: it.KeyID, WorkspaceID: it.WorkspaceID, WorkspaceName: it.WorkspaceNm,
		Environment: auth.Environment(it.Environment), Scopes: scopes, Name: it.Name, Hint: it.Hint,
		CreatedAt: it.CreatedAt, RevokedAt: it.RevokedAt, ExpiresAt: it.ExpiresAt,
		CreatedBy: it.CreatedBy, LastUsedAt: it.LastUsedAt,
	}
}

// GetKey looks a key up by its hash with one strongly consistent GetItem, so a read after a
// revocation sees it (the functions put auth.KeyCache in front: a revocation reaches a warm
// instance within its TTL).
func (s *Store) GetKey(ctx context.Context, hash string) (*auth.KeyRecord, error) {
	item, err := s.get(ctx, keyPK(hash), "APIKEY")
	if err != nil || item == nil {
		return nil, err
	}
	var it keyItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode key item: %w", err)
	}
	return it.record(), nil
}

// PutKey stores a new key record (never overwriting one with the same hash).
func (s *Store) PutKey(ctx context.Context, k *auth.KeyRecord) error {
	scopes := make([]string, 0, len(k.Scopes))
	for _, sc := range k.Scopes {
		scopes = append(scopes, string(sc))
	}
	it := keyItem{
		PK: keyPK(k.Hash), SK: "APIKEY",
		GSI1PK: "WS#" + k.WorkspaceID, GSI1SK: "APIKEY#" + formatTime(k.CreatedAt) + "#" + k.KeyID,
		Hash: k.Hash, KeyID: k.KeyID, WorkspaceID: k.WorkspaceID, WorkspaceNm: k.WorkspaceName, Environment: string(k.Environment),
		Scopes: scopes, Name: k.Name, Hint: k.Hint, CreatedAt: k.CreatedAt.UTC(), RevokedAt: k.RevokedAt, ExpiresAt: k.ExpiresAt,
		CreatedBy: k.CreatedBy,
	}
	return s.putNew(ctx, it)
}

// ListKeys returns a workspace's keys, oldest first (GSI1 query; operator use only).
func (s *Store) ListKeys(ctx context.Context, workspaceID string) ([]*auth.KeyRecord, error) {
	return workspaceItems(ctx, s, workspaceID, "APIKEY#", func(item map[string]types.AttributeValue) (*auth.KeyRecord, error) {
		var it keyItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, fmt.Errorf("decode key item: %w", err)
		}
		return it.record(), nil
	})
}

// FindKey returns a workspace's key by key id.
func (s *Store) FindKey(ctx context.Context, workspaceID, keyID string) (*auth.KeyRecord, error) {
	keys, err := s.ListKeys(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.KeyID == keyID {
			return k, nil
		}
	}
	return nil, ErrNotFound
}

// RevokeKey marks a key revoked at t (idempotent: an already revoked key keeps its time).
func (s *Store) RevokeKey(ctx context.Context, hash string, t time.Time) error {
	return s.revoke(ctx, keyPK(hash), "APIKEY", t)
}

// ExpireKey sets a key to stop working at t (rotation grace), unless it already expires sooner.
func (s *Store) ExpireKey(ctx context.Context, hash string, t time.Time) error {
	ts := formatTime(t)
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(keyPK(hash), "APIKEY"),
		UpdateExpression:    aws.String("SET expires_at = :t"),
		ConditionExpression: aws.String("attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at > :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberS{Value: ts},
		},
	})
	if isConditionFailed(err) {
		// Either the key is gone or it already expires sooner (which is kept).
		if rec, gerr := s.GetKey(ctx, hash); gerr != nil {
			return gerr
		} else if rec == nil {
			return ErrNotFound
		}
		return nil
	}
	return err
}

// TouchKey records a key's use at t: one UpdateItem of last_used_at alone, conditional on the
// key existing and last_used_at being absent or older than t-interval, so that instances
// racing on one key write it at most once per interval between them. A lost condition (the
// key is gone, or its use is recorded already) is no error.
func (s *Store) TouchKey(ctx context.Context, hash string, t time.Time, interval time.Duration) error {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(keyPK(hash), "APIKEY"),
		UpdateExpression:    aws.String("SET last_used_at = :t"),
		ConditionExpression: aws.String("attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at < :cutoff)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t":      &types.AttributeValueMemberS{Value: formatTime(t)},
			":cutoff": &types.AttributeValueMemberS{Value: formatTime(t.Add(-interval))},
		},
	})
	if isConditionFailed(err) {
		return nil
	}
	return err
}

// FindWorkspace reads a workspace; (nil, nil) when absent or when id cannot be one.
func (s *Store) FindWorkspace(ctx context.Context, id string) (*auth.Workspace, error) {
	w, err := s.GetWorkspace(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return w, err
}

type workspaceItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	auth.Workspace
}

// PutWorkspace creates a workspace (never overwriting one).
func (s *Store) PutWorkspace(ctx context.Context, w auth.Workspace) error {
	return s.putNew(ctx, workspaceItem{PK: "WS#" + w.ID, SK: "WS", Workspace: w})
}

// GetWorkspace reads a workspace; ErrNotFound when absent.
func (s *Store) GetWorkspace(ctx context.Context, id string) (*auth.Workspace, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	item, err := s.get(ctx, "WS#"+id, "WS")
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, ErrNotFound
	}
	var it workspaceItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, err
	}
	return &it.Workspace, nil
}

// ListWorkspaces scans workspaces (operator CLI only; never on a request path).
func (s *Store) ListWorkspaces(ctx context.Context) ([]auth.Workspace, error) {
	var out []auth.Workspace
	p := dynamodb.NewScanPaginator(s.DB, &dynamodb.ScanInput{
		TableName:        aws.String(s.Table),
		FilterExpression: aws.String("sk = :ws"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":ws": &types.AttributeValueMemberS{Value: "WS"},
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			var it workspaceItem
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return nil, err
			}
			out = append(out, it.Workspace)
		}
	}
	return out, nil
}

// RetireKey ends a key that is neither revoked nor expiring: revoked_at (revoke) or
// expires_at is set to t with one UpdateItem conditional on the key existing with neither.
// It returns false when that condition fails (the key is gone, revoked or already expiring),
// so that of two concurrent rolls of one key only one retires it.
func (s *Store) RetireKey(ctx context.Context, hash string, t time.Time, revoke bool) (bool, error) {
	attr := "expires_at"
	if revoke {
		attr = "revoked_at"
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(keyPK(hash), "APIKEY"),
		UpdateExpression:    aws.String("SET " + attr + " = :t"),
		ConditionExpression: aws.String("attribute_exists(pk) AND attribute_not_exists(revoked_at) AND attribute_not_exists(expires_at)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberS{Value: formatTime(t)},
		},
	})
	if isConditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// SetDocumentWebhook sets (url "") or removes the workspace's document webhook for env: one
// UpdateItem of the workspace item, conditional on it existing (ErrNotFound otherwise). The
// item is read with the document by PublicDocument, so the payer's POST reads it for free.
func (s *Store) SetDocumentWebhook(ctx context.Context, workspaceID string, env auth.Environment, url string) error {
	if !validID(workspaceID) {
		return ErrNotFound
	}
	attr := "doc_webhook_sandbox"
	if env == auth.Live {
		attr = "doc_webhook_live"
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key("WS#"+workspaceID, "WS"),
		UpdateExpression:         aws.String("REMOVE #u"),
		ConditionExpression:      aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames: map[string]string{"#u": attr},
	}
	if url != "" {
		in.UpdateExpression = aws.String("SET #u = :u")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":u": &types.AttributeValueMemberS{Value: url}}
	}
	_, err := s.DB.UpdateItem(ctx, in)
	if isConditionFailed(err) {
		return ErrNotFound
	}
	return err
}
