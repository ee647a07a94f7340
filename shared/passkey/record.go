package passkey

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The package's errors. The HTTP edge maps them once: ErrCeremony and ErrRefused to "try
// again" (a new ceremony), ErrCloned to a refusal that names the passkey as unsafe,
// ErrDuplicate to 409, ErrTooMany to 422, ErrNotFound to 404, *FieldError to 422.
var (
	// ErrCeremony: the ceremony id is unknown, expired (CeremonyLifetime), already used, or
	// was begun for another purpose or another user.
	ErrCeremony = errors.New("passkey: unknown, expired or used ceremony")
	// ErrRefused: the authenticator's response did not verify (bad signature, wrong origin,
	// wrong challenge, no user verification, unknown credential, malformed JSON...).
	ErrRefused = errors.New("passkey: the response did not verify")
	// ErrCloned: the authenticator's signature counter did not grow: two copies of the
	// passkey's private key may exist. The sign-in is refused and the stored counter kept.
	ErrCloned = errors.New("passkey: signature counter went backwards (possibly cloned authenticator)")
	// ErrDuplicate: this credential is already registered for the user.
	ErrDuplicate = errors.New("passkey: already registered")
	// ErrTooMany: the user already has MaxPerUser passkeys.
	ErrTooMany = errors.New("passkey: too many passkeys")
	// ErrNotFound: the user has no passkey with that id (someone else's passkey included).
	ErrNotFound = errors.New("passkey: not found")
)

// FieldError is a validation error of one input (422 naming Field and Rule).
type FieldError struct {
	Field, Rule, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Limits.
const (
	// MaxPerUser is how many passkeys one user may have.
	MaxPerUser = 10
	// MaxNameChars bounds a passkey's name (1..MaxNameChars characters).
	MaxNameChars = 64
	// CeremonyLifetime is how long a begun ceremony may be finished.
	CeremonyLifetime = 5 * time.Minute
	// maxResponseBytes bounds the authenticator response accepted (a real one is ~1-2 KiB).
	maxResponseBytes = 64 << 10
)

// Record is one registered passkey of a user.
type Record struct {
	// ID is the hex SHA-256 of the WebAuthn credential id (the raw bytes): the passkey's id in
	// URLs and forms.
	ID         string
	UserID     string
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	// SignCount is the authenticator's signature counter at the last use (0 for
	// authenticators without one).
	SignCount uint32
	// Credential is the go-webauthn Credential as JSON (public key, flags, AAGUID...).
	Credential []byte
}

// CredentialHash is the passkey id of a raw WebAuthn credential id.
func CredentialHash(rawID []byte) string {
	sum := sha256.Sum256(rawID)
	return hex.EncodeToString(sum[:])
}

// Ceremony kinds stored with a ceremony.
const (
	KindRegister = "register"
	KindLogin    = "login"
)

// CeremonyRecord is a begun ceremony's server-side state, stored under the SHA-256 of its
// id (the id itself is only in the browser's form).
type CeremonyRecord struct {
	Kind string
	// UserID is the registering user ("" for a login: discoverable, the user is unknown).
	UserID    string
	ExpiresAt time.Time
	// Session is go-webauthn's SessionData as JSON (the challenge and what it was begun with).
	Session []byte
}

// Store keeps passkeys and ceremonies (shared/dynamo implements it). Every method is one
// DynamoDB request.
type Store interface {
	// PutPasskey stores a new passkey; ErrDuplicate when the user already has it.
	PutPasskey(ctx context.Context, r *Record) error
	// ListPasskeys returns a user's passkeys (at most a page; there are at most
	// MaxPerUser + concurrent registrations), in id order.
	ListPasskeys(ctx context.Context, userID string) ([]*Record, error)
	// RenamePasskey sets a passkey's name; ErrNotFound when the user has no such passkey.
	RenamePasskey(ctx context.Context, userID, id, name string) error
	// DeletePasskey removes a passkey; ErrNotFound when the user has no such passkey.
	DeletePasskey(ctx context.Context, userID, id string) error
	// UsePasskey records a sign-in: the new counter, credential JSON and last use, only if
	// the stored counter is still prevCount; ErrNotFound when the passkey is gone or its
	// counter has changed since it was read.
	UsePasskey(ctx context.Context, userID, id string, prevCount, newCount uint32, credential []byte, at time.Time) error
	// PutCeremony stores a ceremony under hash (create-only).
	PutCeremony(ctx context.Context, hash string, c *CeremonyRecord) error
	// TakeCeremony deletes the ceremony stored under hash and returns what it held, or
	// (nil, nil) when there was none: of two concurrent takes one gets it. Expiry is the
	// caller's check.
	TakeCeremony(ctx context.Context, hash string) (*CeremonyRecord, error)
}

// checkName validates a passkey name: 1..MaxNameChars characters of valid UTF-8, no control
// characters, no surrounding spaces.
func checkName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return &FieldError{Field: "name", Rule: "utf8", Message: "must be valid text"}
	case name == "":
		return &FieldError{Field: "name", Rule: "required", Message: "is required"}
	case utf8.RuneCountInString(name) > MaxNameChars:
		return &FieldError{Field: "name", Rule: "max_length", Message: fmt.Sprintf("must be at most %d characters", MaxNameChars)}
	case strings.TrimSpace(name) != name:
		return &FieldError{Field: "name", Rule: "no_surrounding_space", Message: "must not start or end with a space"}
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return &FieldError{Field: "name", Rule: "no_control_characters", Message: "must not contain control characters"}
	}
	return nil
}

// validUserID: a user id fits a user handle (1..64 bytes) and a key part (no '#').
func validUserID(id string) bool {
	return id != "" && len(id) <= 64 && !strings.ContainsAny(id, "#") && utf8.ValidString(id)
}

// validPasskeyID: 64 lower-case hex characters.
func validPasskeyID(id string) bool {
	if len(id) != 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
