// Command paymentsctl is the operator CLI: it creates workspaces; issues, lists, rotates and
// revokes API keys; creates dashboard users, grants them roles in workspaces and creates and
// revokes their sessions; issues, rotates and lists webhook signing secrets; shows and resends
// a payment's webhook event and sends a signed test event, directly in DynamoDB (and the
// webhook queue, and the merchant's URL; none of this is reachable through the HTTP API).
//
//	paymentsctl [--table NAME] [--endpoint URL] [--json] COMMAND [FLAGS]
//
//	workspace create --name NAME [--id UUID]
//	workspace list
//	key issue --workspace ID --env sandbox|live --scopes payments:write,payments:read [--name N]
//	key list --workspace ID
//	key rotate --workspace ID --key-id KEY_ID [--grace 24h]
//	key revoke --workspace ID --key-id KEY_ID
//	user create --email EMAIL
//	user grant --user USER_ID --workspace ID --role viewer|developer|admin|owner
//	user list --workspace ID
//	session create --user USER_ID [--ttl 12h]
//	session revoke --token TOKEN
//	webhook secret issue --workspace ID --env sandbox|live
//	webhook secret rotate --workspace ID --env sandbox|live [--grace 24h]
//	webhook secret list --workspace ID --env sandbox|live
//	webhook deliveries --invoice ID
//	webhook resend --invoice ID --event EVENT_ID
//	webhook test --workspace ID --env sandbox|live --url URL
//
// "paymentsctl COMMAND --help" shows one command's flags (no table needed); "paymentsctl
// --help" lists every command. The global flags may come before or after the command:
// --table defaults to $TABLE_NAME; --endpoint to $AWS_ENDPOINT_URL_DYNAMODB or AWS itself;
// --queue (the webhook queue's URL, for webhook resend) to $WEBHOOK_QUEUE_URL, its endpoint to
// $AWS_ENDPOINT_URL_SQS or AWS; --json prints JSON, in which "state" is active, revoked or
// expired and times have fields of their own (created_at, revoked_at, expires_at).
//
// Exit status: 0 on success (and for --help); 2 for a usage error (no or unknown command,
// unknown, missing or malformed flag, no table); 1 for every other failure (not found, already
// exists, DynamoDB errors).
//
// A new key or session token is printed once, on standard output; it is stored only as a
// SHA-256 hash. A session token is the value of the takapay_session cookie. A webhook secret
// (whsec_...) is printed once and stored sealed: issue and rotate encrypt it with the KMS key
// of --kms-key (default $WEBHOOK_SECRETS_KEY_ID; the stack output WebhookSecretsKeyArn), which
// needs kms:Encrypt and never kms:Decrypt — against make dev, local-kms's key and endpoint
// ($WEBHOOK_SECRETS_KEY_ID, $AWS_ENDPOINT_URL_KMS: .dev/stack.env) — or with a test stack's key in
// $LOCAL_SEALING_KEY. Listings show ids only and need no key. A user's email
// is unique, compared case-insensitively.
//
// webhook resend makes the payment's event pending and due now (one conditional write), then
// enqueues it: the sender sends the same event id and payload with a fresh signature. webhook
// test signs with the workspace environment's active secrets, so it opens them: kms:Decrypt on
// --kms-key (or $LOCAL_SEALING_KEY); it checks and posts like the sender (SSRF rules; a
// localhost URL only with ALLOW_LOCALHOST_URLS=true, as in make dev).
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/webhook"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, nil)
	os.Exit(report(os.Stderr, err))
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct {
	msg string
	// usage is printed after the message: the command's help, or the overall usage.
	usage string
}

func (e *usageError) Error() string { return e.msg }

// exitCode maps run's result to the exit status: 0 success, 2 usage error, 1 anything else.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}

// report prints run's error (with the usage after a usage error) and returns the exit status.
func report(w io.Writer, err error) int {
	if err != nil {
		fmt.Fprintln(w, "paymentsctl:", err)
		if ue := (*usageError)(nil); errors.As(err, &ue) && ue.usage != "" {
			fmt.Fprint(w, "\n", ue.usage)
		}
	}
	return exitCode(err)
}

// command is one operator command.
type command struct {
	name     string // the words that select it, e.g. "webhook secret rotate"
	synopsis string // its flags, as the usage shows them
	summary  string
	// run defines the command's flags on fs (which holds the global ones), parses args with
	// c.parse and performs the command.
	run func(c *ctl, fs *flag.FlagSet, args []string) error
}

func (cmd *command) line() string { return strings.TrimSpace(cmd.name + " " + cmd.synopsis) }

