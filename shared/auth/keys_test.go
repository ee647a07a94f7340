package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/auth"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

var (
	hexHashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)
	keyIDRE   = regexp.MustCompile(`^key_[0-9A-Za-z]{20}$`)
	secretRE  = regexp.MustCompile(`^[0-9A-Za-z]{49}$`)
)

func newKey(t testing.TB, env auth.Environment) (string, string) {
	t.Helper()
	key, hash, err := auth.NewKey(env)
	if err != nil {
		t.Fatalf("NewKey(%s): %v", env, err)
	}
	return key, hash
}

func TestNewKeyFormat(t *testing.T) {
	tests := []struct {
		env    auth.Environment
		prefix string
	}{
		{auth.Sandbox, "sk_sandbox_"},
		{auth.Live, "sk_live_"},
	}
	for _, tt := range tests {
		t.Run(string(tt.env), func(t *testing.T) {
			for range 50 {
				key, hash := newKey(t, tt.env)
				if !strings.HasPrefix(key, tt.prefix) {
					t.Fatalf("key %q lacks prefix %q", key, tt.prefix)
				}
				if len(key) != len(tt.prefix)+49 {
					t.Fatalf("len(key) = %d, want %d", len(key), len(tt.prefix)+49)
				}
				if !secretRE.MatchString(key[len(tt.prefix):]) {
					t.Fatalf("key body %q is not 49 base62 characters", key[len(tt.prefix):])
				}
				sum := sha256.Sum256([]byte(key))
				if want := hex.EncodeToString(sum[:]); hash != want {
					t.Fatalf("hash = %q, want hex sha256 %q", hash, want)
				}
				if auth.HashKey(key) != hash {
					t.Fatal("HashKey(key) differs from the hash NewKey returned")
				}
				env, phash, err := auth.ParseKey(key)
				if err != nil || env != tt.env || phash != hash {
					t.Fatalf("ParseKey(%q) = %q, %q, %v; want %q, %q, nil", key, env, phash, err, tt.env, hash)
				}
			}
		})
	}
}

func TestHashKey(t *testing.T) {
	a, _ := newKey(t, auth.Sandbox)
	b, _ := newKey(t, auth.Sandbox)
	ha, hb := auth.HashKey(a), auth.HashKey(b)
	if !hexHashRE.MatchString(ha) || !hexHashRE.MatchString(hb) {
		t.Errorf("hashes %q %q are not 64 lower-case hex characters", ha, hb)
	}
	if ha == hb {
		t.Error("different keys hash alike")
	}
	if auth.HashKey(a) != ha {
		t.Error("HashKey is not deterministic")
	}
	// Known vector: sha256("abc").
	if got := auth.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", got)
	}
}

func TestNewKeyDistinct(t *testing.T) {
	keys := map[string]bool{}
	hashes := map[string]bool{}
	for i := range 1000 {
		env := auth.Sandbox
		if i%2 == 1 {
			env = auth.Live
		}
		key, hash := newKey(t, env)
		body := key[strings.LastIndexByte(key, '_')+1:]
		if keys[body] || hashes[hash] {
			t.Fatalf("key %d repeated (%q)", i, key)
		}
		keys[body], hashes[hash] = true, true
	}
}

