// Package devstack starts and provisions the local stand-ins for the AWS
// services the payments API uses: dynalite for DynamoDB, fauxqs for SQS and
// aws-ses-v2-local for SES (StartSES, ReceivedMail), real wire-protocol servers
// installed by npm into <repo>/node_modules, and local-kms for KMS (StartKMS), a Go
// program built from its own pinned module (shared/local/devstack/localkms).
//
// It backs `make dev` (cmd/devstack) and the integration tests: every test
// binary calls StartTestStack and gets its own servers on free loopback ports,
// provisioned from template.yaml, so no manual setup step is ever needed.
package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/takapay/payments/shared/local/samtemplate"
)

const (
	// readyTimeout bounds how long a server may take to start listening.
	readyTimeout = 15 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before SIGKILL.
	stopGrace = 3 * time.Second
	// logTailBytes is how much recent server output a Server keeps in memory.
	logTailBytes = 64 << 10
	// portAttempts is how often a start is retried when an automatically
	// chosen port was taken by someone else in the meantime.
	portAttempts = 5
)

// NodeModulesDir returns <repo root>/node_modules after checking that dynalite and fauxqs are installed.
func NodeModulesDir() (string, error) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		return "", fmt.Errorf("devstack: %w", err)
	}
	nm := filepath.Join(root, "node_modules")
	for _, p := range []string{
		filepath.Join(nm, ".bin", "dynalite"),
		filepath.Join(nm, "dynalite", "cli.js"),
		filepath.Join(nm, "fauxqs", "package.json"),
	} {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("devstack: %s is missing: the local DynamoDB/SQS servers are not installed; run `npm ci` (or `make deps`) in %s", p, root)
		}
	}
	return nm, nil
}

// nodeBinary locates the node executable.
func nodeBinary() (string, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("devstack: node (Node.js >= 20) is required to run dynalite and fauxqs: %w", err)
	}
	return p, nil
}

// Server is a running local server process (dynalite, fauxqs, aws-ses-v2-local, local-kms).
type Server struct {
	// Name identifies the server in logs and errors ("dynalite", "fauxqs").
	Name string
	// Endpoint is the base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Port is the loopback TCP port the server listens on.
	Port int

	cleanup  func()
	cmd      *exec.Cmd
	out      *outputSink
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
}

// Logs returns the most recent output (stdout and stderr) of the server process.
func (s *Server) Logs() string { return s.out.tail() }

// Done is closed once the server process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// Pause stops the server's processes (SIGSTOP): the port stays open and the kernel still
// accepts connections, but nothing answers — a hung dependency, as the fault tests need.
// Resume (SIGCONT) lets it go on, answering what queued up meanwhile.
func (s *Server) Pause() error { return pauseGroup(s.cmd, true) }

// Resume continues a paused server.
func (s *Server) Resume() error { return pauseGroup(s.cmd, false) }

// PID returns the process id of the server (also its process group id).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Stop terminates the server's process group and waits for it to exit; it is idempotent.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
		default:
			signalGroup(s.cmd, false)
			select {
			case <-s.done:
			case <-time.After(stopGrace):
				signalGroup(s.cmd, true)
				<-s.done
			}
		}
		// Reap anything the server left behind in its group.
		signalGroup(s.cmd, true)
		if s.cleanup != nil {
			s.cleanup()
		}
	})
	<-s.done
}

// exitError describes how the process ended (only valid after Done).
func (s *Server) exitError() error {
	if s.waitErr == nil {
		return errors.New("exited with status 0")
	}
	return s.waitErr
}

// serverSpec describes how to launch one server.
type serverSpec struct {
	name string
	// args builds the node arguments for a port.
	args func(port int) []string
	// readyMarker is a substring of the line the server prints once listening.
	readyMarker string
	port        int
	logWriter   io.Writer
	dir         string
	// program, when set, is the executable run with args (else node runs them).
	program string
	// env, when set, adds environment variables for a port.
	env func(port int) []string
}

