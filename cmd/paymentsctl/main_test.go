package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/webhook"
)

type cli struct {
	stack  *devstack.Stack
	store  *dynamo.Store
	sealer webhook.Sealer
	ctx    context.Context
	// queue and urls are webhook resend's queue and webhook test's URL rules (nil: the
	// CLI's own, from --queue).
	queue webhook.Enqueuer
	urls  urlcheck.Policy
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	stack := devstack.StartTestStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	sealer, err := kmsseal.NewLocal(stack.SealingKey)
	if err != nil {
		t.Fatal(err)
	}
	return &cli{stack: stack, store: &dynamo.Store{DB: stack.DDB, Table: stack.TableName("Table")}, sealer: sealer, ctx: ctx}
}

// run runs the CLI in-process against the test store, sealing with the stack's local key.
func (c *cli) run(args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	err = run(c.ctx, args, &out, &errw, &operator.Operator{Store: c.store, Sealer: c.sealer, Queue: c.queue, URLs: c.urls})
	return out.String(), errw.String(), err
}

// ok runs the CLI and fails the test on an error.
func (c *cli) ok(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := c.run(args...)
	if err != nil {
		t.Fatalf("paymentsctl %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return stdout, stderr
}

// fields parses "name: value" lines.
func fields(text string) map[string]string {
	out := map[string]string{}
	for line := range strings.Lines(text) {
		if k, v, ok := strings.Cut(strings.TrimRight(line, "\n"), ": "); ok {
			out[k] = v
		}
	}
	return out
}

func (c *cli) createWorkspace(t *testing.T, name string) string {
	t.Helper()
	out, _ := c.ok(t, "workspace", "create", "--name", name)
	id := fields(out)["workspace_id"]
	if id == "" {
		t.Fatalf("workspace create printed no workspace_id:\n%s", out)
	}
	return id
}

// issuedJSON is the --json output of key issue and key rotate.
type issuedJSON struct {
	Key         string   `json:"key"`
	KeyID       string   `json:"key_id"`
	Environment string   `json:"environment"`
	Scopes      []string `json:"scopes"`
	Hint        string   `json:"hint"`
	Name        string   `json:"name"`
	CreatedAt   string   `json:"created_at"`
	State       string   `json:"state"`
}

func (c *cli) issueJSON(t *testing.T, args ...string) issuedJSON {
	t.Helper()
	out, _ := c.ok(t, append([]string{"--json", "key", "issue"}, args...)...)
	var k issuedJSON
	if err := json.Unmarshal([]byte(out), &k); err != nil {
		t.Fatalf("key issue --json output is not JSON: %v\n%s", err, out)
	}
	return k
}

func (c *cli) record(t *testing.T, plaintext string) *auth.KeyRecord {
	t.Helper()
	_, hash, err := auth.ParseKey(plaintext)
	if err != nil {
		t.Fatalf("auth.ParseKey(%q): %v", plaintext, err)
	}
	rec, err := c.store.GetKey(c.ctx, hash)
	if err != nil || rec == nil {
		t.Fatalf("no stored record under the key's hash: %+v, %v", rec, err)
	}
	return rec
}

type listedKey struct {
	KeyID       string   `json:"key_id"`
	Environment string   `json:"environment"`
	Scopes      []string `json:"scopes"`
	Hint        string   `json:"hint"`
	Name        string   `json:"name"`
	CreatedAt   string   `json:"created_at"`
	State       string   `json:"state"`
	RevokedAt   string   `json:"revoked_at"`
	ExpiresAt   string   `json:"expires_at"`
	CreatedBy   string   `json:"created_by"`
	LastUsedOn  string   `json:"last_used_on"`
}

func (c *cli) listJSON(t *testing.T, ws string) map[string]listedKey {
	t.Helper()
	out, _ := c.ok(t, "--json", "key", "list", "--workspace", ws)
	var list []listedKey
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("key list --json: %v\n%s", err, out)
	}
	m := map[string]listedKey{}
	for _, k := range list {
		m[k.KeyID] = k
	}
	return m
}

func TestWorkspaceCreate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)

	out, _ := c.ok(t, "workspace", "create", "--name", "Acme Ltd")
	f := fields(out)
	if f["name"] != "Acme Ltd" {
		t.Errorf("name line = %q in\n%s", f["name"], out)
	}
	if _, err := uuid.Parse(f["workspace_id"]); err != nil || len(f["workspace_id"]) != 36 {
		t.Fatalf("workspace_id %q is not a UUID", f["workspace_id"])
	}
	w, err := c.store.GetWorkspace(c.ctx, f["workspace_id"])
	if err != nil || w.Name != "Acme Ltd" {
		t.Fatalf("stored workspace = %+v, %v", w, err)
	}

	// Given id, JSON output: a JSON object that carries the id and the name.
	id := uuid.NewString()
	out, _ = c.ok(t, "--json", "workspace", "create", "--name", "Beta", "--id", id)
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("--json workspace create output is not a JSON object: %v\n%s", err, out)
	}
	var values []any
	for _, v := range obj {
		values = append(values, v)
	}
	if !slices.Contains(values, any(id)) || !slices.Contains(values, any("Beta")) {
		t.Errorf("--json workspace create = %s, want the id %s and the name", out, id)
	}
	if w, err := c.store.GetWorkspace(c.ctx, id); err != nil || w.Name != "Beta" {
		t.Errorf("stored workspace = %+v, %v", w, err)
	}

	// The same id again fails, and so do a bad id and a too long name.
	for _, args := range [][]string{
		{"workspace", "create", "--name", "Again", "--id", id},
		{"workspace", "create", "--name", "Bad", "--id", "nope"},
		{"workspace", "create", "--name", strings.Repeat("x", 161)},
	} {
		if out, _, err := c.run(args...); err == nil {
			t.Errorf("paymentsctl %v succeeded:\n%s", args, out)
		}
	}
}

