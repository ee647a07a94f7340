// Package credential is the one home of the rules of a workspace's credentials: merchant API
// keys (list, create, revoke, roll) and webhook signing secrets (list, issue, roll). The
// dashboard and the operator (shared/app/operator, cmd/paymentsctl) both call it; shared/aws/dynamo
// implements its Store. Plain Go: no AWS SDK, no HTTP.
//
// Who may call what is not decided here (auth.Role.Can: keys:view, keys:manage); every method
// takes "by", the actor: a dashboard user id, or Operator for the operator CLI, which is a
// break-glass tool with three wider rules, stated where they apply (an empty key name, any
// grace, rolling a key again while it is expiring).
package credential

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/webhook"
)

// Operator is the actor of the operator CLI (paymentsctl) and the local stack's seeding.
const Operator = "operator"

// MaxActiveKeys bounds a workspace's active keys (both environments; revoked and expired keys
// do not count). It bounds the list a person reads and the damage of a stolen session. The
// count is read before the write, so concurrent creations may pass it by their number.
const MaxActiveKeys = 50

// MaxKeyName bounds a key's name, in characters, after trimming.
const MaxKeyName = 64

// MaxWebhookSecrets bounds how many signing secrets one workspace environment may hold at once
// (the current one and rolled-out ones in their grace).
const MaxWebhookSecrets = 10

// MaxWebhookGrace is the longest the operator may let a rolled-out webhook secret keep signing.
const MaxWebhookGrace = 30 * 24 * time.Hour

// DefaultWebhookGrace is the operator CLI's default grace for a rolled-out webhook secret.
const DefaultWebhookGrace = 24 * time.Hour

// Store is what the service needs from the table (shared/aws/dynamo implements it).
type Store interface {
	// FindWorkspace reads a workspace; (nil, nil) when absent.
	FindWorkspace(ctx context.Context, id string) (*auth.Workspace, error)
	// PutKey stores a new key record (never overwriting one).
	PutKey(ctx context.Context, k *auth.KeyRecord) error
	// ListKeys returns every key of a workspace (any order).
	ListKeys(ctx context.Context, workspaceID string) ([]*auth.KeyRecord, error)
	// RevokeKey sets revoked_at to t unless it is set (idempotent).
	RevokeKey(ctx context.Context, hash string, t time.Time) error
	// ExpireKey sets expires_at to t unless it is set to an earlier time.
	ExpireKey(ctx context.Context, hash string, t time.Time) error
	// RetireKey ends an active, never-rolled key: it sets revoked_at (revoke) or expires_at to
	// t only if the key has neither; false when it had one (one conditional write, so two
	// concurrent rolls of one key cannot both win).
	RetireKey(ctx context.Context, hash string, t time.Time, revoke bool) (bool, error)
	// GetWebhookSecrets reads an environment's secrets and the item's version (0: none).
	GetWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment) (webhook.Secrets, int, error)
	// PutWebhookSecrets replaces them if the item is still at expectedVersion.
	PutWebhookSecrets(ctx context.Context, workspaceID string, env auth.Environment, secrets []webhook.Secret, expectedVersion int) error
}

