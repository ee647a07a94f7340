package account

import (
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// The password policy (NIST SP 800-63B): 12 to 128 characters (Unicode code points), any
// characters, no composition rules, and none of the most common passwords.
const (
	MinPasswordRunes = 12
	MaxPasswordRunes = 128
)

// Params are argon2id's cost parameters. They are stored in every hash (PHC string format), so
// they can change without invalidating stored hashes.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32 // bytes
	KeyLen  uint32 // bytes
}

// DefaultParams are the OWASP Password Storage Cheat Sheet's first argon2id configuration:
// m=19456 KiB (19 MiB), t=2, p=1; a 16-byte random salt and a 32-byte key.
var DefaultParams = Params{Memory: 19456, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds a stored hash's parameters must keep before it is verified (a corrupt or hostile
// stored value must not make one verification cost gigabytes or minutes).
const (
	maxMemory  = 1 << 20 // KiB: 1 GiB
	maxTime    = 16
	maxThreads = 16
)

var (
	b64 = base64.RawStdEncoding
	// ErrMalformedHash means a stored password hash is not one this package wrote.
	ErrMalformedHash = errors.New("malformed password hash")
)

// HashPassword hashes a password with argon2id and DefaultParams, returning the PHC string
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded standard base64). It does not check
// the policy (CheckPassword does).
func HashPassword(password string) (string, error) {
	return hashWith(DefaultParams, password)
}

func hashWith(p Params, password string) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// parseHash reads a PHC argon2id string.
func parseHash(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, ErrMalformedHash
	}
	m, t, threads, ok := parseCost(parts[3])
	if !ok {
		return p, nil, nil, ErrMalformedHash
	}
	salt, err1 := b64.Strict().DecodeString(parts[4])
	key, err2 := b64.Strict().DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, ErrMalformedHash
	}
	return Params{Memory: uint32(m), Time: uint32(t), Threads: uint8(threads), SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}, salt, key, nil
}

// parseCost reads a PHC string's cost, exactly "m=M,t=T,p=P", within the bounds this package
// accepts (ok false otherwise).
func parseCost(s string) (m, t, threads uint64, ok bool) {
	kvs := strings.Split(s, ",")
	if len(kvs) != 3 {
		return 0, 0, 0, false
	}
	var vals [3]uint64
	for i, kv := range kvs {
		name, value, found := strings.Cut(kv, "=")
		if !found || name != [...]string{"m", "t", "p"}[i] {
			return 0, 0, 0, false
		}
		n, err := strconv.ParseUint(value, 10, 32)
		if err != nil {
			return 0, 0, 0, false
		}
		vals[i] = n
	}
	m, t, threads = vals[0], vals[1], vals[2]
	ok = m >= 8 && m <= maxMemory && t >= 1 && t <= maxTime && threads >= 1 && threads <= maxThreads
	return m, t, threads, ok
}

// VerifyPassword reports whether password matches a PHC argon2id hash, comparing the keys in
// constant time. It uses the parameters stored in the hash.
func VerifyPassword(encoded, password string) (bool, error) {
	p, salt, key, err := parseHash(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// NeedsRehash reports whether a stored hash was made with other parameters than
// DefaultParams (a sign-in may then store a fresh hash).
func NeedsRehash(encoded string) bool {
	p, _, _, err := parseHash(encoded)
	return err != nil || p != DefaultParams
}

// dummyHash is a hash, with DefaultParams, of a random password nobody knows (it was
// generated once and thrown away): a sign-in for an unknown email verifies against it, so that
// it costs what a real one costs, from an instance's first request on (a test checks its
// parameters are DefaultParams').
func dummyHash() string {
	return "$argon2id$v=19$m=19456,t=2,p=1$cuSq3PyZzahYhRxH7/j5iQ$KK1U56flsPK9E3xmN+5Z5t83enpqPM5lm57rGl6Bw7Q"
}

// Password rules (the violation's Rule of apierr.Field).
const (
	RuleRequired  = "required"
	RuleMinLength = "min_length"
	RuleMaxLength = "max_length"
	RuleCommon    = "common_password"
	RuleFormat    = "format"
	// RuleASCII: an email whose part before @ is not ASCII (a look-alike address).
	RuleASCII = "ascii"
)

//go:embed commonpasswords.txt
var commonPasswordsText string

// commonPasswords is the embedded list, lower-cased.
var commonPasswords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for line := range strings.SplitSeq(commonPasswordsText, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		m[strings.ToLower(line)] = true
	}
	return m
})

// CheckPassword applies the policy: nil when the password may be used, else a *apierr.Error
// naming field "password" and the rule it breaks. It never echoes the password.
func CheckPassword(password string) *apierr.Error {
	n := utf8.RuneCountInString(password)
	switch {
	case password == "":
		return apierr.Field("password", RuleRequired, "password is required")
	case !utf8.ValidString(password):
		return apierr.Field("password", RuleFormat, "password must be valid UTF-8 text")
	case n < MinPasswordRunes:
		return apierr.Field("password", RuleMinLength, fmt.Sprintf("password must be at least %d characters", MinPasswordRunes))
	case n > MaxPasswordRunes:
		return apierr.Field("password", RuleMaxLength, fmt.Sprintf("password must be at most %d characters", MaxPasswordRunes))
	case IsCommonPassword(password):
		return apierr.Field("password", RuleCommon, "this password is too common: choose another")
	}
	return nil
}

// IsCommonPassword reports whether a password is one of the most common passwords (the
// embedded list), ignoring letter case, digits or symbols added before or after it, and
// repetition ("Password2024!", "monkeymonkey", "123123123123"); or is a run of one short
// unit or a straight sequence of digits or letters ("aaaaaaaaaaaa", "123456789012").
func IsCommonPassword(password string) bool {
	lower := strings.ToLower(password)
	list := commonPasswords()
	check := func(s string) bool {
		if s == "" || list[s] {
			return true
		}
		core := strings.TrimFunc(s, notLetter)
		return core == "" && sequential(s) || core != "" && list[core]
	}
	if check(lower) || sequential(lower) {
		return true
	}
	if unit := repeatedUnit(lower); unit != "" {
		return utf8.RuneCountInString(unit) <= 4 || check(unit)
	}
	return false
}

// notLetter is true for everything but letters (digits, symbols, punctuation, spaces).
func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// repeatedUnit returns the shortest text whose repetition (twice or more) is s, or "".
func repeatedUnit(s string) string {
	r := []rune(s)
	for size := 1; size <= len(r)/2; size++ {
		if len(r)%size != 0 {
			continue
		}
		ok := true
		for i := size; i < len(r) && ok; i++ {
			ok = r[i] == r[i-size]
		}
		if ok {
			return string(r[:size])
		}
	}
	return ""
}

// sequential reports whether s is a straight run of digits or letters, ascending or
// descending, wrapping 9→0 ("123456789012", "zyxwvutsrqpo").
func sequential(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, step := range []int{1, -1} {
		ok := true
		for i := 1; i < len(s) && ok; i++ {
			a, b := rune(s[i-1]), rune(s[i])
			switch {
			case unicode.IsDigit(a) && a < utf8.RuneSelf && unicode.IsDigit(b) && b < utf8.RuneSelf:
				ok = (int(a-'0')+step+10)%10 == int(b-'0')
			case 'a' <= a && a <= 'z' && 'a' <= b && b <= 'z':
				ok = int(b)-int(a) == step
			default:
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
