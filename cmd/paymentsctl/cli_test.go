package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
)

// runNoStore runs the CLI with no store: it would have to open one itself.
func runNoStore(args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	err = run(context.Background(), args, &out, &errw, nil)
	return out.String(), errw.String(), err
}

// noTable makes sure the CLI has no table and no usable AWS configuration.
func noTable(t *testing.T) {
	t.Setenv("TABLE_NAME", "")
	t.Setenv("AWS_PROFILE", "paymentsctl-test-no-such-profile")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
}

var flagName = regexp.MustCompile(`--([a-z][a-z-]*)`)

// flagNames returns the flag names text mentions, sorted and without duplicates.
func flagNames(text string) []string {
	var names []string
	for _, m := range flagName.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Every command's --help (or -h) shows that command's usage and only its own flags, needs no
// table, and succeeds.
func TestCommandHelp(t *testing.T) {
	noTable(t)
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			words := strings.Fields(cmd.name)
			variants := [][]string{
				append(slices.Clone(words), "--help"),
				append(slices.Clone(words), "-h"),
				append([]string{"--json"}, append(slices.Clone(words), "-help")...),
			}
			names := slices.DeleteFunc(flagNames(cmd.synopsis), func(n string) bool { return n == "grace" || n == "ttl" })
			if len(names) > 0 {
				// After a flag, even with a value nothing checks.
				variants = append(variants, append(slices.Clone(words), "--"+names[0], "not-checked", "--help"))
			}
			var first string
			for _, args := range variants {
				out, stderr, err := runNoStore(args...)
				if err != nil || exitCode(err) != 0 || stderr != "" {
					t.Fatalf("paymentsctl %q = %v (exit code %d), stderr %q", args, err, exitCode(err), stderr)
				}
				if first == "" {
					first = out
				} else if out != first {
					t.Errorf("paymentsctl %q help differs from %q's:\n%s", args, words, out)
				}
			}
			if !strings.HasPrefix(first, "usage: paymentsctl "+cmd.line()+"\n") || !strings.Contains(first, cmd.summary) {
				t.Errorf("help of %s does not start with its usage and summary:\n%s", cmd.name, first)
			}
			own, global, ok := strings.Cut(first, "\nglobal flags")
			if !ok {
				t.Fatalf("help of %s has no global flags section:\n%s", cmd.name, first)
			}
			// The flags described are exactly those in the command's synopsis.
			described := flagNames(strings.SplitN(own, "\nflags:\n", 2)[1])
			if want := flagNames(cmd.synopsis); !slices.Equal(described, want) {
				t.Errorf("help of %s describes flags %v, want %v:\n%s", cmd.name, described, want, first)
			}
			if got := flagNames(global); !slices.Equal(got, []string{"endpoint", "json", "kms-key", "queue", "table"}) {
				t.Errorf("help of %s: global flags %v", cmd.name, got)
			}
		})
	}
}

// Every flag a command accepts is in its synopsis, and nothing else is.
func TestSynopsisNamesEveryFlag(t *testing.T) {
	for _, cmd := range commands {
		fs := newFlagSet(cmd.name)
		c := &ctl{cmd: cmd, stdout: &bytes.Buffer{}}
		c.globalFlags(fs)
		if err := cmd.run(c, fs, []string{"--help"}); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s --help = %v", cmd.name, err)
		}
		var defined []string
		fs.VisitAll(func(f *flag.Flag) {
			if !slices.Contains(globalNames, f.Name) {
				defined = append(defined, f.Name)
			}
		})
		if want := flagNames(cmd.synopsis); !slices.Equal(defined, want) {
			t.Errorf("%s defines flags %v; its synopsis names %v", cmd.name, defined, want)
		}
	}
}

