//go:build !unix

package devstack

import (
	"errors"
	"os/exec"
)

// setProcAttrs is a no-op where process groups are unavailable.
func setProcAttrs(cmd *exec.Cmd) {}

// signalGroup kills the server process (there is no graceful stop here).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// pauseGroup is unsupported where SIGSTOP is unavailable.
func pauseGroup(*exec.Cmd, bool) error {
	return errors.New("devstack: pausing a server needs a unix system")
}
