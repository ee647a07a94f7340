// Command paymentsctl is the operator CLI: it creates workspaces; issues, lists, rotates and
// revokes API keys; creates dashboard users, grants them roles in workspaces and creates and
// revokes their sessions; issues, rotates and lists webhook signing secrets, directly in
// DynamoDB (none of this is reachable through the HTTP API).
//
//	paymentsctl [--table NAME] [--endpoint URL] workspace create --name NAME [--id UUID]
//	paymentsctl ... workspace list
//	paymentsctl ... key issue  --workspace ID --env sandbox|live --scopes payments:write,payments:read [--name N]
//	paymentsctl ... key list   --workspace ID
//	paymentsctl ... key rotate --workspace ID --key-id KEY_ID [--grace 24h]
//	paymentsctl ... key revoke --workspace ID --key-id KEY_ID
//	paymentsctl ... user create --email EMAIL
//	paymentsctl ... user grant  --user USER_ID --workspace ID --role viewer|developer|admin|owner
//	paymentsctl ... user list   --workspace ID
//	paymentsctl ... session create --user USER_ID [--ttl 12h]
//	paymentsctl ... session revoke --token TOKEN
//	paymentsctl ... webhook secret issue  --workspace ID --env sandbox|live
//	paymentsctl ... webhook secret rotate --workspace ID --env sandbox|live [--grace 24h]
//	paymentsctl ... webhook secret list   --workspace ID --env sandbox|live
//
// --table defaults to $TABLE_NAME; --endpoint to $AWS_ENDPOINT_URL_DYNAMODB or AWS itself.
// A new key or session token is printed once, on standard output; it is stored only as a
// SHA-256 hash. A session token is the value of the takapay_session cookie. A webhook secret
// (whsec_...) is printed once and stored sealed: issue and rotate encrypt it with the KMS key
// of --kms-key (default $WEBHOOK_SECRETS_KEY_ID; the stack output WebhookSecretsKeyArn), which
// needs kms:Encrypt and never kms:Decrypt, or, against the local stack, with the key in
// $LOCAL_SEALING_KEY (.dev/stack.env). Listings show ids only and need no key.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/awsx"
	"github.com/takapay/payments/shared/dynamo"
	"github.com/takapay/payments/shared/kmsseal"
	"github.com/takapay/payments/shared/operator"
	"github.com/takapay/payments/shared/webhook"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "paymentsctl:", err)
		os.Exit(2)
	}
}

var errUsage = errors.New(`usage:
  paymentsctl [--table NAME] [--endpoint URL] [--kms-key KEY] [--json] workspace create --name NAME [--id UUID]
  paymentsctl [...] workspace list
  paymentsctl [...] key issue  --workspace ID --env sandbox|live --scopes payments:write,payments:read [--name N]
  paymentsctl [...] key list   --workspace ID
  paymentsctl [...] key rotate --workspace ID --key-id KEY_ID [--grace 24h]
  paymentsctl [...] key revoke --workspace ID --key-id KEY_ID
  paymentsctl [...] user create --email EMAIL
  paymentsctl [...] user grant  --user USER_ID --workspace ID --role viewer|developer|admin|owner
  paymentsctl [...] user list   --workspace ID
  paymentsctl [...] session create --user USER_ID [--ttl 12h]
  paymentsctl [...] session revoke --token TOKEN
  paymentsctl [...] webhook secret issue  --workspace ID --env sandbox|live
  paymentsctl [...] webhook secret rotate --workspace ID --env sandbox|live [--grace 24h]
  paymentsctl [...] webhook secret list   --workspace ID --env sandbox|live`)