func TestOverallUsage(t *testing.T) {
	noTable(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"--json", "--help"}} {
		out, stderr, err := runNoStore(args...)
		if err != nil || stderr != "" {
			t.Errorf("paymentsctl %q = %v, stderr %q", args, err, stderr)
		}
		for _, cmd := range commands {
			if !strings.Contains(out, "  "+cmd.line()+"\n        "+cmd.summary+"\n") {
				t.Errorf("paymentsctl %q does not list %s:\n%s", args, cmd.name, out)
			}
		}
	}

	// No arguments: a usage error, with the usage after the message.
	out, _, err := runNoStore()
	var msg bytes.Buffer
	if code := report(&msg, err); code != 2 || out != "" || !strings.HasPrefix(msg.String(), "paymentsctl: no command\n\nusage: paymentsctl ") {
		t.Errorf("no arguments: exit code %d, stdout %q, reported:\n%s", code, out, msg.String())
	}
	for _, cmd := range commands {
		if !strings.Contains(msg.String(), cmd.line()) {
			t.Errorf("usage after no arguments lacks %s", cmd.name)
		}
	}

	// A group of commands: its --help lists them only; without a subcommand, a usage error.
	out, _, err = runNoStore("webhook", "secret", "--help")
	if err != nil || !strings.Contains(out, "webhook secret issue") || !strings.Contains(out, "webhook secret rotate") ||
		!strings.Contains(out, "webhook secret list") || strings.Contains(out, "key issue") || strings.Contains(out, "user create") {
		t.Errorf("webhook secret --help = %v:\n%s", err, out)
	}
	out, _, err = runNoStore("key")
	msg.Reset()
	if code := report(&msg, err); code != 2 || out != "" || !strings.Contains(msg.String(), `paymentsctl: "key" needs a subcommand`) ||
		!strings.Contains(msg.String(), "key revoke --workspace ID") || strings.Contains(msg.String(), "user create") {
		t.Errorf("key: exit code %d, reported:\n%s", code, msg.String())
	}
}

// An unknown command says so, shows the overall usage and exits 2; it needs no table.
func TestUnknownCommand(t *testing.T) {
	noTable(t)
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"foo", "bar"}, "foo bar"},
		{[]string{"--json", "foo", "bar", "--workspace", "x"}, "foo bar"},
		{[]string{"foo"}, "foo"},
		{[]string{"key", "frob"}, "key frob"},
		{[]string{"webhook", "secrets", "issue", "--workspace", "x"}, "webhook secrets issue"},
		{[]string{"keys", "list", "extra", "words"}, "keys list extra"},
	} {
		out, stderr, err := runNoStore(tc.args...)
		var ue *usageError
		if !errors.As(err, &ue) || err.Error() != fmt.Sprintf("unknown command %q", tc.name) {
			t.Errorf("paymentsctl %q = %v, want unknown command %q", tc.args, err, tc.name)
			continue
		}
		var msg bytes.Buffer
		code := report(&msg, err)
		want := fmt.Sprintf("paymentsctl: unknown command %q\n\nusage: paymentsctl ", tc.name)
		if code != 2 || exitCode(err) != 2 || !strings.HasPrefix(msg.String(), want) || !strings.Contains(msg.String(), commands[len(commands)-1].line()) {
			t.Errorf("paymentsctl %q: exit code %d, reported:\n%s", tc.args, code, msg.String())
		}
		if out != "" || stderr != "" {
			t.Errorf("paymentsctl %q printed stdout %q, stderr %q", tc.args, out, stderr)
		}
	}
}

