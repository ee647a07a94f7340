//go:build unix

package devstack

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
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
// A stop returns once every thread of the leader is stopped (where /proc shows it, on Linux;
// at most 2 s): kill returns before the signal has stopped threads running on other CPUs, and
// a test that pauses a server and then calls it must not be answered in between.
func pauseGroup(cmd *exec.Cmd, pause bool) error {
	if cmd.Process == nil {
		return errors.New("devstack: server not started")
	}
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil || !pause {
		return err
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if stopped(cmd.Process.Pid) {
			return nil
		}
	}
	return nil
}

// stopped reports whether every thread of pid is stopped ('T' in /proc/<pid>/task/*/stat), or
// true where /proc cannot tell.
func stopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return true
	}
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			return true
		}
		// pid (comm) state …: comm may hold spaces and parentheses; the state follows the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
			return false
		}
	}
	return true
}
