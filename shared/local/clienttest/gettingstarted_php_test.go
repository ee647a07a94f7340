package clienttest_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGettingStartedPHP runs docs/getting-started-php.md: its shop.php under PHP's built-in
// server. Composer and Packagist are not here, so the install line becomes the
// vendor/autoload.php Composer would write, loading the client of this checkout.
func TestGettingStartedPHP(t *testing.T) {
	phpBinary(t) // 8.1+ with curl and json: skipped locally without it, a failure in CI
	out, h := runPage(t, page{
		file:    "docs/getting-started-php.md",
		tools:   []string{"php"},
		install: "composer require takapay/takapay-php",
		local: func(root string) string {
			autoload := "<?php require " + phpString(filepath.Join(root, "clients", "php", "src", "autoload.php")) + ";"
			return "mkdir -p vendor && printf '%s\\n' " + shellQuote(autoload) + " > vendor/autoload.php"
		},
	})
	t.Log("\n" + out)
	checkShop(t, out, h)

	// Every call the shop made to the API (the ones with its key; the page's curl plays the
	// payer) came from the PHP client; the create carried an Idempotency-Key.
	calls := 0
	for i, r := range h.Requests() {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer sk_") {
			continue
		}
		calls++
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "takapay-php/") {
			t.Errorf("request %d %s %s: User-Agent %q", i, r.Method, r.Path, ua)
		}
		if r.Path == "/v1/payment/create" && r.Header.Get("Idempotency-Key") == "" {
			t.Errorf("the create carried no Idempotency-Key")
		}
		if r.Path == "/v1/payment/verify" && !strings.Contains(string(r.Body), `"amount_minor":125000`) {
			t.Errorf("a verify expected another amount: %s", r.Body)
		}
	}
	if calls == 0 {
		t.Error("the shop made no API call with its key")
	}
}

// phpString is s as a PHP single-quoted string literal.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// shellQuote is s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
