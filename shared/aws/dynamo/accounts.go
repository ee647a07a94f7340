package dynamo

// The items of dashboard accounts (package account) besides users' emails, memberships and
// sessions (useremails.go, sessions.go):
//
//	user (account)   USER#<user_id>  / USER      user_id, email, created_at, and for users who
//	                                             signed up: password_hash (PHC argon2id), lang,
//	                                             session_epoch (N), password_changed_at
//	session listing  USER#<user_id>  / SESSION#<sha256 hex>   expires_at (absolute), ttl
//	pending sign-up  SIGNUP#<sha256 hex of the verify token> / SIGNUP   email, user_id,
//	                 workspace_id, password_hash, workspace_name, lang, next, join_only,
//	                 created_at, expires_at, claimed_at, ttl (24 h)
//	pending reset    RESET#<sha256 hex of the reset token> / RESET      user_id, email, lang,
//	                 created_at, expires_at, claimed_at, ttl (30 min)
//	sign-in counter  SIGNIN#acct#<sha256 hex of the case-folded email> / SIGNIN, or
//	                 SIGNIN#ip#<address or IPv6 /64> / SIGNIN    failures, window_start,
//	                 locked_until, level, notified_at, version (N, optimistic lock), ttl
//
// Expired items (expires_at or ttl past) are treated as absent: dynalite never deletes them
// and DynamoDB only eventually.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/auth"
)

var _ account.Store = (*Store)(nil)

func sval(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func nval(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// EmailOwner returns the id of the user who claimed email (any letter case), "" if none: one
// strongly consistent GetItem.
func (s *Store) EmailOwner(ctx context.Context, email string) (string, error) {
	item, err := s.get(ctx, userEmailPK(email), "EMAIL")
	if err != nil || item == nil {
		return "", err
	}
	var it userEmailItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return "", fmt.Errorf("decode email item: %w", err)
	}
	return it.UserID, nil
}

// ClaimEmail claims email for userID (one conditional PutItem) and returns the owner; when the
// email was claimed already, one more GetItem reads who has it.
func (s *Store) ClaimEmail(ctx context.Context, email, userID string) (string, error) {
	err := s.ClaimUserEmail(ctx, email, userID)
	if err == nil {
		return userID, nil
	}
	if !errors.Is(err, ErrEmailTaken) {
		return "", err
	}
	owner, err := s.EmailOwner(ctx, email)
	if err != nil {
		return "", err
	}
	if owner == "" {
		return "", fmt.Errorf("email claim of %q vanished", email)
	}
	return owner, nil
}

type accountUserItem struct {
	PK                string     `dynamodbav:"pk"`
	SK                string     `dynamodbav:"sk"`
	UserID            string     `dynamodbav:"user_id"`
	Email             string     `dynamodbav:"email"`
	CreatedAt         time.Time  `dynamodbav:"created_at"`
	PasswordHash      string     `dynamodbav:"password_hash,omitempty"`
	Lang              string     `dynamodbav:"lang,omitempty"`
	SessionEpoch      int64      `dynamodbav:"session_epoch"`
	PasswordChangedAt *time.Time `dynamodbav:"password_changed_at,omitempty"`
}

// GetAccountUser reads a user with its password hash and session epoch (one strongly
// consistent GetItem); nil, nil when absent.
func (s *Store) GetAccountUser(ctx context.Context, id string) (*account.User, error) {
	if !validID(id) {
		return nil, nil
	}
	item, err := s.get(ctx, userPK(id), "USER")
	if err != nil || item == nil {
		return nil, err
	}
	var it accountUserItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return nil, fmt.Errorf("decode user item: %w", err)
	}
	return &account.User{
		ID: it.UserID, Email: it.Email, PasswordHash: it.PasswordHash, Lang: it.Lang,
		CreatedAt: it.CreatedAt, SessionEpoch: it.SessionEpoch,
	}, nil
}