var commands = []*command{
	{"workspace create", "--name NAME [--id UUID]", "Create a workspace.", workspaceCreate},
	{"workspace list", "", "List every workspace.", workspaceList},
	{"key issue", "--workspace ID --env sandbox|live --scopes payments:write,payments:read [--name N]",
		"Issue an API key; it is printed once.", keyIssue},
	{"key list", "--workspace ID", "List a workspace's API keys (hints only).", keyList},
	{"key rotate", "--workspace ID --key-id KEY_ID [--grace 24h]",
		"Issue a replacement key; the old one works for --grace more (default: revoked now).", keyRotate},
	{"key revoke", "--workspace ID --key-id KEY_ID", "Revoke an API key.", keyRevoke},
	{"user create", "--email EMAIL", "Create a dashboard user (one per email, in any letter case).", userCreate},
	{"user grant", "--user USER_ID --workspace ID --role viewer|developer|admin|owner",
		"Give a user a role in a workspace, replacing any role there.", userGrant},
	{"user list", "--workspace ID", "List a workspace's members and their roles.", userList},
	{"session create", "--user USER_ID [--ttl 12h]", "Create a dashboard session; its token is printed once.", sessionCreate},
	{"session revoke", "--token TOKEN", "Revoke a dashboard session.", sessionRevoke},
	{"webhook secret issue", "--workspace ID --env sandbox|live",
		"Issue the first webhook signing secret of a workspace environment; it is printed once.", webhookSecretIssue},
	{"webhook secret rotate", "--workspace ID --env sandbox|live [--grace 24h]",
		"Make a new webhook secret current; the old ones keep signing for --grace more.", webhookSecretRotate},
	{"webhook secret list", "--workspace ID --env sandbox|live", "List the active webhook secrets (ids only).", webhookSecretList},
	{"webhook deliveries", "--invoice ID", "Show a payment's (payment intent's) webhook event and its refunds' events, with their delivery attempts.", webhookDeliveries},
	{"webhook resend", "--invoice ID --event EVENT_ID",
		"Send a payment's webhook event again: same id and payload, a fresh signature (needs --queue).", webhookResend},
	{"webhook test", "--workspace ID --env sandbox|live --url URL",
		"Send a signed webhook.test event to URL; print the HTTP status and latency.", webhookTest},
}

const globalUsage = `global flags, before or after the command:
  --table NAME     DynamoDB table (default $TABLE_NAME)
  --endpoint URL   DynamoDB endpoint (default $AWS_ENDPOINT_URL_DYNAMODB or AWS)
  --kms-key KEY    KMS key of the webhook secrets (default $WEBHOOK_SECRETS_KEY_ID)
  --queue URL      webhook queue, for webhook resend (default $WEBHOOK_QUEUE_URL)
  --json           print JSON
`

// usage is the overall usage text, listing cmds.
func usage(cmds []*command) string {
	var b strings.Builder
	b.WriteString("usage: paymentsctl [--table NAME] [--endpoint URL] [--json] COMMAND [FLAGS]\n\ncommands:\n")
	for _, cmd := range cmds {
		fmt.Fprintf(&b, "  %s\n        %s\n", cmd.line(), cmd.summary)
	}
	b.WriteString("\n" + globalUsage + "\nRun \"paymentsctl COMMAND --help\" for a command's flags.\n")
	return b.String()
}

// ctl is one run of the CLI.
type ctl struct {
	ctx            context.Context
	stdout, stderr io.Writer
	op             *operator.Operator // nil until a command needs it (tests set it)
	cmd            *command
	// Global flags.
	table, endpoint, kmsKey, queueURL string
	json                              bool
	aws                               *aws.Config // loaded on first use
}

// run executes one command; op, when non-nil, replaces the configured store and sealer (tests).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, op *operator.Operator) error {
	c := &ctl{ctx: ctx, stdout: stdout, stderr: stderr, op: op, table: os.Getenv("TABLE_NAME"),
		kmsKey: os.Getenv(app.EnvWebhookSecretsKeyID), queueURL: os.Getenv("WEBHOOK_QUEUE_URL")}
	global := newFlagSet("paymentsctl")
	c.globalFlags(global)
	if err := global.Parse(args); errors.Is(err, flag.ErrHelp) {
		_, err := io.WriteString(stdout, usage(commands))
		return err
	} else if err != nil {
		return &usageError{err.Error(), usage(commands)}
	}
	rest := global.Args()
	if len(rest) == 0 {
		return &usageError{"no command", usage(commands)}
	}
	for _, cmd := range commands {
		words := strings.Fields(cmd.name)
		if len(rest) >= len(words) && slices.Equal(rest[:len(words)], words) {
			c.cmd = cmd
			fs := newFlagSet("paymentsctl " + cmd.name)
			c.globalFlags(fs)
			if err := cmd.run(c, fs, rest[len(words):]); !errors.Is(err, flag.ErrHelp) {
				return err
			}
			return nil // the help was printed
		}
	}
	// Not a command: the words up to the first flag are a group ("key"), or unknown.
	words := rest
	if i := slices.IndexFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-") }); i >= 0 {
		words = rest[:i]
	}
	if len(words) == 0 {
		return &usageError{fmt.Sprintf("flag %s before the command", rest[0]), usage(commands)}
	}
	words = words[:min(len(words), 3)]
	prefix := strings.Join(words, " ") + " "
	var group []*command
	for _, cmd := range commands {
		if strings.HasPrefix(cmd.name, prefix) {
			group = append(group, cmd)
		}
	}
	if len(group) == 0 {
		return &usageError{fmt.Sprintf("unknown command %q", strings.Join(words, " ")), usage(commands)}
	}
	if len(rest) > len(words) && slices.Contains([]string{"-h", "-help", "--help"}, rest[len(words)]) {
		_, err := io.WriteString(stdout, usage(group))
		return err
	}
	return &usageError{fmt.Sprintf("%q needs a subcommand", strings.Join(words, " ")), usage(group)}
}

// newFlagSet returns a flag set that prints nothing: run reports errors and help itself.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

var globalNames = []string{"table", "endpoint", "kms-key", "queue", "json"}

