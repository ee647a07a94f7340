//go:build unix

package devstack

import (
	"errors"
	"os/exec"
	"syscall"
)

// signalGroup sends SIGTERM (or SIGKILL when kill is set) to the process group
// led by cmd's process.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// pauseGroup stops (SIGSTOP) or continues (SIGCONT) the process group led by cmd's process.
func pauseGroup(cmd *exec.Cmd, pause bool) error {
	if cmd.Process == nil {
		return errors.New("devstack: server not started")
	}
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}