// CreateAccountUser creates a user with its password hash (one create-only PutItem);
// account.ErrConflict when the id exists. The item is also a plain user (GetUser reads it).
func (s *Store) CreateAccountUser(ctx context.Context, u *account.User) error {
	if !validID(u.ID) || u.Email == "" {
		return fmt.Errorf("invalid user id %q or email", u.ID)
	}
	err := s.putNew(ctx, accountUserItem{
		PK: userPK(u.ID), SK: "USER", UserID: u.ID, Email: u.Email, CreatedAt: u.CreatedAt.UTC(),
		PasswordHash: u.PasswordHash, Lang: u.Lang, SessionEpoch: u.SessionEpoch,
	})
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// SetPassword replaces an existing user's password hash and adds one to its session epoch,
// only while the epoch is still epoch (one conditional UpdateItem); account.ErrUnknownUser
// when the user is absent or the epoch moved.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, at time.Time, epoch int64) error {
	if !validID(userID) {
		return account.ErrUnknownUser
	}
	cond := "session_epoch = :e"
	if epoch == 0 {
		cond = "attribute_exists(pk) AND (attribute_not_exists(session_epoch) OR session_epoch = :e)"
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(userPK(userID), "USER"),
		UpdateExpression:    aws.String("SET password_hash = :h, password_changed_at = :t ADD session_epoch :one"),
		ConditionExpression: aws.String(cond),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":h": sval(hash), ":t": sval(formatTime(at)), ":one": nval(1), ":e": nval(epoch),
		},
	})
	if isConditionFailed(err) {
		return account.ErrUnknownUser
	}
	return err
}

// RehashPassword replaces a user's password hash by one with new parameters, only while the
// stored hash is still old (one conditional UpdateItem); account.ErrConflict otherwise.
func (s *Store) RehashPassword(ctx context.Context, userID, old, hash string) error {
	if !validID(userID) {
		return account.ErrConflict
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(userPK(userID), "USER"),
		UpdateExpression:          aws.String("SET password_hash = :h"),
		ConditionExpression:       aws.String("password_hash = :old"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":h": sval(hash), ":old": sval(old)},
	})
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// BumpSessionEpoch adds one to an existing user's session epoch (one conditional UpdateItem);
// account.ErrUnknownUser when absent.
func (s *Store) BumpSessionEpoch(ctx context.Context, userID string) error {
	if !validID(userID) {
		return account.ErrUnknownUser
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(userPK(userID), "USER"),
		UpdateExpression:          aws.String("ADD session_epoch :one"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": nval(1)},
	})
	if isConditionFailed(err) {
		return account.ErrUnknownUser
	}
	return err
}

type pendingItem struct {
	PK            string     `dynamodbav:"pk"`
	SK            string     `dynamodbav:"sk"`
	UserID        string     `dynamodbav:"user_id,omitempty"`
	WorkspaceID   string     `dynamodbav:"workspace_id,omitempty"`
	Email         string     `dynamodbav:"email,omitempty"`
	PasswordHash  string     `dynamodbav:"password_hash,omitempty"`
	WorkspaceName string     `dynamodbav:"workspace_name,omitempty"`
	Lang          string     `dynamodbav:"lang,omitempty"`
	Next          string     `dynamodbav:"next,omitempty"`
	JoinOnly      bool       `dynamodbav:"join_only,omitempty"`
	Epoch         int64      `dynamodbav:"epoch,omitempty"`
	CreatedAt     time.Time  `dynamodbav:"created_at"`
	ExpiresAt     time.Time  `dynamodbav:"expires_at"`
	ClaimedAt     *time.Time `dynamodbav:"claimed_at,omitempty"`
	TTL           int64      `dynamodbav:"ttl"`
}

func pendingKey(kind, hash string) (map[string]types.AttributeValue, error) {
	if (kind != account.TokenSignUp && kind != account.TokenReset) || !validID(hash) {
		return nil, fmt.Errorf("invalid pending token %s/%q", kind, hash)
	}
	return key(kind+"#"+hash, kind), nil
}

