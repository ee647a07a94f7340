package devstack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
)

var toolBuildMu sync.Mutex // one build at a time in this process (the go tool parallelises inside)

// BuildTool builds pkg from the Go module in dir — a local tool pinned in its own go.mod, so
// that no Lambda's dependencies change (the Lambda emulator, local-kms) — into outDir as
// name-<hash> and returns the binary's path. The hash covers the listed files of the module
// and the Go version and platform, so a binary is built once per content and reused.
func BuildTool(ctx context.Context, dir, pkg string, hashed []string, outDir, name string) (string, error) {
	toolBuildMu.Lock()
	defer toolBuildMu.Unlock()
	h := sha256.New()
	for _, f := range hashed {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("devstack: %s's module: %w", name, err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	out := filepath.Join(outDir, name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if FileExists(out) {
		return out, nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	cmd := exec.CommandContext(ctx, GoTool(), "build", "-trimpath", "-o", tmp, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0", "GOFLAGS=-mod=readonly -buildvcs=false")
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return "", BuildError(ctx, name, err, b)
	}
	return out, os.Rename(tmp, out)
}

// BuildError describes a failed go build of what with its real cause: the step's bound (ctx
// done: the go command was stopped), a signal from elsewhere (the kernel's OOM killer on a
// small machine), or the compiler's own output.
func BuildError(ctx context.Context, what string, err error, output []byte) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("build %s: stopped at the build step's time limit: %w", what, ctx.Err())
		}
		return fmt.Errorf("build %s: stopped: %w", what, ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("build %s: the go command was killed by a signal (%s), not stopped by make dev (out of memory?): %w\n%s",
				what, ws.Signal(), ErrBuildKilled, bytes.TrimSpace(output))
		}
	}
	return fmt.Errorf("build %s: %w\n%s", what, err, bytes.TrimSpace(output))
}

// ErrBuildKilled marks a build whose go command a signal from outside killed.
var ErrBuildKilled = errors.New("build killed")

// GoTool is the go command to build with: $GO when set (the Makefile's GO), else the one of
// the toolchain running this program, else the one on PATH.
func GoTool() string {
	if p := os.Getenv("GO"); p != "" {
		return p
	}
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); FileExists(p) {
		return p
	}
	return "go"
}

// FileExists reports whether p is a file.
func FileExists(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
