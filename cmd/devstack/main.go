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
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/kmsseal"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/localgw"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/operator"
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

func run() error {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		return err
	}
	port, err := envInt("PORT", 3000)
	if err != nil {
		return err
	}
	dynPort, err := envInt("DYNAMO_PORT", 4567)
	if err != nil {
		return err
	}
	sqsPort, err := envInt("SQS_PORT", 4566)
	if err != nil {
		return err
	}
	sesPort, err := envInt("SES_PORT", 8005)
	if err != nil {
		return err
	}
	kmsPort, err := envInt("KMS_PORT", 4599)
	if err != nil {
		return err
	}
	devDir := filepath.Join(root, ".dev")
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("API port %d: %w (set PORT to use another)", port, err)
	}
	base := "http://" + ln.Addr().String()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	logFile, err := os.OpenFile(filepath.Join(mkdir(devDir), "servers.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// PARAMS: template parameter values, as `sam deploy --parameter-overrides` takes them.
	params, err := samtemplate.ParseOverrides(os.Getenv("PARAMS"))
	if err != nil {
		return err
	}
	// local-kms holds the webhook secrets' key (devstack.KMSKeyARN) in .dev/kms, so secrets
	// sealed in one run open in the next; every function seals and opens them through it, as
	// on AWS. (A .dev/sealing.key from an earlier make dev is no longer read: SeedWebhookSecret
	// replaces the secrets it sealed.) Its first start builds it (cached under .build/host).
	stack, err := devstack.StartStack(startCtx, devstack.StackOptions{
		DataDir: filepath.Join(devDir, "dynalite"), Prefix: "local-", LogWriter: logFile,
		DynamoPort: dynPort, SQSPort: sqsPort, Parameters: params,
		KMS: true, KMSPort: kmsPort, KMSDataDir: filepath.Join(devDir, "kms"),
	})
	if err != nil {
		if strings.Contains(err.Error(), "parameter") {
			return fmt.Errorf("PARAMS: %w", err)
		}
		return fmt.Errorf("%w (set DYNAMO_PORT / SQS_PORT / KMS_PORT if those ports are taken)", err)
	}
	defer stack.Close()
	ses, err := devstack.StartSES(startCtx, devstack.SESOptions{Port: sesPort, LogWriter: logFile})
	if err != nil {
		return fmt.Errorf("%w (set SES_PORT if that port is taken)", err)
	}
	defer ses.Stop()

	logger := app.NewLogger(slog.LevelInfo)
	apiOpts := localapi.Options{
		BaseURL: base, AllowLocalhostURLs: true, Logger: logger,
		// The dashboard is served at http://localhost:<port> (passkeys refuse an IP address as
		// their relying party): its origin comes first, and the API's own stays allowed.
		Env: map[string]string{"DASHBOARD_ORIGINS": dashboardOrigin(port) + "," + base, "SES_ENDPOINT": ses.Endpoint, "MAIL_FROM": localMailFrom},
	}
	// RUNTIME=emulator (the default): every function's real bootstrap under the Lambda Runtime
	// Interface Emulator, POOL_SIZE instances at most per function (default 2);
	// RUNTIME=inprocess: the same handlers called in this process (for a debugger).
	var set *rie.Set
	var gw *localgw.Gateway
	var deps map[string]*app.Deps
	switch mode := os.Getenv("RUNTIME"); mode {
	case "", "emulator":
		size, perr := envInt("POOL_SIZE", rie.DefaultPoolSize)
		if perr != nil || size < 1 {
			return fmt.Errorf("POOL_SIZE must be a positive number, not %q", os.Getenv("POOL_SIZE"))
		}
		fmt.Fprintln(os.Stderr, "building the functions for this host and the Runtime Interface Emulator (cached)…")
		buildCtx, cancelBuild := context.WithTimeout(ctx, 15*time.Minute)
		gw, deps, set, err = localapi.NewEmulated(buildCtx, root, stack, apiOpts, rie.Options{PoolSize: size, Logger: logger, Output: os.Stdout})
		cancelBuild()
		if err != nil {
			return err
		}
		defer set.Close()
	case "inprocess":
		if gw, deps, err = localapi.New(stack, apiOpts); err != nil {
			return err
		}
	default:
		return fmt.Errorf("RUNTIME must be emulator or inprocess, not %q", mode)
	}
	credPath := filepath.Join(devDir, "credentials.json")
	prev, err := localapi.ReadCredentials(credPath)
	if err != nil {
		return err
	}
	creds, fresh, err := localapi.Seed(startCtx, deps["PaymentCreateFunction"].Store, prev)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	// The sandbox's webhook signing secret, sealed through local-kms with the key the sender
	// opens it with, so that a local integration verifies its webhooks from the first payment.
	sd := deps["WebhookSenderFunction"]
	sealer, err := kmsseal.New(sd.AWS, sd.Config.WebhookSecretsKeyID, sd.Config.LocalSealingKey)
	if err != nil {
		return err
	}
	if err := localapi.SeedWebhookSecret(startCtx, &operator.Operator{Store: deps["PaymentCreateFunction"].Store, Sealer: sealer}, creds); err != nil {
		return err
	}
	creds.BaseURL = base
	if err := localapi.WriteCredentials(credPath, creds); err != nil {
		return err
	}
	envPath := filepath.Join(devDir, "stack.env")
	if err := writeEnv(envPath, stack, ses); err != nil {
		return err
	}

	// What Lambda's SQS event source and the schedule do in AWS: poll the webhook queue into the
	// sender in batches as its SQS event declares them, and run the re-drive on its schedule.
	senderFn, _ := stack.Template.Function("WebhookSenderFunction")
	poller, err := sqspoll.FromTemplate(senderFn)
	if err != nil {
		return err
	}
	redriveFn, _ := stack.Template.Function("WebhookRedriveFunction")
	every, err := redriveFn.ScheduleInterval()
	if err != nil {
		return err
	}
	if every == 0 {
		return errors.New("template.yaml: WebhookRedriveFunction has no schedule")
	}
	senderDeps := deps["WebhookSenderFunction"]
	// The event source's own client (the stack's, not bounded by the function's attempt
	// timeout): it long-polls 20 s, as Lambda's pollers do.
	poller.SQS, poller.QueueURL, poller.Wait = stack.Queue, senderDeps.Config.WebhookQueueURL, 20
	poller.Handler = registry.WebhookConsumer(senderDeps).Handle
	redriveRun := registry.WebhookRedrive(deps["WebhookRedriveFunction"]).Run
	if set != nil {
		// Through the bootstraps under the emulator, as Lambda's event source and schedule
		// invoke them.
		poller.Handler = set.Pools["WebhookSenderFunction"].SQSHandler()
		pool := set.Pools["WebhookRedriveFunction"]
		redriveRun = func(ctx context.Context) (int, error) {
			_, err := pool.Invoke(ctx, "", rie.ScheduledEvent(time.Now(), "arn:aws:scheduler:local:schedule/webhook-redrive"))
			return 0, err
		}
	}
	logger.Info("event sources", slog.String("webhook_sender", fmt.Sprintf("SQS batch size %d, window %s, partial batch failures %t",
		poller.BatchSize, poller.Window, !poller.IgnoreBatchItemFailures)), slog.String("webhook_redrive", fmt.Sprintf("%s (every %s)", redriveFn.Schedule, every)))
	go poller.Run(ctx)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// A run has the function's Timeout (template), as on Lambda.
				rctx, cancel := context.WithTimeout(ctx, redriveFn.Timeout)
				n, err := redriveRun(rctx)
				cancel()
				if err != nil || n > 0 {
					logger.Info("webhook re-drive", slog.Int("re_enqueued", n), slog.Any("error", err))
				}
			}
		}
	}()

	// The API reference (make docs) at /docs, everything else to the gateway.
	srv := &http.Server{Handler: withDocs(gw, filepath.Join(root, docsPath)), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	printParameters(stack, params)
	banner(base, dashboardOrigin(port), stack, ses, creds, fresh, credPath, envPath, gw.Routes())

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "\nstopping: API, dynalite, fauxqs, aws-ses-v2-local, local-kms")
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	shutdownCtx, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	_ = srv.Shutdown(shutdownCtx)
	return nil
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