// Regression (fixed): `--json workspace create` (and `--json workspace list`) print auth.Workspace, which has
// only dynamodbav tags, so the JSON keys are the Go field names {"ID","Name","CreatedAt"}; the
// text output says "workspace_id:" and every other --json output of the CLI uses snake_case
// ("key_id", "created_at"), so `paymentsctl --json workspace create ... | jq -r .workspace_id`
// prints null.
func TestWorkspaceJSONFieldNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out, _ := c.ok(t, "--json", "workspace", "create", "--name", "Json")
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"workspace_id", "name", "created_at"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("--json workspace create has no %q key: %s", k, out)
		}
	}
}

func TestWorkspaceList(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out, _ := c.ok(t, "workspace", "list")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "WORKSPACE_ID") {
		t.Errorf("empty list = %q, want only the header", out)
	}

	a := c.createWorkspace(t, "Alpha Traders")
	b := c.createWorkspace(t, "Beta")
	// A key is in the table too; it is not a workspace.
	c.issueJSON(t, "--workspace", a, "--env", "sandbox", "--scopes", "payments:read")

	out, _ = c.ok(t, "workspace", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "WORKSPACE_ID") || !strings.Contains(lines[0], "NAME") {
		t.Fatalf("workspace list =\n%s", out)
	}
	byID := map[string]string{}
	for _, l := range lines[1:] {
		id, rest, _ := strings.Cut(l, " ")
		byID[id] = strings.TrimSpace(rest)
	}
	if !strings.HasPrefix(byID[a], "Alpha Traders ") || !strings.HasPrefix(byID[b], "Beta ") {
		t.Errorf("workspace list rows = %q", byID)
	}

	out, _ = c.ok(t, "--json", "workspace", "list")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("--json workspace list: %v\n%s", err, out)
	}
	if len(list) != 2 {
		t.Errorf("--json workspace list has %d entries, want 2:\n%s", len(list), out)
	}
}

