//go:build unix && !linux

package devstack

import (
	"os/exec"
	"syscall"
)

// setProcAttrs puts the server in its own process group so Stop can signal
// the whole group.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