// PutPendingToken stores a pending sign-up or reset under its token's hash (one create-only
// PutItem).
func (s *Store) PutPendingToken(ctx context.Context, p *account.PendingToken) error {
	if _, err := pendingKey(p.Kind, p.Hash); err != nil {
		return err
	}
	return s.putNew(ctx, pendingItem{
		PK: p.Kind + "#" + p.Hash, SK: p.Kind, UserID: p.UserID, WorkspaceID: p.WorkspaceID, Email: p.Email,
		PasswordHash: p.PasswordHash, WorkspaceName: p.WorkspaceName, Lang: p.Lang, Next: p.Next,
		JoinOnly: p.JoinOnly, Epoch: p.Epoch, CreatedAt: p.CreatedAt.UTC(), ExpiresAt: p.ExpiresAt.UTC(), TTL: ttlSeconds(p.ExpiresAt),
	})
}

// ClaimPendingToken sets claimed_at to now (one conditional UpdateItem returning the item)
// when the token exists, has not expired, and is unclaimed or was claimed before staleBefore;
// nil, nil otherwise.
func (s *Store) ClaimPendingToken(ctx context.Context, kind, hash string, now, staleBefore time.Time) (*account.PendingToken, error) {
	k, err := pendingKey(kind, hash)
	if err != nil {
		return nil, nil
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String(s.Table),
		Key:              k,
		UpdateExpression: aws.String("SET claimed_at = :now"),
		ConditionExpression: aws.String("attribute_exists(pk) AND expires_at > :now AND " +
			"(attribute_not_exists(claimed_at) OR claimed_at < :stale)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": sval(formatTime(now)), ":stale": sval(formatTime(staleBefore)),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var it pendingItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return nil, fmt.Errorf("decode pending item: %w", err)
	}
	p := &account.PendingToken{
		Kind: kind, Hash: hash, UserID: it.UserID, WorkspaceID: it.WorkspaceID, Email: it.Email,
		PasswordHash: it.PasswordHash, WorkspaceName: it.WorkspaceName, Lang: it.Lang, Next: it.Next,
		JoinOnly: it.JoinOnly, Epoch: it.Epoch, CreatedAt: it.CreatedAt, ExpiresAt: it.ExpiresAt,
	}
	if it.ClaimedAt != nil {
		p.ClaimedAt = *it.ClaimedAt
	}
	return p, nil
}

// DeletePendingToken deletes a pending token still claimed at claimedAt (one conditional
// DeleteItem); account.ErrConflict when it is not.
func (s *Store) DeletePendingToken(ctx context.Context, kind, hash string, claimedAt time.Time) error {
	k, err := pendingKey(kind, hash)
	if err != nil {
		return err
	}
	_, err = s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       k,
		ConditionExpression:       aws.String("claimed_at = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": sval(formatTime(claimedAt))},
	})
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// ReleasePendingToken gives a claimed pending token back (removes claimed_at while it is
// still claimedAt: one conditional UpdateItem), so that it can be used again at once;
// account.ErrConflict when it is not claimed at claimedAt.
func (s *Store) ReleasePendingToken(ctx context.Context, kind, hash string, claimedAt time.Time) error {
	k, err := pendingKey(kind, hash)
	if err != nil {
		return err
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       k,
		UpdateExpression:          aws.String("REMOVE claimed_at"),
		ConditionExpression:       aws.String("claimed_at = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": sval(formatTime(claimedAt))},
	})
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// ProveSession records a proof of who the user is in a session (proved_at = at: one
// conditional UpdateItem, the session existing and not revoked); account.ErrNoSession
// otherwise.
func (s *Store) ProveSession(ctx context.Context, hash string, at time.Time) error {
	if !validID(hash) {
		return account.ErrNoSession
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Table),
		Key:                       key(sessionPK(hash), "SESSION"),
		UpdateExpression:          aws.String("SET proved_at = :t"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND attribute_not_exists(revoked_at)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": sval(formatTime(at))},
	})
	if isConditionFailed(err) {
		return account.ErrNoSession
	}
	return err
}

