//go:build linux

package rie

import (
	"os/exec"
	"syscall"
)

// setProcAttrs puts an instance (the emulator and the bootstrap it starts) in its own process
// group, and asks the kernel to kill the emulator if this process dies first.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills an instance: the emulator and its bootstrap.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
