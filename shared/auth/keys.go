package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
)

// Merchant API key format: "sk_<environment>_" followed by 43 base62 characters that encode
// 256 random bits and 6 base62 characters of CRC-32 checksum over everything before them.
// The prefix names the environment; the checksum lets the service reject typos and junk
// without a database read, and lets secret scanners recognise leaked keys.
const (
	keyPrefix      = "sk_"
	randomChars    = 43
	checksumChars  = 6
	base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformedKey means the text cannot be one of our keys (wrong prefix, length or checksum).
var ErrMalformedKey = errors.New("malformed API key")

// NewKey returns a fresh API key for an environment and the hash under which it is stored.
// The plaintext is shown to the operator once and never stored.
func NewKey(env Environment) (plaintext, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	body := keyPrefix + string(env) + "_" + base62(new(big.Int).SetBytes(b[:]), randomChars)
	plaintext = body + checksum(body)
	return plaintext, HashKey(plaintext), nil
}

// ParseKey checks a presented key's form and returns its environment and storage hash.
func ParseKey(key string) (Environment, string, error) {
	rest, ok := strings.CutPrefix(key, keyPrefix)
	if !ok {
		return "", "", ErrMalformedKey
	}
	envText, secret, ok := strings.Cut(rest, "_")
	if !ok {
		return "", "", ErrMalformedKey
	}
	env, ok := ParseEnvironment(envText)
	if !ok || len(secret) != randomChars+checksumChars {
		return "", "", ErrMalformedKey
	}
	for i := 0; i < len(secret); i++ {
		if strings.IndexByte(base62Alphabet, secret[i]) < 0 {
			return "", "", ErrMalformedKey
		}
	}
	body := key[:len(key)-checksumChars]
	if checksum(body) != key[len(key)-checksumChars:] {
		return "", "", ErrMalformedKey
	}
	return env, HashKey(key), nil
}

// HashKey is the storage form of a key: hex SHA-256. Keys carry 256 random bits, so a fast
// hash is safe here (there is nothing to brute-force), and lookup stays one GetItem.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyHint returns the part of a key safe to display (prefix and last four characters).
func KeyHint(key string) string {
	if len(key) < 8 {
		return ""
	}
	i := strings.LastIndexByte(key, '_')
	return key[:i+1] + "…" + key[len(key)-4:]
}

// NewKeyID returns a public identifier for a key ("key_" + 20 base62 characters).
func NewKeyID() (string, error) {
	out := []byte("key_")
	for range 20 {
		n, err := rand.Int(rand.Reader, big.NewInt(62))
		if err != nil {
			return "", err
		}
		out = append(out, base62Alphabet[n.Int64()])
	}
	return string(out), nil
}

func checksum(body string) string {
	return base62(new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(body)))), checksumChars)
}

// base62 renders n in exactly width base62 digits (left-padded with '0').
func base62(n *big.Int, width int) string {
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	n = new(big.Int).Set(n)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62Alphabet[mod.Int64()]
	}
	return string(out)
}