// CreateWorkspace creates a workspace (one create-only PutItem); account.ErrConflict when the
// id exists.
func (s *Store) CreateWorkspace(ctx context.Context, w auth.Workspace) error {
	if !validID(w.ID) {
		return fmt.Errorf("invalid workspace id %q", w.ID)
	}
	w.CreatedAt = w.CreatedAt.UTC()
	err := s.PutWorkspace(ctx, w)
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// TouchSession moves a session's idle deadline (one conditional UpdateItem: seen_at still
// seen, not revoked); account.ErrConflict when the condition fails.
func (s *Store) TouchSession(ctx context.Context, hash string, seen, now, expires time.Time) error {
	if !validID(hash) {
		return account.ErrConflict
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.Table),
		Key:                 key(sessionPK(hash), "SESSION"),
		UpdateExpression:    aws.String("SET seen_at = :now, expires_at = :exp"),
		ConditionExpression: aws.String("seen_at = :seen AND attribute_not_exists(revoked_at)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": sval(formatTime(now)), ":exp": sval(formatTime(expires)), ":seen": sval(formatTime(seen)),
		},
	})
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// EndSession revokes a session at t (an already revoked one keeps its time) and returns its
// user: one UpdateItem. With mustExist false an absent session becomes a revoked tombstone
// (ttl keepUntil), so a session being started with that hash can no longer be stored.
func (s *Store) EndSession(ctx context.Context, hash string, t, keepUntil time.Time, mustExist bool) (string, error) {
	if !validID(hash) {
		return "", account.ErrNoSession
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Table),
		Key:                      key(sessionPK(hash), "SESSION"),
		UpdateExpression:         aws.String("SET revoked_at = if_not_exists(revoked_at, :t), #ttl = if_not_exists(#ttl, :ttl)"),
		ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": sval(formatTime(t)), ":ttl": nval(ttlSeconds(keepUntil)),
		},
		ReturnValues: types.ReturnValueAllNew,
	}
	if mustExist {
		in.ConditionExpression = aws.String("attribute_exists(pk)")
	}
	out, err := s.DB.UpdateItem(ctx, in)
	if isConditionFailed(err) {
		return "", account.ErrNoSession
	}
	if err != nil {
		return "", err
	}
	if v, ok := out.Attributes["user_id"].(*types.AttributeValueMemberS); ok {
		return v.Value, nil
	}
	return "", nil
}

const userSessionPrefix = "SESSION#"

type userSessionItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	ExpiresAt time.Time `dynamodbav:"expires_at"`
	TTL       int64     `dynamodbav:"ttl"`
}

// PutUserSession lists a session under its user until expires (one PutItem).
func (s *Store) PutUserSession(ctx context.Context, userID, hash string, expires time.Time) error {
	if !validID(userID) || !validID(hash) {
		return fmt.Errorf("invalid user id %q or session hash", userID)
	}
	av, err := marshalItem(userSessionItem{PK: userPK(userID), SK: userSessionPrefix + hash, ExpiresAt: expires.UTC(), TTL: ttlSeconds(expires)})
	if err != nil {
		return err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av})
	return err
}

// UserSessions returns the hashes of a user's listed sessions not expired at now (one
// strongly consistent Query of the user's partition, more pages only past 1 MB).
func (s *Store) UserSessions(ctx context.Context, userID string, now time.Time) ([]string, error) {
	if !validID(userID) {
		return nil, nil
	}
	var out []string
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName:                aws.String(s.Table),
		ConsistentRead:           aws.Bool(true),
		KeyConditionExpression:   aws.String("pk = :pk AND begins_with(sk, :sk)"),
		FilterExpression:         aws.String("#ttl > :now"),
		ProjectionExpression:     aws.String("sk"),
		ExpressionAttributeNames: map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": sval(userPK(userID)), ":sk": sval(userSessionPrefix), ":now": nval(now.Unix()),
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			if v, ok := item["sk"].(*types.AttributeValueMemberS); ok {
				out = append(out, strings.TrimPrefix(v.Value, userSessionPrefix))
			}
		}
	}
	return out, nil
}

