package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

var update = flag.Bool("update", false, "rewrite docs/paymentsctl.md from the CLI's help")

// referenceDoc is docs/paymentsctl.md: `paymentsctl --help` and each command's --help, as the
// CLI prints them.
func referenceDoc(t *testing.T) string {
	t.Helper()
	help := func(args ...string) string {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut, nil); err != nil {
			t.Fatalf("paymentsctl %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return out.String()
	}
	var b strings.Builder
	b.WriteString("# paymentsctl: the operator CLI\n\n")
	b.WriteString("Generated from `paymentsctl --help` and each command's `--help`: do not edit by hand.\n")
	b.WriteString("`go generate ./cmd/paymentsctl` (or `go test ./cmd/paymentsctl -run TestReferenceDoc -update`)\n")
	b.WriteString("rewrites it; `TestReferenceDoc` fails when it differs from what the CLI prints.\n\n")
	b.WriteString("Run it with `go run ./cmd/paymentsctl`; against the local stack, `source .dev/stack.env` first\n")
	b.WriteString("(`make dev` writes it). What the commands do and the IAM they need: [operations.md](operations.md#api-keys-and-the-operator-cli).\n\n")
	b.WriteString("## paymentsctl --help\n\n```text\n" + help("--help") + "```\n")
	for _, cmd := range commands {
		b.WriteString("\n## paymentsctl " + cmd.name + "\n\n```text\n" + help(append(strings.Fields(cmd.name), "--help")...) + "```\n")
	}
	return b.String()
}

// TestReferenceDoc holds docs/paymentsctl.md equal to the CLI's help.
func TestReferenceDoc(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "docs", "paymentsctl.md")
	want := referenceDoc(t)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go generate ./cmd/paymentsctl writes it)", err)
	}
	if string(got) != want {
		t.Errorf("docs/paymentsctl.md differs from the CLI's help: run go generate ./cmd/paymentsctl\n--- docs/paymentsctl.md\n%s\n--- the CLI\n%s", got, want)
	}
}
