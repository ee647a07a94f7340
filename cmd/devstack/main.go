// Command devstack is `make dev`: it starts dynalite (data under .dev/), fauxqs,
// aws-ses-v2-local (SES; mail kept in memory, web view at its URL) and local-kms (KMS; the
// webhook secrets' key, data under .dev/kms) on loopback,
// creates the table and queues template.yaml declares, seeds a demo workspace with keys
// (kept across restarts in .dev/credentials.json), and serves the API on
// http://127.0.0.1:3000 (PORT overrides) through the same handlers the Lambdas run, routed by
// template.yaml. Ctrl-C stops everything.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/localgw"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/sqspoll"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devstack:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return 0, fmt.Errorf("%s must be a port number, not %q", name, v)
	}
	return n, nil
}

// config is make dev's settings, from the environment.
type config struct {
	root, devDir                             string
	port, dynPort, sqsPort, sesPort, kmsPort int
	params                                   map[string]string
	emulated                                 bool
	poolSize                                 int
	buildLimit, startLimit, provisionLimit   time.Duration
	seedLimit                                time.Duration
}

func readConfig() (*config, error) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		return nil, err
	}
	c := &config{root: root, devDir: filepath.Join(root, ".dev")}
	for _, p := range []struct {
		name string
		def  int
		to   *int
	}{{"PORT", 3000, &c.port}, {"DYNAMO_PORT", 4567, &c.dynPort}, {"SQS_PORT", 4566, &c.sqsPort}, {"SES_PORT", 8005, &c.sesPort}, {"KMS_PORT", 4599, &c.kmsPort}} {
		if *p.to, err = envInt(p.name, p.def); err != nil {
			return nil, err
		}
	}
	// PARAMS: template parameter values, as `sam deploy --parameter-overrides` takes them.
	if c.params, err = samtemplate.ParseOverrides(os.Getenv("PARAMS")); err != nil {
		return nil, fmt.Errorf("PARAMS: %w", err)
	}
	switch mode := os.Getenv("RUNTIME"); mode {
	case "", "emulator":
		c.emulated = true
	case "inprocess":
	default:
		return nil, fmt.Errorf("RUNTIME must be emulator or inprocess, not %q", mode)
	}
	// POOL_SIZE, when set, caps every function's instances (else each function's reserved
	// concurrency in template.yaml, or rie.DefaultConcurrency).
	if c.poolSize, err = envInt("POOL_SIZE", 0); err != nil {
		return nil, fmt.Errorf("POOL_SIZE must be a positive number, not %q", os.Getenv("POOL_SIZE"))
	}
	for _, d := range []struct {
		name string
		def  time.Duration
		to   *time.Duration
	}{{"BUILD_TIMEOUT", 20 * time.Minute, &c.buildLimit}, {"START_TIMEOUT", 2 * time.Minute, &c.startLimit},
		{"PROVISION_TIMEOUT", 2 * time.Minute, &c.provisionLimit}, {"SEED_TIMEOUT", 2 * time.Minute, &c.seedLimit}} {
		if *d.to, err = envDuration(d.name, d.def); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// dev is a running make dev: what the steps started, stopped in order by close.
type dev struct {
	cfg    *config
	out    io.Writer // progress
	tpl    *samtemplate.Template
	log    *os.File
	builds *rie.Builds
	stack  *devstack.Stack
	ses    *devstack.Server
	set    *rie.Set
	gw     *localgw.Gateway
	deps   map[string]*app.Deps
	creds  *localapi.Credentials
	fresh  bool
	srv    *http.Server
}

func run() error {
	c, err := readConfig()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("API port %d: %w (set PORT to use another)", c.port, err)
		}
		return fmt.Errorf("API port %d: %w", c.port, err)
	}
	base := "http://" + ln.Addr().String()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := &dev{cfg: c, out: os.Stderr}
	defer d.close()
	if d.tpl, err = samtemplate.Load(filepath.Join(c.root, "template.yaml")); err != nil {
		return err
	}
	if err := d.tpl.Override(c.params); err != nil {
		return fmt.Errorf("PARAMS: %w", err)
	}
	if d.log, err = os.OpenFile(filepath.Join(mkdir(c.devDir), "servers.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return err
	}
	logger := app.NewLogger(slog.LevelInfo)
	err = runSteps(ctx, d.out, []step{
		// Everything compiled is built first, with no other clock running (BUILD_TIMEOUT).
		{"build", c.buildLimit, d.build},
		// START_TIMEOUT and PROVISION_TIMEOUT bound their parts inside.
		{"start the local servers", c.startLimit + c.provisionLimit, d.startServers},
		{"start the functions", c.startLimit, func(ctx context.Context) error { return d.startFunctions(ctx, base, logger) }},
		{"seed", c.seedLimit, func(ctx context.Context) error { return d.seed(ctx, base) }},
	})
	if err != nil {
		return withHint(err)
	}
	if err := d.startWorkers(ctx, logger); err != nil {
		return err
	}

	// The API reference (make docs) at /docs, everything else to the gateway.
	d.srv = &http.Server{Handler: withDocs(d.gw, filepath.Join(c.root, docsPath)), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- d.srv.Serve(ln) }()
	printParameters(d.stack, c.params)
	credPath, envPath := filepath.Join(c.devDir, "credentials.json"), filepath.Join(c.devDir, "stack.env")
	banner(base, dashboardOrigin(c.port), d.stack, d.ses, d.creds, d.fresh, credPath, envPath, d.gw.Routes())

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "\nstopping: API, functions, aws-ses-v2-local, dynalite, fauxqs, local-kms")
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// withHint names the remedy when a server's port was taken (and only then).
func withHint(err error) error {
	var taken *devstack.PortInUseError
	if !errors.As(err, &taken) {
		return err
	}
	env := map[string]string{"dynalite": "DYNAMO_PORT", "fauxqs": "SQS_PORT", "kms": "KMS_PORT", "ses": "SES_PORT"}[taken.Server]
	if env == "" {
		return err
	}
	return fmt.Errorf("%w\n(port %d is taken: set %s to use another)", err, taken.Port, env)
}