func TestKeyIssue(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")

	// Text output.
	before := time.Now().UTC()
	out, _ := c.ok(t, "key", "issue", "--workspace", ws, "--env", "live", "--scopes", "payments:write, payments:read,payments:write", "--name", "web")
	f := fields(out)
	env, hash, err := auth.ParseKey(f["key"])
	if err != nil || env != auth.Live {
		t.Fatalf("printed key %q: env %s, %v", f["key"], env, err)
	}
	if f["environment"] != "live" || f["scopes"] != "payments:write,payments:read" || !strings.HasPrefix(f["key_id"], "key_") {
		t.Errorf("key issue output =\n%s", out)
	}
	rec := c.record(t, f["key"])
	if rec.Hash != hash || rec.KeyID != f["key_id"] || rec.WorkspaceID != ws || rec.Name != "web" ||
		rec.Environment != auth.Live || rec.CreatedAt.Before(before) || !rec.Active(time.Now()) {
		t.Errorf("stored record = %+v", rec)
	}

	// JSON output.
	k := c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:read")
	env, hash, err = auth.ParseKey(k.Key)
	if err != nil || env != auth.Sandbox {
		t.Fatalf("--json key %q: env %s, %v", k.Key, env, err)
	}
	if hash != auth.HashKey(k.Key) {
		t.Error("ParseKey hash differs from HashKey")
	}
	rec = c.record(t, k.Key)
	if rec.KeyID != k.KeyID || rec.Hint != k.Hint || k.Hint != auth.KeyHint(k.Key) || k.Environment != "sandbox" ||
		!slices.Equal(k.Scopes, []string{"payments:read"}) || k.State != "active" || k.Name != "" {
		t.Errorf("--json key issue = %+v; stored %+v", k, rec)
	}
	if _, err := time.Parse(time.RFC3339, k.CreatedAt); err != nil {
		t.Errorf("created_at %q: %v", k.CreatedAt, err)
	}
}

func TestKeyList(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	other := c.createWorkspace(t, "Other")
	k1 := c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:write,payments:read", "--name", "first")
	k2 := c.issueJSON(t, "--workspace", ws, "--env", "live", "--scopes", "documents:read")
	ko := c.issueJSON(t, "--workspace", other, "--env", "sandbox", "--scopes", "payments:read")

	out, _ := c.ok(t, "key", "list", "--workspace", ws)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("key list =\n%s", out)
	}
	for _, h := range []string{"KEY_ID", "ENV", "SCOPES", "HINT", "NAME", "CREATED_AT", "STATE"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %s", lines[0], h)
		}
	}
	for _, k := range []issuedJSON{k1, k2} {
		row := ""
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, k.KeyID+" ") {
				row = l
			}
		}
		if row == "" || !strings.Contains(row, k.Hint) || !strings.Contains(row, " "+k.Environment+" ") || !strings.Contains(row, "active") {
			t.Errorf("row for %s = %q (hint %s)", k.KeyID, row, k.Hint)
		}
	}
	for _, k := range []issuedJSON{k1, k2, ko} {
		secret := k.Key[strings.LastIndexByte(k.Key, '_')+1:]
		if strings.Contains(out, k.Key) || strings.Contains(out, secret[:len(secret)-4]) {
			t.Errorf("key list shows the key %s itself", k.KeyID)
		}
	}
	if strings.Contains(out, ko.KeyID) {
		t.Errorf("key list of %s shows another workspace's key %s", ws, ko.KeyID)
	}

	out, _ = c.ok(t, "--json", "key", "list", "--workspace", ws)
	if strings.Contains(out, k1.Key) || strings.Contains(out, k2.Key) || strings.Contains(out, `"key"`) {
		t.Errorf("--json key list exposes a key:\n%s", out)
	}
	m := c.listJSON(t, ws)
	if len(m) != 2 || m[k1.KeyID].Hint != k1.Hint || m[k2.KeyID].Hint != k2.Hint || m[k1.KeyID].Name != "first" ||
		!slices.Equal(m[k1.KeyID].Scopes, k1.Scopes) || m[k2.KeyID].Environment != "live" {
		t.Errorf("--json key list = %+v", m)
	}
	// Who created a key, and the day it was last used (never, yet).
	if m[k1.KeyID].CreatedBy != "operator" || m[k1.KeyID].LastUsedOn != "" {
		t.Errorf("created_by / last_used_on = %+v", m[k1.KeyID])
	}
}