// globalFlags defines the global flags on fs, bound to c, so that every command accepts them
// after its name too.
func (c *ctl) globalFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.table, "table", c.table, "DynamoDB table `NAME`")
	fs.StringVar(&c.endpoint, "endpoint", c.endpoint, "DynamoDB endpoint `URL`")
	fs.StringVar(&c.kmsKey, "kms-key", c.kmsKey, "KMS `KEY` (ARN, id or alias) of the webhook secrets (default $"+app.EnvWebhookSecretsKeyID+")")
	fs.StringVar(&c.queueURL, "queue", c.queueURL, "webhook queue `URL` (default $WEBHOOK_QUEUE_URL)")
	fs.BoolVar(&c.json, "json", c.json, "print JSON")
}

// help is the current command's help: its synopsis, summary and own flags.
func (c *ctl) help(fs *flag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: paymentsctl %s\n\n%s\n\nflags:\n", c.cmd.line(), c.cmd.summary)
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(globalNames, f.Name) {
			return
		}
		name, text := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  --%s", f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString("\n        " + text)
		if !slices.Contains([]string{"", "0", "0s", "false"}, f.DefValue) {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		b.WriteString("\n")
	})
	b.WriteString("\n" + globalUsage)
	return b.String()
}

// usageErr is a usage error of the current command.
func (c *ctl) usageErr(fs *flag.FlagSet, format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...), c.help(fs)}
}

// parse parses the command's arguments. On -h or --help it prints the command's help and
// returns flag.ErrHelp, which run turns into success.
func (c *ctl) parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if _, err := io.WriteString(c.stdout, c.help(fs)); err != nil {
			return err
		}
		return flag.ErrHelp
	case err != nil:
		return c.usageErr(fs, "%v", err)
	case fs.NArg() > 0:
		return c.usageErr(fs, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// need fails unless every named flag has a non-blank value.
func (c *ctl) need(fs *flag.FlagSet, names ...string) error {
	for _, name := range names {
		if strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
			return c.usageErr(fs, "--%s is required", name)
		}
	}
	return nil
}

// uuidFlag returns a required flag's UUID value in canonical (lower-case) form.
func (c *ctl) uuidFlag(fs *flag.FlagSet, name string) (string, error) {
	if err := c.need(fs, name); err != nil {
		return "", err
	}
	v := strings.TrimSpace(fs.Lookup(name).Value.String())
	u, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		return "", c.usageErr(fs, "--%s must be a UUID, not %q", name, v)
	}
	return u.String(), nil
}

// envFlag returns the required --env flag's environment.
func (c *ctl) envFlag(fs *flag.FlagSet) (auth.Environment, error) {
	if err := c.need(fs, "env"); err != nil {
		return "", err
	}
	e, ok := auth.ParseEnvironment(fs.Lookup("env").Value.String())
	if !ok {
		return "", c.usageErr(fs, "--env must be sandbox or live")
	}
	return e, nil
}

// operator returns the operator on the store (opened on first use).
func (c *ctl) operator() (*operator.Operator, error) {
	if c.op == nil {
		if c.table == "" {
			return nil, &usageError{msg: "no table: pass --table or set TABLE_NAME"}
		}
		cfg, err := c.awsConfig()
		if err != nil {
			return nil, err
		}
		var opts []func(*dynamodb.Options)
		if endpoint := c.endpoint; endpoint != "" {
			opts = append(opts, func(o *dynamodb.Options) { o.BaseEndpoint = &endpoint })
		}
		sealer, err := newSealer(cfg, c.kmsKey, os.Getenv(app.EnvLocalSealingKey))
		if err != nil {
			return nil, err
		}
		urls, err := localhostPolicy(os.Getenv("ALLOW_LOCALHOST_URLS"))
		if err != nil {
			return nil, err
		}
		c.op = &operator.Operator{Store: &dynamo.Store{DB: dynamodb.NewFromConfig(cfg, opts...), Table: c.table}, Sealer: sealer, URLs: urls}
	}
	return c.op, nil
}

// awsConfig loads the AWS configuration once.
func (c *ctl) awsConfig() (aws.Config, error) {
	if c.aws == nil {
		cfg, err := awsx.Load(c.ctx, 0)
		if err != nil {
			return aws.Config{}, err
		}
		c.aws = &cfg
	}
	return *c.aws, nil
}

// localhostPolicy is the webhook URL policy of webhook test: the sender's, which accepts
// localhost only where ALLOW_LOCALHOST_URLS=true (make dev's stack).
func localhostPolicy(v string) (urlcheck.Policy, error) {
	switch v {
	case "", "false":
		return urlcheck.Policy{}, nil
	case "true":
		return urlcheck.Policy{AllowLocalhost: true}, nil
	}
	return urlcheck.Policy{}, &usageError{msg: fmt.Sprintf("ALLOW_LOCALHOST_URLS must be true or false, not %q", v)}
}

// queue gives the operator the webhook queue (--queue; SQS at $AWS_ENDPOINT_URL_SQS or AWS),
// unless it has one (tests).
func (c *ctl) queue(op *operator.Operator) error {
	if op.Queue != nil {
		return nil
	}
	url := strings.TrimSpace(c.queueURL)
	if url == "" {
		return &usageError{msg: "no webhook queue: pass --queue <stack output WebhookQueueUrl> or set WEBHOOK_QUEUE_URL"}
	}
	cfg, err := c.awsConfig()
	if err != nil {
		return err
	}
	op.Queue = &sqsqueue.Queue{SQS: sqs.NewFromConfig(cfg), URL: url}
	return nil
}