// build builds local-kms, the Runtime Interface Emulator and every function's bootstrap for
// this host (each cached by content: a second run builds nothing), printing progress.
func (d *dev) build(ctx context.Context) error {
	fmt.Fprintln(d.out, "building local-kms (cached after the first run)…")
	if _, err := devstack.LocalKMS(ctx, d.cfg.root); err != nil {
		return err
	}
	if !d.cfg.emulated {
		return nil
	}
	fmt.Fprintf(d.out, "building the Runtime Interface Emulator and %d functions for this host (cached after the first run)…\n", len(d.tpl.Functions))
	began := time.Now()
	var err error
	d.builds, err = rie.Build(ctx, d.cfg.root, d.tpl, func(done, total int, dir string) {
		fmt.Fprintf(d.out, "building %d functions… %d/%d %s (%.0f s)\n", total, done, total, filepath.Base(dir), time.Since(began).Seconds())
	})
	return err
}

func (d *dev) startServers(ctx context.Context) error {
	// local-kms holds the webhook secrets' key (devstack.KMSKeyARN) in .dev/kms, so secrets
	// sealed in one run open in the next; every function seals and opens them through it, as
	// on AWS. (A .dev/sealing.key from an earlier make dev is no longer read: SeedWebhookSecret
	// replaces the secrets it sealed.)
	c := d.cfg
	var err error
	d.stack, err = devstack.StartStack(ctx, devstack.StackOptions{
		DataDir: filepath.Join(c.devDir, "dynalite"), Prefix: "local-", LogWriter: d.log,
		DynamoPort: c.dynPort, SQSPort: c.sqsPort, Parameters: c.params,
		KMS: true, KMSPort: c.kmsPort, KMSDataDir: filepath.Join(c.devDir, "kms"),
		StartTimeout: c.startLimit, ProvisionTimeout: c.provisionLimit,
	})
	if err != nil {
		return err
	}
	d.ses, err = devstack.StartSES(ctx, devstack.SESOptions{Port: c.sesPort, LogWriter: d.log})
	return err
}

