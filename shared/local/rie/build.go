// Package rie runs the functions' real bootstraps the way Lambda runs them: each function's
// `main`, built for this host with the flags `make build` uses, under the AWS Lambda Runtime
// Interface Emulator (the Runtime API server that SAM CLI runs inside its containers), with
// the environment, memory and timeout template.yaml gives that function. Callers invoke it
// through the emulator's invoke endpoint with the events API Gateway, SQS or the scheduler
// would send.
//
// The emulator is local tooling built from its own module (shared/local/rie/tool/go.mod), so
// no Lambda links it and its requirements never change the versions the Lambdas build with.
// No Lambda links this package either.
package rie

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// EmulatorPackage is the emulator's command, pinned in shared/local/rie/tool/go.mod.
const EmulatorPackage = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"

// LambdaTags and LambdaLDFlags are `make build`'s flags (LAMBDA_FLAGS); only GOOS and GOARCH
// differ here: the host's, as `make coldstart` builds.
const (
	LambdaTags    = "lambda.norpc"
	LambdaLDFlags = "-s -w -buildid="
)

// CacheDir is where the host builds are kept, under the repository root (.build is ignored by
// git and removed by `make clean`).
func CacheDir(root string) string { return filepath.Join(root, ".build", "host", "rie") }

var buildMu sync.Mutex // one Bootstraps build at a time in this process (the go tool parallelises inside)

// Emulator builds the emulator with the versions its module pins (devstack.BuildTool) and
// returns its path.
func Emulator(ctx context.Context, root string) (string, error) {
	return devstack.BuildTool(ctx, filepath.Join(root, "shared", "local", "rie", "tool"), EmulatorPackage,
		[]string{"go.mod", "go.sum"}, CacheDir(root), "aws-lambda-rie")
}

func goTool() string { return devstack.GoTool() }

func fileExists(p string) bool { return devstack.FileExists(p) }

type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	EmbedFiles []string
	Deps       []string
	Module     *struct {
		Path, Version string
		Main          bool
		Replace       *struct{ Path, Version, Dir string }
	}
}

// Bootstraps builds each function directory (e.g. "functions/probes") for this host with the
// Lambda flags and returns each bootstrap's path, keyed by directory. A build is kept under
// CacheDir keyed by the content of every package it links (the files of this module's
// packages, the versions of the others, the Go version), so a second run with nothing changed
// builds nothing.
func Bootstraps(ctx context.Context, root string, dirs []string) (map[string]string, error) {
	return BootstrapsProgress(ctx, root, dirs, nil)
}

// Progress is told of each function built: done of total (those not cached), and the
// directory just built.
type Progress func(done, total int, dir string)

// BootstrapsProgress is Bootstraps reporting each function it builds to progress (nil for
// none). The functions not cached are built one go build each, in order, so that progress
// is real (the first builds the packages they share; the others mostly link).
func BootstrapsProgress(ctx context.Context, root string, dirs []string, progress Progress) (map[string]string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	pkgs := make([]string, len(dirs))
	for i, d := range dirs {
		pkgs[i] = "./" + filepath.ToSlash(d)
	}
	list := func(args ...string) ([]listedPackage, error) {
		cmd := exec.CommandContext(ctx, goTool(), append([]string{"list", "-tags", LambdaTags,
			"-json=ImportPath,Dir,Standard,GoFiles,EmbedFiles,Deps,Module"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("rie: go list: %w\n%s", err, stderr.Bytes())
		}
		var ps []listedPackage
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p listedPackage
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				return ps, nil
			} else if err != nil {
				return nil, err
			}
			ps = append(ps, p)
		}
	}
	all, err := list(append([]string{"-deps"}, pkgs...)...)
	if err != nil {
		return nil, err
	}
	sums, err := packageSums(all)
	if err != nil {
		return nil, err
	}
	mains, err := list(pkgs...)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{}
	var missing []string
	missingOut := map[string]string{}
	byDir := map[string]int{}
	for i, d := range dirs {
		byDir[filepath.Clean(filepath.Join(root, d))] = i
	}
	for _, m := range mains {
		i, ok := byDir[filepath.Clean(m.Dir)]
		if !ok {
			return nil, fmt.Errorf("rie: go list answered %s (%s), not one of %v", m.ImportPath, m.Dir, dirs)
		}
		h := sha256.New()
		fmt.Fprintf(h, "%s %s/%s tags=%s ldflags=%s trimpath\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, LambdaTags, LambdaLDFlags)
		fmt.Fprintf(h, "%s %s\n", m.ImportPath, sums[m.ImportPath])
		for _, d := range m.Deps {
			if s, ok := sums[d]; ok {
				fmt.Fprintf(h, "%s %s\n", d, s)
			}
		}
		dir := dirs[i]
		out := filepath.Join(CacheDir(root), filepath.Base(dir)+"-"+hex.EncodeToString(h.Sum(nil))[:16], "bootstrap")
		paths[dir] = out
		if !fileExists(out) {
			missing = append(missing, pkgs[i])
			missingOut[filepath.Base(dir)] = out
		}
	}
	if len(missing) == 0 {
		return paths, nil
	}
	for i, pkg := range missing {
		name := filepath.Base(pkg)
		if err := buildOne(ctx, root, pkg, missingOut[name]); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(i+1, len(missing), strings.TrimPrefix(pkg, "./"))
		}
	}
	return paths, nil
}