// Service applies the credential rules to a Store.
type Service struct {
	Store Store
	// Sealer seals new webhook signing secrets (KMS on AWS); only issuing and rolling them
	// need it (webhook.ErrNoSealer without one).
	Sealer webhook.Sealer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Key statuses.
const (
	StatusActive   = "active"   // works
	StatusExpiring = "expiring" // rolled: works until ExpiresAt
	StatusExpired  = "expired"  // rolled and its grace is over
	StatusRevoked  = "revoked"  // revoked (or rolled with grace "now")
)

// KeyInfo describes a key without anything that could be used as it.
type KeyInfo struct {
	ID          string
	Name        string
	Environment auth.Environment
	Scopes      []auth.Scope
	// Prefix identifies the key to a person who holds it: its environment prefix and last
	// four characters ("sk_live_…a1B2"), 24 bits of the 256: never enough to use it.
	Prefix string
	// CreatedBy is the dashboard user id that created the key, or Operator ("" for keys
	// issued before this was recorded).
	CreatedBy string
	CreatedAt time.Time
	// LastUsedOn is the UTC day ("2006-01-02") the key last authenticated a request; "" when
	// never (or not since last use was recorded). It lags by up to auth.KeyUseInterval.
	LastUsedOn string
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	// Status is StatusActive, StatusExpiring, StatusExpired or StatusRevoked at the time of
	// the call.
	Status string
}

func info(k *auth.KeyRecord, now time.Time) KeyInfo {
	i := KeyInfo{ID: k.KeyID, Name: k.Name, Environment: k.Environment, Scopes: slices.Clone(k.Scopes),
		Prefix: k.Hint, CreatedBy: k.CreatedBy, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt}
	i.LastUsedOn = LastUsedOn(k)
	switch {
	case k.RevokedAt != nil:
		i.Status = StatusRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		i.Status = StatusExpired
	case k.ExpiresAt != nil:
		i.Status = StatusExpiring
	default:
		i.Status = StatusActive
	}
	return i
}

// LastUsedOn is the UTC day ("2006-01-02") a key last authenticated a request, "" if never:
// what people are shown of last_used_at (it is recorded at most hourly).
func LastUsedOn(k *auth.KeyRecord) string {
	if k.LastUsedAt == nil {
		return ""
	}
	return k.LastUsedAt.UTC().Format(time.DateOnly)
}

// IssuedKey is a newly created key: Key is its plaintext, to be shown once; nothing stores it.
type IssuedKey struct {
	Key  string
	Info KeyInfo
	// Replaced is the rolled key as it is after the roll (RollKey only).
	Replaced *KeyInfo
	// Record is the stored record (the operator prints it).
	Record *auth.KeyRecord
}

// NewKey is what CreateKey needs.
type NewKey struct {
	// Name is a label for people: 1 to MaxKeyName characters after trimming, no control
	// characters (the operator may leave it empty).
	Name        string
	Environment auth.Environment
	// Scopes is a non-empty subset of auth.AllScopes (repeats are dropped).
	Scopes []auth.Scope
	// CreatedBy is the actor: a user id, or Operator.
	CreatedBy string
}

// validKeyID reports whether id has the form of auth.NewKeyID's ids: anything else is not
// looked up.
func validKeyID(id string) bool {
	rest, ok := strings.CutPrefix(id, "key_")
	if !ok || len(rest) != 20 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// checkKeyName trims and checks a key name.
func checkKeyName(name, by string) (string, error) {
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	if n == 0 && by != Operator {
		return "", invalid("name", "is required")
	}
	if n > MaxKeyName {
		return "", invalid("name", fmt.Sprintf("must be at most %d characters", MaxKeyName))
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, controlRune) {
		return "", invalid("name", "must not contain control characters")
	}
	return name, nil
}

// controlRune reports C0 and C1 controls and the bidirectional embedding, override and
// isolate controls (which could make a name read as another in the list); ZWJ and ZWNJ, which
// Bangla text uses, are allowed.
func controlRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// checkScopes checks a scope list and returns it without repeats, in auth.AllScopes order.
func checkScopes(scopes []auth.Scope) ([]auth.Scope, error) {
	if len(scopes) == 0 {
		return nil, invalid("scopes", "at least one scope is required")
	}
	var out []auth.Scope
	for _, sc := range scopes {
		if _, ok := auth.ParseScope(string(sc)); !ok {
			return nil, invalid("scopes", fmt.Sprintf("%q is not a scope (known: %s)", sc, scopeList()))
		}
	}
	for _, sc := range auth.AllScopes {
		if slices.Contains(scopes, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

func scopeList() string {
	parts := make([]string, len(auth.AllScopes))
	for i, s := range auth.AllScopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

func checkEnvironment(env auth.Environment) error {
	if _, ok := auth.ParseEnvironment(string(env)); !ok {
		return invalid("environment", "must be sandbox or live")
	}
	return nil
}

func (s *Service) workspace(ctx context.Context, ws string) (*auth.Workspace, error) {
	if ws == "" || strings.Contains(ws, "#") {
		return nil, ErrWorkspaceNotFound
	}
	w, err := s.Store.FindWorkspace(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("read workspace: %w", err)
	}
	if w == nil {
		return nil, ErrWorkspaceNotFound
	}
	return w, nil
}

// keys reads a workspace's keys, newest first.
func (s *Service) keys(ctx context.Context, ws string) ([]*auth.KeyRecord, error) {
	keys, err := s.Store.ListKeys(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	slices.SortStableFunc(keys, func(a, b *auth.KeyRecord) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.KeyID, a.KeyID)
	})
	return keys, nil
}

// ListKeys lists a workspace's keys, newest first: every key it ever had (revoked and expired
// ones included; one Query of the workspace's key index entries).
func (s *Service) ListKeys(ctx context.Context, ws string) ([]KeyInfo, error) {
	if ws == "" || strings.Contains(ws, "#") {
		return nil, ErrWorkspaceNotFound
	}
	keys, err := s.keys(ctx, ws)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]KeyInfo, 0, len(keys))
	for _, k := range keys {
		out = append(out, info(k, now))
	}
	return out, nil
}

// findKey returns a workspace's key by id; ErrKeyNotFound for a malformed id (never looked
// up), an unknown one and another workspace's.
func (s *Service) findKey(ctx context.Context, ws, keyID string) (*auth.KeyRecord, []*auth.KeyRecord, error) {
	if !validKeyID(keyID) || ws == "" || strings.Contains(ws, "#") {
		return nil, nil, ErrKeyNotFound
	}
	keys, err := s.keys(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range keys {
		if k.KeyID == keyID && k.WorkspaceID == ws {
			return k, keys, nil
		}
	}
	return nil, nil, ErrKeyNotFound
}

// CreateKey creates a key in a workspace (which must exist): live keys are created like
// sandbox ones (live money is refused elsewhere). It refuses with ErrTooManyKeys when the
// workspace has MaxActiveKeys active keys. Writes: one PutItem.
func (s *Service) CreateKey(ctx context.Context, ws string, nk NewKey) (*IssuedKey, error) {
	name, err := checkKeyName(nk.Name, nk.CreatedBy)
	if err != nil {
		return nil, err
	}
	if err := checkEnvironment(nk.Environment); err != nil {
		return nil, err
	}
	scopes, err := checkScopes(nk.Scopes)
	if err != nil {
		return nil, err
	}
	w, err := s.workspace(ctx, ws)
	if err != nil {
		return nil, err
	}
	keys, err := s.keys(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	return s.issue(ctx, w, keys, name, nk.Environment, scopes, nk.CreatedBy)
}

func (s *Service) issue(ctx context.Context, w *auth.Workspace, keys []*auth.KeyRecord, name string, env auth.Environment, scopes []auth.Scope, by string) (*IssuedKey, error) {
	now := s.now()
	active := 0
	for _, k := range keys {
		if k.Active(now) {
			active++
		}
	}
	if active >= MaxActiveKeys {
		return nil, ErrTooManyKeys
	}
	plaintext, hash, err := auth.NewKey(env)
	if err != nil {
		return nil, err
	}
	keyID, err := auth.NewKeyID()
	if err != nil {
		return nil, err
	}
	rec := &auth.KeyRecord{
		Hash: hash, KeyID: keyID, WorkspaceID: w.ID, WorkspaceName: w.Name, Environment: env, Scopes: scopes,
		Name: name, Hint: auth.KeyHint(plaintext), CreatedAt: now, CreatedBy: by,
	}
	if err := s.Store.PutKey(ctx, rec); err != nil {
		return nil, fmt.Errorf("store key: %w", err)
	}
	return &IssuedKey{Key: plaintext, Info: info(rec, now), Record: rec}, nil
}

// RevokeKey revokes a workspace's key now and returns it as it is after: requests with it are
// refused once no instance trusts its cached copy (auth.KeyCache's TTL, the revocation delay).
// Idempotent: revoking a revoked key succeeds and keeps the first time. ErrKeyNotFound for a
// malformed or unknown id and for another workspace's key. by is recorded by the caller's
// activity log, not on the key.
func (s *Service) RevokeKey(ctx context.Context, ws, keyID, by string) (*KeyInfo, error) {
	k, _, err := s.findKey(ctx, ws, keyID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if k.RevokedAt == nil {
		if err := s.Store.RevokeKey(ctx, k.Hash, now); err != nil {
			return nil, fmt.Errorf("revoke key: %w", err)
		}
		k.RevokedAt = &now
	}
	i := info(k, now)
	return &i, nil
}

// Grace is how long a rolled-out credential keeps working.
type Grace time.Duration

// The graces a dashboard user may choose (ParseGrace).
const (
	GraceNow = Grace(0)
	Grace1h  = Grace(time.Hour)
	Grace24h = Grace(24 * time.Hour)
	Grace7d  = Grace(7 * 24 * time.Hour)
)

var graceNames = []struct {
	name string
	g    Grace
}{{"now", GraceNow}, {"1h", Grace1h}, {"24h", Grace24h}, {"7d", Grace7d}}

// graceRule is the rule a dashboard grace breaks.
const graceRule = "must be one of now, 1h, 24h, 7d"

// ParseGrace accepts exactly "now", "1h", "24h" or "7d"; anything else is a VALIDATION_FAILED
// *apierr.Error on field "grace".
func ParseGrace(s string) (Grace, error) {
	for _, n := range graceNames {
		if s == n.name {
			return n.g, nil
		}
	}
	return 0, invalid("grace", graceRule)
}

// String names a dashboard grace ("now", "1h", "24h", "7d"), else the duration.
func (g Grace) String() string {
	for _, n := range graceNames {
		if g == n.g {
			return n.name
		}
	}
	return time.Duration(g).String()
}

// checkGrace allows a dashboard user one of ParseGrace's graces, and the operator any grace
// from 0 to max.
func checkGrace(g Grace, by string, max time.Duration) error {
	if by == Operator {
		if g < 0 || time.Duration(g) > max {
			return invalid("grace", fmt.Sprintf("must be 0 to %s", max))
		}
		return nil
	}
	for _, n := range graceNames {
		if g == n.g {
			return nil
		}
	}
	return invalid("grace", graceRule)
}

// maxKeyGrace is the longest grace the operator may give a rolled key (the operator CLI always
// accepted any; a year bounds a typo).
const maxKeyGrace = 365 * 24 * time.Hour

// RollKey replaces a workspace's key with a new one of the same name, environment and scopes,
// and ends the old one: revoked now for GraceNow, else expiring at now+grace. A revoked or
// expired key is refused (ErrKeyInactive), and so is a key already rolled whose expiry is
// pending (ErrKeyRolled: rolling it again would make a second replacement; revoke it to end it
// sooner). The operator may instead roll an expiring key again, which never extends its
// expiry, only shortens it (and may give any grace up to a year). Writes: one PutItem (the new
// key) then one conditional UpdateItem (the old one); if the old key changed in between (a
// concurrent roll or revocation), the new key is revoked again and ErrKeyRolled returned.
func (s *Service) RollKey(ctx context.Context, ws, keyID string, grace Grace, by string) (*IssuedKey, error) {
	if err := checkGrace(grace, by, maxKeyGrace); err != nil {
		return nil, err
	}
	old, keys, err := s.findKey(ctx, ws, keyID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if !old.Active(now) {
		return nil, ErrKeyInactive
	}
	if old.ExpiresAt != nil && by != Operator {
		return nil, ErrKeyRolled
	}
	w, err := s.workspace(ctx, ws)
	if err != nil {
		return nil, err
	}
	issued, err := s.issue(ctx, w, keys, old.Name, old.Environment, old.Scopes, by)
	if err != nil {
		return nil, err
	}
	until := now.Add(time.Duration(grace))
	switch {
	case old.ExpiresAt != nil: // the operator rolling an expiring key again
		if grace == 0 {
			err = s.Store.RevokeKey(ctx, old.Hash, now)
		} else {
			err = s.Store.ExpireKey(ctx, old.Hash, until)
		}
	default:
		var ok bool
		ok, err = s.Store.RetireKey(ctx, old.Hash, until, grace == 0)
		if err == nil && !ok {
			if rerr := s.Store.RevokeKey(ctx, issued.Record.Hash, now); rerr != nil {
				return nil, fmt.Errorf("key %s changed during the roll, and revoking its replacement %s failed (revoke it): %w",
					keyID, issued.Record.KeyID, rerr)
			}
			return nil, ErrKeyRolled
		}
	}
	if err != nil {
		return nil, fmt.Errorf("new key %s issued, but retiring %s failed (revoke it): %w", issued.Record.KeyID, keyID, err)
	}
	// Report the old key as the roll left it.
	if grace == 0 {
		if old.RevokedAt == nil {
			old.RevokedAt = &now
		}
	} else if old.ExpiresAt == nil || until.Before(*old.ExpiresAt) {
		old.ExpiresAt = &until
	}
	replaced := info(old, now)
	issued.Replaced = &replaced
	return issued, nil
}