// newSealer is the sealer of new webhook secrets: KMS with --kms-key, else the local
// stack's key from LOCAL_SEALING_KEY, else none (issue and rotate then explain what to pass).
func newSealer(cfg aws.Config, kmsKey, localKey string) (webhook.Sealer, error) {
	key, err := app.ParseLocalSealingKey(strings.TrimSpace(localKey))
	if err != nil {
		return nil, err
	}
	sealer, err := kmsseal.New(cfg, strings.TrimSpace(kmsKey), key)
	if errors.Is(err, webhook.ErrNoSealer) {
		return nil, nil
	}
	if errors.Is(err, kmsseal.ErrBothConfigured) {
		return nil, &usageError{msg: "--kms-key (or $" + app.EnvWebhookSecretsKeyID + ") and $" + app.EnvLocalSealingKey +
			" are both set: unset " + app.EnvLocalSealingKey + " to use KMS"}
	}
	return sealer, err
}

// sealingHint explains a missing sealing key.
func sealingHint(err error) error {
	if errors.Is(err, webhook.ErrNoSealer) {
		return errors.New("no key to seal the webhook secret with: pass --kms-key <stack output WebhookSecretsKeyArn> (or set " +
			app.EnvWebhookSecretsKeyID + "); against the local stack, source .dev/stack.env")
	}
	return err
}

// out is the printer for the command's output (--json may follow the command).
func (c *ctl) out() printer { return printer{w: c.stdout, json: c.json} }