// run executes one command; op, when non-nil, replaces the configured store and sealer (tests).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, op *operator.Operator) error {
	global := flag.NewFlagSet("paymentsctl", flag.ContinueOnError)
	global.SetOutput(stderr)
	table := global.String("table", os.Getenv("TABLE_NAME"), "DynamoDB table name")
	endpoint := global.String("endpoint", "", "DynamoDB endpoint URL (default: $AWS_ENDPOINT_URL_DYNAMODB or AWS)")
	kmsKey := global.String("kms-key", os.Getenv(app.EnvWebhookSecretsKeyID),
		"KMS key (ARN, id or alias) that seals webhook secrets (default: $"+app.EnvWebhookSecretsKeyID+")")
	asJSON := global.Bool("json", false, "print JSON")
	if err := global.Parse(args); err != nil {
		return errUsage
	}
	rest := global.Args()
	if len(rest) < 2 {
		return errUsage
	}
	if op == nil {
		if *table == "" {
			return errors.New("no table: pass --table or set TABLE_NAME")
		}
		cfg, err := awsx.Load(ctx)
		if err != nil {
			return err
		}
		var opts []func(*dynamodb.Options)
		if *endpoint != "" {
			opts = append(opts, func(o *dynamodb.Options) { o.BaseEndpoint = endpoint })
		}
		sealer, err := newSealer(cfg, *kmsKey, os.Getenv(app.EnvLocalSealingKey))
		if err != nil {
			return err
		}
		op = &operator.Operator{Store: &dynamo.Store{DB: dynamodb.NewFromConfig(cfg, opts...), Table: *table}, Sealer: sealer}
	}
	store := op.Store
	out := printer{w: stdout, json: *asJSON}
	// "webhook secret <verb>" has three words; every other command two.
	command, flagArgs := rest[0]+" "+rest[1], rest[2:]
	if rest[0] == "webhook" {
		if len(rest) < 3 || rest[1] != "secret" {
			return errUsage
		}
		command, flagArgs = "webhook secret "+rest[2], rest[3:]
	}
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "name")
	id := fs.String("id", "", "workspace id (UUID; default: new)")
	ws := fs.String("workspace", "", "workspace id")
	env := fs.String("env", "", "sandbox or live")
	scopes := fs.String("scopes", "", "comma-separated scopes: "+fmt.Sprint(auth.AllScopes))
	keyID := fs.String("key-id", "", "key id (key_...)")
	grace := fs.Duration("grace", 0, "rotation: how long the old key or webhook secret keeps working (0 = stop now; webhook default "+
		operator.DefaultWebhookGrace.String()+")")
	email := fs.String("email", "", "user email")
	user := fs.String("user", "", "user id (UUID)")
	role := fs.String("role", "", "role: viewer, developer, admin or owner")
	ttl := fs.Duration("ttl", 12*time.Hour, "session lifetime (at most "+operator.MaxSessionTTL.String()+")")
	token := fs.String("token", "", "session token (the takapay_session cookie value)")
	if err := fs.Parse(flagArgs); err != nil {
		return errUsage
	}
	graceSet := false
	fs.Visit(func(f *flag.Flag) { graceSet = graceSet || f.Name == "grace" })
	need := func(vals ...string) error {
		for i := 0; i < len(vals); i += 2 {
			if strings.TrimSpace(vals[i+1]) == "" {
				return fmt.Errorf("--%s is required", vals[i])
			}
		}
		return nil
	}
	webhookEnv := func() (auth.Environment, error) {
		if err := need("workspace", *ws, "env", *env); err != nil {
			return "", err
		}
		e, ok := auth.ParseEnvironment(*env)
		if !ok {
			return "", errors.New("--env must be sandbox or live")
		}
		return e, nil
	}
	switch command {
	case "workspace create":
		if err := need("name", *name); err != nil {
			return err
		}
		w, err := op.CreateWorkspace(ctx, *id, *name)
		if err != nil {
			return err
		}
		return out.print(w, fmt.Sprintf("workspace_id: %s\nname: %s\n", w.ID, w.Name))
	case "workspace list":
		list, err := store.ListWorkspaces(ctx)
		if err != nil {
			return err
		}
		return out.table(list, []string{"WORKSPACE_ID", "NAME", "CREATED_AT"}, func(yield func([]string)) {
			for _, w := range list {
				yield([]string{w.ID, w.Name, w.CreatedAt.Format(time.RFC3339)})
			}
		})
	case "key issue":
		if err := need("workspace", *ws, "env", *env, "scopes", *scopes); err != nil {
			return err
		}
		e, ok := auth.ParseEnvironment(*env)
		if !ok {
			return errors.New("--env must be sandbox or live")
		}
		sc, err := operator.ParseScopes(*scopes)
		if err != nil {
			return err
		}
		k, err := op.IssueKey(ctx, *ws, e, sc, *name)
		if err != nil {
			return err
		}
		return out.issued(k)
	case "key list":
		if err := need("workspace", *ws); err != nil {
			return err
		}
		keys, err := op.ListKeys(ctx, *ws)
		if err != nil {
			return err
		}
		return out.table(keyViews(keys), []string{"KEY_ID", "ENV", "SCOPES", "HINT", "NAME", "CREATED_AT", "STATE"}, func(yield func([]string)) {
			for _, k := range keyViews(keys) {
				yield([]string{k.KeyID, k.Environment, strings.Join(k.Scopes, ","), k.Hint, k.Name, k.CreatedAt, k.State})
			}
		})
	case "key rotate":
		if err := need("workspace", *ws, "key-id", *keyID); err != nil {
			return err
		}
		k, err := op.RotateKey(ctx, *ws, *keyID, *grace)
		if err != nil {
			return err
		}
		if *grace > 0 {
			fmt.Fprintf(stderr, "old key %s keeps working for %s\n", *keyID, *grace)
		} else {
			fmt.Fprintf(stderr, "old key %s is revoked\n", *keyID)
		}
		return out.issued(k)
	case "key revoke":
		if err := need("workspace", *ws, "key-id", *keyID); err != nil {
			return err
		}
		if err := op.RevokeKey(ctx, *ws, *keyID); err != nil {
			return err
		}
		return out.print(map[string]string{"revoked": *keyID}, "revoked: "+*keyID+"\n")
	case "user create":
		if err := need("email", *email); err != nil {
			return err
		}
		u, err := op.CreateUser(ctx, *email)
		if err != nil {
			return err
		}
		return out.print(u, fmt.Sprintf("user_id: %s\nemail: %s\n", u.ID, u.Email))
	case "user grant":
		if err := need("user", *user, "workspace", *ws, "role", *role); err != nil {
			return err
		}
		r, ok := auth.ParseRole(*role)
		if !ok {
			return fmt.Errorf("--role must be one of %s", roleList())
		}
		m, err := op.Grant(ctx, *user, *ws, r)
		if err != nil {
			return err
		}
		v := map[string]string{"user_id": m.UserID, "workspace_id": m.WorkspaceID, "role": string(m.Role),
			"since": m.CreatedAt.Format(time.RFC3339)}
		return out.print(v, fmt.Sprintf("user_id: %s\nworkspace_id: %s\nrole: %s\n", m.UserID, m.WorkspaceID, m.Role))
	case "user list":
		if err := need("workspace", *ws); err != nil {
			return err
		}
		members, err := op.ListMembers(ctx, *ws)
		if err != nil {
			return err
		}
		return out.table(members, []string{"USER_ID", "EMAIL", "ROLE", "SINCE"}, func(yield func([]string)) {
			for _, m := range members {
				yield([]string{m.UserID, m.Email, string(m.Role), m.Since.Format(time.RFC3339)})
			}
		})
	case "session create":
		if err := need("user", *user); err != nil {
			return err
		}
		sess, err := op.CreateSession(ctx, *user, *ttl)
		if err != nil {
			return err
		}
		return out.session(sess)
	case "session revoke":
		if err := need("token", *token); err != nil {
			return err
		}
		rec, err := op.RevokeSession(ctx, *token)
		if err != nil {
			return err
		}
		return out.print(map[string]string{"revoked": "session", "user_id": rec.UserID},
			"revoked: session of user "+rec.UserID+"\n")
	case "webhook secret issue":
		e, err := webhookEnv()
		if err != nil {
			return err
		}
		sec, err := op.IssueWebhookSecret(ctx, *ws, e)
		if err != nil {
			return sealingHint(err)
		}
		return out.webhookSecret(sec)
	case "webhook secret rotate":
		e, err := webhookEnv()
		if err != nil {
			return err
		}
		g := *grace
		if !graceSet {
			g = operator.DefaultWebhookGrace
		}
		sec, err := op.RotateWebhookSecret(ctx, *ws, e, g)
		if err != nil {
			return sealingHint(err)
		}
		if len(sec.Previous) == 0 {
			fmt.Fprintln(stderr, "previous webhook secrets stopped signing now")
		}
		for _, p := range sec.Previous {
			fmt.Fprintf(stderr, "previous webhook secret %s keeps signing until %s\n", p.ID, p.ExpiresAt.Format(time.RFC3339))
		}
		return out.webhookSecret(sec)
	case "webhook secret list":
		e, err := webhookEnv()
		if err != nil {
			return err
		}
		list, err := op.ListWebhookSecrets(ctx, *ws, e)
		if err != nil {
			return err
		}
		views := webhookSecretViews(list)
		return out.table(views, []string{"SECRET_ID", "CREATED_AT", "STATE"}, func(yield func([]string)) {
			for _, v := range views {
				yield([]string{v.ID, v.CreatedAt, v.State})
			}
		})
	}
	return errUsage
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
		return nil, errors.New("--kms-key (or $" + app.EnvWebhookSecretsKeyID + ") and $" + app.EnvLocalSealingKey +
			" are both set: unset " + app.EnvLocalSealingKey + " to use KMS")
	}
	return sealer, err
}

