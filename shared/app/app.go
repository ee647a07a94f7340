// Package app builds what every function shares, once per cold start: configuration from the
// environment, AWS clients, the store, the authenticator and the HTTP adapter.
package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/edge/httpapi"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/ratelimit"
)

// Config is the functions' configuration, read from environment variables that template.yaml
// sets (and that the local stack sets from the same template).
type Config struct {
	// TableName is the DynamoDB table (TABLE_NAME, required).
	TableName string
	// WebhookQueueURL is the webhook delivery queue (WEBHOOK_QUEUE_URL).
	WebhookQueueURL string
	// PublicBaseURL builds payment_url (PUBLIC_BASE_URL); empty means the request's domain over https.
	PublicBaseURL string
	// CheckoutTokenKey derives checkout tokens (CHECKOUT_TOKEN_KEY, at least 32 bytes; only the
	// functions that answer with a payment_url are given it: TestCheckoutTokenKeyOnlyWhereTokensAreMinted).
	CheckoutTokenKey []byte
	// AllowLocalhostURLs lets merchants register http://localhost callback URLs
	// (ALLOW_LOCALHOST_URLS=true). Only `make dev` sets it; template.yaml never does.
	AllowLocalhostURLs bool
	// LogLevel is DEBUG, INFO, WARN or ERROR (LOG_LEVEL).
	LogLevel slog.Level
	// DashboardOrigins are the exact origins (scheme://host[:port], e.g.
	// https://dashboard.example.com.bd) from which session-cookie requests may use unsafe
	// methods (DASHBOARD_ORIGINS, comma-separated). Empty: no cookie-authenticated writes.
	DashboardOrigins []string
	// CheckoutRatePerToken and CheckoutRatePerClient bound hosted-checkout requests per minute
	// per payment token and per client address, per function instance
	// (CHECKOUT_RATE_PER_TOKEN, default 60; CHECKOUT_RATE_PER_CLIENT, default 300).
	CheckoutRatePerToken  int
	CheckoutRatePerClient int
	// DocumentPayRate and DocumentPayBurst limit the intents a document's public page may start,
	// per document across every instance (package ratelimit, one DynamoDB write per POST):
	// DOCUMENT_PAY_RATE per second sustained (default 1; 0 disables), DOCUMENT_PAY_BURST at once
	// after a pause (default 30).
	DocumentPayRate  int
	DocumentPayBurst int
	// DocumentPayPerClient limits the intents one client address may start on one document's
	// public page, per minute across every instance (DOCUMENT_PAY_PER_CLIENT, default 6, also
	// its burst; 0 disables): spent before the document's own budget, so one client cannot
	// spend that budget for everyone.
	DocumentPayPerClient int
	// AttemptTimeout bounds one attempt of a DynamoDB or SQS call (ATTEMPT_TIMEOUT_MS, default
	// awsx.DefaultAttemptTimeout); awsx.MaxAttempts attempts make a call's budget.
	AttemptTimeout time.Duration
	// DeadlineMargin is how long before the Lambda deadline a request's own deadline falls
	// (DEADLINE_MARGIN_MS, default httpapi.DefaultDeadlineMargin), so that a hung dependency
	// still gets the 503 envelope, not the gateway's bare timeout.
	DeadlineMargin time.Duration
	// KeyCacheTTL is how long an instance trusts an API key it has read (KEY_CACHE_TTL_MS,
	// default auth.DefaultKeyCacheTTL; 0 reads the key on every request): the revocation delay.
	KeyCacheTTL time.Duration
	// GSI2Shards is how many partition key values GSI2 spreads pending expiries and events over
	// (GSI2_SHARDS, default dynamo.DefaultGSI2Shards; may grow, never shrink).
	GSI2Shards int
	// WorkspaceRateLimit is the sustained requests per second each workspace may make per
	// environment (and its dashboard sessions together), shared by every instance
	// (WORKSPACE_RATE_LIMIT, default 100; 0 disables). WorkspaceRateBurst is how many it may
	// make at once after a pause (WORKSPACE_RATE_BURST, default 200). WorkspaceRateLease is
	// how many tokens an instance takes per DynamoDB write (WORKSPACE_RATE_LEASE, default 20,
	// at most the burst). See package ratelimit.
	WorkspaceRateLimit int
	WorkspaceRateBurst int
	WorkspaceRateLease int
	// AuthFailuresPerClient is how many failed authentications (an unknown, revoked or expired
	// key or session) a client address may cause per minute in one instance before its
	// credentialed requests are refused without a lookup (AUTH_FAILURES_PER_CLIENT, default
	// 120; 0 disables).
	AuthFailuresPerClient int
	// FormLimitPerClient and FormLimitGlobal limit the dashboard's public and email-sending
	// forms (sign up, forgot password, passkey sign-in, invitations), each per 10 minutes and
	// per form, across every instance: posts from one client address
	// (DASHBOARD_FORM_LIMIT_PER_CLIENT, default 20) and from everyone
	// (DASHBOARD_FORM_LIMIT_GLOBAL, default 600); 0 disables that half (dashboard.FormLimits).
	FormLimitPerClient int
	FormLimitGlobal    int
	// WebhookSecretsKeyID is the KMS key (id, ARN or alias) that seals webhook signing secrets
	// (WEBHOOK_SECRETS_KEY_ID). template.yaml gives it to WebhookSenderFunction only, the one
	// function allowed to decrypt with it.
	WebhookSecretsKeyID string
	// LocalSealingKey stands in for the KMS key where there is none: the local stack's
	// 32-byte key (LOCAL_SEALING_KEY, standard base64), set by the tests' stacks without
	// local-kms for the functions whose KMS key id resolves to "" locally. template.yaml never sets it;
	// setting both is a configuration error.
	LocalSealingKey []byte
	// Lookup is the environment the configuration was read from, for a function's own
	// variables (the dashboard's MAIL_FROM and SES_ENDPOINT); nil reads nothing.
	Lookup func(string) (string, bool)
}

