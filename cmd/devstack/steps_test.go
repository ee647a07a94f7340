package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// Each step's clock starts when the step starts: the servers' limit is counted from the end of
// the build, however long the build took, so a slow first build never spends it.
func TestStepClockStartsAfterTheBuild(t *testing.T) {
	const startLimit = time.Minute
	var buildDeadline, startDeadline time.Time
	var buildEnded time.Time
	err := runSteps(context.Background(), io.Discard, []step{
		{"build", time.Hour, func(ctx context.Context) error {
			buildDeadline, _ = ctx.Deadline()
			buildEnded = time.Now()
			return nil
		}},
		{"start the local servers", startLimit, func(ctx context.Context) error {
			startDeadline, _ = ctx.Deadline()
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if startDeadline.Before(buildEnded.Add(startLimit)) {
		t.Errorf("the servers' deadline %s was set before the build ended (%s + %s)", startDeadline, buildEnded, startLimit)
	}
	if buildDeadline.Before(buildEnded) || !buildDeadline.Before(startDeadline.Add(time.Hour)) {
		t.Errorf("the build's deadline %s is not its own", buildDeadline)
	}
}

// A step that runs past its own limit says which step and which limit; one that fails says
// which step and its own cause.
func TestStepFailureNamesTheStep(t *testing.T) {
	err := runSteps(context.Background(), io.Discard, []step{
		{"seed", time.Nanosecond, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
	})
	if err == nil || !strings.HasPrefix(err.Error(), "seed: not done within its limit of 1ns") {
		t.Errorf("err = %v", err)
	}
	err = runSteps(context.Background(), io.Discard, []step{
		{"build", time.Hour, func(context.Context) error { return errors.New("compile error") }},
		{"seed", time.Hour, func(context.Context) error { t.Error("a step after a failure ran"); return nil }},
	})
	if err == nil || err.Error() != "build: compile error" {
		t.Errorf("err = %v", err)
	}
}

// make dev's build step with a go command killed from outside (a stand-in $GO that SIGKILLs
// itself, as the OOM killer would) fails as the build of local-kms, killed — with no advice
// about ports, which only a taken port gets.
func TestKilledBuildIsReportedAsTheBuild(t *testing.T) {
	repo, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir() // a checkout whose local-kms is not built yet
	src := filepath.Join(repo, "shared", "local", "devstack", "localkms")
	dst := filepath.Join(root, "shared", "local", "devstack", "localkms")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gobin := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(gobin, []byte("#!/bin/sh\nkill -KILL $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GO", gobin)
	d := &dev{cfg: &config{root: root}, out: io.Discard, tpl: &samtemplate.Template{}}
	err = withHint(runSteps(context.Background(), io.Discard, []step{{"build", time.Hour, d.build}}))
	if err == nil || !errors.Is(err, devstack.ErrBuildKilled) || !strings.HasPrefix(err.Error(), "build: build local-kms: the go command was killed by a signal (killed)") ||
		strings.Contains(err.Error(), "PORT") {
		t.Fatalf("err = %v", err)
	}
}

// The port hint names the one variable of the server whose port was taken, and only then.
func TestPortHintOnlyForATakenPort(t *testing.T) {
	taken := &devstack.PortInUseError{Server: "fauxqs", Port: 4566}
	if err := withHint(errors.Join(errors.New("start the local servers"), taken)); !strings.Contains(err.Error(), "set SQS_PORT") ||
		strings.Contains(err.Error(), "DYNAMO_PORT") {
		t.Errorf("taken: %v", err)
	}
	if err := withHint(errors.New("devstack: dynalite exited before it was ready")); strings.Contains(err.Error(), "PORT") {
		t.Errorf("not taken: %v", err)
	}
}
