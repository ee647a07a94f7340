package team_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/mail"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/team"
)

// stack is one dynalite for the package's tests (each test uses its own workspaces and users).
var stack *devstack.Stack

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	s, err := devstack.StartStack(ctx, devstack.StackOptions{Prefix: devstack.RandomPrefix()})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devstack:", err)
		os.Exit(1)
	}
	stack = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// outbox is a mail.Sender that keeps what it is given.
type outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
	fail error
}

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fail != nil {
		return o.fail
	}
	o.msgs = append(o.msgs, m)
	return nil
}

func (o *outbox) last(t *testing.T) mail.Message {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.msgs) == 0 {
		t.Fatal("no mail sent")
	}
	return o.msgs[len(o.msgs)-1]
}

func (o *outbox) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.msgs)
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a team service on the shared dynalite, with its activity log and outbox.
type env struct {
	t     *testing.T
	ctx   context.Context
	store *dynamo.Store
	svc   *team.Service
	log   *activity.Service
	out   *outbox
	clk   *clock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	devstack.RequireServers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	store := &dynamo.Store{DB: stack.DDB, Table: stack.TableName("Table")}
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	log := activity.New(store, clk.now)
	out := &outbox{}
	svc := team.New(team.Config{
		BaseURL: "https://dash.takapay.test/dashboard/", Now: clk.now, Recorder: log,
		OnRecordError: func(_ context.Context, e activity.Event, err error) { t.Errorf("record %s: %v", e.Action, err) },
	}, store, out)
	ctx = activity.WithClient(ctx, activity.Client{IP: "203.0.113.7", UserAgent: "test-agent"})
	return &env{t: t, ctx: ctx, store: store, svc: svc, log: log, out: out, clk: clk}
}

type user struct{ id, email string }

func (e *env) user(email string) user {
	e.t.Helper()
	u := auth.User{ID: uuid.Must(uuid.NewV7()).String(), Email: email, CreatedAt: e.clk.now()}
	if err := e.store.ClaimUserEmail(e.ctx, email, u.ID); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.PutUser(e.ctx, u); err != nil {
		e.t.Fatal(err)
	}
	return user{u.ID, email}
}

// workspace creates a workspace whose owner is a new user, as the sign-up does (no owners set).
func (e *env) workspace(name string) (string, team.Actor) {
	e.t.Helper()
	ws := uuid.Must(uuid.NewV7()).String()
	if err := e.store.PutWorkspace(e.ctx, auth.Workspace{ID: ws, Name: name, CreatedAt: e.clk.now()}); err != nil {
		e.t.Fatal(err)
	}
	owner := e.user(uniq("owner") + "@shop.com.bd")
	return ws, e.member(ws, owner, auth.RoleOwner)
}

func (e *env) member(ws string, u user, role auth.Role) team.Actor {
	e.t.Helper()
	if _, err := e.store.PutMembership(e.ctx, &auth.MembershipRecord{UserID: u.id, WorkspaceID: ws, Role: role}); err != nil {
		e.t.Fatal(err)
	}
	return team.Actor{WorkspaceID: ws, UserID: u.id, Email: u.email, Role: role}
}

func uniq(prefix string) string { return prefix + "-" + uuid.NewString()[:8] }

func (e *env) role(ws, userID string) auth.Role {
	e.t.Helper()
	m, err := e.store.GetMembership(e.ctx, userID, ws)
	if err != nil {
		e.t.Fatal(err)
	}
	if m == nil {
		return ""
	}
	return m.Role
}

