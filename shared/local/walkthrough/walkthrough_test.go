package walkthrough

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// section is one walk-through: a file of the repository and a heading in it.
type section struct{ file, heading string }

// sections are the walk-throughs, in order: README.md's, then docs/getting-started-curl.md's,
// then docs/refunds.md's; each builds on the shell of the ones before.
var sections = []section{
	{"README.md", "## Walk-through (curl)"},
	{"docs/getting-started-curl.md", "## Intents: pay an invoice (curl)"},
	{"docs/getting-started-curl.md", "## Public documents: a payer pays a payment link (curl)"},
	{"docs/getting-started-curl.md", "## Refunds: the payer returns the blouse (curl)"},
	{"docs/refunds.md", "## Walk-through (curl)"},
}

// script returns the sh blocks of the sections, read from the files under root, the `make
// dev` line left out and the base URL pointed at the test's stack.
func script(t *testing.T, root, base string) string {
	t.Helper()
	var out []string
	for _, s := range sections {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.file)))
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := Section(string(data), s.heading)
		if !ok {
			t.Fatalf("%s has no section %q", s.file, s.heading)
		}
		n := len(out)
		for _, b := range Blocks(rest) {
			if b.Lang == "sh" {
				out = append(out, b.Text)
			}
		}
		if len(out) == n {
			t.Fatalf("%s: section %q has no sh block", s.file, s.heading)
		}
	}
	text := strings.Join(out, "\n")
	text = regexp.MustCompile(`(?m)^make dev.*$`).ReplaceAllString(text, "")
	if !strings.Contains(text, "B=http://127.0.0.1:3000") {
		t.Fatal("the walk-through no longer sets B=http://127.0.0.1:3000")
	}
	return strings.ReplaceAll(text, "B=http://127.0.0.1:3000", "B="+base)
}

// TestReadmeWalkthrough runs the walk-throughs of README.md, docs/getting-started-curl.md and
// docs/refunds.md with bash, curl and jq against a fresh stack, with the webhook sender and the
// re-drive running as `make dev` runs them, and checks what they show: the payment verified
// with match true, the intent paid and verified, the payment link's payment recorded, the
// invoice's intent partly refunded, and the refund workflow (replay, the money rule, each
// transition, the payment's refunded and refundable amounts, the list).
func TestReadmeWalkthrough(t *testing.T) { walkthrough(t, nil) }

// TestReadmeWalkthroughEmulated is the same against the real bootstraps under the Runtime
// Interface Emulator (package rie), as `make dev` serves by default: the HTTP functions through
// the gateway, the webhook sender fed SQS batches and the re-drive invoked with the
// schedule's event.
func TestReadmeWalkthroughEmulated(t *testing.T) { walkthrough(t, &rie.Options{PoolSize: 2}) }

func walkthrough(t *testing.T, emulator *rie.Options) {
	devstack.RequireServers(t)
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the walk-through needs %s (.ci/run installs it): %v", tool, err)
		}
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"KEY_CACHE_TTL_MS": "5000"}, Emulator: emulator})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The re-drive every 200 ms: faster than the template's schedule on purpose, so that the
	// walk-through does not wait a minute for it.
	a.RunWebhookWorkers(ctx, t, 200*time.Millisecond)

	dir := t.TempDir()
	if err := localapi.WriteCredentials(filepath.Join(dir, ".dev", "credentials.json"), a.Creds); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script(t, root, a.URL))
	cmd.Dir = dir
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cancel()
		<-done
		t.Fatalf("the walk-through did not finish in 3 minutes:\n%s", out)
	}
	text := string(out)
	if err != nil {
		t.Fatalf("the walk-through failed: %v\n%s", err, text)
	}
	for _, want := range []string{
		`"status":"COMPLETED"`,                         // the approve
		`"match":true,"mismatches":[]`,                 // verify and verify-transaction
		`"status": "issued"`, `"amount_minor": 127500`, // the invoice
		`"amount_minor":127500,"currency":"BDT","reference":"INV-7"`, // its intent
		`"intent_id":"`,        // verify-transaction names it
		"body.fields.size",     // the public POST's 422
		`"paid_minor": 130000`, // the link learned its payment
		// getting-started-curl's refund of the blouse
		`{"status":"APPROVED","amount_minor":25050,"due_by":true}`,
		`{"amount_minor":127500,"refunded_minor":25050,"refundable_minor":102450}`,
		`{"reference":"INV-7","refunded_minor":25050}`,
		// refunds.md
		`{"status":"REQUESTED","amount_minor":20000,"requested_by":"merchant","version":1}`,
		"Idempotent-Replayed: true",
		"\nIN_REVIEW\n",
		`{"status":"APPROVED","due_by":true,"version":3}`,
		`{"status":"RETURNED","provider_reference":"TRX9BC4D2E1","returned":true}`,
		`{"amount_minor":50000,"refunded_minor":20000,"refundable_minor":30000}`,
		`{"status":"REQUESTED","amount_minor":30000}`,
		"\nCANCELLED\n",
		`{"refunded_minor":20000,"refundable_minor":30000}`,
		`["CANCELLED","RETURNED"]`,
		`[true]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the walk-through's output lacks %s:\n%s", want, text)
		}
	}
	if got := strings.Count(text, `"match":true`); got != 2 {
		t.Errorf("match true %d times, want 2 (verify, verify-transaction):\n%s", got, text)
	}
	// refunds.md: the refund over what is left and the cancel of a RETURNED refund are both 409.
	if got := strings.Count(text, "\nSTATE_CONFLICT\n"); got != 2 {
		t.Errorf("STATE_CONFLICT %d times, want 2 (more than refundable, cancel after returned):\n%s", got, text)
	}
}