// startFunctions builds the gateway: RUNTIME=emulator (the default) runs every function's
// real bootstrap under the Runtime Interface Emulator, instances started on demand up to the
// function's reserved concurrency (POOL_SIZE overrides); RUNTIME=inprocess calls the same
// handlers in this process (for a debugger).
func (d *dev) startFunctions(ctx context.Context, base string, logger *slog.Logger) error {
	apiOpts := localapi.Options{
		BaseURL: base, AllowLocalhostURLs: true, Logger: logger,
		// The dashboard is served at http://localhost:<port> (passkeys refuse an IP address as
		// their relying party): its origin comes first, and the API's own stays allowed.
		Env: map[string]string{"DASHBOARD_ORIGINS": dashboardOrigin(d.cfg.port) + "," + base, "SES_ENDPOINT": d.ses.Endpoint, "MAIL_FROM": localMailFrom},
	}
	var err error
	if !d.cfg.emulated {
		d.gw, d.deps, err = localapi.New(d.stack, apiOpts)
		return err
	}
	d.gw, d.deps, d.set, err = localapi.NewEmulated(ctx, d.cfg.root, d.stack, apiOpts,
		rie.Options{PoolSize: d.cfg.poolSize, Logger: logger, Output: os.Stdout, Prebuilt: d.builds})
	return err
}

// seed issues (or keeps) the demo workspace's keys and its webhook secret, and writes
// .dev/credentials.json and .dev/stack.env.
func (d *dev) seed(ctx context.Context, base string) error {
	credPath := filepath.Join(d.cfg.devDir, "credentials.json")
	prev, err := localapi.ReadCredentials(credPath)
	if err != nil {
		return err
	}
	store := d.deps["PaymentCreateFunction"].Store
	if d.creds, d.fresh, err = localapi.Seed(ctx, store, prev); err != nil {
		return err
	}
	// The sandbox's webhook signing secret, sealed through local-kms with the key the sender
	// opens it with, so that a local integration verifies its webhooks from the first payment.
	sd := d.deps["WebhookSenderFunction"]
	sealer, err := kmsseal.New(sd.AWS, sd.Config.WebhookSecretsKeyID, sd.Config.LocalSealingKey)
	if err != nil {
		return err
	}
	if err := localapi.SeedWebhookSecret(ctx, &operator.Operator{Store: store, Sealer: sealer}, d.creds); err != nil {
		return err
	}
	d.creds.BaseURL = base
	if err := localapi.WriteCredentials(credPath, d.creds); err != nil {
		return err
	}
	return writeEnv(filepath.Join(d.cfg.devDir, "stack.env"), d.stack, d.ses)
}

// startWorkers does what Lambda's SQS event source and the schedule do in AWS: poll the
// webhook queue into the sender in batches as its SQS event declares them, and run the
// re-drive on its schedule; both stop with ctx.
func (d *dev) startWorkers(ctx context.Context, logger *slog.Logger) error {
	senderFn, _ := d.stack.Template.Function("WebhookSenderFunction")
	poller, err := sqspoll.FromTemplate(senderFn)
	if err != nil {
		return err
	}
	redriveFn, _ := d.stack.Template.Function("WebhookRedriveFunction")
	every, err := redriveFn.ScheduleInterval()
	if err != nil {
		return err
	}
	if every == 0 {
		return errors.New("template.yaml: WebhookRedriveFunction has no schedule")
	}
	senderDeps := d.deps["WebhookSenderFunction"]
	// The event source's own client (the stack's, not bounded by the function's attempt
	// timeout): it long-polls 20 s, as Lambda's pollers do.
	poller.SQS, poller.QueueURL, poller.Wait = d.stack.Queue, senderDeps.Config.WebhookQueueURL, 20
	poller.Handler = registry.WebhookConsumer(senderDeps).Handle
	redriveRun := registry.WebhookRedrive(d.deps["WebhookRedriveFunction"]).Run
	if d.set != nil {
		// Through the bootstraps under the emulator, as Lambda's event source and schedule
		// invoke them.
		poller.Handler = d.set.Pools["WebhookSenderFunction"].SQSHandler()
		pool := d.set.Pools["WebhookRedriveFunction"]
		redriveRun = func(ctx context.Context) (int, error) {
			_, err := pool.Invoke(ctx, "", rie.ScheduledEvent(time.Now(), "arn:aws:scheduler:local:schedule/webhook-redrive"))
			return 0, err
		}
	}
	logger.Info("event sources", slog.String("webhook_sender", fmt.Sprintf("SQS batch size %d, window %s, partial batch failures %t",
		poller.BatchSize, poller.Window, !poller.IgnoreBatchItemFailures)), slog.String("webhook_redrive", fmt.Sprintf("%s (every %s)", redriveFn.Schedule, every)))
	go poller.Run(ctx)
	go schedule(ctx, every, redriveFn.Timeout, redriveRun, logger)
	return nil
}

