//go:build linux

package devstack

import (
	"os/exec"
	"syscall"
)

// setProcAttrs puts the server in its own process group (so Stop can signal
// the whole group and a terminal's Ctrl-C does not reach it directly) and asks
// the kernel to kill it if the Go process dies without calling Stop.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
