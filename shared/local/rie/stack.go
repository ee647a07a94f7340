package rie

import (
	"context"
	"fmt"
	"maps"

	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// AWSEnv is what Lambda (or `sam local --env-vars` with the developer's credentials) adds to a
// function's environment, pointed at the local stack: the region, the stack's dummy
// credentials, and the DynamoDB and SQS endpoints (read by the AWS SDK itself, as
// `make provision`'s env.json sets them), and KMS's when the stack runs local-kms.
func AWSEnv(stack *devstack.Stack) map[string]string {
	env := map[string]string{
		"AWS_REGION":                devstack.Region,
		"AWS_DEFAULT_REGION":        devstack.Region,
		"AWS_ACCESS_KEY_ID":         devstack.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":     devstack.SecretAccessKey,
		"AWS_ENDPOINT_URL_DYNAMODB": stack.Dynamo.Endpoint,
	}
	if stack.SQS != nil {
		env["AWS_ENDPOINT_URL_SQS"] = stack.SQS.Endpoint
	}
	if stack.KMS != nil {
		env["AWS_ENDPOINT_URL_KMS"] = stack.KMS.Endpoint
	}
	return env
}

// Set is one pool per template function.
type Set struct {
	Pools map[string]*Pool
}

// Start builds every function of the template for this host (Bootstraps: nothing when the
// cache is current) and the emulator, and returns a pool per function with the template's
// timeout and memory and the environment envFor gives it, with AWSEnv over it.
// Instances start on demand.
// Each function's instance cap is its template's ReservedConcurrentExecutions (with the
// stack's parameter overrides), else DefaultConcurrency; Options.PoolSize overrides both.
// With Options.Prebuilt, Start builds nothing.
func Start(ctx context.Context, root string, stack *devstack.Stack, envFor func(logicalID string) (map[string]string, error), opts Options) (*Set, error) {
	tpl := stack.Template
	builds := opts.Prebuilt
	if builds == nil {
		var err error
		if builds, err = Build(ctx, root, tpl, nil); err != nil {
			return nil, err
		}
	}
	opts.Emulator = builds.Emulator
	s := &Set{Pools: map[string]*Pool{}}
	for _, f := range tpl.Functions {
		boot, ok := builds.Bootstraps[f.Dir]
		if !ok {
			return nil, fmt.Errorf("rie: %s: no bootstrap built for %s", f.LogicalID, f.Dir)
		}
		fn, err := function(f, boot, stack, envFor)
		if err != nil {
			return nil, err
		}
		s.Pools[f.LogicalID] = NewPool(fn, opts)
	}
	return s, nil
}

func function(f samtemplate.Function, bootstrap string, stack *devstack.Stack, envFor func(string) (map[string]string, error)) (Function, error) {
	own, err := envFor(f.LogicalID)
	if err != nil {
		return Function{}, fmt.Errorf("rie: %s: %w", f.LogicalID, err)
	}
	reserved, _, err := stack.Template.ReservedConcurrency(f.LogicalID)
	if err != nil {
		return Function{}, fmt.Errorf("rie: %w", err)
	}
	// The template declares AWS_ENDPOINT_URL_DYNAMODB and _SQS empty so that `sam local
	// --env-vars` may set them: the stack's endpoints override, as env.json does.
	env := maps.Clone(own)
	maps.Copy(env, AWSEnv(stack))
	return Function{LogicalID: f.LogicalID, Bootstrap: bootstrap, Env: env, Timeout: f.Timeout, MemoryMB: f.MemoryMB,
		Concurrency: reserved}, nil
}

// Close stops every instance of every pool.
func (s *Set) Close() {
	for _, p := range s.Pools {
		p.Close()
	}
}
