package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// maxSizeRatio bounds each function's stripped linux/arm64 bootstrap against the floor
// binary (cmd/lambda-floor: lambda.Start, the AWS configuration and a DynamoDB and an SQS
// client) built with the same flags. A function that links more than its own handler, or a
// dependency that defeats the linker's dead-code elimination (reflection-driven templates,
// for one), shows here first. Size is a means, not the goal: 1.6× leaves room for
// html/template's contextual escaping and for a split made for least privilege only.
const maxSizeRatio = 1.6

// TestBinarySizes builds every function as `make build` and `sam build` do and checks its
// size. It compiles for arm64, so it belongs to the full tier (make test), not to -short.
func TestBinarySizes(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles every function: not under -short")
	}
	tpl, err := samtemplate.LoadRepoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// One go build for the floor and every function (-o names each binary by its folder): the
	// go command loads the packages once and links two binaries at a time, where a go build
	// per function loaded them twenty times and linked one at a time.
	out := t.TempDir()
	pkgs := []string{"./cmd/lambda-floor"}
	for _, f := range tpl.Functions {
		pkgs = append(pkgs, "./"+samtemplate.FunctionDir(f.LogicalID))
	}
	cmd := exec.Command("go", append([]string{"build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w -buildid=",
		"-o", out + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %v: %v\n%s", pkgs, err, b)
	}
	size := func(pkg string) int64 {
		t.Helper()
		fi, err := os.Stat(filepath.Join(out, filepath.Base(pkg)))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	floor := size("cmd/lambda-floor")
	t.Logf("%-24s %10d bytes (floor)", "lambda-floor", floor)
	for _, f := range tpl.Functions {
		n := size(samtemplate.FunctionDir(f.LogicalID))
		ratio := float64(n) / float64(floor)
		t.Logf("%-24s %10d bytes %.2fx", f.LogicalID, n, ratio)
		if ratio > maxSizeRatio {
			t.Errorf("%s bootstrap is %d bytes, %.2fx the floor's %d (limit %.1fx)", f.LogicalID, n, ratio, floor, maxSizeRatio)
		}
	}
}
