package account

import (
	"strings"
	"testing"
)

func TestCheckPassword(t *testing.T) {
	cases := []struct {
		pw   string
		rule string // "" when allowed
	}{
		{"", RuleRequired},
		{"short", RuleMinLength},
		{"elevenchars", RuleMinLength},
		{"correct horse", ""},
		{"twelve chars", ""},
		{"ক্ষমাপ্রার্থনা", ""},         // Bangla: 14 code points, more bytes
		{"পাসওয়ার্ডক", RuleMinLength}, // 11 code points, 33 bytes: counted in runes
		{strings.Repeat("x", 128), RuleCommon},
		{strings.Repeat("xy1", 42) + "zz", ""}, // 128 runes, no repeat
		{strings.Repeat("ab", 64) + "c", RuleMaxLength},
		{"password1234", RuleCommon},
		{"Password1234", RuleCommon},
		{"!!PASSWORD!!", RuleCommon},
		{"iloveyou2024", RuleCommon},
		{"monkeymonkey", RuleCommon},
		{"monkey1monkey1", RuleCommon},
		{"qwertyuiop12", RuleCommon},
		{"1qaz2wsx3edc", ""}, // not in the list as a whole, and 1qaz2wsx needs its digits
		{"123456789012", RuleCommon},
		{"098765432109", RuleCommon},
		{"abcdefghijkl", RuleCommon},
		{"aaaaaaaaaaaa", RuleCommon},
		{"abcabcabcabc", RuleCommon},
		{"121212121212", RuleCommon},
		{"1234567890", RuleMinLength},
		{"dragonfly in july", ""},
		{"\xff\xfe invalid utf8 x", RuleFormat},
	}
	for _, c := range cases {
		fe := CheckPassword(c.pw)
		got := ""
		if fe != nil {
			got = fe.Violations[0].Rule
			if fe.Violations[0].Path != "password" {
				t.Errorf("%q: field %q", c.pw, fe.Violations[0].Path)
			}
			if c.pw != "" && strings.Contains(fe.Message, c.pw) {
				t.Errorf("%q: the message echoes the password", c.pw)
			}
		}
		if got != c.rule {
			t.Errorf("CheckPassword(%q) rule = %q, want %q", c.pw, got, c.rule)
		}
	}
}

func TestCommonListLoaded(t *testing.T) {
	list := commonPasswords()
	if len(list) < 990 {
		t.Fatalf("common password list has %d entries, want about 1000", len(list))
	}
	for _, pw := range []string{"123456", "password", "qwertyuiop", "freepass", "usuckballz1"} {
		if !list[pw] {
			t.Errorf("%q missing from the list", pw)
		}
	}
	if list["# the 1,000 most common passwords of xato's 10 million password corpus, as published by"] {
		t.Error("the header comment was read as a password")
	}
}

func TestHashAndVerify(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not PHC argon2id with the OWASP parameters", h)
	}
	p, salt, key, err := parseHash(h)
	if err != nil || p != DefaultParams || len(salt) != 16 || len(key) != 32 {
		t.Fatalf("parseHash = %+v, %d, %d, %v", p, len(salt), len(key), err)
	}
	if ok, err := VerifyPassword(h, "correct horse battery"); !ok || err != nil {
		t.Fatalf("right password: %v, %v", ok, err)
	}
	if ok, err := VerifyPassword(h, "correct horse batterY"); ok || err != nil {
		t.Fatalf("wrong password: %v, %v", ok, err)
	}
	h2, _ := HashPassword("correct horse battery")
	if h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if NeedsRehash(h) {
		t.Error("a fresh hash needs rehash")
	}
	// Parameters are read from the hash, so older hashes keep verifying.
	old, err := hashWith(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}, "pw")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := VerifyPassword(old, "pw"); !ok || err != nil {
		t.Fatalf("hash with other parameters: %v, %v", ok, err)
	}
	if !NeedsRehash(old) {
		t.Error("a hash with other parameters does not need rehash")
	}
	if ok, err := VerifyPassword(dummyHash(), "anything"); ok || err != nil {
		t.Fatalf("dummy hash: %v, %v", ok, err)
	}
	if NeedsRehash(dummyHash()) {
		t.Fatal("the dummy hash's parameters are not DefaultParams: an unknown email would cost less than a known one")
	}
}

func TestVerifyRefusesMalformedHashes(t *testing.T) {
	good, _ := hashWith(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}, "pw")
	parts := strings.Split(good, "$")
	for _, h := range []string{
		"", "plain", "$argon2i$v=19$m=64,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=16$m=64,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=4294967295,t=1,p=1$" + parts[4] + "$" + parts[5], // 4 TiB: refused before hashing
		"$argon2id$v=19$m=64,t=1000,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$t=1,m=64,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$",
		"$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		good + "$x",
	} {
		if ok, err := VerifyPassword(h, "pw"); ok || err == nil {
			t.Errorf("VerifyPassword(%q) = %v, %v; want an error", h, ok, err)
		}
	}
}

// BenchmarkHashPassword measures one argon2id hash with DefaultParams (a sign-up, a reset,
// and each sign-in's verification cost about this).
func BenchmarkHashPassword(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HashPassword("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPassword(b *testing.B) {
	h, _ := HashPassword("correct horse battery staple")
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := VerifyPassword(h, "correct horse battery staple"); !ok {
			b.Fatal("no match")
		}
	}
}