func (e *env) actions(ws string) []string {
	e.t.Helper()
	p, err := e.log.List(e.ctx, ws, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range p.Items {
		if ev.IP != "203.0.113.7" || ev.UserAgent != "test-agent" {
			e.t.Errorf("event %s without the request's client: %+v", ev.Action, ev)
		}
		out = append(out, ev.Action)
	}
	return out
}

func sorted(s []string) string {
	slices.Sort(s)
	return strings.Join(s, ",")
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func wantField(t *testing.T, what string, err error, field, rule string) {
	t.Helper()
	if _, v, ok := apierr.FieldOf(err); !ok || v.Path != field || v.Rule != rule {
		t.Fatalf("%s: got %v, want a FieldError %s/%s", what, err, field, rule)
	}
}

func TestInviteAndAccept(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Dhaka Saree House")
	dev := e.user(uniq("dev") + "@shop.com.bd")

	inv, err := e.svc.Invite(e.ctx, owner, "  "+strings.ToUpper(dev.email)+" ", auth.RoleDeveloper, "bn")
	if err != nil {
		t.Fatal(err)
	}
	if inv.Token == "" || inv.Email != strings.ToUpper(dev.email) || inv.Role != auth.RoleDeveloper ||
		inv.WorkspaceName != "Dhaka Saree House" || !inv.ExpiresAt.Equal(e.clk.now().Add(7*24*time.Hour)) {
		t.Fatalf("invitation %+v", inv)
	}
	msg := e.out.last(t)
	link := "https://dash.takapay.test/dashboard/invite?token=" + inv.Token
	if msg.To != inv.Email || !strings.Contains(msg.Text, link) || !strings.Contains(msg.HTML, link) || !strings.Contains(msg.Text, owner.Email) {
		t.Fatalf("mail %+v lacks %s", msg, link)
	}
	u, _ := url.Parse(link)
	token := u.Query().Get("token")

	// The token is stored only as a hash.
	rec, err := e.store.GetInvite(e.ctx, inv.ID)
	if err != nil || rec == nil || strings.Contains(fmt.Sprint(*rec), token) || len(rec.TokenHash) != 64 {
		t.Fatalf("stored %+v, %v", rec, err)
	}

	got, err := e.svc.LookupInvite(e.ctx, token)
	if err != nil || got.WorkspaceID != ws || got.Token != "" || got.Role != auth.RoleDeveloper {
		t.Fatalf("lookup %+v, %v", got, err)
	}
	list, err := e.svc.ListInvites(e.ctx, owner)
	if err != nil || len(list) != 1 || list[0].ID != inv.ID || list[0].Token != "" {
		t.Fatalf("invites %+v, %v", list, err)
	}

	e.clk.add(time.Second)
	m, err := e.svc.AcceptInvite(e.ctx, token, dev.id, dev.email)
	if err != nil || m.Role != auth.RoleDeveloper || m.WorkspaceID != ws || m.UserID != dev.id {
		t.Fatalf("accept %+v, %v", m, err)
	}
	if e.role(ws, dev.id) != auth.RoleDeveloper {
		t.Fatal("no membership")
	}
	_, err = e.svc.AcceptInvite(e.ctx, token, dev.id, dev.email)
	wantErr(t, "accepting again", err, team.ErrInviteNotFound)
	_, err = e.svc.LookupInvite(e.ctx, token)
	wantErr(t, "lookup after use", err, team.ErrInviteNotFound)
	if list, _ := e.svc.ListInvites(e.ctx, owner); len(list) != 0 {
		t.Fatalf("used invitation still listed: %+v", list)
	}

	members, err := e.svc.ListMembers(e.ctx, team.Actor{WorkspaceID: ws, UserID: dev.id, Role: auth.RoleDeveloper})
	if err != nil || len(members) != 2 || members[0].UserID != owner.UserID || members[0].Role != auth.RoleOwner ||
		members[0].Email != owner.Email || members[1].Email != dev.email || members[1].Role != auth.RoleDeveloper {
		t.Fatalf("members %+v, %v", members, err)
	}
	if got := e.actions(ws); strings.Join(got, ",") != "member.joined,member.invited" {
		t.Fatalf("activity %v", got)
	}
	ws2, _ := e.workspace("Chittagong Tea")
	if list, err := e.svc.Workspaces(e.ctx, dev.id); err != nil || len(list) != 1 || list[0].WorkspaceName != "Dhaka Saree House" {
		t.Fatalf("workspaces %+v, %v", list, err)
	}
	e.member(ws2, dev, auth.RoleViewer)
	list2, err := e.svc.Workspaces(e.ctx, dev.id)
	if err != nil || len(list2) != 2 || list2[0].WorkspaceName != "Chittagong Tea" || list2[0].Role != auth.RoleViewer ||
		list2[1].WorkspaceID != ws || list2[1].Role != auth.RoleDeveloper {
		t.Fatalf("workspaces %+v, %v", list2, err)
	}
}

func TestInviteRefusals(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Refusals")
	dev := e.member(ws, e.user(uniq("dev")+"@x.com.bd"), auth.RoleDeveloper)
	viewer := e.member(ws, e.user(uniq("viewer")+"@x.com.bd"), auth.RoleViewer)
	admin := e.member(ws, e.user(uniq("admin")+"@x.com.bd"), auth.RoleAdmin)

	_, err := e.svc.Invite(e.ctx, dev, "new@x.com.bd", auth.RoleViewer, "en")
	wantErr(t, "developer invites", err, team.ErrForbidden)
	_, err = e.svc.Invite(e.ctx, viewer, "new@x.com.bd", auth.RoleViewer, "en")
	wantErr(t, "viewer invites", err, team.ErrForbidden)
	_, err = e.svc.ListInvites(e.ctx, dev)
	wantErr(t, "developer lists invitations", err, team.ErrForbidden)
	_, err = e.svc.Invite(e.ctx, admin, "new@x.com.bd", auth.RoleOwner, "en")
	wantField(t, "invite an owner", err, "role", "not_owner")
	_, err = e.svc.Invite(e.ctx, owner, "new@x.com.bd", "superuser", "en")
	wantField(t, "unknown role", err, "role", "one_of")
	for _, bad := range []string{"", "not-an-email", "Ana <ana@x.com.bd>", "a@b.c, d@e.f", strings.Repeat("a", 250) + "@x.bd"} {
		_, err = e.svc.Invite(e.ctx, owner, bad, auth.RoleViewer, "en")
		if _, v, ok := apierr.FieldOf(err); !ok || v.Path != "email" {
			t.Fatalf("email %q: %v", bad, err)
		}
	}
	_, err = e.svc.Invite(e.ctx, owner, strings.ToUpper(dev.Email), auth.RoleAdmin, "en")
	wantErr(t, "invite a member", err, team.ErrAlreadyMember)

	// The email cannot be sent: no invitation is left.
	e.out.fail = errors.New("ses down")
	_, err = e.svc.Invite(e.ctx, admin, "later@x.com.bd", auth.RoleViewer, "en")
	if err == nil || !strings.Contains(err.Error(), "ses down") {
		t.Fatalf("mail failure: %v", err)
	}
	e.out.fail = nil
	if list, _ := e.svc.ListInvites(e.ctx, admin); len(list) != 0 {
		t.Fatalf("invitation left after a failed email: %+v", list)
	}

	// Inviting the same email again replaces the pending invitation.
	first, err := e.svc.Invite(e.ctx, admin, "twice@x.com.bd", auth.RoleViewer, "en")
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.svc.Invite(e.ctx, admin, "TWICE@x.com.bd", auth.RoleDeveloper, "en")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := e.svc.ListInvites(e.ctx, admin)
	if len(list) != 1 || list[0].ID != second.ID {
		t.Fatalf("after re-inviting: %+v", list)
	}
	_, err = e.svc.LookupInvite(e.ctx, first.Token)
	wantErr(t, "replaced invitation", err, team.ErrInviteNotFound)
}

func TestAcceptRefusals(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Accept")
	ana := e.user(uniq("ana") + "@x.com.bd")
	mallory := e.user(uniq("mallory") + "@x.com.bd")

	inv, err := e.svc.Invite(e.ctx, owner, ana.email, auth.RoleAdmin, "en")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.AcceptInvite(e.ctx, inv.Token, mallory.id, mallory.email)
	wantErr(t, "someone else's invitation", err, team.ErrInviteEmailMismatch)
	if e.role(ws, mallory.id) != "" {
		t.Fatal("mallory joined")
	}
	// Forged tokens: another invitation id with this secret, this id with another secret, junk.
	b := []byte(inv.Token)
	b[len(b)-5] ^= 1
	for _, tok := range []string{string(b), strings.Repeat("A", 64), "x", inv.Token + "A"} {
		_, err = e.svc.AcceptInvite(e.ctx, tok, ana.id, ana.email)
		wantErr(t, "forged token "+tok, err, team.ErrInviteNotFound)
	}
	// The right person still can.
	if m, err := e.svc.AcceptInvite(e.ctx, inv.Token, ana.id, strings.ToUpper(ana.email)); err != nil || m.Role != auth.RoleAdmin {
		t.Fatalf("accept %+v, %v", m, err)
	}

	// Expired.
	bo := e.user(uniq("bo") + "@x.com.bd")
	inv2, err := e.svc.Invite(e.ctx, owner, bo.email, auth.RoleViewer, "en")
	if err != nil {
		t.Fatal(err)
	}
	e.clk.add(team.InviteValidFor)
	_, err = e.svc.LookupInvite(e.ctx, inv2.Token)
	wantErr(t, "expired lookup", err, team.ErrInviteExpired)
	_, err = e.svc.AcceptInvite(e.ctx, inv2.Token, bo.id, bo.email)
	wantErr(t, "expired accept", err, team.ErrInviteExpired)
	if list, _ := e.svc.ListInvites(e.ctx, owner); len(list) != 0 {
		t.Fatalf("expired invitation listed: %+v", list)
	}
	// The store refuses an expired invitation even to a caller that skipped the check.
	wantErr(t, "consume expired", e.store.ConsumeInvite(e.ctx, inv2.ID, hashOf(t, e, inv2.ID), e.clk.now()), team.ErrInviteNotFound)

	// Revoked.
	cy := e.user(uniq("cy") + "@x.com.bd")
	inv3, err := e.svc.Invite(e.ctx, owner, cy.email, auth.RoleViewer, "en")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RevokeInvite(e.ctx, owner, inv3.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.AcceptInvite(e.ctx, inv3.Token, cy.id, cy.email)
	wantErr(t, "revoked", err, team.ErrInviteNotFound)

	// An invitation to someone who meanwhile became a member keeps their membership as it is.
	dee := e.user(uniq("dee") + "@x.com.bd")
	inv4, err := e.svc.Invite(e.ctx, owner, dee.email, auth.RoleViewer, "en")
	if err != nil {
		t.Fatal(err)
	}
	e.member(ws, dee, auth.RoleAdmin)
	m, err := e.svc.AcceptInvite(e.ctx, inv4.Token, dee.id, dee.email)
	if err != nil || m.Role != auth.RoleAdmin || e.role(ws, dee.id) != auth.RoleAdmin {
		t.Fatalf("accept as member: %+v, %v", m, err)
	}
}

func hashOf(t *testing.T, e *env, id string) string {
	t.Helper()
	r, err := e.store.GetInvite(e.ctx, id)
	if err != nil || r == nil {
		t.Fatalf("invite %s: %v", id, err)
	}
	return r.TokenHash
}

// TestConcurrentAccept: two accepts of one invitation at once join once.
func TestConcurrentAccept(t *testing.T) {
	e := newEnv(t)
	_, owner := e.workspace("Race")
	ana := e.user(uniq("ana") + "@x.com.bd")
	for range 5 {
		inv, err := e.svc.Invite(e.ctx, owner, ana.email, auth.RoleViewer, "en")
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = e.svc.AcceptInvite(e.ctx, inv.Token, ana.id, ana.email) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, team.ErrInviteNotFound):
				t.Fatal(err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d accepts succeeded: %v", ok, errs)
		}
		if err := e.store.DeleteMembership(e.ctx, ana.id, owner.WorkspaceID, auth.RoleViewer); err != nil {
			t.Fatal(err)
		}
	}
}

func TestChangeRoleAndRemove(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Roles")
	admin := e.member(ws, e.user(uniq("admin")+"@x.com.bd"), auth.RoleAdmin)
	admin2 := e.member(ws, e.user(uniq("admin2")+"@x.com.bd"), auth.RoleAdmin)
	dev := e.member(ws, e.user(uniq("dev")+"@x.com.bd"), auth.RoleDeveloper)
	viewer := e.member(ws, e.user(uniq("viewer")+"@x.com.bd"), auth.RoleViewer)

	_, err := e.svc.ChangeRole(e.ctx, dev, viewer.UserID, auth.RoleDeveloper)
	wantErr(t, "developer changes a role", err, team.ErrForbidden)
	wantErr(t, "developer removes", e.svc.Remove(e.ctx, dev, viewer.UserID), team.ErrForbidden)
	_, err = e.svc.ChangeRole(e.ctx, admin, owner.UserID, auth.RoleViewer)
	wantErr(t, "admin demotes the owner", err, team.ErrOwnerProtected)
	wantErr(t, "admin removes the owner", e.svc.Remove(e.ctx, admin, owner.UserID), team.ErrOwnerProtected)
	_, err = e.svc.ChangeRole(e.ctx, owner, dev.UserID, auth.RoleOwner)
	wantField(t, "make an owner", err, "role", "not_owner")
	_, err = e.svc.ChangeRole(e.ctx, admin, admin.UserID, auth.RoleViewer)
	wantField(t, "change oneself", err, "user_id", "not_self")
	wantField(t, "remove oneself", e.svc.Remove(e.ctx, admin, admin.UserID), "user_id", "not_self")
	_, err = e.svc.ChangeRole(e.ctx, admin, uuid.NewString(), auth.RoleViewer)
	wantErr(t, "a stranger", err, team.ErrNotFound)
	_, err = e.svc.ChangeRole(e.ctx, admin, "not-a-uuid", auth.RoleViewer)
	wantErr(t, "not an id", err, team.ErrNotFound)

	if m, err := e.svc.ChangeRole(e.ctx, admin, dev.UserID, auth.RoleViewer); err != nil || m.Role != auth.RoleViewer {
		t.Fatalf("admin demotes a developer: %+v, %v", m, err)
	}
	if m, err := e.svc.ChangeRole(e.ctx, admin, admin2.UserID, auth.RoleDeveloper); err != nil || m.Role != auth.RoleDeveloper {
		t.Fatalf("admin demotes an admin: %+v, %v", m, err)
	}
	if e.role(ws, dev.UserID) != auth.RoleViewer || e.role(ws, admin2.UserID) != auth.RoleDeveloper {
		t.Fatal("roles not stored")
	}
	// The write is conditional on the role the decision read.
	wantErr(t, "stale role", e.store.SetRole(e.ctx, dev.UserID, ws, auth.RoleDeveloper, auth.RoleAdmin), team.ErrConflict)
	wantErr(t, "stale delete", e.store.DeleteMembership(e.ctx, dev.UserID, ws, auth.RoleDeveloper), team.ErrConflict)

	if err := e.svc.Remove(e.ctx, owner, viewer.UserID); err != nil {
		t.Fatal(err)
	}
	if e.role(ws, viewer.UserID) != "" {
		t.Fatal("removed member still a member")
	}
	wantErr(t, "remove again", e.svc.Remove(e.ctx, owner, viewer.UserID), team.ErrNotFound)
	got := sorted(e.actions(ws)) // one clock instant: the order within it is the key's random suffix
	if got != "member.removed,member.role_changed,member.role_changed" {
		t.Fatalf("activity %s", got)
	}
}

// TestCrossWorkspace: an admin of A reaches nothing of B.
func TestCrossWorkspace(t *testing.T) {
	e := newEnv(t)
	wsA, ownerA := e.workspace("A")
	wsB, ownerB := e.workspace("B")
	adminA := e.member(wsA, e.user(uniq("admin")+"@a.com.bd"), auth.RoleAdmin)
	devB := e.member(wsB, e.user(uniq("dev")+"@b.com.bd"), auth.RoleDeveloper)
	invB, err := e.svc.Invite(e.ctx, ownerB, "someone@b.com.bd", auth.RoleViewer, "en")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.ChangeRole(e.ctx, adminA, devB.UserID, auth.RoleViewer)
	wantErr(t, "change B's member", err, team.ErrNotFound)
	wantErr(t, "remove B's member", e.svc.Remove(e.ctx, adminA, devB.UserID), team.ErrNotFound)
	wantErr(t, "revoke B's invitation", e.svc.RevokeInvite(e.ctx, adminA, invB.ID), team.ErrNotFound)
	_, err = e.svc.TransferOwnership(e.ctx, ownerA, devB.UserID)
	wantErr(t, "transfer to B's member", err, team.ErrNotFound)
	if e.role(wsB, devB.UserID) != auth.RoleDeveloper {
		t.Fatal("B's member changed")
	}
	if _, err := e.svc.LookupInvite(e.ctx, invB.Token); err != nil {
		t.Fatalf("B's invitation: %v", err)
	}
	members, err := e.svc.ListMembers(e.ctx, adminA)
	if err != nil || len(members) != 2 {
		t.Fatalf("A's members %+v, %v", members, err)
	}
	for _, m := range members {
		if m.UserID == devB.UserID || m.UserID == ownerB.UserID {
			t.Fatalf("A lists B's member %+v", m)
		}
	}
	if list, _ := e.svc.ListInvites(e.ctx, adminA); len(list) != 0 {
		t.Fatalf("A lists B's invitations %+v", list)
	}
}

func TestTransferOwnershipAndLeave(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Transfer")
	admin := e.member(ws, e.user(uniq("admin")+"@x.com.bd"), auth.RoleAdmin)
	dev := e.member(ws, e.user(uniq("dev")+"@x.com.bd"), auth.RoleDeveloper)

	_, err := e.svc.TransferOwnership(e.ctx, admin, admin.UserID)
	wantErr(t, "admin transfers", err, team.ErrForbidden)
	// An admin who claims to be owner is checked against the stored membership.
	lying := admin
	lying.Role = auth.RoleOwner
	_, err = e.svc.TransferOwnership(e.ctx, lying, admin.UserID)
	wantErr(t, "admin claiming owner", err, team.ErrForbidden)
	_, err = e.svc.TransferOwnership(e.ctx, owner, uuid.NewString())
	wantErr(t, "transfer to a stranger", err, team.ErrNotFound)
	_, err = e.svc.TransferOwnership(e.ctx, owner, owner.UserID)
	wantField(t, "transfer to oneself", err, "user_id", "not_self")

	wantErr(t, "last owner leaves", e.svc.Leave(e.ctx, owner), team.ErrLastOwner)
	if e.role(ws, owner.UserID) != auth.RoleOwner {
		t.Fatal("owner lost ownership")
	}

	m, err := e.svc.TransferOwnership(e.ctx, owner, dev.UserID)
	if err != nil || m.Role != auth.RoleOwner {
		t.Fatalf("transfer: %+v, %v", m, err)
	}
	if e.role(ws, dev.UserID) != auth.RoleOwner || e.role(ws, owner.UserID) != auth.RoleAdmin {
		t.Fatalf("after transfer: new %s, old %s", e.role(ws, dev.UserID), e.role(ws, owner.UserID))
	}
	newOwner := dev
	newOwner.Role = auth.RoleOwner
	wantErr(t, "new owner leaves", e.svc.Leave(e.ctx, newOwner), team.ErrLastOwner)
	oldOwner := owner
	oldOwner.Role = auth.RoleAdmin
	_, err = e.svc.TransferOwnership(e.ctx, owner, admin.UserID) // stale actor: stored role is admin now
	wantErr(t, "old owner transfers again", err, team.ErrForbidden)
	if err := e.svc.Leave(e.ctx, oldOwner); err != nil {
		t.Fatalf("old owner leaves: %v", err)
	}
	if e.role(ws, owner.UserID) != "" {
		t.Fatal("left but still a member")
	}
	wantErr(t, "leave twice", e.svc.Leave(e.ctx, oldOwner), team.ErrNotFound)
	got := sorted(e.actions(ws))
	if got != "member.left,ownership.transferred" {
		t.Fatalf("activity %s", got)
	}
}

// TestConcurrentOwnersLeave: two owners leave at once, many times over, on workspaces with and
// without an owners set yet: exactly one leaves each time, and one owner remains.
func TestConcurrentOwnersLeave(t *testing.T) {
	e := newEnv(t)
	for i := range 12 {
		ws, a := e.workspace(fmt.Sprintf("Both leave %d", i))
		b := e.member(ws, e.user(uniq("co")+"@x.com.bd"), auth.RoleOwner)
		if i%2 == 1 { // the set exists already, b's ownership in it with a grant
			if _, err := e.store.GrantOwner(e.ctx, b.UserID, ws, e.clk.now()); err != nil {
				t.Fatal(err)
			}
			if m, err := e.store.GetMember(e.ctx, b.UserID, ws); err != nil || m.OwnerGrant != "" {
				t.Fatalf("GrantOwner of an owner changed the grant: %+v, %v", m, err)
			}
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for j, actor := range []team.Actor{a, b} {
			wg.Go(func() { errs[j] = e.svc.Leave(e.ctx, actor) })
		}
		wg.Wait()
		left := 0
		for _, err := range errs {
			switch {
			case err == nil:
				left++
			case !errors.Is(err, team.ErrLastOwner):
				t.Fatalf("round %d: %v", i, err)
			}
		}
		owners := 0
		for _, u := range []string{a.UserID, b.UserID} {
			if e.role(ws, u) == auth.RoleOwner {
				owners++
			}
		}
		if left != 1 || owners != 1 {
			t.Fatalf("round %d: %d left, %d owners remain (%v)", i, left, owners, errs)
		}
	}
}

// TestCrashBetweenReleaseAndLeave: an owner taken out of the set whose membership write never
// happened still counts as owner for the others, and can finish leaving.
func TestCrashBetweenReleaseAndLeave(t *testing.T) {
	e := newEnv(t)
	ws, a := e.workspace("Crash")
	b := e.member(ws, e.user(uniq("co")+"@x.com.bd"), auth.RoleOwner)
	if err := e.store.ReleaseOwner(e.ctx, ws, a.UserID, ""); err != nil { // a's Leave, cut short
		t.Fatal(err)
	}
	wantErr(t, "b leaves while a is half gone", e.svc.Leave(e.ctx, b), team.ErrLastOwner)
	if err := e.svc.Leave(e.ctx, a); err != nil {
		t.Fatalf("a finishes leaving: %v", err)
	}
	wantErr(t, "b is the last owner", e.svc.Leave(e.ctx, b), team.ErrLastOwner)
	if e.role(ws, b.UserID) != auth.RoleOwner || e.role(ws, a.UserID) != "" {
		t.Fatal("wrong owners")
	}
	// A transfer cut short after the target became owner: b still counts as the last owner
	// until the set learns of c, which a retry does.
	c := e.member(ws, e.user(uniq("c")+"@x.com.bd"), auth.RoleDeveloper)
	if err := e.store.PromoteOwner(e.ctx, c.UserID, ws, auth.RoleDeveloper, "c0ffee"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "b leaves before the set knows c", e.svc.Leave(e.ctx, b), team.ErrLastOwner)
	if _, err := e.svc.TransferOwnership(e.ctx, b, c.UserID); err != nil {
		t.Fatalf("retried transfer: %v", err)
	}
	if e.role(ws, c.UserID) != auth.RoleOwner || e.role(ws, b.UserID) != auth.RoleAdmin {
		t.Fatal("transfer not completed")
	}
}

// TestRemovedMemberSessionEnds: a removed member's session is refused for the workspace on
// the very next request, through auth.AuthenticateWorkspace with a real stored session.
func TestRemovedMemberSessionEnds(t *testing.T) {
	e := newEnv(t)
	ws, owner := e.workspace("Sessions")
	otherWS, otherOwner := e.workspace("Other")
	devUser := e.user(uniq("dev") + "@x.com.bd")
	dev := e.member(ws, devUser, auth.RoleDeveloper)
	e.member(otherWS, devUser, auth.RoleViewer)
	_ = otherOwner

	token, hash, err := auth.NewSessionToken()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := e.store.PutSession(e.ctx, &auth.SessionRecord{Hash: hash, UserID: dev.UserID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a := &auth.Authenticator{Sessions: e.store}
	req := &web.Request{Method: "GET", Cookies: []string{auth.SessionCookie + "=" + token}}
	id, err := a.AuthenticateWorkspace(e.ctx, req, ws)
	if err != nil || id.UserID != dev.UserID || id.Role != auth.RoleDeveloper {
		t.Fatalf("before removal: %+v, %v", id, err)
	}
	if err := e.svc.Remove(e.ctx, owner, dev.UserID); err != nil {
		t.Fatal(err)
	}
	_, err = a.AuthenticateWorkspace(e.ctx, req, ws)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.NotFound {
		t.Fatalf("after removal: %v", err)
	}
	// The same session still works for the other workspace.
	if id, err := a.AuthenticateWorkspace(e.ctx, req, otherWS); err != nil || id.Role != auth.RoleViewer {
		t.Fatalf("other workspace: %+v, %v", id, err)
	}
}

// TestTransferRacesTargetLeaving: the target of a transfer leaves between becoming owner and
// joining the owners set. Its ownership is released, so the transfer cannot add it back, and
// the old owner stays owner.
func TestTransferRacesTargetLeaving(t *testing.T) {
	e := newEnv(t)
	ws, x := e.workspace("Race transfer")
	tUser := e.member(ws, e.user(uniq("t")+"@x.com.bd"), auth.RoleDeveloper)
	// The transfer's first write.
	if err := e.store.PromoteOwner(e.ctx, tUser.UserID, ws, auth.RoleDeveloper, "abc123"); err != nil {
		t.Fatal(err)
	}
	// The target leaves now: their ownership is not in the set, and another owner is.
	if err := e.svc.Leave(e.ctx, tUser); err != nil {
		t.Fatalf("target leaves: %v", err)
	}
	// The transfer's next write is refused.
	wantErr(t, "add a released ownership", e.store.AddOwner(e.ctx, ws, tUser.UserID, "abc123"), team.ErrConflict)
	wantErr(t, "x is still the last owner", e.svc.Leave(e.ctx, x), team.ErrLastOwner)

	// And at full speed, many times: whatever the interleaving, an owner remains.
	for i := range 16 {
		ws, x := e.workspace(fmt.Sprintf("Race %d", i))
		tu := e.member(ws, e.user(uniq("t")+"@x.com.bd"), auth.RoleDeveloper)
		var wg sync.WaitGroup
		var terr, lerr error
		wg.Go(func() { _, terr = e.svc.TransferOwnership(e.ctx, x, tu.UserID) })
		wg.Go(func() {
			me := tu
			// Stagger the leave across the transfer's writes (the outcome is checked whatever
			// the order; the delay only varies which interleavings the rounds see).
			time.Sleep(time.Duration(i) * 2 * time.Millisecond)
			for range 3 { // the target leaves, as whatever role they have by then
				if lerr = e.svc.Leave(e.ctx, me); !errors.Is(lerr, team.ErrConflict) {
					return
				}
			}
		})
		wg.Wait()
		owners := 0
		for _, u := range []string{x.UserID, tu.UserID} {
			if e.role(ws, u) == auth.RoleOwner {
				owners++
			}
		}
		t.Logf("round %d: transfer %v, leave %v", i, terr, lerr)
		if owners == 0 {
			t.Fatalf("round %d: no owner left (transfer %v, leave %v)", i, terr, lerr)
		}
		// Whoever is owner now cannot leave: they are the last.
		for _, a := range []team.Actor{x, tu} {
			if e.role(ws, a.UserID) == auth.RoleOwner {
				wantErr(t, fmt.Sprintf("round %d: the remaining owner leaves", i), e.svc.Leave(e.ctx, a), team.ErrLastOwner)
			}
		}
	}
}

func TestInviteLinkAndGrant(t *testing.T) {
	if got := team.InviteLink("https://d.test/dashboard/", "tok"); got != "https://d.test/dashboard/invite?token=tok" {
		t.Fatalf("link %q", got)
	}
	a, err := team.NewGrant()
	if err != nil || len(a) != 16 || strings.ContainsAny(a, "/#") {
		t.Fatalf("grant %q, %v", a, err)
	}
	if b, _ := team.NewGrant(); a == b {
		t.Fatal("two grants alike")
	}
	if roles := team.InvitableRoles(); len(roles) != 3 || slices.Contains(roles, auth.RoleOwner) {
		t.Fatalf("invitable %v", roles)
	}
}

// A workspace's invitations a day are counted as they are sent, in the store: revoking them
// gives none back, a second instance sees the same count, another workspace has its own, and
// the next UTC day starts over.
func TestDailyInvitesSurviveRevocation(t *testing.T) {
	e := newEnv(t)
	const perDay = 3
	instance := func() *team.Service {
		return team.New(team.Config{BaseURL: "https://dash.takapay.test/dashboard/", Now: e.clk.now,
			Quotas: &ratelimit.Quotas{Store: e.store, Now: e.clk.now}, InvitesPerDay: perDay}, e.store, e.out)
	}
	a, b := instance(), instance()
	_, owner := e.workspace("Daily")
	for i := range perDay {
		inv, err := []*team.Service{a, b}[i%2].Invite(e.ctx, owner, fmt.Sprintf("guest%d@x.com.bd", i), auth.RoleViewer, "en")
		if err != nil {
			t.Fatalf("invitation %d: %v", i+1, err)
		}
		if err := a.RevokeInvite(e.ctx, owner, inv.ID); err != nil {
			t.Fatal(err)
		}
	}
	if list, _ := a.ListInvites(e.ctx, owner); len(list) != 0 {
		t.Fatalf("%d invitations pending, want none", len(list))
	}
	sent := e.out.count()
	var daily *apierr.Error
	for _, svc := range []*team.Service{a, b} {
		_, err := svc.Invite(e.ctx, owner, "one-more@x.com.bd", auth.RoleViewer, "en")
		if !errors.As(err, &daily) || daily.Code != apierr.RateLimited || daily.RetryAfter() <= 0 || daily.RetryAfter() > 24*time.Hour {
			t.Fatalf("invitation past the day's cap after revoking them all: %v", err)
		}
	}
	if e.out.count() != sent {
		t.Fatal("a refused invitation sent an email")
	}
	_, other := e.workspace("Other")
	if _, err := b.Invite(e.ctx, other, "guest@x.com.bd", auth.RoleViewer, "en"); err != nil {
		t.Fatalf("another workspace: %v", err)
	}
	e.clk.add(daily.RetryAfter())
	if _, err := a.Invite(e.ctx, owner, "one-more@x.com.bd", auth.RoleViewer, "en"); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}
