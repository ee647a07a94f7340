//go:build unix

package devstack

import (
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
