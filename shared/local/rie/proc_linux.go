//go:build linux

package rie

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setProcAttrs puts an instance (the emulator and the bootstrap it starts) in its own process
// group, and asks the kernel to kill the emulator if this process dies first.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills an instance: first the bootstrap (the emulator starts it in a process group
// of its own, so the emulator's group does not hold it; left alive it would find the Runtime
// API gone and print "failed to get the next invoke"), then the emulator's group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGSTOP) // the emulator starts nothing new meanwhile
	for _, child := range children(pid) {
		_ = syscall.Kill(-child, syscall.SIGKILL)
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// children lists the processes pid started (under any of its threads).
func children(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