func workspaceCreate(c *ctl, fs *flag.FlagSet, args []string) error {
	name := fs.String("name", "", "workspace `NAME` (1 to 160 characters)")
	fs.String("id", "", "workspace id, a `UUID` (default: a new one)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := c.need(fs, "name"); err != nil {
		return err
	}
	id := ""
	if fs.Lookup("id").Value.String() != "" {
		var err error
		if id, err = c.uuidFlag(fs, "id"); err != nil {
			return err
		}
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	w, err := op.CreateWorkspace(c.ctx, id, *name)
	if err != nil {
		return err
	}
	return c.out().print(w, fmt.Sprintf("workspace_id: %s\nname: %s\n", w.ID, w.Name))
}

func workspaceList(c *ctl, fs *flag.FlagSet, args []string) error {
	if err := c.parse(fs, args); err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	list, err := op.Store.ListWorkspaces(c.ctx)
	if err != nil {
		return err
	}
	return c.out().table(list, []string{"WORKSPACE_ID", "NAME", "CREATED_AT"}, func(yield func([]string)) {
		for _, w := range list {
			yield([]string{w.ID, w.Name, w.CreatedAt.Format(time.RFC3339)})
		}
	})
}

func keyIssue(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	fs.String("env", "", "the `sandbox|live` environment")
	scopes := fs.String("scopes", "", "comma-separated `SCOPES` of "+fmt.Sprint(auth.AllScopes))
	name := fs.String("name", "", "a label for people, `N`")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	e, err := c.envFlag(fs)
	if err != nil {
		return err
	}
	if err := c.need(fs, "scopes"); err != nil {
		return err
	}
	sc, err := operator.ParseScopes(*scopes)
	if err != nil {
		return c.usageErr(fs, "--scopes: %v", err)
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	k, err := op.IssueKey(c.ctx, ws, e, sc, *name)
	if err != nil {
		return err
	}
	return c.out().issued(k)
}

func keyList(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	if _, err := op.Store.GetWorkspace(c.ctx, ws); err != nil {
		return fmt.Errorf("workspace %s: %w", ws, err)
	}
	keys, err := op.ListKeys(c.ctx, ws)
	if err != nil {
		return err
	}
	views := keyViews(keys)
	return c.out().table(views, []string{"KEY_ID", "ENV", "SCOPES", "HINT", "NAME", "CREATED_AT", "STATE"}, func(yield func([]string)) {
		for _, k := range views {
			yield([]string{k.KeyID, k.Environment, strings.Join(k.Scopes, ","), k.Hint, k.Name, k.CreatedAt, k.text()})
		}
	})
}

func keyRotate(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	keyID := fs.String("key-id", "", "the key's id, `KEY_ID` (key_...)")
	grace := fs.Duration("grace", 0, "how long the old key keeps working (0: revoked now)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	if err := c.need(fs, "key-id"); err != nil {
		return err
	}
	if *grace < 0 {
		return c.usageErr(fs, "--grace must not be negative")
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	k, err := op.RotateKey(c.ctx, ws, *keyID, *grace)
	if err != nil {
		return err
	}
	if *grace > 0 {
		fmt.Fprintf(c.stderr, "old key %s keeps working for %s\n", *keyID, *grace)
	} else {
		fmt.Fprintf(c.stderr, "old key %s is revoked\n", *keyID)
	}
	return c.out().issued(k)
}

func keyRevoke(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	keyID := fs.String("key-id", "", "the key's id, `KEY_ID` (key_...)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	if err := c.need(fs, "key-id"); err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	if err := op.RevokeKey(c.ctx, ws, *keyID); err != nil {
		return err
	}
	return c.out().print(map[string]string{"revoked": *keyID}, "revoked: "+*keyID+"\n")
}

func userCreate(c *ctl, fs *flag.FlagSet, args []string) error {
	email := fs.String("email", "", "the user's `EMAIL` address (unique, in any letter case)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := c.need(fs, "email"); err != nil {
		return err
	}
	addr, err := operator.ParseEmail(*email)
	if err != nil {
		return c.usageErr(fs, "--email: %v", err)
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	u, err := op.CreateUser(c.ctx, addr)
	if err != nil {
		return err
	}
	return c.out().print(u, fmt.Sprintf("user_id: %s\nemail: %s\n", u.ID, u.Email))
}

func userGrant(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("user", "", "user `ID` (a UUID)")
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	role := fs.String("role", "", "`ROLE`: "+roleList())
	if err := c.parse(fs, args); err != nil {
		return err
	}
	user, err := c.uuidFlag(fs, "user")
	if err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	if err := c.need(fs, "role"); err != nil {
		return err
	}
	r, ok := auth.ParseRole(*role)
	if !ok {
		return c.usageErr(fs, "--role must be one of %s", roleList())
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	m, err := op.Grant(c.ctx, user, ws, r)
	if err != nil {
		return err
	}
	v := map[string]string{"user_id": m.UserID, "workspace_id": m.WorkspaceID, "role": string(m.Role),
		"since": m.CreatedAt.Format(time.RFC3339)}
	return c.out().print(v, fmt.Sprintf("user_id: %s\nworkspace_id: %s\nrole: %s\n", m.UserID, m.WorkspaceID, m.Role))
}

func userList(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	members, err := op.ListMembers(c.ctx, ws)
	if err != nil {
		return err
	}
	return c.out().table(members, []string{"USER_ID", "EMAIL", "ROLE", "SINCE"}, func(yield func([]string)) {
		for _, m := range members {
			yield([]string{m.UserID, m.Email, string(m.Role), m.Since.Format(time.RFC3339)})
		}
	})
}

func sessionCreate(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("user", "", "user `ID` (a UUID)")
	ttl := fs.Duration("ttl", 12*time.Hour, "session lifetime (at most "+operator.MaxSessionTTL.String()+")")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	user, err := c.uuidFlag(fs, "user")
	if err != nil {
		return err
	}
	if *ttl <= 0 || *ttl > operator.MaxSessionTTL {
		return c.usageErr(fs, "--ttl must be more than 0 and at most %s", operator.MaxSessionTTL)
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	sess, err := op.CreateSession(c.ctx, user, *ttl)
	if err != nil {
		return err
	}
	return c.out().session(sess)
}

func sessionRevoke(c *ctl, fs *flag.FlagSet, args []string) error {
	token := fs.String("token", "", "session `TOKEN` (the "+auth.SessionCookie+" cookie value)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := c.need(fs, "token"); err != nil {
		return err
	}
	if _, err := auth.ParseSessionToken(strings.TrimSpace(*token)); err != nil {
		return c.usageErr(fs, "--token is not a session token (43 base64url characters)")
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	rec, err := op.RevokeSession(c.ctx, *token)
	if err != nil {
		return err
	}
	v := map[string]string{"revoked": "session", "user_id": rec.UserID, "state": "revoked"}
	if rec.RevokedAt != nil {
		v["revoked_at"] = rec.RevokedAt.Format(time.RFC3339)
	}
	return c.out().print(v, "revoked: session of user "+rec.UserID+"\n")
}

// webhookFlags defines the flags every webhook secret command has.
func webhookFlags(fs *flag.FlagSet) {
	fs.String("workspace", "", "workspace `ID` (a UUID)")
	fs.String("env", "", "the `sandbox|live` environment")
}

// webhookScope returns the parsed --workspace and --env.
func (c *ctl) webhookScope(fs *flag.FlagSet) (string, auth.Environment, error) {
	ws, err := c.uuidFlag(fs, "workspace")
	if err != nil {
		return "", "", err
	}
	e, err := c.envFlag(fs)
	return ws, e, err
}

func webhookSecretIssue(c *ctl, fs *flag.FlagSet, args []string) error {
	webhookFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, e, err := c.webhookScope(fs)
	if err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	sec, err := op.IssueWebhookSecret(c.ctx, ws, e)
	if err != nil {
		return sealingHint(err)
	}
	return c.out().webhookSecret(sec)
}

func webhookSecretRotate(c *ctl, fs *flag.FlagSet, args []string) error {
	webhookFlags(fs)
	grace := fs.Duration("grace", operator.DefaultWebhookGrace,
		"how long the old secrets keep signing (0 to "+operator.MaxWebhookGrace.String()+"; 0: stop now)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, e, err := c.webhookScope(fs)
	if err != nil {
		return err
	}
	if *grace < 0 || *grace > operator.MaxWebhookGrace {
		return c.usageErr(fs, "--grace must be 0 to %s", operator.MaxWebhookGrace)
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	sec, err := op.RotateWebhookSecret(c.ctx, ws, e, *grace)
	if err != nil {
		return sealingHint(err)
	}
	if len(sec.Previous) == 0 {
		fmt.Fprintln(c.stderr, "previous webhook secrets stopped signing now")
	}
	for _, p := range sec.Previous {
		fmt.Fprintf(c.stderr, "previous webhook secret %s keeps signing until %s\n", p.ID, p.ExpiresAt.Format(time.RFC3339))
	}
	return c.out().webhookSecret(sec)
}

func webhookSecretList(c *ctl, fs *flag.FlagSet, args []string) error {
	webhookFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, e, err := c.webhookScope(fs)
	if err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	list, err := op.ListWebhookSecrets(c.ctx, ws, e)
	if err != nil {
		return err
	}
	views := webhookSecretViews(list)
	return c.out().table(views, []string{"SECRET_ID", "CREATED_AT", "STATE"}, func(yield func([]string)) {
		for _, v := range views {
			yield([]string{v.ID, v.CreatedAt, v.text()})
		}
	})
}

// invoiceFlag returns the required --invoice flag's invoice (payment intent) id.
func (c *ctl) invoiceFlag(fs *flag.FlagSet) (string, error) {
	if err := c.need(fs, "invoice"); err != nil {
		return "", err
	}
	v := strings.TrimSpace(fs.Lookup("invoice").Value.String())
	id, ok := payment.ParseInvoiceID(v)
	if !ok {
		return "", c.usageErr(fs, "--invoice must be an invoice (payment intent) id, a UUID, not %q", v)
	}
	return id, nil
}

func webhookDeliveries(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("invoice", "", "the payment's invoice_id, `ID` (a UUID; a payment intent's id is the same)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	id, err := c.invoiceFlag(fs)
	if err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	list, err := op.WebhookDeliveries(c.ctx, id)
	if err != nil {
		return err
	}
	views := deliveryViews(list)
	return c.out().table(views, []string{"EVENT_ID", "KIND", "STATUS", "ATTEMPTS", "LAST_ATTEMPT_AT", "LAST_HTTP_STATUS",
		"NEXT_ATTEMPT_AT", "CORRELATION_ID", "DETAIL", "REFUND_ID"}, func(yield func([]string)) {
		for _, v := range views {
			attempts := fmt.Sprint(v.Attempts)
			if v.PriorAttempts > 0 {
				attempts += fmt.Sprintf(" (+%d before resend)", v.PriorAttempts)
			}
			code := "-"
			if v.LastHTTPStatus != 0 {
				code = fmt.Sprint(v.LastHTTPStatus)
			}
			yield([]string{v.EventID, v.Kind, v.Status, attempts, dash(v.LastAttemptAt), code, dash(v.NextAttemptAt),
				dash(v.CorrelationID), dash(v.Detail), dash(v.RefundID)})
		}
	})
}

func webhookResend(c *ctl, fs *flag.FlagSet, args []string) error {
	fs.String("invoice", "", "the payment's invoice_id, `ID` (a UUID; a payment intent's id is the same)")
	event := fs.String("event", "", "the event's id, `EVENT_ID` (the webhook-id header; webhook deliveries shows it)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	id, err := c.invoiceFlag(fs)
	if err != nil {
		return err
	}
	if err := c.need(fs, "event"); err != nil {
		return err
	}
	eventID := strings.TrimSpace(*event)
	if strings.HasPrefix(eventID, "evt_test_") {
		return c.usageErr(fs, "--event must be a recorded event's id: %s is a webhook test event's, never recorded", eventID)
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	if err := c.queue(op); err != nil { // before anything is written
		return err
	}
	r, err := op.ResendWebhook(c.ctx, id, eventID)
	if err != nil {
		return err
	}
	v := struct {
		InvoiceID        string `json:"invoice_id"`
		EventID          string `json:"event_id"`
		Kind             string `json:"kind"`
		PreviousStatus   string `json:"previous_status"`
		PreviousAttempts int    `json:"previous_attempts"`
		Status           string `json:"status"`
		NextAttemptAt    string `json:"next_attempt_at"`
		Enqueued         bool   `json:"enqueued"`
	}{r.InvoiceID, r.After.EventID, r.After.Kind, r.Before.Status, r.Before.Attempts, r.After.Status,
		r.After.NextAttemptAt.UTC().Format(time.RFC3339), true}
	return c.out().print(v, fmt.Sprintf("resent: %s (%s)\ninvoice_id: %s\nwas: %s after %d attempts\nstatus: %s, due now, enqueued\n\n"+
		"The sender sends the same event id and payload with a fresh signature; follow it with\n"+
		"  paymentsctl webhook deliveries --invoice %s\n",
		v.EventID, v.Kind, v.InvoiceID, v.PreviousStatus, v.PreviousAttempts, v.Status, v.InvoiceID))
}

func webhookTest(c *ctl, fs *flag.FlagSet, args []string) error {
	webhookFlags(fs)
	rawURL := fs.String("url", "", "the receiver's `URL` (https; checked like any webhook_url)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	ws, e, err := c.webhookScope(fs)
	if err != nil {
		return err
	}
	if err := c.need(fs, "url"); err != nil {
		return err
	}
	op, err := c.operator()
	if err != nil {
		return err
	}
	if err := op.URLs.CheckWebhook(*rawURL); err != nil {
		return c.usageErr(fs, "--url is refused: %v", err)
	}
	res, err := op.TestWebhook(c.ctx, ws, e, *rawURL)
	if errors.Is(err, webhook.ErrNoSealer) {
		return errors.New("no key to open the webhook secrets with: pass --kms-key <stack output WebhookSecretsKeyArn> " +
			"(signing a test event needs kms:Decrypt on it); against the local stack, source .dev/stack.env")
	}
	if err != nil {
		return err
	}
	v := struct {
		EventID     string  `json:"event_id"`
		Type        string  `json:"type"`
		WorkspaceID string  `json:"workspace_id"`
		Environment string  `json:"environment"`
		Host        string  `json:"host"` // never the URL's path or query: they may hold a secret token
		Signatures  int     `json:"signatures"`
		HTTPStatus  int     `json:"http_status"`
		LatencyMS   float64 `json:"latency_ms"`
	}{res.EventID, webhook.TestEventType, ws, string(e), res.Host, res.Signatures, res.HTTPStatus,
		float64(res.Latency.Microseconds()) / 1000}
	if err := c.out().print(v, fmt.Sprintf("event_id: %s\nhost: %s\nsignatures: %d\nhttp_status: %d\nlatency_ms: %.1f\n",
		v.EventID, v.Host, v.Signatures, v.HTTPStatus, v.LatencyMS)); err != nil {
		return err
	}
	if v.HTTPStatus < 200 || v.HTTPStatus > 299 {
		return fmt.Errorf("the receiver answered HTTP %d: a webhook is delivered only on 2xx", v.HTTPStatus)
	}
	return nil
}

func roleList() string {
	names := make([]string, 0, len(auth.AllRoles))
	for _, r := range auth.AllRoles {
		names = append(names, string(r))
	}
	return strings.Join(names, ", ")
}

// Machine states in JSON output.
const (
	stateActive  = "active"
	stateRevoked = "revoked"
	stateExpired = "expired"
)

type keyView struct {
	KeyID       string   `json:"key_id"`
	Environment string   `json:"environment"`
	Scopes      []string `json:"scopes"`
	Hint        string   `json:"hint"`
	Name        string   `json:"name,omitempty"`
	CreatedAt   string   `json:"created_at"`
	// State is active, revoked or expired; an active key with expires_at stops working then
	// (a rotation's grace period).
	State     string `json:"state"`
	RevokedAt string `json:"revoked_at,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
	// CreatedBy is a dashboard user id or "operator"; LastUsedOn the UTC day the key last
	// authenticated a request (recorded at most hourly). Both are absent when unknown.
	CreatedBy  string `json:"created_by,omitempty"`
	LastUsedOn string `json:"last_used_on,omitempty"`
}

// text is the key's state for people: an active key that expires says when.
func (k keyView) text() string {
	if k.State == stateActive && k.ExpiresAt != "" {
		return "expires " + k.ExpiresAt
	}
	return k.State
}

func keyViews(keys []*auth.KeyRecord) []keyView {
	now := time.Now()
	out := make([]keyView, 0, len(keys))
	for _, k := range keys {
		v := keyView{KeyID: k.KeyID, Environment: string(k.Environment), Scopes: make([]string, 0, len(k.Scopes)),
			Hint: k.Hint, Name: k.Name, CreatedAt: k.CreatedAt.Format(time.RFC3339), State: stateActive,
			CreatedBy: k.CreatedBy, LastUsedOn: credential.LastUsedOn(k)}
		for _, s := range k.Scopes {
			v.Scopes = append(v.Scopes, string(s))
		}
		if k.ExpiresAt != nil {
			v.ExpiresAt = k.ExpiresAt.Format(time.RFC3339)
			if !now.Before(*k.ExpiresAt) {
				v.State = stateExpired
			}
		}
		if k.RevokedAt != nil {
			v.RevokedAt = k.RevokedAt.Format(time.RFC3339)
			v.State = stateRevoked
		}
		out = append(out, v)
	}
	return out
}

// deliveryView is a webhook event as webhook deliveries shows it.
type deliveryView struct {
	InvoiceID string `json:"invoice_id"`
	// RefundID names the refund of a refund event (decision 116; absent for the payment's).
	RefundID string `json:"refund_id,omitempty"`
	EventID  string `json:"event_id"`
	Kind     string `json:"kind"`
	// Status is pending, delivered or failed.
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
	// Attempts counts from the latest resend; PriorAttempts are those before it.
	Attempts       int    `json:"attempts"`
	PriorAttempts  int    `json:"attempts_before_resend,omitempty"`
	LastAttemptAt  string `json:"last_attempt_at,omitempty"`
	LastHTTPStatus int    `json:"last_http_status,omitempty"`
	Detail         string `json:"detail,omitempty"`
	// NextAttemptAt is when a pending event's next attempt is due (absent once final).
	NextAttemptAt string `json:"next_attempt_at,omitempty"`
	// CorrelationID is the request's that caused the event (absent for the expiry sweep's).
	CorrelationID string `json:"correlation_id,omitempty"`
	// AttemptLog is the event's latest attempts, oldest first (--json only).
	AttemptLog []payment.Attempt `json:"attempt_log,omitempty"`
}

func deliveryViews(list []operator.WebhookDelivery) []deliveryView {
	out := make([]deliveryView, 0, len(list))
	for _, d := range list {
		v := deliveryView{InvoiceID: d.InvoiceID, RefundID: d.RefundID, EventID: d.EventID, Kind: d.Kind, Status: d.Status,
			CreatedAt: d.CreatedAt.UTC().Format(time.RFC3339), Attempts: d.Attempts, PriorAttempts: d.PriorAttempts,
			LastHTTPStatus: d.LastHTTPStatus, Detail: d.Detail, CorrelationID: hex.EncodeToString(d.CID), AttemptLog: d.AttemptLog}
		if d.LastAttemptAt != nil {
			v.LastAttemptAt = d.LastAttemptAt.UTC().Format(time.RFC3339)
		}
		if d.Status == payment.DeliveryPending {
			v.NextAttemptAt = d.NextAttemptAt.UTC().Format(time.RFC3339)
		}
		out = append(out, v)
	}
	return out
}

// dash stands for an empty table cell.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type printer struct {
	w    io.Writer
	json bool
}

func (p printer) print(v any, text string) error {
	if p.json {
		enc := json.NewEncoder(p.w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := io.WriteString(p.w, text)
	return err
}

func (p printer) table(v any, header []string, rows func(func([]string))) error {
	if p.json {
		return p.print(v, "")
	}
	tw := tabwriter.NewWriter(p.w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	rows(func(r []string) { fmt.Fprintln(tw, strings.Join(r, "\t")) })
	return tw.Flush()
}

func (p printer) issued(k *operator.IssuedKey) error {
	v := struct {
		Key string `json:"key"`
		keyView
	}{k.Plaintext, keyViews([]*auth.KeyRecord{k.Record})[0]}
	return p.print(v, fmt.Sprintf("key_id: %s\nenvironment: %s\nscopes: %s\nkey: %s\n\nThe key is shown once and stored only as a hash. Keep it secret.\n",
		k.Record.KeyID, k.Record.Environment, strings.Join(v.Scopes, ","), k.Plaintext))
}

type webhookSecretView struct {
	ID        string `json:"secret_id"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at,omitempty"`
	// State is active or expired (listings show active secrets only).
	State string `json:"state"`
	// Current is true for the secret without an expiry (the newest); the others sign only
	// until expires_at (a rotation's grace period).
	Current bool `json:"current"`
	// Unsealed marks a secret an older release stored as text: it never signs; rotate it
	// with --grace 0.
	Unsealed bool `json:"unsealed,omitempty"`
}

// text is the secret's state for people: current, or when it expires.
func (v webhookSecretView) text() string {
	if v.Unsealed {
		return "unsealed: rotate --grace 0"
	}
	switch {
	case v.State != stateActive:
		return v.State
	case v.Current:
		return "current"
	default:
		return "expires " + v.ExpiresAt
	}
}

func webhookSecretViews(list []operator.WebhookSecretInfo) []webhookSecretView {
	now := time.Now()
	out := make([]webhookSecretView, 0, len(list))
	for _, s := range list {
		v := webhookSecretView{ID: s.ID, CreatedAt: s.CreatedAt.Format(time.RFC3339), State: stateActive, Current: s.Current()}
		if s.ExpiresAt != nil {
			v.ExpiresAt = s.ExpiresAt.Format(time.RFC3339)
			if !now.Before(*s.ExpiresAt) {
				v.State = stateExpired
			}
		}
		v.Unsealed = s.Unsealed
		out = append(out, v)
	}
	return out
}

func (p printer) webhookSecret(s *operator.IssuedWebhookSecret) error {
	v := struct {
		Secret      string              `json:"secret"`
		SecretID    string              `json:"secret_id"`
		WorkspaceID string              `json:"workspace_id"`
		Environment string              `json:"environment"`
		CreatedAt   string              `json:"created_at"`
		Previous    []webhookSecretView `json:"previous"`
	}{s.Secret, s.Info.ID, s.WorkspaceID, string(s.Environment), s.Info.CreatedAt.Format(time.RFC3339), webhookSecretViews(s.Previous)}
	return p.print(v, fmt.Sprintf("secret_id: %s\nworkspace_id: %s\nenvironment: %s\nsecret: %s\n\n"+
		"The secret is shown once (listings show its id only). Give it to the merchant: their endpoint\n"+
		"verifies the webhook-signature header with it (Standard Webhooks). Keep it secret.\n",
		v.SecretID, v.WorkspaceID, v.Environment, v.Secret))
}

func (p printer) session(s *operator.IssuedSession) error {
	cookie := auth.SessionCookie + "=" + s.Token
	v := struct {
		Token      string `json:"token"`
		Cookie     string `json:"cookie"`
		HostCookie string `json:"host_cookie"`
		UserID     string `json:"user_id"`
		CreatedAt  string `json:"created_at"`
		ExpiresAt  string `json:"expires_at"`
	}{s.Token, cookie, auth.HostSessionCookie + "=" + s.Token, s.Record.UserID, s.Record.CreatedAt.Format(time.RFC3339), s.Record.ExpiresAt.Format(time.RFC3339)}
	return p.print(v, fmt.Sprintf("user_id: %s\nexpires_at: %s\ntoken: %s\n\n"+
		"The token is shown once and stored only as a hash. Keep it secret. It is the value of the\n"+
		"%s cookie where the dashboard's origin is https (%s on plain http), e.g.:\n"+
		"  curl -b %s \"$API/v1/workspaces/<workspace_id>/documents/invoices?environment=sandbox\"\n"+
		"Writes (POST, PATCH) also need -H \"Origin: <one of DASHBOARD_ORIGINS>\".\n",
		s.Record.UserID, v.ExpiresAt, s.Token, auth.HostSessionCookie, auth.SessionCookie, v.HostCookie))
}