func TestParseKeyRejects(t *testing.T) {
	sandbox, _ := newKey(t, auth.Sandbox)
	live, _ := newKey(t, auth.Live)
	secret := sandbox[len("sk_sandbox_"):]
	other := func(c byte) byte { // another base62 character
		if c == 'a' {
			return 'b'
		}
		return 'a'
	}
	tests := []struct {
		name string
		key  string
	}{
		{"empty", ""},
		{"prefix only", "sk_sandbox_"},
		{"no env separator", "sk_sandbox" + secret},
		{"wrong prefix pk_", "pk_sandbox_" + secret},
		{"upper-case prefix", "SK_sandbox_" + secret},
		{"missing prefix", "sandbox_" + secret},
		{"unknown env test", "sk_test_" + secret},
		{"upper-case env", "sk_SANDBOX_" + secret},
		{"env swapped (live prefix, sandbox checksum)", "sk_live_" + secret},
		{"env swapped (sandbox prefix, live checksum)", "sk_sandbox_" + live[len("sk_live_"):]},
		{"one char short", sandbox[:len(sandbox)-1]},
		{"one char long", sandbox + "0"},
		{"checksum removed", sandbox[:len(sandbox)-6]},
		{"non-base62 dash", sandbox[:20] + "-" + sandbox[21:]},
		{"non-base62 underscore", sandbox[:20] + "_" + sandbox[21:]},
		{"non-base62 plus", sandbox[:20] + "+" + sandbox[21:]},
		{"non-ASCII", sandbox[:20] + "é" + sandbox[22:]},
		{"space inside", sandbox[:20] + " " + sandbox[21:]},
		{"leading space", " " + sandbox[:len(sandbox)-1]},
		{"trailing newline", sandbox + "\n"},
		{"changed random char", sandbox[:15] + string(other(sandbox[15])) + sandbox[16:]},
		{"changed checksum char", sandbox[:len(sandbox)-1] + string(other(sandbox[len(sandbox)-1]))},
		{"two adjacent chars swapped", sandbox[:20] + string(sandbox[21]) + string(sandbox[20]) + sandbox[22:]},
		{"all zeros", "sk_sandbox_" + strings.Repeat("0", 49)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "two adjacent chars swapped" && sandbox[20] == sandbox[21] {
				t.Skip("the two characters are equal in this key")
			}
			env, hash, err := auth.ParseKey(tt.key)
			if !errors.Is(err, auth.ErrMalformedKey) {
				t.Errorf("ParseKey(%q) err = %v, want ErrMalformedKey", tt.key, err)
			}
			if env != "" || hash != "" {
				t.Errorf("ParseKey(%q) returned env %q hash %q with an error", tt.key, env, hash)
			}
		})
	}
}

// TestParseKeyEverySingleCharChange changes each character of real keys to every other
// base62 character: the prefix, environment or CRC-32 checksum must catch every change.
func TestParseKeyEverySingleCharChange(t *testing.T) {
	for _, env := range []auth.Environment{auth.Sandbox, auth.Live} {
		for range 3 {
			key, _ := newKey(t, env)
			for i := 0; i < len(key); i++ {
				for j := 0; j < len(base62); j++ {
					c := base62[j]
					if c == key[i] {
						continue
					}
					mutated := key[:i] + string(c) + key[i+1:]
					if e, h, err := auth.ParseKey(mutated); err == nil {
						t.Fatalf("ParseKey accepted %q (key %q with position %d changed): env %q hash %q", mutated, key, i, e, h)
					}
				}
			}
		}
	}
}

func TestKeyHint(t *testing.T) {
	sandbox, _ := newKey(t, auth.Sandbox)
	live, _ := newKey(t, auth.Live)
	tests := []struct {
		key, want string
	}{
		{sandbox, "sk_sandbox_…" + sandbox[len(sandbox)-4:]},
		{live, "sk_live_…" + live[len(live)-4:]},
		{"short", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := auth.KeyHint(tt.key)
		if got != tt.want {
			t.Errorf("KeyHint(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
	// The hint reveals no more than the prefix and the last four characters.
	hint := auth.KeyHint(sandbox)
	secret := sandbox[len("sk_sandbox_") : len(sandbox)-4]
	for i := 0; i+5 <= len(secret); i++ {
		if strings.Contains(hint, secret[i:i+5]) {
			t.Fatalf("hint %q contains a part of the secret %q", hint, secret[i:i+5])
		}
	}
}

func TestNewKeyID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := auth.NewKeyID()
		if err != nil {
			t.Fatal(err)
		}
		if !keyIDRE.MatchString(id) {
			t.Fatalf("NewKeyID() = %q, want key_ + 20 base62", id)
		}
		if seen[id] {
			t.Fatalf("NewKeyID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestParseEnvironmentAndScope(t *testing.T) {
	envs := []struct {
		in   string
		want auth.Environment
		ok   bool
	}{
		{"sandbox", auth.Sandbox, true},
		{"live", auth.Live, true},
		{"Sandbox", "", false},
		{"LIVE", "", false},
		{"test", "", false},
		{"", "", false},
		{" live", "", false},
	}
	for _, tt := range envs {
		if got, ok := auth.ParseEnvironment(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseEnvironment(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	scopes := []struct {
		in string
		ok bool
	}{
		{"payments:write", true},
		{"payments:read", true},
		{"documents:read", true},
		{"documents:write", true},
		{"payments:*", false},
		{"PAYMENTS:READ", false},
		{"", false},
	}
	for _, tt := range scopes {
		got, ok := auth.ParseScope(tt.in)
		if ok != tt.ok || (ok && string(got) != tt.in) || (!ok && got != "") {
			t.Errorf("ParseScope(%q) = %q, %v; want ok %v", tt.in, got, ok, tt.ok)
		}
	}
}