// DeleteUserSession unlists a session (one DeleteItem).
func (s *Store) DeleteUserSession(ctx context.Context, userID, hash string) error {
	if !validID(userID) || !validID(hash) {
		return nil
	}
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Table), Key: key(userPK(userID), userSessionPrefix+hash)})
	return err
}

type counterItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	Failures    int       `dynamodbav:"failures"`
	WindowStart time.Time `dynamodbav:"window_start"`
	LockedUntil time.Time `dynamodbav:"locked_until"`
	Level       int       `dynamodbav:"level"`
	NotifiedAt  time.Time `dynamodbav:"notified_at"`
	Version     int64     `dynamodbav:"version"`
	TTL         int64     `dynamodbav:"ttl"`
}

const counterPrefix = "SIGNIN#"

// GetSignInCounters reads counters with one strongly consistent BatchGetItem (retrying
// unprocessed keys); absent ones are missing from the map.
func (s *Store) GetSignInCounters(ctx context.Context, keys ...string) (map[string]*account.Counter, error) {
	out := map[string]*account.Counter{}
	if len(keys) == 0 {
		return out, nil
	}
	var ks []map[string]types.AttributeValue
	for _, k := range keys {
		ks = append(ks, key(counterPrefix+k, "SIGNIN"))
	}
	req := map[string]types.KeysAndAttributes{s.Table: {Keys: ks, ConsistentRead: aws.Bool(true)}}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt > 0 {
			if err := sleepCtx(ctx, time.Duration(attempt)*20*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if attempt > 5 {
			return nil, fmt.Errorf("sign-in counters: keys left unprocessed")
		}
		res, err := s.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, err
		}
		for _, item := range res.Responses[s.Table] {
			var it counterItem
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return nil, fmt.Errorf("decode sign-in counter: %w", err)
			}
			k := strings.TrimPrefix(it.PK, counterPrefix)
			out[k] = &account.Counter{
				Key: k, Failures: it.Failures, WindowStart: it.WindowStart, LockedUntil: it.LockedUntil,
				Level: it.Level, NotifiedAt: it.NotifiedAt, Version: it.Version, Expires: time.Unix(it.TTL, 0).UTC(),
			}
		}
		req = res.UnprocessedKeys
	}
	return out, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PutSignInCounter writes a counter if the stored one's version is still prev (0: absent): one
// conditional PutItem; account.ErrConflict when another write came first.
func (s *Store) PutSignInCounter(ctx context.Context, c *account.Counter, prev int64) error {
	if c.Key == "" {
		return fmt.Errorf("invalid counter key %q", c.Key)
	}
	av, err := marshalItem(counterItem{
		PK: counterPrefix + c.Key, SK: "SIGNIN", Failures: c.Failures, WindowStart: c.WindowStart.UTC(),
		LockedUntil: c.LockedUntil.UTC(), Level: c.Level, NotifiedAt: c.NotifiedAt.UTC(), Version: c.Version,
		TTL: ttlSeconds(c.Expires),
	})
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av}
	if prev == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(pk)")
	} else {
		in.ConditionExpression = aws.String("version = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":v": nval(prev)}
	}
	_, err = s.DB.PutItem(ctx, in)
	if isConditionFailed(err) {
		return account.ErrConflict
	}
	return err
}

// DeleteSignInCounter deletes a counter (one DeleteItem).
func (s *Store) DeleteSignInCounter(ctx context.Context, k string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Table), Key: key(counterPrefix+k, "SIGNIN")})
	return err
}