func sealingHint(err error) error {
	if errors.Is(err, webhook.ErrNoSealer) {
		return errors.New("no key to seal the webhook secret with: pass --kms-key <stack output WebhookSecretsKeyArn> (or set " +
			app.EnvWebhookSecretsKeyID + "); against the local stack, source .dev/stack.env")
	}
	return err
}

func roleList() string {
	names := make([]string, 0, len(auth.AllRoles))
	for _, r := range auth.AllRoles {
		names = append(names, string(r))
	}
	return strings.Join(names, ", ")
}

type keyView struct {
	KeyID       string   `json:"key_id"`
	Environment string   `json:"environment"`
	Scopes      []string `json:"scopes"`
	Hint        string   `json:"hint"`
	Name        string   `json:"name,omitempty"`
	CreatedAt   string   `json:"created_at"`
	State       string   `json:"state"`
}

func keyViews(keys []*auth.KeyRecord) []keyView {
	now := time.Now()
	out := make([]keyView, 0, len(keys))
	for _, k := range keys {
		state := "active"
		switch {
		case k.RevokedAt != nil:
			state = "revoked"
		case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
			state = "expired"
		case k.ExpiresAt != nil:
			state = "expires " + k.ExpiresAt.Format(time.RFC3339)
		}
		sc := make([]string, 0, len(k.Scopes))
		for _, s := range k.Scopes {
			sc = append(sc, string(s))
		}
		out = append(out, keyView{k.KeyID, string(k.Environment), sc, k.Hint, k.Name, k.CreatedAt.Format(time.RFC3339), state})
	}
	return out
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
	// State is "current" or "expires <RFC 3339 time>" (listings show active secrets only),
	// followed by "; unsealed: rotate --grace 0" for a secret an older release stored as text.
	State string `json:"state"`
}

