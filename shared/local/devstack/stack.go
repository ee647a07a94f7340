package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// StackOptions configures StartStack.
type StackOptions struct {
	// DataDir is dynalite's LevelDB directory; "" keeps DynamoDB in memory.
	// (fauxqs is always in memory; Provision recreates the queues.)
	DataDir string
	// Prefix is prepended to every table and queue name (see Names).
	Prefix string
	// LogWriter, if set, receives both servers' output with "[name] " prefixes.
	LogWriter io.Writer
	// TemplatePath is the SAM template; "" means <repo root>/template.yaml.
	TemplatePath string
	// DynamoPort and SQSPort fix the listening ports; 0 picks free ones.
	DynamoPort, SQSPort int
	// SealingKey is the local stand-in for the template's KMS key (32 bytes; see
	// Stack.SealingKey); nil makes a random one, good for one run.
	SealingKey []byte
	// KMS starts local-kms (StartKMS) beside dynalite and fauxqs: the functions the template
	// gives a KMS key then seal and open webhook secrets with KMSKeyARN through it, as on AWS,
	// instead of with SealingKey. KMSPort fixes its port (0 picks one), KMSDataDir keeps its
	// data ("" is a temporary directory).
	KMS        bool
	KMSPort    int
	KMSDataDir string
	// Parameters override template parameters' defaults (make dev's PARAMS), each checked
	// against its type and constraints (samtemplate.Template.Override).
	Parameters map[string]string
	// StartTimeout and ProvisionTimeout, when set, bound starting the servers and creating
	// the tables and queues each on its own (each clock starts with its step), under ctx.
	StartTimeout, ProvisionTimeout time.Duration
}

// SealingKeySize is the size of the local sealing key (AES-256).
const SealingKeySize = 32

// Stack is a running, provisioned local stack.
type Stack struct {
	// Dynamo is the dynalite server.
	Dynamo *Server
	// SQS is the fauxqs server.
	SQS *Server
	// KMS is local-kms when StackOptions.KMS was set, else nil.
	KMS *Server
	// Config is AWSConfig for the servers: NewFromConfig clients reach them.
	Config aws.Config
	// DDB is a DynamoDB client for Dynamo.
	DDB *dynamodb.Client
	// Queue is an SQS client for SQS.
	Queue *sqs.Client
	// Template is the parsed SAM template the stack was provisioned from.
	Template *samtemplate.Template
	// Resources are the provisioned tables and queues.
	Resources *Resources
	// SealingKey stands in for the template's KMS key when the stack runs no local-kms: the
	// functions whose KMS key id resolves to "" locally seal and open webhook secrets with it
	// (LOCAL_SEALING_KEY). make dev runs local-kms instead (StackOptions.KMS).
	SealingKey []byte
}

// NewSealingKey returns a random local sealing key.
func NewSealingKey() []byte {
	b := make([]byte, SealingKeySize)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return b
}

// StartStack starts dynalite and fauxqs, builds clients for them and
// provisions every table and queue of the template; ctx bounds the start-up.
func StartStack(ctx context.Context, opts StackOptions) (*Stack, error) {
	tplPath := opts.TemplatePath
	if tplPath == "" {
		root, err := samtemplate.FindRepoRoot()
		if err != nil {
			return nil, err
		}
		tplPath = filepath.Join(root, "template.yaml")
	}
	tpl, err := samtemplate.Load(tplPath)
	if err != nil {
		return nil, err
	}
	if err := tpl.Override(opts.Parameters); err != nil {
		return nil, err
	}

	s := &Stack{Template: tpl, SealingKey: opts.SealingKey}
	if s.SealingKey == nil {
		s.SealingKey = NewSealingKey()
	}
	if len(s.SealingKey) != SealingKeySize {
		return nil, fmt.Errorf("devstack: the sealing key must be %d bytes, not %d", SealingKeySize, len(s.SealingKey))
	}
	startCtx, cancelStart := bounded(ctx, opts.StartTimeout)
	defer cancelStart()
	if err := s.startServers(startCtx, opts); err != nil {
		s.Close()
		if opts.StartTimeout > 0 && errors.Is(startCtx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("start the local servers: not ready within %s: %w", opts.StartTimeout, err)
		}
		return nil, err
	}
	cancelStart()
	provCtx, cancelProv := bounded(ctx, opts.ProvisionTimeout)
	defer cancelProv()
	if err := s.provision(provCtx, tpl, opts.Prefix); err != nil {
		s.Close()
		if opts.ProvisionTimeout > 0 && errors.Is(provCtx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("not done within %s: %w", opts.ProvisionTimeout, err)
		}
		return nil, fmt.Errorf("create the tables and queues: %w", err)
	}
	return s, nil
}

// bounded is ctx with timeout d when d is positive, else ctx.
func bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// startServers starts dynalite, fauxqs and (opts.KMS) local-kms side by side.
func (s *Stack) startServers(ctx context.Context, opts StackOptions) error {
	var wg sync.WaitGroup
	var dynErr, sqsErr, kmsErr error
	if opts.KMS {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.KMS, kmsErr = StartKMS(ctx, KMSOptions{Port: opts.KMSPort, DataDir: opts.KMSDataDir, LogWriter: opts.LogWriter})
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.Dynamo, dynErr = StartDynalite(ctx, DynaliteOptions{Port: opts.DynamoPort, DataDir: opts.DataDir, LogWriter: opts.LogWriter})
	}()
	go func() {
		defer wg.Done()
		s.SQS, sqsErr = StartFauxqs(ctx, FauxqsOptions{Port: opts.SQSPort, LogWriter: opts.LogWriter})
	}()
	wg.Wait()
	return errors.Join(dynErr, sqsErr, kmsErr)
}

