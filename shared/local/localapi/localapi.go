// Package localapi serves the API locally the way API Gateway would: it reads the routes from
// template.yaml, builds each function's handler from the same registry the Lambda binaries
// use, with the environment template.yaml declares, and routes real HTTP requests to them
// through the local gateway. `make dev` and the integration tests both use it.
package localapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localgw"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
)

// Options tune the local API.
type Options struct {
	// BaseURL is where the API is served (sets PUBLIC_BASE_URL so payment_url points here).
	BaseURL string
	// AllowLocalhostURLs sets ALLOW_LOCALHOST_URLS=true (make dev only).
	AllowLocalhostURLs bool
	// Logger receives the functions' request log lines.
	Logger *slog.Logger
	// Env overrides individual environment variables after the template's.
	Env map[string]string
	// ConfigureAWS, when set, adjusts each function's AWS configuration after the production
	// bounds are applied (tests use it to observe the requests a function sends).
	ConfigureAWS func(logicalID string, cfg *aws.Config)
	// KMSEndpoint points the functions' KMS clients at a KMS stand-in (package fakekms), for
	// tests that set WEBHOOK_SECRETS_KEY_ID in Env. A stack started with local-kms
	// (devstack.StackOptions.KMS) needs neither: its functions use it and its key.
	KMSEndpoint string
	// Now, when set, is every function's clock (app.Deps.Now): tests step it across an expiry.
	Now func() time.Time
	// Localhost makes StartTestAPI's base URL http://localhost:<port> instead of
	// http://127.0.0.1:<port>: passkeys need it (browsers refuse an IP address as the RP ID).
	Localhost bool
	// KMS makes StartTestAPI's stack run local-kms (devstack.StackOptions.KMS).
	KMS bool
	// Emulator, when set, makes StartTestAPI serve every function from its real bootstrap under
	// the Runtime Interface Emulator (NewEmulated) instead of in-process handlers.
	Emulator *rie.Options
}

// New builds the gateway for every function in the stack's template, and the Deps of every
// function (the workers' too: cmd/devstack and the tests run them from these). The gateway
// calls the handlers in-process.
func New(stack *devstack.Stack, opts Options) (*localgw.Gateway, map[string]*app.Deps, error) {
	return build(stack, opts, nil)
}

// NewEmulated is New with every function served by its real bootstrap under the Runtime
// Interface Emulator (package rie): one pool of instances per function, with the environment
// FunctionEnv gives it and the template's timeout and memory. The Deps are built as New
// builds them (for seeding and operator actions in this process). Close the Set when done.
func NewEmulated(ctx context.Context, root string, stack *devstack.Stack, opts Options, ro rie.Options) (*localgw.Gateway, map[string]*app.Deps, *rie.Set, error) {
	set, err := rie.Start(ctx, root, stack, func(id string) (map[string]string, error) { return FunctionEnv(stack, id, opts) }, ro)
	if err != nil {
		return nil, nil, nil, err
	}
	gw, deps, err := build(stack, opts, set)
	if err != nil {
		set.Close()
		return nil, nil, nil, err
	}
	return gw, deps, set, nil
}

func build(stack *devstack.Stack, opts Options, set *rie.Set) (*localgw.Gateway, map[string]*app.Deps, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	handlers := map[string]localgw.Handler{}
	deps := map[string]*app.Deps{}
	var routes []localgw.Route
	for _, f := range stack.Template.Functions {
		env, err := FunctionEnv(stack, f.LogicalID, opts)
		if err != nil {
			return nil, nil, err
		}
		c, err := app.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.LogicalID, err)
		}
		// Each function gets its own clients with its own bounds, as on Lambda.
		cfg := stack.Config.Copy()
		awsx.Configure(&cfg, c.AttemptTimeout)
		if opts.KMSEndpoint != "" {
			cfg.ServiceOptions = append(cfg.ServiceOptions, func(_ string, o any) {
				if k, ok := o.(*kms.Options); ok {
					k.BaseEndpoint = aws.String(opts.KMSEndpoint)
				}
			})
		}
		if opts.ConfigureAWS != nil {
			opts.ConfigureAWS(f.LogicalID, &cfg)
		}
		d := app.New(c, devstack.DynamoClient(cfg, stack.Dynamo.Endpoint), devstack.SQSClient(cfg, stack.SQS.Endpoint), logger)
		d.AWS = cfg
		d.Now = opts.Now
		deps[f.LogicalID] = d
		if len(f.Routes) == 0 {
			continue // not behind the HTTP API: registry.Workers, run by cmd/devstack
		}
		if set != nil {
			handlers[f.LogicalID] = set.Pools[f.LogicalID].HTTPHandler()
		} else {
			h, err := registry.Lambda(f.LogicalID, d)
			if err != nil {
				return nil, nil, fmt.Errorf("template function %s: %w", f.LogicalID, err)
			}
			handlers[f.LogicalID] = localgw.Handler(h)
		}
		for _, r := range f.Routes {
			routes = append(routes, localgw.Route{Method: r.Method, Path: r.Path, Function: f.LogicalID, Timeout: f.Timeout})
		}
	}
	gw, err := localgw.New(routes, handlers, localgw.Options{})
	if err != nil {
		return nil, nil, err
	}
	return gw, deps, nil
}

// FunctionEnv is the environment the local stack gives a function: template.yaml's, with the
// stack's names, then PUBLIC_BASE_URL, ALLOW_LOCALHOST_URLS and Options.Env, and the stack's
// KMS key where the template's KMS key id is empty (!GetAtt WebhookSecretsKey.Arn): local-kms's
// devstack.KMSKeyARN when the stack runs it (rie.AWSEnv adds its endpoint), else the stack's
// local sealing key (LOCAL_SEALING_KEY). The in-process handlers and the real bootstraps
// under the emulator (package rie) both run with it.
func FunctionEnv(stack *devstack.Stack, logicalID string, opts Options) (map[string]string, error) {
	env, err := stack.Resources.FunctionEnv(logicalID)
	if err != nil {
		return nil, err
	}
	env = maps.Clone(env)
	if opts.BaseURL != "" {
		env["PUBLIC_BASE_URL"] = opts.BaseURL
	}
	if opts.AllowLocalhostURLs {
		env["ALLOW_LOCALHOST_URLS"] = "true"
	}
	maps.Copy(env, opts.Env)
	// A function the template gives a KMS key (empty locally) gets local-kms's key, or else
	// the stack's local key.
	if v, ok := env[app.EnvWebhookSecretsKeyID]; ok && v == "" {
		if stack.KMS != nil {
			env[app.EnvWebhookSecretsKeyID] = devstack.KMSKeyARN
		} else {
			env[app.EnvLocalSealingKey] = base64.StdEncoding.EncodeToString(stack.SealingKey)
		}
	}
	return env, nil
}

var _ http.Handler = (*localgw.Gateway)(nil)
