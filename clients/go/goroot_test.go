package takapay

import (
	"os/exec"
	"path/filepath"
	"runtime"
)

func runtimeGOROOT() string {
	if p, err := exec.LookPath("go"); err == nil {
		return filepath.Dir(filepath.Dir(p))
	}
	return runtime.GOROOT()
}