// Environment variables of the webhook secret sealing key.
const (
	EnvWebhookSecretsKeyID = "WEBHOOK_SECRETS_KEY_ID"
	EnvLocalSealingKey     = "LOCAL_SEALING_KEY"
)

// ParseLocalSealingKey decodes LOCAL_SEALING_KEY: standard base64 of 32 bytes ("" is none).
// Errors never echo the value.
func ParseLocalSealingKey(text string) ([]byte, error) {
	if text == "" {
		return nil, nil
	}
	key, err := base64.StdEncoding.Strict().DecodeString(text)
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s must be standard base64 of 32 bytes", EnvLocalSealingKey)
	}
	return key, nil
}

// ConfigFromEnv reads Config from a lookup function such as os.LookupEnv: the table and
// URLs, the rate limits and timeouts, the sealing key and the log level, in that order (the
// first error is the one returned).
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	c := Config{
		TableName:       get("TABLE_NAME"),
		WebhookQueueURL: get("WEBHOOK_QUEUE_URL"),
		PublicBaseURL:   strings.TrimRight(get("PUBLIC_BASE_URL"), "/"),
		Lookup:          lookup,
	}
	for _, read := range []func(get func(string) string) error{c.readCore, c.readLimits, c.readSealing, c.readLogLevel} {
		if err := read(get); err != nil {
			return c, err
		}
	}
	return c, nil
}