// packageSums hashes each non-standard package: this module's by the content of its files,
// the others by module version (and replacement).
func packageSums(all []listedPackage) (map[string]string, error) {
	sums := map[string]string{}
	for _, p := range all {
		if p.Standard {
			continue
		}
		h := sha256.New()
		switch {
		case p.Module != nil && p.Module.Main:
			files := append(append([]string(nil), p.GoFiles...), p.EmbedFiles...)
			sort.Strings(files)
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(p.Dir, f))
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(h, "%s %d\n", f, len(b))
				h.Write(b)
			}
		case p.Module != nil:
			fmt.Fprintf(h, "%s@%s", p.Module.Path, p.Module.Version)
			if r := p.Module.Replace; r != nil {
				fmt.Fprintf(h, "=>%s@%s%s", r.Path, r.Version, r.Dir)
			}
		default:
			fmt.Fprintf(h, "dir %s", p.Dir)
		}
		sums[p.ImportPath] = hex.EncodeToString(h.Sum(nil))
	}
	return sums, nil
}

// buildOne builds the function package pkg ("./functions/x") for this host into out.
func buildOne(ctx context.Context, root, pkg, out string) error {
	tmp, err := os.MkdirTemp(CacheDirMk(root), "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, goTool(), "build", "-tags", LambdaTags, "-trimpath",
		"-ldflags", LambdaLDFlags, "-o", filepath.Join(tmp, "bootstrap"), pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return devstack.BuildError(ctx, strings.TrimPrefix(pkg, "./"), err, b)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.Rename(filepath.Join(tmp, "bootstrap"), out)
}

// Builds are what the pools run: the emulator and each function's bootstrap, built for this
// host (Build).
type Builds struct {
	Emulator string
	// Bootstraps are keyed by function directory, e.g. "functions/probes".
	Bootstraps map[string]string
}

// Build builds the emulator and every function of tpl for this host (nothing that is cached)
// and tells progress of each function built. make dev runs it before any start-up clock
// starts (Options.Prebuilt).
func Build(ctx context.Context, root string, tpl *samtemplate.Template, progress Progress) (*Builds, error) {
	emu, err := Emulator(ctx, root)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, 0, len(tpl.Functions))
	for _, f := range tpl.Functions {
		dirs = append(dirs, f.Dir)
	}
	boots, err := BootstrapsProgress(ctx, root, dirs, progress)
	if err != nil {
		return nil, err
	}
	return &Builds{Emulator: emu, Bootstraps: boots}, nil
}

// CacheDirMk is CacheDir, created.
func CacheDirMk(root string) string {
	d := CacheDir(root)
	_ = os.MkdirAll(d, 0o755)
	return d
}