// provision makes the clients and creates the template's tables and queues.
func (s *Stack) provision(ctx context.Context, tpl *samtemplate.Template, prefix string) error {
	var err error
	if s.Config, err = AWSConfig(ctx, s.Dynamo.Endpoint, s.SQS.Endpoint); err != nil {
		return err
	}
	if s.KMS != nil {
		endpoint := s.KMS.Endpoint
		s.Config.ServiceOptions = append(s.Config.ServiceOptions, func(_ string, o any) {
			if k, ok := o.(*kms.Options); ok {
				k.BaseEndpoint = aws.String(endpoint)
			}
		})
	}
	s.DDB = DynamoClient(s.Config, s.Dynamo.Endpoint)
	s.Queue = SQSClient(s.Config, s.SQS.Endpoint)
	if s.Resources, err = Provision(ctx, s.DDB, s.Queue, tpl, Names{Prefix: prefix}); err != nil {
		return fmt.Errorf("%w\n--- dynalite output:\n%s\n--- fauxqs output:\n%s", err, s.Dynamo.Logs(), s.SQS.Logs())
	}
	return nil
}

// Env returns the functions' environment variables for this stack (see Resources.Env).
func (s *Stack) Env() map[string]string { return s.Resources.Env() }

// TableName returns the physical name of the template table with the given logical id.
func (s *Stack) TableName(logicalID string) string { return s.Resources.Tables[logicalID] }

// QueueURL returns the URL of the template queue with the given logical id.
func (s *Stack) QueueURL(logicalID string) string { return s.Resources.QueueURLs[logicalID] }

// Close stops the servers; it is idempotent and safe on a partly started stack.
func (s *Stack) Close() {
	if s == nil {
		return
	}
	var wg sync.WaitGroup
	for _, srv := range []*Server{s.Dynamo, s.SQS, s.KMS} {
		if srv != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				srv.Stop()
			}()
		}
	}
	wg.Wait()
}

// StartTestStack starts an in-memory stack with a random resource prefix for
// a test, stops it in tb.Cleanup and fails the test if it cannot start.
// Set DEVSTACK_VERBOSE=1 to stream the servers' output to stderr.
func StartTestStack(tb testing.TB) *Stack {
	tb.Helper()
	return StartTestStackWith(tb, StackOptions{})
}

// StartTestStackWith is StartTestStack with options (KMS, say); a random Prefix is chosen
// when opts has none.
func StartTestStackWith(tb testing.TB, opts StackOptions) *Stack {
	tb.Helper()
	RequireServers(tb)
	// A first local-kms build (StartKMS) takes longer than starting the servers.
	timeout := 30 * time.Second
	if opts.KMS {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if opts.Prefix == "" {
		opts.Prefix = RandomPrefix()
	}
	if os.Getenv("DEVSTACK_VERBOSE") != "" {
		opts.LogWriter = os.Stderr
	}
	s, err := StartStack(ctx, opts)
	if err != nil {
		tb.Fatalf("devstack: start local stack: %v", err)
	}
	tb.Cleanup(func() {
		s.Close()
		if tb.Failed() {
			tb.Logf("devstack: dynalite output:\n%s\ndevstack: fauxqs output:\n%s", s.Dynamo.Logs(), s.SQS.Logs())
			if s.KMS != nil {
				tb.Logf("devstack: local-kms output:\n%s", s.KMS.Logs())
			}
		}
	})
	return s
}

// RequireServers skips tb under `go test -short`. It is the one check of the test tiers:
// every test that starts dynalite or fauxqs does so through StartTestStack (or, in this
// package's own tests, after calling this), and every test that needs Node calls RequireNode,
// so `go test -short ./...` runs every unit test with no node, npm or local server at all, and
// `make test` runs everything.
func RequireServers(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs the local AWS servers (dynalite, fauxqs): skipped under -short")
	}
}

// MissingTool ends tb when an outside tool it needs (node, npm, php, chromium, …) is not
// installed: it skips under -short and on a developer's machine (CI unset), and fails in CI's
// full tier (CI set, not -short), where .ci/run installs every tool, so a machine without one
// cannot hide a test.
func MissingTool(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("CI") != "" && !testing.Short() {
		tb.Fatalf(format, args...)
	}
	tb.Skipf(format, args...)
}

// RequireNode skips tb under `go test -short` (the unit tier needs no node or npm, as README
// says) and ends it as MissingTool does when node or npm is not on PATH.
func RequireNode(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs Node.js (node, npm): skipped under -short")
	}
	for _, name := range []string{"node", "npm"} {
		if _, err := exec.LookPath(name); err != nil {
			MissingTool(tb, "%s is not installed (Node.js 20+; .ci/run installs it): %v", name, err)
		}
	}
}

// RandomPrefix returns a short random resource-name prefix such as "t3f9a1c2e-".
func RandomPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:]) + "-"
}