func TestKeyRotate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	old := c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:write,documents:write", "--name", "srv")

	// Without grace: the old key is revoked at once.
	out, stderr := c.ok(t, "key", "rotate", "--workspace", ws, "--key-id", old.KeyID)
	f := fields(out)
	if f["key"] == "" || f["key"] == old.Key || f["key_id"] == old.KeyID {
		t.Fatalf("rotate printed no new key:\n%s", out)
	}
	if !strings.Contains(stderr, old.KeyID) || !strings.Contains(stderr, "revoked") {
		t.Errorf("stderr = %q", stderr)
	}
	nk := c.record(t, f["key"])
	if nk.KeyID != f["key_id"] || nk.Name != "srv" || nk.Environment != auth.Sandbox || len(nk.Scopes) != 2 || !nk.Active(time.Now()) {
		t.Errorf("new key = %+v", nk)
	}
	if o := c.record(t, old.Key); o.RevokedAt == nil || o.Active(time.Now()) {
		t.Errorf("old key after rotate = %+v", o)
	}
	m := c.listJSON(t, ws)
	if m[old.KeyID].State != "revoked" || m[nk.KeyID].State != "active" {
		t.Errorf("states after rotate: old %q new %q", m[old.KeyID].State, m[nk.KeyID].State)
	}
	// Rotating the revoked key again fails.
	if out, _, err := c.run("key", "rotate", "--workspace", ws, "--key-id", old.KeyID); err == nil {
		t.Errorf("rotating a revoked key succeeded:\n%s", out)
	}

	// With grace, JSON: the old key keeps working until now+grace.
	before := time.Now().UTC()
	out, stderr = c.ok(t, "--json", "key", "rotate", "--workspace", ws, "--key-id", nk.KeyID, "--grace", "2h")
	after := time.Now().UTC()
	var k2 issuedJSON
	if err := json.Unmarshal([]byte(out), &k2); err != nil {
		t.Fatalf("--json rotate: %v\n%s", err, out)
	}
	if _, _, err := auth.ParseKey(k2.Key); err != nil || k2.KeyID == nk.KeyID || k2.State != "active" || k2.Name != "srv" {
		t.Errorf("--json rotate = %+v (%v)", k2, err)
	}
	if !strings.Contains(stderr, "keeps working for 2h0m0s") {
		t.Errorf("stderr = %q", stderr)
	}
	prev := c.record(t, f["key"])
	if prev.RevokedAt != nil || prev.ExpiresAt == nil || prev.ExpiresAt.Before(before.Add(2*time.Hour)) || prev.ExpiresAt.After(after.Add(2*time.Hour)) {
		t.Errorf("rotated key with grace = revoked %v expires %v", prev.RevokedAt, prev.ExpiresAt)
	}
	// In JSON the old key is still active, with its expiry in a field of its own; the text
	// listing says when it expires.
	m = c.listJSON(t, ws)
	if m[nk.KeyID].State != "active" || m[nk.KeyID].ExpiresAt != prev.ExpiresAt.Format(time.RFC3339) ||
		m[nk.KeyID].RevokedAt != "" || m[k2.KeyID].State != "active" || m[k2.KeyID].ExpiresAt != "" {
		t.Errorf("after grace rotate: old %+v, new %+v", m[nk.KeyID], m[k2.KeyID])
	}
	out, _ = c.ok(t, "key", "list", "--workspace", ws)
	if !strings.Contains(out, " expires "+m[nk.KeyID].ExpiresAt) {
		t.Errorf("text key list does not say when %s expires:\n%s", nk.KeyID, out)
	}
	if len(m) != 3 {
		t.Errorf("key list has %d keys, want 3", len(m))
	}
}