// schedule runs run every period until ctx ends, each run bounded by the function's timeout
// (template), as on Lambda.
func schedule(ctx context.Context, every, timeout time.Duration, run func(context.Context) (int, error), logger *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rctx, cancel := context.WithTimeout(ctx, timeout)
			n, err := run(rctx)
			cancel()
			if err != nil && ctx.Err() == nil || n > 0 {
				logger.Info("webhook re-drive", slog.Int("re_enqueued", n), slog.Any("error", err))
			}
		}
	}
}

// close stops what started, in order: the API (requests in flight finish), the functions'
// instances (each bootstrap before its emulator, silently), then the servers.
func (d *dev) close() {
	if d.srv != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = d.srv.Shutdown(shutdownCtx)
		cancel()
	}
	if d.set != nil {
		d.set.Close()
	}
	if d.ses != nil {
		d.ses.Stop()
	}
	d.stack.Close()
	if d.log != nil {
		d.log.Close()
	}
}

func mkdir(dir string) string {
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// localMailFrom is the sender identity of the local stack's mail (MAIL_FROM; any address works
// with aws-ses-v2-local, on AWS it is a verified SES identity).
const localMailFrom = "Takapay <no-reply@takapay.localhost>"

// writeEnv writes shell exports that point the operator CLI and the AWS CLI at the local stack.
// WEBHOOK_SECRETS_KEY_ID (paymentsctl's --kms-key default) and AWS_ENDPOINT_URL_KMS let
// paymentsctl seal and open webhook secrets through local-kms, as the functions do.
func writeEnv(path string, s *devstack.Stack, ses *devstack.Server) error {
	text := fmt.Sprintf(`# source this file to point paymentsctl (and any AWS SDK) at the local stack
export TABLE_NAME=%s
export WEBHOOK_QUEUE_URL=%s
export AWS_ENDPOINT_URL_DYNAMODB=%s
export AWS_ENDPOINT_URL_SQS=%s
export AWS_ENDPOINT_URL_SESV2=%s
export AWS_ENDPOINT_URL_KMS=%s
export SES_ENDPOINT=%s
export MAIL_FROM=%q
export AWS_REGION=%s
export AWS_DEFAULT_REGION=%s
export AWS_ACCESS_KEY_ID=%s
export AWS_SECRET_ACCESS_KEY=%s
export %s=%s
unset %s
`, s.TableName("Table"), s.QueueURL("WebhookQueue"), s.Dynamo.Endpoint, s.SQS.Endpoint,
		ses.Endpoint, s.KMS.Endpoint, ses.Endpoint, localMailFrom, devstack.Region, devstack.Region, devstack.AccessKeyID, devstack.SecretAccessKey,
		app.EnvWebhookSecretsKeyID, devstack.KMSKeyARN, app.EnvLocalSealingKey)
	return os.WriteFile(path, []byte(text), 0o600)
}

// dashboardOrigin is where make dev serves the dashboard: the API's port on localhost.
func dashboardOrigin(port int) string { return "http://localhost:" + strconv.Itoa(port) }

// printParameters prints every template parameter's value in this stack, the overridden ones
// marked (NoEcho values hidden).
func printParameters(s *devstack.Stack, overridden map[string]string) {
	names := make([]string, 0, len(s.Template.Parameters))
	for n := range s.Template.Parameters {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println("template parameters (PARAMS=\"Name=Value ...\" overrides):")
	for _, n := range names {
		p := s.Template.Parameters[n]
		v := p.Default
		if p.NoEcho {
			v = "****"
		}
		mark := ""
		if _, ok := overridden[n]; ok {
			mark = "  (PARAMS)"
		}
		fmt.Printf("  %-28s %s%s\n", n, v, mark)
	}
}