// readCore checks TABLE_NAME and reads the checkout token key, ALLOW_LOCALHOST_URLS and the
// dashboard's origins.
func (c *Config) readCore(get func(string) string) error {
	if c.TableName == "" {
		return fmt.Errorf("TABLE_NAME is not set")
	}
	if v, ok := c.Lookup("CHECKOUT_TOKEN_KEY"); ok && v != "" {
		if len(v) < 32 { // payment.MinTokenKey (not imported: every function links this package)
			return fmt.Errorf("CHECKOUT_TOKEN_KEY must be at least 32 bytes")
		}
		c.CheckoutTokenKey = []byte(v)
	}
	switch v := get("ALLOW_LOCALHOST_URLS"); v {
	case "", "false":
	case "true":
		c.AllowLocalhostURLs = true
	default:
		return fmt.Errorf("ALLOW_LOCALHOST_URLS must be true or false, not %q", v)
	}
	origins, err := ParseOrigins(get("DASHBOARD_ORIGINS"))
	if err != nil {
		return fmt.Errorf("DASHBOARD_ORIGINS: %w", err)
	}
	c.DashboardOrigins = origins
	return nil
}

// readLimits reads the integer settings (rate limits, shard count, timeouts in milliseconds),
// each with its default and least value, then the key cache's lifetime.
func (c *Config) readLimits(get func(string) string) error {
	var attemptMS, marginMS int
	for _, v := range []struct {
		name     string
		dst      *int
		def, min int
	}{
		{"CHECKOUT_RATE_PER_TOKEN", &c.CheckoutRatePerToken, 60, 1},
		{"CHECKOUT_RATE_PER_CLIENT", &c.CheckoutRatePerClient, 300, 1},
		{"DOCUMENT_PAY_RATE", &c.DocumentPayRate, 1, 0},
		{"DOCUMENT_PAY_BURST", &c.DocumentPayBurst, 30, 1},
		{"DOCUMENT_PAY_PER_CLIENT", &c.DocumentPayPerClient, 6, 0},
		{"WORKSPACE_RATE_LIMIT", &c.WorkspaceRateLimit, 100, 0},
		{"WORKSPACE_RATE_BURST", &c.WorkspaceRateBurst, 200, 1},
		{"WORKSPACE_RATE_LEASE", &c.WorkspaceRateLease, 20, 1},
		{"AUTH_FAILURES_PER_CLIENT", &c.AuthFailuresPerClient, 120, 0},
		{"DASHBOARD_FORM_LIMIT_PER_CLIENT", &c.FormLimitPerClient, 20, 0}, // dashboard.DefaultFormPerClient
		{"DASHBOARD_FORM_LIMIT_GLOBAL", &c.FormLimitGlobal, 600, 0},       // dashboard.DefaultFormGlobal
		{"ATTEMPT_TIMEOUT_MS", &attemptMS, int(awsx.DefaultAttemptTimeout / time.Millisecond), 1},
		{"DEADLINE_MARGIN_MS", &marginMS, int(httpapi.DefaultDeadlineMargin / time.Millisecond), 1},
		{"GSI2_SHARDS", &c.GSI2Shards, dynamo.DefaultGSI2Shards, 1},
	} {
		n, err := intSetting(get, v.name, v.def, v.min)
		if err != nil {
			return err
		}
		*v.dst = n
	}
	c.KeyCacheTTL = auth.DefaultKeyCacheTTL
	if text := get("KEY_CACHE_TTL_MS"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n > 60_000 {
			return fmt.Errorf("KEY_CACHE_TTL_MS must be 0 to 60000, not %q", text)
		}
		c.KeyCacheTTL = time.Duration(n) * time.Millisecond
	}
	c.AttemptTimeout = time.Duration(attemptMS) * time.Millisecond
	c.DeadlineMargin = time.Duration(marginMS) * time.Millisecond
	return nil
}

// intSetting reads the integer variable name: def when it is unset, else a number no less
// than least.
func intSetting(get func(string) string, name string, def, least int) (int, error) {
	text := get(name)
	if text == "" {
		return def, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < least {
		what := "a positive integer"
		if least == 0 {
			what = "0 or a positive integer"
		}
		return 0, fmt.Errorf("%s must be %s, not %q", name, what, text)
	}
	return n, nil
}

// readSealing reads the webhook secrets' KMS key id or the local sealing key (never both).
func (c *Config) readSealing(get func(string) string) error {
	c.WebhookSecretsKeyID = get(EnvWebhookSecretsKeyID)
	var err error
	if c.LocalSealingKey, err = ParseLocalSealingKey(get(EnvLocalSealingKey)); err != nil {
		return err
	}
	if c.WebhookSecretsKeyID != "" && c.LocalSealingKey != nil {
		return fmt.Errorf("%s and %s are both set: the local key is for the local stack only, never next to KMS",
			EnvWebhookSecretsKeyID, EnvLocalSealingKey)
	}
	return nil
}

// readLogLevel reads LOG_LEVEL (the default level when unset).
func (c *Config) readLogLevel(get func(string) string) error {
	if v := get("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("LOG_LEVEL: %w", err)
		}
	}
	return nil
}