func TestKeyRevoke(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	k := c.issueJSON(t, "--workspace", ws, "--env", "live", "--scopes", "payments:read")
	keep := c.issueJSON(t, "--workspace", ws, "--env", "live", "--scopes", "payments:read")

	out, _ := c.ok(t, "key", "revoke", "--workspace", ws, "--key-id", k.KeyID)
	if out != "revoked: "+k.KeyID+"\n" {
		t.Errorf("revoke output = %q", out)
	}
	rec := c.record(t, k.Key)
	if rec.RevokedAt == nil || rec.Active(time.Now()) {
		t.Fatalf("revoked key = %+v", rec)
	}
	first := *rec.RevokedAt

	// Idempotent, JSON output.
	out, _ = c.ok(t, "--json", "key", "revoke", "--workspace", ws, "--key-id", k.KeyID)
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["revoked"] != k.KeyID {
		t.Errorf("--json revoke = %s (%v)", out, err)
	}
	if rec := c.record(t, k.Key); !rec.RevokedAt.Equal(first) {
		t.Errorf("second revoke moved revoked_at from %v to %v", first, rec.RevokedAt)
	}
	m := c.listJSON(t, ws)
	if m[k.KeyID].State != "revoked" || m[keep.KeyID].State != "active" {
		t.Errorf("states = %q, %q", m[k.KeyID].State, m[keep.KeyID].State)
	}

	// An unknown key id, or a key of another workspace, is an error.
	other := c.createWorkspace(t, "Other")
	for _, args := range [][]string{
		{"key", "revoke", "--workspace", ws, "--key-id", "key_unknown"},
		{"key", "revoke", "--workspace", other, "--key-id", keep.KeyID},
	} {
		if out, _, err := c.run(args...); err == nil {
			t.Errorf("paymentsctl %v succeeded:\n%s", args, out)
		}
	}
	if rec := c.record(t, keep.Key); rec.RevokedAt != nil {
		t.Error("revoking through another workspace revoked the key")
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ws := c.createWorkspace(t, "W")
	k := c.issueJSON(t, "--workspace", ws, "--env", "sandbox", "--scopes", "payments:read")
	// Code 2: a usage error; 1: the command line is fine but the command failed.
	cases := []struct {
		args    []string
		wantErr string
		code    int
	}{
		{nil, "no command", 2},
		{[]string{"workspace"}, `"workspace" needs a subcommand`, 2},
		{[]string{"workspace", "delete"}, `unknown command "workspace delete"`, 2},
		{[]string{"frob", "list"}, `unknown command "frob list"`, 2},
		{[]string{"key", "frob", "--workspace", ws}, `unknown command "key frob"`, 2},
		{[]string{"--nope", "workspace", "list"}, "flag provided but not defined: -nope", 2},
		{[]string{"workspace", "create", "--bogus", "x"}, "flag provided but not defined: -bogus", 2},
		{[]string{"workspace", "create", "--name", "N", "extra"}, `unexpected argument "extra"`, 2},
		{[]string{"workspace", "create", "--name", "N", "--id", "nope"}, "--id must be a UUID", 2},
		{[]string{"workspace", "create"}, "--name", 2},
		{[]string{"workspace", "create", "--name", "   "}, "--name", 2},
		{[]string{"workspace", "create", "--name", strings.Repeat("x", 161)}, "name", 1},
		{[]string{"key", "issue", "--env", "sandbox", "--scopes", "payments:read"}, "--workspace", 2},
		{[]string{"key", "issue", "--workspace", ws, "--scopes", "payments:read"}, "--env", 2},
		{[]string{"key", "issue", "--workspace", ws, "--env", "sandbox"}, "--scopes", 2},
		{[]string{"key", "issue", "--workspace", ws, "--env", "staging", "--scopes", "payments:read"}, "--env", 2},
		{[]string{"key", "issue", "--workspace", ws, "--env", "Live", "--scopes", "payments:read"}, "--env", 2},
		{[]string{"key", "issue", "--workspace", ws, "--env", "sandbox", "--scopes", "payments:admin"}, "unknown scope", 2},
		{[]string{"key", "issue", "--workspace", ws, "--env", "sandbox", "--scopes", ","}, "scope", 2},
		{[]string{"key", "issue", "--workspace", "W", "--env", "sandbox", "--scopes", "payments:read"}, "--workspace must be a UUID", 2},
		{[]string{"key", "issue", "--workspace", uuid.NewString(), "--env", "sandbox", "--scopes", "payments:read"}, "not found", 1},
		{[]string{"key", "list"}, "--workspace", 2},
		{[]string{"key", "list", "--workspace", uuid.NewString()}, "not found", 1},
		{[]string{"key", "rotate", "--key-id", k.KeyID}, "--workspace", 2},
		{[]string{"key", "rotate", "--workspace", ws}, "--key-id", 2},
		{[]string{"key", "rotate", "--workspace", ws, "--key-id", k.KeyID, "--grace", "soon"}, `invalid value "soon" for flag -grace`, 2},
		{[]string{"key", "rotate", "--workspace", ws, "--key-id", k.KeyID, "--grace", "-1h"}, "--grace", 2},
		{[]string{"key", "rotate", "--workspace", ws, "--key-id", "key_unknown"}, "not found", 1},
		{[]string{"key", "revoke", "--key-id", k.KeyID}, "--workspace", 2},
		{[]string{"key", "revoke", "--workspace", ws}, "--key-id", 2},
		{[]string{"key", "revoke", "--workspace", ws, "--key-id", "key_unknown"}, "not found", 1},
	}
	for _, tc := range cases {
		out, _, err := c.run(tc.args...)
		if err == nil {
			t.Errorf("paymentsctl %q succeeded:\n%s", tc.args, out)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("paymentsctl %q = %v, want an error mentioning %q", tc.args, err, tc.wantErr)
		}
		if got := exitCode(err); got != tc.code {
			t.Errorf("paymentsctl %q = %v: exit code %d, want %d", tc.args, err, got, tc.code)
		}
		if out != "" {
			t.Errorf("paymentsctl %q printed %q on stdout despite failing", tc.args, out)
		}
	}
	if got := c.listJSON(t, ws); len(got) != 1 {
		t.Errorf("failed commands changed the keys: %+v", got)
	}
	if rec := c.record(t, k.Key); !rec.Active(time.Now()) {
		t.Error("failed commands retired the key")
	}
	list, err := c.store.ListWorkspaces(c.ctx)
	if err != nil || len(list) != 1 {
		t.Errorf("failed commands changed the workspaces: %+v, %v", list, err)
	}
}

func TestNoTable(t *testing.T) {
	t.Setenv("TABLE_NAME", "")
	var out, errw bytes.Buffer
	err := run(context.Background(), []string{"workspace", "list"}, &out, &errw, nil)
	if err == nil || !strings.Contains(err.Error(), "table") || exitCode(err) != 2 {
		t.Errorf("run without a table = %v (exit code %d), want a no-table usage error", err, exitCode(err))
	}
}

// processEnv is the environment for the CLI process: no inherited AWS settings, dummy
// credentials for the local servers.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "TABLE_NAME=") ||
			strings.HasPrefix(kv, "WEBHOOK_SECRETS_KEY_ID=") || strings.HasPrefix(kv, "LOCAL_SEALING_KEY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true")
}

