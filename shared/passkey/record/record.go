// Package record holds what shared/passkey stores and the Store interface shared/aws/dynamo
// implements: plain types with no WebAuthn code, so that the many functions that link
// shared/aws/dynamo do not link go-webauthn (its package initialisation alone adds 1.8 MB to a
// Lambda binary). shared/passkey re-exports everything here under its own names.
package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

var (
	// ErrDuplicate: this credential is already registered for the user.
	ErrDuplicate = errors.New("passkey: already registered")
	// ErrNotFound: the user has no passkey with that id (someone else's passkey included).
	ErrNotFound = errors.New("passkey: not found")
)

// Passkey is one registered passkey of a user.
type Passkey struct {
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
	// Pending is a passkey just registered whose owner has not been told yet: it signs no one
	// in until ActivatePasskey (which the dashboard calls after emailing the owner).
	Pending bool
}

// CredentialHash is the passkey id of a raw WebAuthn credential id.
func CredentialHash(rawID []byte) string {
	sum := sha256.Sum256(rawID)
	return hex.EncodeToString(sum[:])
}

// Ceremony kinds.
const (
	KindRegister = "register"
	KindLogin    = "login"
)

// Ceremony is a begun ceremony's server-side state, stored under the SHA-256 of its id (the
// id itself is only in the browser's form).
type Ceremony struct {
	Kind string
	// UserID is the registering user ("" for a login: discoverable, the user is unknown).
	UserID    string
	ExpiresAt time.Time
	// Session is go-webauthn's SessionData as JSON (the challenge and what it was begun with).
	Session []byte
}

// Store keeps passkeys and ceremonies (shared/aws/dynamo implements it). Every method is one
// DynamoDB request (a list follows pages, never needed at MaxPerUser passkeys).
type Store interface {
	// PutPasskey stores a new passkey; ErrDuplicate when the user already has it.
	PutPasskey(ctx context.Context, p *Passkey) error
	// ListPasskeys returns a user's passkeys in id order.
	ListPasskeys(ctx context.Context, userID string) ([]*Passkey, error)
	// RenamePasskey sets a passkey's name; ErrNotFound when the user has no such passkey.
	RenamePasskey(ctx context.Context, userID, id, name string) error
	// DeletePasskey removes a passkey; ErrNotFound when the user has no such passkey.
	DeletePasskey(ctx context.Context, userID, id string) error
	// ActivatePasskey clears a pending passkey's Pending; ErrNotFound when the user has no
	// such pending passkey.
	ActivatePasskey(ctx context.Context, userID, id string) error
	// UsePasskey records a sign-in: the new counter, credential JSON and last use, only if
	// the stored counter is still prevCount; ErrNotFound when the passkey is gone or its
	// counter has changed since it was read.
	UsePasskey(ctx context.Context, userID, id string, prevCount, newCount uint32, credential []byte, at time.Time) error
	// PutCeremony stores a ceremony under hash (create-only).
	PutCeremony(ctx context.Context, hash string, c *Ceremony) error
	// TakeCeremony deletes the ceremony stored under hash and returns what it held, or
	// (nil, nil) when there was none: of two concurrent takes one gets it. Expiry is the
	// caller's check.
	TakeCeremony(ctx context.Context, hash string) (*Ceremony, error)
}
