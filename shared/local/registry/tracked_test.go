package registry

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// maxTrackedFile is the size above which a tracked file is build output or data that belongs
// elsewhere, not source: the largest source file (the generated Go client) is under 1 MB.
const maxTrackedFile = 2 << 20

// binaryMagic are the openings of executables and object files of the platforms a developer
// builds on: ELF, PE, Mach-O (both byte orders, 32 and 64 bit, universal) and a Go archive.
var binaryMagic = [][]byte{
	[]byte("\x7fELF"),
	[]byte("MZ"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("!<arch>\n"),
}

// Build output is never committed: no tracked file is an executable binary (an executable
// file must be a script that names its interpreter) or larger than 2 MB.
func TestNoBuildOutputIsTracked(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	cmd := exec.Command("git", "ls-files", "-s", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	checked := 0
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> <object> <stage>\t<path>"
		meta, path, ok := strings.Cut(string(rec), "\t")
		if !ok {
			t.Fatalf("git ls-files: unexpected line %q", rec)
		}
		mode := strings.Fields(meta)[0]
		if mode == "120000" || mode == "160000" { // a link or a submodule: no content here
			continue
		}
		if msg := trackedFileProblem(filepath.Join(root, path), mode == "100755"); msg != "" {
			t.Errorf("%s: %s", path, msg)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked only %d tracked files: git ls-files answered too little", checked)
	}
}

// trackedFileProblem says why the file at path may not be tracked, or "" when it may.
func trackedFileProblem(path string, executable bool) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "" // deleted in the work tree, not yet committed: git will say so
	}
	if fi.Size() > maxTrackedFile {
		return "larger than 2 MB: build output or data is not committed (.gitignore it)"
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(8)
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, m) {
			return "an executable or object file: build output is not committed (.gitignore it)"
		}
	}
	if executable && !bytes.HasPrefix(head, []byte("#!")) {
		return "executable but not a script with a #! line"
	}
	return ""
}

// The check itself: it finds what it is for.
func TestTrackedFileProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name       string
		body       []byte
		executable bool
		bad        bool
	}{
		{"elf", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...), true, true},
		{"elf-not-exec", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...), false, true},
		{"macho", append([]byte{0xcf, 0xfa, 0xed, 0xfe}, make([]byte, 64)...), true, true},
		{"exe", append([]byte("MZ\x90\x00"), make([]byte, 64)...), false, true},
		{"big", bytes.Repeat([]byte("a\n"), maxTrackedFile/2+1), false, true},
		{"exec-no-shebang", []byte("echo hi\n"), true, true},
		{"script", []byte("#!/usr/bin/env bash\necho hi\n"), true, false},
		{"source", []byte("package main\n"), false, false},
		{"just-under", bytes.Repeat([]byte("a"), maxTrackedFile), false, false},
	} {
		got := trackedFileProblem(write(c.name, c.body), c.executable)
		if (got != "") != c.bad {
			t.Errorf("%s: problem %q, want bad=%v", c.name, got, c.bad)
		}
	}
}