// startServer launches a node server and waits until it is ready, retrying
// on another free port when an automatically chosen one was taken.
func startServer(ctx context.Context, spec serverSpec) (*Server, error) {
	prog := spec.program
	if prog == "" {
		node, err := nodeBinary()
		if err != nil {
			return nil, err
		}
		prog = node
	}
	var err error
	attempts := 1
	if spec.port == 0 {
		attempts = portAttempts
	}
	var lastErr error
	for i := 0; i < attempts; i++ {
		port := spec.port
		if port == 0 {
			if port, err = FreePort(); err != nil {
				return nil, err
			}
		}
		s, err, portTaken := launch(ctx, prog, spec, port)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !portTaken || ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func launch(ctx context.Context, prog string, spec serverSpec, port int) (s *Server, err error, portTaken bool) {
	ready := make(chan struct{})
	out := newOutputSink(spec.name, spec.readyMarker, ready, spec.logWriter)
	cmd := exec.Command(prog, spec.args(port)...)
	cmd.Dir = spec.dir
	cmd.Stdin = nil
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.Env = append(os.Environ(), "NODE_NO_WARNINGS=1")
	if spec.env != nil {
		cmd.Env = append(cmd.Env, spec.env(port)...)
	}
	cmd.WaitDelay = time.Second
	setProcAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("devstack: start %s: %w", spec.name, err), false
	}
	s = &Server{
		Name:     spec.name,
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		Port:     port,
		cmd:      cmd,
		out:      out,
		done:     make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		out.flush()
		close(s.done)
	}()

	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		// The server printed its listening line; confirm the port answers.
		if err := dialOnce(port); err != nil {
			s.Stop()
			return nil, fmt.Errorf("devstack: %s reported ready but 127.0.0.1:%d refuses connections: %w\n%s", spec.name, port, err, s.Logs()), false
		}
		return s, nil, false
	case <-s.done:
		logs := s.Logs()
		if strings.Contains(logs, "EADDRINUSE") || strings.Contains(logs, "address already in use") {
			return nil, &PortInUseError{Server: spec.name, Port: port, Output: logs}, true
		}
		return nil, fmt.Errorf("devstack: %s exited before it was ready (%v); output:\n%s", spec.name, s.exitError(), logs), false
	case <-timer.C:
		s.Stop()
		return nil, fmt.Errorf("devstack: %s did not become ready on 127.0.0.1:%d within %s; output:\n%s", spec.name, port, readyTimeout, s.Logs()), false
	case <-ctx.Done():
		s.Stop()
		return nil, fmt.Errorf("devstack: start %s: %w", spec.name, ctx.Err()), false
	}
}

// PortInUseError is a server that could not listen because its port was taken (EADDRINUSE):
// the one start failure for which another port is the remedy.
type PortInUseError struct {
	Server string
	Port   int
	Output string
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("devstack: %s could not listen on 127.0.0.1:%d: the port is taken (EADDRINUSE); output:\n%s", e.Server, e.Port, e.Output)
}

func dialOnce(port int) error {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devstack: pick a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, err
	}
	return port, nil
}

// logMu serialises writes to caller-supplied log writers, which several
// servers may share (e.g. os.Stderr in make dev).
var logMu sync.Mutex

// outputSink receives a server's stdout and stderr: it keeps a bounded tail,
// forwards complete lines prefixed with the server name to an optional
// writer and signals readiness when the ready marker appears.
type outputSink struct {
	name   string
	marker string
	ready  chan struct{}
	logW   io.Writer

	mu      sync.Mutex
	buf     []byte // bounded tail of everything written
	partial []byte // incomplete last line
	isReady bool
}

func newOutputSink(name, marker string, ready chan struct{}, w io.Writer) *outputSink {
	return &outputSink{name: name, marker: marker, ready: ready, logW: w}
}

// Write implements io.Writer.
func (o *outputSink) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	if len(o.buf) > logTailBytes {
		o.buf = append([]byte(nil), o.buf[len(o.buf)-logTailBytes:]...)
	}
	o.partial = append(o.partial, p...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		o.line(o.partial[:i])
		o.partial = o.partial[i+1:]
	}
	if len(o.partial) > logTailBytes { // a runaway line without newline
		o.line(o.partial)
		o.partial = nil
	}
	return len(p), nil
}

func (o *outputSink) line(l []byte) {
	if !o.isReady && o.marker != "" && bytes.Contains(l, []byte(o.marker)) {
		o.isReady = true
		close(o.ready)
	}
	if o.logW != nil {
		logMu.Lock()
		fmt.Fprintf(o.logW, "[%s] %s\n", o.name, bytes.TrimRight(l, "\r"))
		logMu.Unlock()
	}
}

func (o *outputSink) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.partial) > 0 {
		o.line(o.partial)
		o.partial = nil
	}
}

func (o *outputSink) tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf)
}