// DashboardOrigin is the dashboard's origin: the first of DashboardOrigins, else
// PublicBaseURL. The emails' links, the passkeys' relying party and the cookies' names
// (auth.HostCookies) follow it: configuration, never a request header.
func (c Config) DashboardOrigin() string {
	if len(c.DashboardOrigins) > 0 {
		return c.DashboardOrigins[0]
	}
	return c.PublicBaseURL
}

// ParseOrigins parses a comma-separated list of origins as browsers send them in the Origin
// header: http or https, a host, an optional port and nothing else, in lower case, without a
// default port or a trailing slash (so that an exact comparison is right). Blank entries are
// skipped; duplicates are dropped. "*" and "null" are refused.
func ParseOrigins(list string) ([]string, error) {
	var out []string
	for part := range strings.SplitSeq(list, ",") {
		o := strings.TrimSpace(part)
		if o == "" {
			continue
		}
		if err := checkOrigin(o); err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

func checkOrigin(o string) error {
	bad := func(why string) error {
		return fmt.Errorf("%q is not an origin like https://dashboard.example.com.bd (%s)", o, why)
	}
	u, err := url.Parse(o)
	if err != nil {
		return bad("unparsable")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("scheme must be http or https")
	case u.Host == "" || u.Hostname() == "":
		return bad("no host")
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || u.Opaque != "" ||
		strings.HasSuffix(o, "#"):
		return bad("only scheme://host[:port], no path, not even /")
	case (u.Scheme == "https" && u.Port() == "443") || (u.Scheme == "http" && u.Port() == "80") ||
		strings.HasSuffix(u.Host, ":"):
		return bad("browsers omit the default port")
	case o != strings.ToLower(o):
		return bad("browsers send it in lower case")
	}
	return nil
}

// Deps is everything a handler may use. Handlers take what they need from it.
type Deps struct {
	Config Config
	Logger *slog.Logger
	// AWS is the configuration the clients were built from; a handler that needs another
	// client (the webhook sender's KMS client) builds it from this, so only its binary links it.
	AWS   aws.Config
	DB    *dynamodb.Client
	SQS   *sqs.Client
	Store *dynamo.Store
	Auth  *auth.Authenticator
	// Limiter is this instance's share of the per-workspace limits (nil when disabled); the
	// authenticator consults it, so every credentialed operation is limited.
	Limiter *ratelimit.Limiter
	URLs    urlcheck.Policy
	Adapter httpapi.Adapter
	// Now is the services' clock (nil: the system clock). Only tests set it, to step time
	// across an expiry without waiting for it.
	Now func() time.Time
}

// New wires Deps from a configuration and AWS clients.
func New(cfg Config, db *dynamodb.Client, q *sqs.Client, logger *slog.Logger) *Deps {
	store := &dynamo.Store{DB: db, Table: cfg.TableName, GSI2Shards: cfg.GSI2Shards}
	var keys auth.KeyStore = store
	if cfg.KeyCacheTTL > 0 {
		keys = &auth.KeyCache{Store: store, TTL: cfg.KeyCacheTTL}
	}
	authn := &auth.Authenticator{Keys: keys, Sessions: store, AllowedOrigins: cfg.DashboardOrigins,
		SessionCookieName: auth.SessionCookieName(auth.HostCookies(cfg.DashboardOrigin())),
		// A key's last use, for the dashboard's key list: at most one conditional UpdateItem
		// per key per hour per instance (template: RecordKeyUse).
		LastUsed: &auth.LastUsed{Store: store}}
	var limiter *ratelimit.Limiter
	if cfg.WorkspaceRateLimit > 0 {
		limiter = &ratelimit.Limiter{Store: store, Rate: cfg.WorkspaceRateLimit,
			Burst: max(1, cfg.WorkspaceRateBurst), Lease: cfg.WorkspaceRateLease}
		authn.Limiter = limiter
	}
	if cfg.AuthFailuresPerClient > 0 {
		authn.FailuresPerClient = &ratelimit.Window{Limit: cfg.AuthFailuresPerClient, Period: time.Minute}
	}
	return &Deps{
		Config:  cfg,
		Logger:  logger,
		DB:      db,
		SQS:     q,
		Store:   store,
		Auth:    authn,
		Limiter: limiter,
		URLs:    urlcheck.Policy{AllowLocalhost: cfg.AllowLocalhostURLs},
		Adapter: httpapi.Adapter{Logger: logger, PublicBaseURL: cfg.PublicBaseURL, DeadlineMargin: cfg.DeadlineMargin},
	}
}

// NewLogger returns the JSON logger every function writes its request lines with.
func NewLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: level, ReplaceAttr: lambdaKeys}))
}