func webhookSecretViews(list []operator.WebhookSecretInfo) []webhookSecretView {
	out := make([]webhookSecretView, 0, len(list))
	for _, s := range list {
		v := webhookSecretView{ID: s.ID, CreatedAt: s.CreatedAt.Format(time.RFC3339), State: "current"}
		if s.ExpiresAt != nil {
			v.ExpiresAt = s.ExpiresAt.Format(time.RFC3339)
			v.State = "expires " + v.ExpiresAt
		}
		if s.Unsealed {
			v.State += "; unsealed: rotate --grace 0"
		}
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
		Token     string `json:"token"`
		Cookie    string `json:"cookie"`
		UserID    string `json:"user_id"`
		CreatedAt string `json:"created_at"`
		ExpiresAt string `json:"expires_at"`
	}{s.Token, cookie, s.Record.UserID, s.Record.CreatedAt.Format(time.RFC3339), s.Record.ExpiresAt.Format(time.RFC3339)}
	return p.print(v, fmt.Sprintf("user_id: %s\nexpires_at: %s\ntoken: %s\n\n"+
		"The token is shown once and stored only as a hash. Keep it secret. It is the value of the\n"+
		"%s cookie, e.g.:\n"+
		"  curl -b %s \"$API/v1/workspaces/<workspace_id>/documents/invoices?environment=sandbox\"\n"+
		"Writes (POST, PATCH) also need -H \"Origin: <one of DASHBOARD_ORIGINS>\".\n",
		s.Record.UserID, v.ExpiresAt, s.Token, auth.SessionCookie, cookie))
}
