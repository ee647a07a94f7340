package devstack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build whose go command is killed from outside (as the kernel's OOM killer does on a small
// machine) is reported as that build, killed — not as a port or start-up problem. The go
// command is a stand-in ($GO) that kills itself with SIGKILL.
func TestKilledBuildNamesTheBuild(t *testing.T) {
	dir := t.TempDir()
	gobin := filepath.Join(dir, "go")
	if err := os.WriteFile(gobin, []byte("#!/bin/sh\nkill -KILL $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GO", gobin)
	mod := filepath.Join(dir, "mod")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := BuildTool(context.Background(), mod, ".", []string{"go.mod"}, filepath.Join(dir, "out"), "local-kms")
	if err == nil || !errors.Is(err, ErrBuildKilled) || !strings.Contains(err.Error(), "build local-kms") ||
		!strings.Contains(err.Error(), "killed") || strings.Contains(err.Error(), "PORT") {
		t.Fatalf("err = %v, want the build of local-kms named as killed", err)
	}
	// A build stopped by its step's own limit says so instead.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = BuildTool(ctx, mod, ".", []string{"go.mod"}, filepath.Join(dir, "out"), "local-kms")
	if err == nil || errors.Is(err, ErrBuildKilled) || !strings.Contains(err.Error(), "build local-kms: stopped") {
		t.Fatalf("cancelled: err = %v", err)
	}
}
