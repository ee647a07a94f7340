package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// readmeGrepRE finds README's `git grep -F '<route key>' -- '*.go'` example.
var readmeGrepRE = regexp.MustCompile("`git grep -F '([^']+)' -- '\\*\\.go'`")

// README says its git grep example lands on the one route-table entry that serves the route:
// run it as written and count the lines it finds (exactly one, in a function's route table).
func TestReadmeGrepLandsOnOneTableEntry(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeGrepRE.FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatal("README.md has no `git grep -F '…' -- '*.go'` example")
	}
	cmd := exec.Command("git", "grep", "-nF", m[1], "--", "*.go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git grep -F %q: %v", m[1], err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !regexp.MustCompile(`(^|/)handler/handler\.go:\d+:`).MatchString(lines[0]) {
		t.Errorf("README's git grep -F %q finds %d lines, want the one route-table entry:\n%s", m[1], len(lines), out)
	}
}
