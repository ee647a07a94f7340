// Command samlocal prepares the SAM CLI path (`make provision ENDPOINT=…`): against any
// DynamoDB endpoint — DynamoDB Local in Docker, or the project's dynalite — it creates the
// table template.yaml declares, seeds a demo workspace with keys, creates a payment and an
// issued invoice through the real handlers' code, and writes, under .dev/sam/:
//
//   - credentials.json: the workspace, keys and ids it made;
//   - env.json: the functions' environment for `sam local start-api|invoke --env-vars`, with
//     the DynamoDB (and SQS) endpoints as a container reaches them;
//   - events/<file>.json: every sample event of events/ filled with the real key, workspace,
//     payment and tokens, so `sam local invoke <LogicalId> -e .dev/sam/events/<file>.json`
//     works as shipped.
//
// Local tooling: no Lambda links it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	fs := flag.NewFlagSet("samlocal", flag.ContinueOnError)
	o := Options{}
	fs.StringVar(&o.DynamoEndpoint, "dynamo-endpoint", "", "DynamoDB endpoint this machine reaches (e.g. http://localhost:8000); required")
	fs.StringVar(&o.SQSEndpoint, "sqs-endpoint", "", "SQS endpoint (optional: without it the functions send no webhook events)")
	fs.StringVar(&o.ContainerHost, "container-host", "host.docker.internal", "the host name SAM's containers reach this machine by")
	fs.StringVar(&o.Prefix, "prefix", "local-", "table and queue name prefix")
	fs.StringVar(&o.BaseURL, "base-url", "http://127.0.0.1:3000", "where `sam local start-api` serves (payment_url's origin)")
	out := fs.String("out", "", "output directory (default <repo>/.dev/sam)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./cmd/samlocal -dynamo-endpoint URL [-sqs-endpoint URL] [-container-host HOST] [-out DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if o.DynamoEndpoint == "" {
		fs.Usage()
		os.Exit(2)
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "samlocal:", err)
		os.Exit(1)
	}
	o.Root, o.OutDir = root, *out
	if o.OutDir == "" {
		o.OutDir = filepath.Join(root, ".dev", "sam")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Prepare(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "samlocal:", err)
		os.Exit(1)
	}
	fmt.Printf(`table %s on %s
workspace %s, sandbox key in %s
env vars:  %s
events:    %s (%d files)

  sam build
  sam local start-api --env-vars %s
  sam local invoke PaymentVerifyFunction --env-vars %s -e %s
`, res.Table, o.DynamoEndpoint, res.Creds.WorkspaceID, res.CredentialsPath, res.EnvPath, res.EventsDir, len(res.Events),
		res.EnvPath, res.EnvPath, filepath.Join(res.EventsDir, "payment-verify.json"))
}
