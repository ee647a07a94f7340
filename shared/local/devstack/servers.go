package devstack

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// DynaliteOptions configures StartDynalite.
type DynaliteOptions struct {
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// DataDir is the LevelDB directory (created if missing); "" keeps data in memory.
	DataDir string
	// LogWriter, if set, receives the server's output line by line, prefixed with "[dynalite] ".
	LogWriter io.Writer
}

// FauxqsOptions configures StartFauxqs.
type FauxqsOptions struct {
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// LogWriter, if set, receives the server's output line by line, prefixed with "[fauxqs] ".
	LogWriter io.Writer
}

// StartDynalite starts dynalite (DynamoDB) on 127.0.0.1 and waits until it
// listens; ctx bounds only the start-up, the server runs until Stop.
func StartDynalite(ctx context.Context, opts DynaliteOptions) (*Server, error) {
	nm, err := NodeModulesDir()
	if err != nil {
		return nil, err
	}
	var dataDir string
	if opts.DataDir != "" {
		if dataDir, err = filepath.Abs(opts.DataDir); err != nil {
			return nil, fmt.Errorf("devstack: %w", err)
		}
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("devstack: dynalite data dir: %w", err)
		}
	}
	// dynalite.mjs runs dynalite's server with its options, minus the crash on a client's
	// aborted request (see the script).
	cli := filepath.Join(filepath.Dir(nm), "shared", "local", "devstack", "dynalite.mjs")
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("devstack: dynalite launcher missing: %w", err)
	}
	return startServer(ctx, serverSpec{
		name: "dynalite",
		args: func(port int) []string {
			args := []string{cli,
				"--host", "127.0.0.1",
				"--port", strconv.Itoa(port),
				// Tables (and indexes) become ACTIVE immediately instead of after 500 ms.
				"--createTableMs", "0",
				"--deleteTableMs", "0",
				"--updateTableMs", "0",
			}
			if dataDir != "" {
				args = append(args, "--path", dataDir)
			}
			return args
		},
		readyMarker: "Dynalite listening at",
		port:        opts.Port,
		logWriter:   opts.LogWriter,
		dir:         filepath.Dir(nm),
	})
}

// StartFauxqs starts fauxqs (SQS) on 127.0.0.1 via shared/local/devstack/fauxqs.mjs
// and waits until it listens; ctx bounds only the start-up.
func StartFauxqs(ctx context.Context, opts FauxqsOptions) (*Server, error) {
	nm, err := NodeModulesDir()
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(nm)
	script := filepath.Join(root, "shared", "local", "devstack", "fauxqs.mjs")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("devstack: fauxqs launcher missing: %w", err)
	}
	return startServer(ctx, serverSpec{
		name:        "fauxqs",
		args:        func(port int) []string { return []string{script, strconv.Itoa(port)} },
		readyMarker: "fauxqs listening at",
		port:        opts.Port,
		logWriter:   opts.LogWriter,
		dir:         root,
	})
}