// lambdaKeys names the time "timestamp", as Lambda's JSON log format reads it: with an
// application log level set (template.yaml's LogLevel), Lambda filters lines by "level" and
// treats a line without a valid "timestamp" as INFO.
func lambdaKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		a.Key = "timestamp"
	}
	return a
}

// API is what an HTTP function serves: its route table, keyed by template.yaml's route keys,
// and optionally an error page for browsers (see httpapi.Adapter.ErrorPage).
type API struct {
	Routes    web.Routes
	ErrorPage func(r *web.Request, e *apierr.Error) *web.Response
}

// HTTPFunction is a template.yaml function behind the HTTP API.
type HTTPFunction struct {
	// LogicalID is the function's logical id in template.yaml.
	LogicalID string
	// Name appears in every log line of the function.
	Name string
	// Build makes the function's API from Deps, once per cold start.
	Build func(d *Deps) API
}

// Lambda builds the function's Lambda handler from Deps.
func (f HTTPFunction) Lambda(d *Deps) httpapi.LambdaHandler {
	api := f.Build(d)
	a := d.Adapter
	a.ErrorPage = api.ErrorPage
	return a.Routes(f.Name, api.Routes)
}

// Worker is a template.yaml function that is not behind the HTTP API (an SQS consumer, a
// scheduled job).
type Worker struct {
	LogicalID string
	Name      string
	// Build makes the Lambda handler (any signature lambda.Start accepts) from Deps.
	Build func(d *Deps) any
}

// StartHTTP is the whole main of an HTTP function: load configuration and clients once (cold
// start), then serve API Gateway HTTP API events with the function's routes.
func StartHTTP(f HTTPFunction) {
	d := load(f.Name, false)
	lambda.Start(f.Lambda(d))
}

// StartWorker is the whole main of a function that is not behind the HTTP API.
func StartWorker(f Worker) {
	d := load(f.Name, true)
	lambda.Start(f.Build(d))
}

func load(name string, nameInLogs bool) *Deps {
	cfg, err := ConfigFromEnv(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration:", err)
		os.Exit(1)
	}
	logger := NewLogger(cfg.LogLevel)
	if nameInLogs {
		logger = logger.With(slog.String("function", name))
	}
	awsCfg, err := awsx.Load(context.Background(), cfg.AttemptTimeout)
	if err != nil {
		logger.Error("aws configuration", slog.String("error", err.Error()))
		os.Exit(1)
	}
	d := New(cfg, dynamodb.NewFromConfig(awsCfg), sqs.NewFromConfig(awsCfg), logger)
	d.AWS = awsCfg
	return d
}