func TestExitCode(t *testing.T) {
	notFound := fmt.Errorf("workspace x: %w", dynamo.ErrNotFound)
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{&usageError{msg: "--workspace is required"}, 2},
		{fmt.Errorf("wrapped: %w", &usageError{msg: "bad"}), 2},
		{notFound, 1},
		{fmt.Errorf("user x: %w", dynamo.ErrEmailTaken), 1},
		{errors.New("ResourceNotFoundException"), 1},
		{context.DeadlineExceeded, 1},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
	// report prints the error, and the usage only after a usage error.
	var b bytes.Buffer
	if code := report(&b, nil); code != 0 || b.Len() != 0 {
		t.Errorf("report(nil) = %d, printed %q", code, b.String())
	}
	if code := report(&b, notFound); code != 1 || b.String() != "paymentsctl: workspace x: not found\n" {
		t.Errorf("report(not found) = %d, printed %q", code, b.String())
	}
	b.Reset()
	if code := report(&b, &usageError{"--name is required", "usage: paymentsctl workspace create\n"}); code != 2 ||
		b.String() != "paymentsctl: --name is required\n\nusage: paymentsctl workspace create\n" {
		t.Errorf("report(usage error) = %d, printed %q", code, b.String())
	}
}

// The --table flag after the command words is the same setting as before them.
func TestTableFlagAfterCommand(t *testing.T) {
	noTable(t)
	t.Setenv("TABLE_NAME", "from-the-environment")
	_, _, err := runNoStore("--table", "before", "workspace", "list", "--table", "")
	if err == nil || !strings.Contains(err.Error(), "no table") || exitCode(err) != 2 {
		t.Errorf("--table \"\" after the command = %v, want the no-table usage error", err)
	}
}

// --json (and every global flag) works after the command words too.
func TestJSONAfterCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	k := c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:read")

	before, _ := c.ok(t, "--json", "key", "list", "--workspace", ws)
	for _, args := range [][]string{
		{"key", "list", "--workspace", ws, "--json"},
		{"key", "list", "--json", "--workspace", ws},
		{"key", "list", "--json=true", "--workspace", ws},
	} {
		if out, _ := c.ok(t, args...); out != before {
			t.Errorf("paymentsctl %q =\n%s\nwant the same as --json before the command:\n%s", args, out, before)
		}
	}
	var list []listedKey
	if err := json.Unmarshal([]byte(before), &list); err != nil || len(list) != 1 || list[0].KeyID != k.KeyID {
		t.Errorf("key list --json = %s (%v)", before, err)
	}
	// The last setting wins, wherever it is.
	if out, _ := c.ok(t, "--json", "key", "list", "--workspace", ws, "--json=false"); !strings.HasPrefix(out, "KEY_ID") {
		t.Errorf("--json=false after the command printed:\n%s", out)
	}

	out, _ := c.ok(t, "user", "create", "--email", "json@example.com", "--json")
	var u map[string]any
	if err := json.Unmarshal([]byte(out), &u); err != nil || u["email"] != "json@example.com" {
		t.Errorf("user create --json = %s (%v)", out, err)
	}
	if out, _ := c.ok(t, "webhook", "secret", "list", "--workspace", ws, "--env", "live", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("webhook secret list --json = %s", out)
	}
}

