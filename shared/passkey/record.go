package passkey

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/passkey/record"
)

// The package's errors. The HTTP edge maps them once: ErrCeremony and ErrRefused to "try
// again" (a new ceremony), ErrCloned to a refusal that names the passkey as unsafe,
// ErrDuplicate to 409, ErrTooMany to 422, ErrNotFound to 404; a bad name is apierr.Field (422
// VALIDATION_FAILED naming "name" and the rule).
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
	ErrDuplicate = record.ErrDuplicate
	// ErrTooMany: the user already has MaxPerUser passkeys.
	ErrTooMany = errors.New("passkey: too many passkeys")
	// ErrNotFound: the user has no passkey with that id (someone else's passkey included).
	ErrNotFound = record.ErrNotFound
	// ErrStaleProof: adding a passkey in a session whose user has not proved who they are
	// (the password, or a passkey sign-in) within FreshProof. A stolen session cookie alone
	// cannot add a passkey.
	ErrStaleProof = errors.New("passkey: adding a passkey needs the password or a sign-in within the last 5 minutes")
)

// Limits.
const (
	// MaxPerUser is how many passkeys one user may have.
	MaxPerUser = 10
	// MaxNameChars bounds a passkey's name (1..MaxNameChars characters).
	MaxNameChars = 64
	// CeremonyLifetime is how long a begun ceremony may be finished.
	CeremonyLifetime = 5 * time.Minute
	// FreshProof is how recent the session's proof of who its user is (its ProvedAt) must be
	// to begin, and to finish, adding a passkey.
	FreshProof = 5 * time.Minute
	// maxResponseBytes bounds the authenticator response accepted (a real one is ~1-2 KiB).
	maxResponseBytes = 64 << 10
)

// Record is one registered passkey of a user (see package record).
type Record = record.Passkey

// CeremonyRecord is a begun ceremony's server-side state (see package record).
type CeremonyRecord = record.Ceremony

// Store keeps passkeys and ceremonies; shared/aws/dynamo implements it (see package record).
type Store = record.Store

// CredentialHash is the passkey id of a raw WebAuthn credential id: its hex SHA-256.
func CredentialHash(rawID []byte) string { return record.CredentialHash(rawID) }

// Ceremony kinds stored with a ceremony.
const (
	KindRegister = record.KindRegister
	KindLogin    = record.KindLogin
)

// checkName validates a passkey name: 1..MaxNameChars characters of valid UTF-8, no control
// characters, no surrounding spaces.
func checkName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return apierr.Field("name", "utf8", "must be valid text")
	case name == "":
		return apierr.Field("name", "required", "is required")
	case utf8.RuneCountInString(name) > MaxNameChars:
		return apierr.Field("name", "max_length", fmt.Sprintf("must be at most %d characters", MaxNameChars))
	case strings.TrimSpace(name) != name:
		return apierr.Field("name", "no_surrounding_space", "must not start or end with a space")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return apierr.Field("name", "no_control_characters", "must not contain control characters")
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
