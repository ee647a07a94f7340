package devstack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
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
		return "", fmt.Errorf("devstack: build %s: %w\n%s", name, err, b)
	}
	return out, os.Rename(tmp, out)
}

// GoTool is the go command of the toolchain running this program, else the one on PATH.
func GoTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); FileExists(p) {
		return p
	}
	return "go"
}

// FileExists reports whether p is a file.
func FileExists(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
