//go:build !linux

package rie

import "os/exec"

// The emulator runs Linux bootstraps' protocol on any host, but the pool's process control
// (one process group per instance) is written for Linux, where make dev and make test run.
func setProcAttrs(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