// countUsers counts the user items in the table.
func (c *cli) countUsers(t *testing.T) int {
	t.Helper()
	out, err := c.stack.DDB.Scan(c.ctx, &dynamodb.ScanInput{
		TableName: aws.String(c.store.Table), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("sk = :u"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":u": &types.AttributeValueMemberS{Value: "USER"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

// An email already registered, in any letter case, is refused (exit code 1); of concurrent
// creations with one email exactly one succeeds.
func TestUserCreateDuplicateEmail(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	first := c.createUser(t, "Rahim@Example.com.bd")
	for _, dup := range []string{"Rahim@Example.com.bd", "rahim@example.com.bd", "RAHIM@EXAMPLE.COM.BD", "  rahim@Example.COM.bd "} {
		out, _, err := c.run("user", "create", "--email", dup)
		if !errors.Is(err, dynamo.ErrEmailTaken) || !strings.Contains(err.Error(), "already registered") || exitCode(err) != 1 || out != "" {
			t.Errorf("user create --email %q = %v (exit code %d), stdout %q; want already registered, 1", dup, err, exitCode(err), out)
		}
	}
	if u, err := c.store.GetUser(c.ctx, first); err != nil || u.Email != "Rahim@Example.com.bd" {
		t.Errorf("first user = %+v, %v", u, err)
	}
	c.createUser(t, "karim@example.com.bd")

	const rounds = 5
	for i := range rounds {
		email := fmt.Sprintf("pair%d@example.com", i)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for j, e := range []string{email, strings.ToUpper(email)} {
			wg.Go(func() {
				<-start
				_, _, errs[j] = c.run("--json", "user", "create", "--email", e)
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, dynamo.ErrEmailTaken) || exitCode(err) != 1:
				t.Errorf("concurrent user create %s: %v (exit code %d)", email, err, exitCode(err))
			}
		}
		if ok != 1 {
			t.Errorf("round %d: %d of 2 concurrent creations of %s succeeded, want 1 (%v)", i, ok, email, errs)
		}
	}
	if n := c.countUsers(t); n != 2+rounds {
		t.Errorf("the table holds %d users, want %d", n, 2+rounds)
	}
}

// In JSON, state is a machine value and each time has a field of its own.
func TestKeyJSONStates(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	issue := func() issuedJSON {
		return c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:read")
	}
	active, revoked, graced, expired := issue(), issue(), issue(), issue()

	// A new key: active, and no revoked_at or expires_at at all.
	out, _ := c.ok(t, "key", "issue", "--workspace", ws, "--env", "live", "--scopes", "payments:read", "--json")
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw["state"] != "active" {
		t.Fatalf("key issue --json = %s (%v)", out, err)
	}
	for _, f := range []string{"revoked_at", "expires_at"} {
		if _, ok := raw[f]; ok {
			t.Errorf("a new key has %s: %s", f, out)
		}
	}

	c.ok(t, "key", "revoke", "--workspace", ws, "--key-id", revoked.KeyID)
	_, stderr := c.ok(t, "key", "rotate", "--workspace", ws, "--key-id", graced.KeyID, "--grace", "1h")
	if !strings.Contains(stderr, "keeps working for 1h0m0s") {
		t.Errorf("rotate stderr = %q", stderr)
	}
	c.ok(t, "key", "rotate", "--workspace", ws, "--key-id", expired.KeyID, "--grace", "1ms")
	time.Sleep(20 * time.Millisecond)

	m := c.listJSON(t, ws)
	rfc := func(tm *time.Time) string { return tm.Format(time.RFC3339) }
	for _, tc := range []struct {
		key                      issuedJSON
		state, revokedAt, expiry string
	}{
		{active, "active", "", ""},
		{revoked, "revoked", rfc(c.record(t, revoked.Key).RevokedAt), ""},
		{graced, "active", "", rfc(c.record(t, graced.Key).ExpiresAt)},
		{expired, "expired", "", rfc(c.record(t, expired.Key).ExpiresAt)},
	} {
		got := m[tc.key.KeyID]
		if got.State != tc.state || got.RevokedAt != tc.revokedAt || got.ExpiresAt != tc.expiry {
			t.Errorf("key %s = state %q revoked_at %q expires_at %q; want %q %q %q",
				tc.key.KeyID, got.State, got.RevokedAt, got.ExpiresAt, tc.state, tc.revokedAt, tc.expiry)
		}
	}
	// Text keeps saying it for people.
	out, _ = c.ok(t, "key", "list", "--workspace", ws)
	for _, want := range []string{expired.KeyID + " ", "expired", "revoked", "expires " + m[graced.KeyID].ExpiresAt} {
		if !strings.Contains(out, want) {
			t.Errorf("text key list lacks %q:\n%s", want, out)
		}
	}

	// Revoked beats expired; both times are kept.
	c.ok(t, "key", "revoke", "--workspace", ws, "--key-id", expired.KeyID)
	if got := c.listJSON(t, ws)[expired.KeyID]; got.State != "revoked" || got.RevokedAt == "" || got.ExpiresAt == "" {
		t.Errorf("expired, then revoked key = %+v", got)
	}
}

func TestSessionRevokeJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	u := c.createUser(t, "s@example.com")
	var s sessionJSON
	out, _ := c.ok(t, "session", "create", "--user", u, "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	out, _ = c.ok(t, "session", "revoke", "--token", s.Token, "--json")
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	hash, _ := auth.ParseSessionToken(s.Token)
	rec, err := c.store.GetSession(c.ctx, hash)
	if err != nil || rec == nil || rec.RevokedAt == nil {
		t.Fatalf("stored session = %+v, %v", rec, err)
	}
	if v["state"] != "revoked" || v["revoked_at"] != rec.RevokedAt.Format(time.RFC3339) || v["user_id"] != u {
		t.Errorf("session revoke --json = %s", out)
	}
}

// The JSON views derive state from the record's times.
func TestViewStates(t *testing.T) {
	now := time.Now().UTC()
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	key := func(revoked, expires *time.Time) keyView {
		return keyViews([]*auth.KeyRecord{{KeyID: "key_x", CreatedAt: now, RevokedAt: revoked, ExpiresAt: expires}})[0]
	}
	for _, tc := range []struct {
		v                                 keyView
		state, revokedAt, expiresAt, text string
	}{
		{key(nil, nil), "active", "", "", "active"},
		{key(nil, &future), "active", "", future.Format(time.RFC3339), "expires " + future.Format(time.RFC3339)},
		{key(nil, &past), "expired", "", past.Format(time.RFC3339), "expired"},
		{key(&past, nil), "revoked", past.Format(time.RFC3339), "", "revoked"},
		{key(&past, &past), "revoked", past.Format(time.RFC3339), past.Format(time.RFC3339), "revoked"},
	} {
		if tc.v.State != tc.state || tc.v.RevokedAt != tc.revokedAt || tc.v.ExpiresAt != tc.expiresAt || tc.v.text() != tc.text {
			t.Errorf("key view %+v (text %q), want state %q revoked_at %q expires_at %q text %q",
				tc.v, tc.v.text(), tc.state, tc.revokedAt, tc.expiresAt, tc.text)
		}
	}

	views := webhookSecretViews([]operator.WebhookSecretInfo{
		{ID: "whk_current", CreatedAt: now},
		{ID: "whk_grace", CreatedAt: past, ExpiresAt: &future},
		{ID: "whk_gone", CreatedAt: past, ExpiresAt: &past},
	})
	want := []struct {
		state   string
		current bool
		expires string
		text    string
	}{
		{"active", true, "", "current"},
		{"active", false, future.Format(time.RFC3339), "expires " + future.Format(time.RFC3339)},
		{"expired", false, past.Format(time.RFC3339), "expired"},
	}
	for i, v := range views {
		if w := want[i]; v.State != w.state || v.Current != w.current || v.ExpiresAt != w.expires || v.text() != w.text {
			t.Errorf("webhook secret view %+v (text %q), want %+v", v, v.text(), w)
		}
	}
	b, _ := json.Marshal(views[0])
	if strings.Contains(string(b), "expires_at") {
		t.Errorf("the current secret's JSON has expires_at: %s", b)
	}
}

// The package documentation's usage block lists exactly the commands, as the usage does.
func TestDocCommentMatchesCommands(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "\npackage main")
	var lines []string
	for line := range strings.Lines(doc) {
		if l, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "//\t"); ok && !strings.HasPrefix(l, "paymentsctl ") {
			lines = append(lines, l)
		}
	}
	var want []string
	for _, cmd := range commands {
		want = append(want, cmd.line())
	}
	if !slices.Equal(lines, want) {
		t.Errorf("doc comment usage lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(doc, "//\tpaymentsctl [--table NAME] [--endpoint URL] [--json] COMMAND [FLAGS]\n") ||
		!strings.Contains(usage(commands), "usage: paymentsctl [--table NAME] [--endpoint URL] [--json] COMMAND [FLAGS]\n") {
		t.Error("the doc comment and the usage disagree on the synopsis")
	}
}