func TestProcessEndpointAndTableFlags(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	goRun := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(ctx, goBin, append([]string{"run", "./cmd/paymentsctl"}, args...)...)
		cmd.Dir = root
		cmd.Env = processEnv()
		var out, errw bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errw
		err := cmd.Run()
		return out.String(), errw.String(), err
	}

	table := c.store.Table
	out, stderr, err := goRun("--table", table, "--endpoint", c.stack.Dynamo.Endpoint, "workspace", "create", "--name", "Via process")
	if err != nil {
		t.Fatalf("go run paymentsctl: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	id := fields(out)["workspace_id"]
	w, err := c.store.GetWorkspace(c.ctx, id)
	if err != nil || w.Name != "Via process" {
		t.Fatalf("workspace %q from the process: %+v, %v\nstdout: %s", id, w, err, out)
	}
	// The global flags work after the command too.
	out, stderr, err = goRun("workspace", "list", "--json", "--table", table, "--endpoint", c.stack.Dynamo.Endpoint)
	var listed []map[string]string
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 1 || listed[0]["workspace_id"] != id {
		t.Errorf("workspace list with the global flags last: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}

	// The table flag is honoured: another table name fails, writing nothing. That is a
	// runtime failure, exit status 1. (go run exits 1 and reports the program's own exit
	// status on stderr.)
	out, stderr, err = goRun("--table", "no-such-table", "--endpoint", c.stack.Dynamo.Endpoint, "workspace", "create", "--name", "Nowhere")
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || !strings.Contains(stderr, "paymentsctl: create workspace:") ||
		!strings.Contains(stderr, "ResourceNotFoundException") || !strings.Contains(stderr, "exit status 1") {
		t.Errorf("create in a missing table: err %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	list, err := c.store.ListWorkspaces(c.ctx)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Errorf("workspaces = %+v, %v; want only %s", list, err, id)
	}

	// An unknown command: the message and the usage on stderr, exit status 2.
	out, stderr, err = goRun("foo", "bar")
	if !errors.As(err, &exitErr) || out != "" || !strings.Contains(stderr, `paymentsctl: unknown command "foo bar"`) ||
		!strings.Contains(stderr, "webhook secret rotate --workspace ID") || !strings.Contains(stderr, "exit status 2") {
		t.Errorf("unknown command: err %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	// A command's help needs no table (processEnv has no TABLE_NAME) and exits 0.
	out, stderr, err = goRun("key", "issue", "--help")
	if err != nil || !strings.HasPrefix(out, "usage: paymentsctl key issue --workspace ID") || stderr != "" {
		t.Errorf("key issue --help: err %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
}
