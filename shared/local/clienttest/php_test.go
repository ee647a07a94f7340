package clienttest_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/clienttest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// phpBinary finds Debian's php-cli (with php-curl), 8.1 or newer. Without it the test is
// skipped, under -short and locally; in CI's full tier (CI set) a missing PHP fails the test
// instead of hiding it (devstack.MissingTool).
func phpBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("php")
	if err == nil {
		out, err := exec.Command(p, "-r", `echo PHP_VERSION_ID >= 80100 && extension_loaded("curl") && extension_loaded("json") ? "yes" : PHP_VERSION;`).CombinedOutput()
		if err == nil && string(out) == "yes" {
			return p
		}
		devstack.MissingTool(t, "php at %s is not 8.1+ with curl and json (apt-get install php-cli php-curl): %s %v", p, out, err)
	}
	devstack.MissingTool(t, "php is not installed (apt-get install php-cli php-curl; .ci/run installs them)")
	return ""
}

// The PHP client (clients/php): its own tests (php tests/run.php: amounts, bodies, backoff,
// Retry-After, webhook verification, retries against a scripted server), then its journey
// (examples/journey.php) against the local stack, every request it sends checked against the
// contract by the harness.
func TestPHPClientJourney(t *testing.T) {
	php := phpBinary(t)
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "clients", "php")

	t.Run("tests", func(t *testing.T) {
		cmd := exec.Command(php, "tests/run.php")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\nok: ") {
			t.Fatalf("php tests/run.php: %v\n%s", err, out)
		}
		t.Log(strings.TrimSpace(string(out)))
	})

	t.Run("journey", func(t *testing.T) {
		h := clienttest.Start(t)
		out := h.Run(t, dir, php, "examples/journey.php")
		t.Log("\n" + out)
		for i := 1; i <= 9; i++ {
			if !strings.Contains(out, "ok "+strconv.Itoa(i)+" ") {
				t.Errorf("the journey did not print step %d", i)
			}
		}

		reqs := h.Requests()
		for i, r := range reqs {
			if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "takapay-php/") {
				t.Errorf("request %d %s %s: User-Agent %q", i, r.Method, r.Path, ua)
			}
		}

		// Step 5: every attempt of the retried create carried the one key, and there was more than one.
		m := regexp.MustCompile(`ok 5 retry (\S+) attempts=(\d+) .* key=(\S+);`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no step 5 line")
		}
		attempts, _ := strconv.Atoi(m[2])
		sent := 0
		for _, r := range reqs {
			if r.Method == "POST" && r.Path == "/v1/payment/create" && r.Header.Get("Idempotency-Key") == m[3] {
				sent++
				if !strings.Contains(string(r.Body), `"amount":99.99`) {
					t.Errorf("retried create body %s", r.Body)
				}
			}
		}
		if attempts < 2 || sent != attempts {
			t.Errorf("the retried create: the client says %d attempts, the API saw %d with key %s", attempts, sent, m[3])
		}

		// Step 6: the 404 was sent once.
		u := regexp.MustCompile(`ok 6 error NOT_FOUND .* unknown=(\S+)`).FindStringSubmatch(out)
		if u == nil {
			t.Fatalf("no step 6 line")
		}
		verifies := 0
		for _, r := range reqs {
			if r.Path == "/v1/payment/verify" && strings.Contains(string(r.Body), u[1]) {
				verifies++
			}
		}
		if verifies != 1 {
			t.Errorf("the verify that answered 404 was sent %d times, want 1", verifies)
		}
	})
}
