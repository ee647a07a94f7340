package account_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/crypto/argon2"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/mail"
)

// outbox is a mail.Sender that keeps what it is given.
type outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
}

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	if err := mail.CheckHeaders(m); err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.msgs = append(o.msgs, m)
	return nil
}

func (o *outbox) all() []mail.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.msgs)
}

// to returns the messages sent to addr.
func (o *outbox) to(addr string) []mail.Message {
	var out []mail.Message
	for _, m := range o.all() {
		if m.To == addr {
			out = append(out, m)
		}
	}
	return out
}

var tokenRE = regexp.MustCompile(`token=([A-Za-z0-9_-]{43})`)

func linkToken(t *testing.T, m mail.Message) string {
	t.Helper()
	got := tokenRE.FindStringSubmatch(m.Text)
	if got == nil {
		t.Fatalf("no token link in %q", m.Text)
	}
	return got[1]
}

// clock is a settable clock shared by the services of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// ops records the DynamoDB operations a client makes.
type ops struct {
	mu   sync.Mutex
	list []string
}

func (o *ops) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.list
	o.list = nil
	return l
}

type env struct {
	store  *dynamo.Store
	clock  *clock
	mail   *outbox
	ops    *ops
	events *events
	stack  *devstack.Stack
}

type events struct {
	mu   sync.Mutex
	list []account.Event
}

func (e *events) add(_ context.Context, ev account.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
}

func (e *events) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.list {
		out = append(out, ev.Kind)
	}
	return out
}

func newEnv(t *testing.T) (*env, context.Context) {
	t.Helper()
	stack := devstack.StartTestStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	rec := &ops{}
	db := dynamodb.NewFromConfig(stack.Config, func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("countOps",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					rec.mu.Lock()
					rec.list = append(rec.list, awsmiddleware.GetOperationName(ctx))
					rec.mu.Unlock()
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	})
	return &env{
		store:  &dynamo.Store{DB: db, Table: stack.TableName("Table")},
		clock:  &clock{t: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)},
		mail:   &outbox{},
		ops:    rec,
		events: &events{},
		stack:  stack,
	}, ctx
}

// service returns a new Service (an instance) on the env's table, clock and outbox.
func (e *env) service() *account.Service {
	return account.New(account.Config{
		BaseURL: "https://dash.takapay.test/dashboard/", Now: e.clock.Now, OnEvent: e.events.add, AnswerFloor: -1,
	}, e.store, e.mail)
}

const goodPassword = "correct horse battery"

var client = account.Client{IP: "203.0.113.7", UserAgent: "test"}

// signUp signs up and verifies email, returning the verified session.
func signUp(t *testing.T, ctx context.Context, e *env, s *account.Service, email string) *account.Session {
	t.Helper()
	n := len(e.mail.to(email))
	if err := s.SignUp(ctx, account.SignUpInput{Email: email, Password: goodPassword, WorkspaceName: "Dhaka Saree House", Lang: "en", Client: client}); err != nil {
		t.Fatalf("SignUp: %v", err)
	}
	msgs := e.mail.to(email)
	if len(msgs) != n+1 {
		t.Fatalf("sign-up sent %d emails to %s, want 1", len(msgs)-n, email)
	}
	sess, err := s.VerifyEmail(ctx, linkToken(t, msgs[n]), goodPassword, client)
	if err != nil {
		t.Fatalf("VerifyEmail: %v", err)
	}
	return sess
}

// workspaceAuth authenticates a document request with a session cookie the way the /v1
// document routes do.
func workspaceAuth(ctx context.Context, e *env, token, ws string) error {
	a := &auth.Authenticator{Sessions: e.store, Now: e.clock.Now}
	_, err := a.AuthenticateWorkspace(ctx, &web.Request{Method: "GET", Cookies: []string{auth.SessionCookie + "=" + token}}, ws)
	return err
}

func TestSignUpVerifyAndSignIn(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	if err := s.SignUp(ctx, account.SignUpInput{Email: "Rahim@Shop.com.bd", Password: goodPassword, WorkspaceName: "  Dhaka Saree House ", Lang: "bn", Client: client}); err != nil {
		t.Fatal(err)
	}
	msgs := e.mail.to("Rahim@Shop.com.bd")
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "https://dash.takapay.test/dashboard/verify-email?token=") {
		t.Fatalf("verification email: %+v", msgs)
	}
	if !strings.ContainsRune(msgs[0].Subject, 'া') && !strings.ContainsRune(msgs[0].Subject, 'ে') {
		t.Errorf("a Bangla sign-up got the subject %q", msgs[0].Subject)
	}
	token := linkToken(t, msgs[0])

	// Nothing exists before verification: the email is free, signing in fails.
	if owner, _ := e.store.EmailOwner(ctx, "rahim@shop.com.bd"); owner != "" {
		t.Fatal("sign-up claimed the email before verification")
	}
	if _, err := s.SignIn(ctx, "rahim@shop.com.bd", goodPassword, client); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatalf("sign-in before verification: %v", err)
	}

	sess, err := s.VerifyEmail(ctx, token, goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Token == "" || sess.UserID == "" || sess.WorkspaceID == "" || !sess.ExpiresAt.Equal(e.clock.Now().Add(8*time.Hour)) {
		t.Fatalf("session %+v", sess)
	}
	ws, err := e.store.GetWorkspace(ctx, sess.WorkspaceID)
	if err != nil || ws.Name != "Dhaka Saree House" {
		t.Fatalf("workspace %+v, %v", ws, err)
	}
	m, err := e.store.GetMembership(ctx, sess.UserID, sess.WorkspaceID)
	if err != nil || m == nil || m.Role != auth.RoleOwner {
		t.Fatalf("membership %+v, %v", m, err)
	}
	u, err := e.store.GetUser(ctx, sess.UserID) // the operator's view still reads the user
	if err != nil || u.Email != "Rahim@Shop.com.bd" {
		t.Fatalf("user %+v, %v", u, err)
	}
	if err := workspaceAuth(ctx, e, sess.Token, sess.WorkspaceID); err != nil {
		t.Fatalf("the verified session on a document route: %v", err)
	}
	info, err := s.Authenticate(ctx, sess.Token)
	if err != nil || info.UserID != sess.UserID || info.CSRFToken == "" || !info.CheckCSRF(info.CSRFToken) || info.CheckCSRF("x") {
		t.Fatalf("Authenticate = %+v, %v", info, err)
	}

	// The link works once.
	if _, err := s.VerifyEmail(ctx, token, goodPassword, client); !errors.Is(err, account.ErrInvalidToken) {
		t.Fatalf("second verification: %v", err)
	}
	for _, bad := range []string{"", "short", strings.Repeat("A", 43), token + "A"} {
		if _, err := s.VerifyEmail(ctx, bad, goodPassword, client); !errors.Is(err, account.ErrInvalidToken) {
			t.Fatalf("VerifyEmail(%q): %v", bad, err)
		}
	}

	// Sign in: any letter case of the email; a new token each time.
	s1, err := s.SignIn(ctx, "RAHIM@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := s.SignIn(ctx, "rahim@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Token == s2.Token || s1.Token == sess.Token || s1.UserID != sess.UserID {
		t.Fatal("sign-in did not start a new session")
	}
	if _, err := s.SignIn(ctx, "rahim@shop.com.bd", goodPassword+"!", client); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	want := []string{account.EventSignInFailed, account.EventSignUpVerified, account.EventSignInSucceeded, account.EventSignInSucceeded, account.EventSignInFailed}
	if got := e.events.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// Nothing stored holds the password or a token in clear.
	for _, secret := range []string{goodPassword, token, sess.Token, s1.Token} {
		if n := countItemsContaining(t, ctx, e, secret); n != 0 {
			t.Errorf("%d items hold a secret in clear", n)
		}
	}
}

func countItemsContaining(t *testing.T, ctx context.Context, e *env, secret string) int {
	t.Helper()
	out, err := e.store.DB.Scan(ctx, &dynamodb.ScanInput{TableName: &e.store.Table})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range out.Items {
		for _, v := range item {
			if strings.Contains(strings.ToLower(avText(v)), strings.ToLower(secret)) {
				n++
			}
		}
	}
	return n
}

func TestSignUpValidation(t *testing.T) {
	s := account.New(account.Config{AnswerFloor: -1}, nil, nil) // validation needs no store
	ctx := context.Background()
	cases := []struct {
		in          account.SignUpInput
		field, rule string
	}{
		{account.SignUpInput{Password: goodPassword, WorkspaceName: "W"}, "email", account.RuleRequired},
		{account.SignUpInput{Email: "Rahim <r@x.bd>", Password: goodPassword, WorkspaceName: "W"}, "email", account.RuleFormat},
		{account.SignUpInput{Email: "r@x.bd", Password: "short", WorkspaceName: "W"}, "password", account.RuleMinLength},
		{account.SignUpInput{Email: "r@x.bd", Password: "password1234", WorkspaceName: "W"}, "password", account.RuleCommon},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, WorkspaceName: "  "}, "workspace_name", account.RuleRequired},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, WorkspaceName: strings.Repeat("ক", 161)}, "workspace_name", account.RuleMaxLength},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, WorkspaceName: "a\nb"}, "workspace_name", account.RuleFormat},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, WorkspaceName: "W", Next: "https://evil.example/"}, "next", account.RuleFormat},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, WorkspaceName: "W", Next: "/dashboard//evil.example"}, "next", account.RuleFormat},
		{account.SignUpInput{Email: "r@x.bd", Password: goodPassword, JoinOnly: true, Next: "/v1/x"}, "next", account.RuleFormat},
	}
	for _, c := range cases {
		err := s.SignUp(ctx, c.in)
		if _, v, ok := apierr.FieldOf(err); !ok || v.Path != c.field || v.Rule != c.rule {
			t.Errorf("SignUp(%+v) = %v, want %s %s", c.in, err, c.field, c.rule)
		}
	}
}

func TestSignUpOfAKnownEmailRevealsNothing(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	signUp(t, ctx, e, s, "known@shop.com.bd")

	e.ops.take()
	in := account.SignUpInput{Email: "KNOWN@shop.com.bd", Password: "another good passphrase", WorkspaceName: "Second", Lang: "en"}
	errKnown := s.SignUp(ctx, in)
	opsKnown := e.ops.take()
	in.Email = "new@shop.com.bd"
	errNew := s.SignUp(ctx, in)
	opsNew := e.ops.take()
	if errKnown != nil || errNew != nil {
		t.Fatalf("answers differ or fail: %v, %v", errKnown, errNew)
	}
	if !slices.Equal(opsKnown, opsNew) {
		t.Fatalf("requests differ: known %v, new %v", opsKnown, opsNew)
	}
	known := e.mail.to("KNOWN@shop.com.bd")
	if len(known) != 1 || tokenRE.MatchString(known[0].Text) || !strings.Contains(known[0].Text, "/dashboard/sign-in") {
		t.Fatalf("the owner of a known email should get one AccountExists email without a token: %+v", known)
	}
	if len(e.mail.to("new@shop.com.bd")) != 1 {
		t.Fatal("no verification email for the new address")
	}
}

func TestVerifyExpiredAndRace(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	if err := s.SignUp(ctx, account.SignUpInput{Email: "late@shop.com.bd", Password: goodPassword, WorkspaceName: "W"}); err != nil {
		t.Fatal(err)
	}
	late := linkToken(t, e.mail.to("late@shop.com.bd")[0])
	if err := s.SignUp(ctx, account.SignUpInput{Email: "race@shop.com.bd", Password: goodPassword, WorkspaceName: "W"}); err != nil {
		t.Fatal(err)
	}
	race := linkToken(t, e.mail.to("race@shop.com.bd")[0])

	// Two instances verify the same link at once: one wins.
	s2 := e.service()
	var wg sync.WaitGroup
	results := make([]error, 8)
	sessions := make([]*account.Session, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := s
			if i%2 == 1 {
				svc = s2
			}
			sessions[i], results[i] = svc.VerifyEmail(ctx, race, goodPassword, client)
		}()
	}
	wg.Wait()
	wins := 0
	for i, err := range results {
		switch {
		case err == nil:
			wins++
			if sessions[i] == nil || sessions[i].WorkspaceID == "" {
				t.Fatal("winner without a session")
			}
		case !errors.Is(err, account.ErrInvalidToken):
			t.Fatalf("loser: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d concurrent verifications won, want 1", wins)
	}

	// 24 hours later the other link has expired.
	e.clock.Advance(24*time.Hour + time.Second)
	if _, err := s.VerifyEmail(ctx, late, goodPassword, client); !errors.Is(err, account.ErrInvalidToken) {
		t.Fatalf("expired verification: %v", err)
	}
	if owner, _ := e.store.EmailOwner(ctx, "late@shop.com.bd"); owner != "" {
		t.Fatal("an expired verification claimed the email")
	}
}

func TestVerifyAfterAPartialFailureIsRetried(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	if err := s.SignUp(ctx, account.SignUpInput{Email: "retry@shop.com.bd", Password: goodPassword, WorkspaceName: "W"}); err != nil {
		t.Fatal(err)
	}
	token := linkToken(t, e.mail.to("retry@shop.com.bd")[0])
	// A verification that stopped after claiming the sign-up and the email: simulate by
	// claiming through the store, as the first steps of VerifyEmail do.
	hash := hashOf(token)
	p, err := e.store.ClaimPendingToken(ctx, account.TokenSignUp, hash, e.clock.Now(), e.clock.Now().Add(-account.ClaimLease))
	if err != nil || p == nil {
		t.Fatalf("claim: %+v, %v", p, err)
	}
	if _, err := e.store.ClaimEmail(ctx, p.Email, p.UserID); err != nil {
		t.Fatal(err)
	}
	// Within the lease the link is refused (another use may be running)...
	if _, err := s.VerifyEmail(ctx, token, goodPassword, client); !errors.Is(err, account.ErrInvalidToken) {
		t.Fatalf("use within the lease: %v", err)
	}
	// ...after it, the same link finishes the job with the same ids.
	e.clock.Advance(account.ClaimLease + time.Second)
	sess, err := s.VerifyEmail(ctx, token, goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	if sess.UserID != p.UserID || sess.WorkspaceID != p.WorkspaceID {
		t.Fatalf("retry made other ids: %+v vs %+v", sess, p)
	}
	if _, err := s.SignIn(ctx, "retry@shop.com.bd", goodPassword, client); err != nil {
		t.Fatal(err)
	}
}

func TestSignInRevealsNothing(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	signUp(t, ctx, e, s, "known@shop.com.bd")
	e.ops.take()
	_, errKnown := s.SignIn(ctx, "known@shop.com.bd", "wrong password here", client)
	opsKnown := e.ops.take()
	_, errUnknown := s.SignIn(ctx, "nobody@shop.com.bd", "wrong password here", client)
	opsUnknown := e.ops.take()
	if !errors.Is(errKnown, account.ErrBadCredentials) || !errors.Is(errUnknown, account.ErrBadCredentials) || errKnown.Error() != errUnknown.Error() {
		t.Fatalf("answers differ: %v / %v", errKnown, errUnknown)
	}
	if !slices.Equal(opsKnown, opsUnknown) {
		t.Fatalf("requests differ: known %v, unknown %v", opsKnown, opsUnknown)
	}
	if want := []string{"BatchGetItem", "GetItem", "GetItem", "PutItem", "PutItem"}; !slices.Equal(opsKnown, want) {
		t.Fatalf("a failed sign-in made %v, want %v", opsKnown, want)
	}
	// Malformed input is a field error, whatever the account.
	if _, err := s.SignIn(ctx, "not an email", goodPassword, client); !isField(err, "email") {
		t.Fatalf("malformed email: %v", err)
	}
}

func TestSignInLimitsAcrossInstances(t *testing.T) {
	e, ctx := newEnv(t)
	a, b := e.service(), e.service() // two instances sharing the table
	signUp(t, ctx, e, a, "guessed@shop.com.bd")
	before := len(e.mail.to("guessed@shop.com.bd"))
	other := account.Client{IP: "198.51.100.1"}

	for i := range account.AccountThreshold {
		svc := []*account.Service{a, b}[i%2]
		if _, err := svc.SignIn(ctx, "guessed@shop.com.bd", "wrong password "+string(rune('a'+i)), other); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	// Locked: the right password gets the same answer as a wrong one, on either instance.
	for _, pw := range []string{goodPassword, "wrong password z"} {
		for _, svc := range []*account.Service{a, b} {
			_, err := svc.SignIn(ctx, "GUESSED@shop.com.bd", pw, other)
			if le, ok := limited(err); !ok || le.RetryAfter() != time.Minute {
				t.Fatalf("locked account, password %q: %v", pw, err)
			}
		}
	}
	msgs := e.mail.to("guessed@shop.com.bd")[before:]
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "/dashboard/forgot-password") {
		t.Fatalf("want one sign-in attempts email, got %d", len(msgs))
	}
	// The lock grows: the next failure after the minute locks for two.
	e.clock.Advance(time.Minute)
	if _, err := b.SignIn(ctx, "guessed@shop.com.bd", "wrong again", other); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatalf("failure after the lock: %v", err)
	}
	if _, err := a.SignIn(ctx, "guessed@shop.com.bd", goodPassword, other); !isLimited(err, 2*time.Minute) {
		t.Fatalf("second lock: %v", err)
	}
	if n := len(e.mail.to("guessed@shop.com.bd")[before:]); n != 1 {
		t.Fatalf("%d attempts emails in one window, want 1", n)
	}
	e.clock.Advance(2 * time.Minute)
	if _, err := a.SignIn(ctx, "guessed@shop.com.bd", goodPassword, other); err != nil {
		t.Fatalf("after the lock the right password works: %v", err)
	}
	// An unknown email is limited the same way.
	for range account.AccountThreshold {
		if _, err := a.SignIn(ctx, "ghost@shop.com.bd", "wrong password x", other); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatal(err)
		}
	}
	if _, err := b.SignIn(ctx, "ghost@shop.com.bd", "wrong password x", other); !isLimited(err, time.Minute) {
		t.Fatalf("unknown email after %d failures: %v", account.AccountThreshold, err)
	}
	want := []string{account.EventSignInFailed, account.EventSignInLimited}
	kinds := e.events.kinds()
	if !slices.Contains(kinds, want[0]) || !slices.Contains(kinds, want[1]) {
		t.Fatalf("events %v", kinds)
	}
}

func TestSignInLimitPerClientAddress(t *testing.T) {
	e, ctx := newEnv(t)
	a, b := e.service(), e.service()
	c := account.Client{IP: "2001:db8:1:2:3:4:5:6"}
	// IPThreshold failures from one address (its /64), over many emails, on two instances.
	for i := range account.IPThreshold {
		svc := []*account.Service{a, b}[i%2]
		ip := c
		if i%3 == 0 {
			ip.IP = "2001:db8:1:2::99" // the same /64
		}
		email := "user" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@shop.com.bd"
		if _, err := svc.SignIn(ctx, email, "wrong password x", ip); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	if _, err := a.SignIn(ctx, "fresh@shop.com.bd", "any password at all", c); !isLimitedWithin(err, account.IPWindow) {
		t.Fatalf("address over its limit: %v", err)
	}
	// Another address is not limited.
	if _, err := a.SignIn(ctx, "fresh@shop.com.bd", "any password at all", account.Client{IP: "2001:db8:9::1"}); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatalf("another address: %v", err)
	}
}

func TestConcurrentFailuresAreCountedExactly(t *testing.T) {
	e, ctx := newEnv(t)
	a, b := e.service(), e.service()
	var wg sync.WaitGroup
	const n = 4 // under the threshold: every one must be counted, none limited
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = []*account.Service{a, b}[i%2].SignIn(ctx, "busy@shop.com.bd", "wrong password x", account.Client{})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, account.ErrBadCredentials) {
			t.Fatal(err)
		}
	}
	// One more failure reaches the threshold; the next is limited.
	if _, err := a.SignIn(ctx, "busy@shop.com.bd", "wrong password x", account.Client{}); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatal(err)
	}
	if _, err := b.SignIn(ctx, "busy@shop.com.bd", "wrong password x", account.Client{}); !isLimitedWithin(err, 0) {
		t.Fatalf("after %d failures: %v", n+1, err)
	}
}

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	first := signUp(t, ctx, e, s, "owner@shop.com.bd")
	ws := first.WorkspaceID

	// Idle: 30 minutes without a request ends it, for the dashboard and the document routes.
	idle, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	start := e.clock.Now()
	for e.clock.Now().Sub(start) < 8*time.Hour-20*time.Minute {
		e.clock.Advance(20 * time.Minute)
		if _, err := s.Authenticate(ctx, busy.Token); err != nil {
			t.Fatalf("busy session after %s: %v", e.clock.Now().Sub(start), err)
		}
		if err := workspaceAuth(ctx, e, busy.Token, ws); err != nil {
			t.Fatalf("busy session on a document route after %s: %v", e.clock.Now().Sub(start), err)
		}
		if e.clock.Now().Sub(start) >= 40*time.Minute {
			if _, err := s.Authenticate(ctx, idle.Token); !errors.Is(err, account.ErrNoSession) {
				t.Fatalf("idle session after %s: %v", e.clock.Now().Sub(start), err)
			}
			if err := workspaceAuth(ctx, e, idle.Token, ws); err == nil {
				t.Fatal("an idle session works on a document route")
			}
		}
	}
	// Absolute: 8 hours after sign-in, however busy.
	e.clock.Advance(start.Add(8 * time.Hour).Sub(e.clock.Now()))
	if _, err := s.Authenticate(ctx, busy.Token); !errors.Is(err, account.ErrNoSession) {
		t.Fatalf("session at its lifetime's end: %v", err)
	}
	if err := workspaceAuth(ctx, e, busy.Token, ws); err == nil {
		t.Fatal("a session past its lifetime works on a document route")
	}
}

func TestAuthenticateRefreshesAtMostOncePerMinute(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	sess := signUp(t, ctx, e, s, "owner@shop.com.bd")
	e.ops.take()
	if _, err := s.Authenticate(ctx, sess.Token); err != nil {
		t.Fatal(err)
	}
	if got := e.ops.take(); !slices.Equal(got, []string{"GetItem"}) {
		t.Fatalf("a fresh session's Authenticate made %v, want one GetItem", got)
	}
	e.clock.Advance(account.RefreshEvery)
	if _, err := s.Authenticate(ctx, sess.Token); err != nil {
		t.Fatal(err)
	}
	if got := e.ops.take(); !slices.Equal(got, []string{"GetItem", "UpdateItem"}) {
		t.Fatalf("a minute later Authenticate made %v, want GetItem, UpdateItem", got)
	}
	if _, err := s.Authenticate(ctx, sess.Token); err != nil {
		t.Fatal(err)
	}
	if got := e.ops.take(); !slices.Equal(got, []string{"GetItem"}) {
		t.Fatalf("right after a refresh Authenticate made %v", got)
	}
	for _, bad := range []string{"", "x", strings.Repeat("A", 43)} {
		if _, err := s.Authenticate(ctx, bad); !errors.Is(err, account.ErrNoSession) {
			t.Fatalf("Authenticate(%q): %v", bad, err)
		}
	}
}

func TestSignOutAndSignOutEverywhere(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	first := signUp(t, ctx, e, s, "owner@shop.com.bd")
	ws := first.WorkspaceID
	var tokens []string
	for range 3 {
		sess, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, sess.Token)
	}
	if err := s.SignOut(ctx, tokens[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, tokens[0]); !errors.Is(err, account.ErrNoSession) {
		t.Fatalf("signed-out session: %v", err)
	}
	if err := workspaceAuth(ctx, e, tokens[0], ws); err == nil {
		t.Fatal("a signed-out session works on a document route")
	}
	if err := workspaceAuth(ctx, e, tokens[1], ws); err != nil {
		t.Fatalf("another session stopped working: %v", err)
	}
	if err := s.SignOut(ctx, "not a token"); err != nil {
		t.Fatal(err)
	}
	// A passkey sign-in starts a session too.
	pk, err := s.StartSession(ctx, first.UserID, client)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartSession(ctx, "0190a0a0-0000-7000-8000-000000000000", client); !errors.Is(err, account.ErrUnknownUser) {
		t.Fatalf("StartSession of nobody: %v", err)
	}

	if err := s.SignOutEverywhere(ctx, first.UserID, false, client); err != nil {
		t.Fatal(err)
	}
	for _, tok := range append(tokens[1:], first.Token, pk.Token) {
		if _, err := s.Authenticate(ctx, tok); !errors.Is(err, account.ErrNoSession) {
			t.Fatalf("session after sign out everywhere: %v", err)
		}
		if err := workspaceAuth(ctx, e, tok, ws); err == nil {
			t.Fatal("a session ended everywhere works on a document route")
		}
	}
	// Signing in again works.
	again, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	if err := workspaceAuth(ctx, e, again.Token, ws); err != nil {
		t.Fatal(err)
	}
}

func TestPasswordReset(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	first := signUp(t, ctx, e, s, "owner@shop.com.bd")
	other, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}

	// The same answer and requests for a known and an unknown address.
	e.ops.take()
	errKnown := s.RequestPasswordReset(ctx, "Owner@shop.com.bd", "bn", client)
	opsKnown := e.ops.take()
	errUnknown := s.RequestPasswordReset(ctx, "nobody@shop.com.bd", "bn", client)
	opsUnknown := e.ops.take()
	if errKnown != nil || errUnknown != nil || !slices.Equal(opsKnown, opsUnknown) {
		t.Fatalf("known %v %v, unknown %v %v", errKnown, opsKnown, errUnknown, opsUnknown)
	}
	// Each address got one email (the same work either way), and only the account's carries a
	// link: the other says that no account has the address.
	nobody := e.mail.to("nobody@shop.com.bd")
	if len(nobody) != 1 || tokenRE.MatchString(nobody[0].Text) || !strings.Contains(nobody[0].Text, "অ্যাকাউন্ট নেই") {
		t.Fatalf("an address without an account got %d emails: %+v", len(nobody), nobody)
	}
	msgs := e.mail.to("owner@shop.com.bd")
	last := msgs[len(msgs)-1]
	if !strings.Contains(last.Text, "/dashboard/reset-password?token=") {
		t.Fatalf("reset email: %q", last.Text)
	}
	token := linkToken(t, last)

	// A weak new password is refused before the link is used.
	if err := s.ResetPassword(ctx, token, "password1234", false, client); !isRule(err, account.RuleCommon) {
		t.Fatalf("weak reset: %v", err)
	}
	// The account is being guessed and is locked when its owner resets the password.
	for range account.AccountThreshold {
		if _, err := s.SignIn(ctx, "owner@shop.com.bd", "wrong password x", client); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatal(err)
		}
	}
	const newPassword = "a brand new passphrase"
	if _, err := s.SignIn(ctx, "owner@shop.com.bd", newPassword, client); err == nil {
		t.Fatal("not locked")
	}
	if err := s.ResetPassword(ctx, token, newPassword, false, client); err != nil {
		t.Fatal(err)
	}
	// Every session ended; the old password no longer works; the new one does.
	for _, tok := range []string{first.Token, other.Token} {
		if err := workspaceAuth(ctx, e, tok, first.WorkspaceID); err == nil {
			t.Fatal("a session survived the reset")
		}
	}
	if _, err := s.SignIn(ctx, "owner@shop.com.bd", goodPassword, client); !errors.Is(err, account.ErrBadCredentials) {
		t.Fatalf("old password: %v", err)
	}
	if _, err := s.SignIn(ctx, "owner@shop.com.bd", newPassword, client); err != nil {
		t.Fatalf("new password: %v", err)
	}
	changed := e.mail.to("owner@shop.com.bd")
	if got := changed[len(changed)-1]; tokenRE.MatchString(got.Text) || got.Subject == last.Subject {
		t.Fatalf("want a password changed email last, got %q", got.Subject)
	}
	// Single use.
	if err := s.ResetPassword(ctx, token, "yet another passphrase", false, client); !errors.Is(err, account.ErrInvalidToken) {
		t.Fatalf("reused reset link: %v", err)
	}
	// Expired after 30 minutes.
	if err := s.RequestPasswordReset(ctx, "owner@shop.com.bd", "en", client); err != nil {
		t.Fatal(err)
	}
	msgs = e.mail.to("owner@shop.com.bd")
	expired := linkToken(t, msgs[len(msgs)-1])
	e.clock.Advance(account.ResetValidFor)
	if err := s.ResetPassword(ctx, expired, "yet another passphrase", false, client); !errors.Is(err, account.ErrInvalidToken) {
		t.Fatalf("expired reset link: %v", err)
	}
	if !slices.Contains(e.events.kinds(), account.EventPasswordReset) {
		t.Fatal("no password.reset event")
	}
}

func hashOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// avText is every text of an attribute value, joined.
func avText(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return string(v.Value)
	case *types.AttributeValueMemberSS:
		return strings.Join(v.Value, " ")
	case *types.AttributeValueMemberL:
		var parts []string
		for _, e := range v.Value {
			parts = append(parts, avText(e))
		}
		return strings.Join(parts, " ")
	case *types.AttributeValueMemberM:
		var parts []string
		for k, e := range v.Value {
			parts = append(parts, k, avText(e))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func TestEverywhereEndsOperatorSessionsAndBlocksSessionsBeingStarted(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	first := signUp(t, ctx, e, s, "owner@shop.com.bd")
	op := &operator.Operator{Store: e.store, Now: e.clock.Now}
	issued, err := op.CreateSession(ctx, first.UserID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := workspaceAuth(ctx, e, issued.Token, first.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	// A sign-in listed its session but had not stored it when sign out everywhere ran.
	_, hash, err := auth.NewSessionToken()
	if err != nil {
		t.Fatal(err)
	}
	abs := e.clock.Now().Add(8 * time.Hour)
	if err := e.store.PutUserSession(ctx, first.UserID, hash, abs); err != nil {
		t.Fatal(err)
	}
	if err := s.SignOutEverywhere(ctx, first.UserID, false, client); err != nil {
		t.Fatal(err)
	}
	if err := workspaceAuth(ctx, e, issued.Token, first.WorkspaceID); err == nil {
		t.Fatal("an operator session survived sign out everywhere")
	}
	late := &auth.SessionRecord{Hash: hash, UserID: first.UserID, CreatedAt: e.clock.Now(), ExpiresAt: abs, AbsoluteExpiresAt: abs, SeenAt: e.clock.Now()}
	if err := e.store.PutSession(ctx, late); err == nil {
		t.Fatal("a session listed before sign out everywhere could still be stored after it")
	}
	if hashes, err := e.store.UserSessions(ctx, first.UserID, e.clock.Now()); err != nil || len(hashes) != 0 {
		t.Fatalf("sessions still listed: %v, %v", hashes, err)
	}
}

func TestTwoSignUpsOfOneAddress(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	for _, name := range []string{"First", "Second"} {
		if err := s.SignUp(ctx, account.SignUpInput{Email: "twice@shop.com.bd", Password: goodPassword, WorkspaceName: name}); err != nil {
			t.Fatal(err)
		}
	}
	msgs := e.mail.to("twice@shop.com.bd")
	if len(msgs) != 2 {
		t.Fatalf("%d emails", len(msgs))
	}
	if _, err := s.VerifyEmail(ctx, linkToken(t, msgs[1]), goodPassword, client); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyEmail(ctx, linkToken(t, msgs[0]), goodPassword, client); !errors.Is(err, account.ErrAccountExists) {
		t.Fatalf("the other link after the address got an account: %v", err)
	}
}

func TestJoinOnlySignUpMakesNoWorkspace(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	next := "/dashboard/invite?token=abc"
	if err := s.SignUp(ctx, account.SignUpInput{Email: "dev@shop.com.bd", Password: goodPassword, Lang: "en", Next: next, JoinOnly: true}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.VerifyEmail(ctx, linkToken(t, e.mail.to("dev@shop.com.bd")[0]), goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	if sess.WorkspaceID != "" || sess.Next != next {
		t.Fatalf("join-only session %+v", sess)
	}
	u, err := s.User(ctx, sess.UserID)
	if err != nil || u == nil || u.Email != "dev@shop.com.bd" || u.PasswordHash != "" {
		t.Fatalf("User = %+v, %v", u, err)
	}
}

func TestRequestsPerOperation(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	check := func(what string, want ...string) {
		t.Helper()
		if got := e.ops.take(); !slices.Equal(got, want) {
			t.Errorf("%s made %v, want %v", what, got, want)
		}
	}
	e.ops.take()
	if err := s.SignUp(ctx, account.SignUpInput{Email: "n@shop.com.bd", Password: goodPassword, WorkspaceName: "W"}); err != nil {
		t.Fatal(err)
	}
	check("SignUp", "PutItem", "GetItem", "BatchGetItem", "PutItem")
	sess, err := s.VerifyEmail(ctx, linkToken(t, e.mail.to("n@shop.com.bd")[0]), goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	check("VerifyEmail", "UpdateItem", "PutItem", "PutItem", "PutItem", "UpdateItem", "PutItem", "PutItem", "DeleteItem")
	in, err := s.SignIn(ctx, "n@shop.com.bd", goodPassword, client)
	if err != nil {
		t.Fatal(err)
	}
	check("SignIn", "BatchGetItem", "GetItem", "GetItem", "PutItem", "GetItem", "PutItem")
	if _, err := s.StartSession(ctx, sess.UserID, client); err != nil {
		t.Fatal(err)
	}
	check("StartSession", "GetItem", "PutItem", "PutItem")
	if err := s.SignOut(ctx, in.Token); err != nil {
		t.Fatal(err)
	}
	check("SignOut", "UpdateItem", "DeleteItem")
	if err := s.RequestPasswordReset(ctx, "n@shop.com.bd", "en", client); err != nil {
		t.Fatal(err)
	}
	check("RequestPasswordReset", "GetItem", "GetItem", "PutItem", "BatchGetItem", "PutItem")
	if err := s.SignOutEverywhere(ctx, sess.UserID, false, client); err != nil {
		t.Fatal(err)
	}
	// Two live sessions (the verified one and StartSession's): two writes each.
	check("SignOutEverywhere", "UpdateItem", "Query", "UpdateItem", "DeleteItem", "UpdateItem", "DeleteItem")
}

func TestNoInboxFlooding(t *testing.T) {
	e, ctx := newEnv(t)
	a, b := e.service(), e.service()
	signUp(t, ctx, e, a, "victim@shop.com.bd") // one email
	// Sign-ups of the address, from two instances: at most MailsPerAddress emails an hour.
	for i := range account.MailsPerAddress + 3 {
		svc := []*account.Service{a, b}[i%2]
		if err := svc.SignUp(ctx, account.SignUpInput{Email: "VICTIM@shop.com.bd", Password: goodPassword, WorkspaceName: "W", Client: client}); err != nil {
			t.Fatalf("sign-up %d: %v", i+1, err)
		}
	}
	count := func() int { return len(e.mail.to("victim@shop.com.bd")) + len(e.mail.to("VICTIM@shop.com.bd")) }
	if n := count(); n != account.MailsPerAddress {
		t.Fatalf("%d emails reached the address through sign-ups in an hour, want %d", n, account.MailsPerAddress)
	}
	// Resets of the address from one client, from two instances: at most ResetMailsPerClient.
	for i := range account.ResetMailsPerClient + 3 {
		if err := []*account.Service{a, b}[i%2].RequestPasswordReset(ctx, "victim@shop.com.bd", "en", client); err != nil {
			t.Fatalf("reset %d: %v", i+1, err)
		}
	}
	if n := count(); n != account.MailsPerAddress+account.ResetMailsPerClient {
		t.Fatalf("%d emails in an hour, want %d", n, account.MailsPerAddress+account.ResetMailsPerClient)
	}
	e.clock.Advance(account.MailWindow)
	if err := a.RequestPasswordReset(ctx, "victim@shop.com.bd", "en", client); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != account.MailsPerAddress+account.ResetMailsPerClient+1 {
		t.Fatal("no email an hour later")
	}
}

// The owner's reset wins: after a flood of sign-ups of the owner's address and of resets of it
// from the attacker's client, the reset the owner asks for from their own connection is sent.
func TestOwnersResetIsSentAfterAFlood(t *testing.T) {
	e, ctx := newEnv(t)
	a, b := e.service(), e.service()
	signUp(t, ctx, e, a, "owner@shop.com.bd")
	attacker := account.Client{IP: "198.51.100.66", UserAgent: "flood"}
	for i := range 3 * account.MailsPerAddress {
		svc := []*account.Service{a, b}[i%2]
		if err := svc.SignUp(ctx, account.SignUpInput{Email: "owner@shop.com.bd", Password: goodPassword, WorkspaceName: "W", Client: attacker}); err != nil {
			t.Fatal(err)
		}
		if err := svc.RequestPasswordReset(ctx, "OWNER@shop.com.bd", "en", attacker); err != nil {
			t.Fatal(err)
		}
	}
	before := len(e.mail.to("owner@shop.com.bd"))
	owner := account.Client{IP: "2001:db8:77:1::5", UserAgent: "owner"}
	if err := b.RequestPasswordReset(ctx, "owner@shop.com.bd", "en", owner); err != nil {
		t.Fatal(err)
	}
	msgs := e.mail.to("owner@shop.com.bd")
	if len(msgs) != before+1 || !strings.Contains(msgs[len(msgs)-1].Text, "/dashboard/reset-password?token=") {
		t.Fatalf("the owner's reset after the flood: %d new emails, want 1 with a reset link", len(msgs)-before)
	}
	if err := a.ResetPassword(ctx, linkToken(t, msgs[len(msgs)-1]), "a brand new passphrase", false, owner); err != nil {
		t.Fatalf("the owner's link: %v", err)
	}
}

func TestSignInRehashesOlderHashes(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	// A user whose hash was made with older, cheaper parameters.
	salt := []byte("0123456789abcdef")
	key := argon2.IDKey([]byte(goodPassword), salt, 1, 64, 1, 32)
	old := "$argon2id$v=19$m=64,t=1,p=1$" + base64.RawStdEncoding.EncodeToString(salt) + "$" + base64.RawStdEncoding.EncodeToString(key)
	id := "0190a0a0-0000-7000-8000-000000000001"
	if _, err := e.store.ClaimEmail(ctx, "old@shop.com.bd", id); err != nil {
		t.Fatal(err)
	}
	if err := e.store.CreateAccountUser(ctx, &account.User{ID: id, Email: "old@shop.com.bd", PasswordHash: old, CreatedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "old@shop.com.bd", goodPassword, client); err != nil {
		t.Fatal(err)
	}
	u, err := e.store.GetAccountUser(ctx, id)
	if err != nil || !strings.HasPrefix(u.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash after sign-in: %+v, %v", u, err)
	}
	if _, err := s.SignIn(ctx, "old@shop.com.bd", goodPassword, client); err != nil {
		t.Fatalf("sign-in with the rehashed password: %v", err)
	}
}

func TestCreateVerifiedAccount(t *testing.T) {
	e, ctx := newEnv(t)
	s := e.service()
	in := account.SignUpInput{Email: "seed@shop.com.bd", Password: goodPassword, WorkspaceName: "Seeded", Lang: "en"}
	sess, err := s.CreateVerifiedAccount(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.mail.all()) != 0 {
		t.Fatal("seeding sent email")
	}
	if err := workspaceAuth(ctx, e, sess.Token, sess.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "seed@shop.com.bd", goodPassword, client); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateVerifiedAccount(ctx, in); !errors.Is(err, account.ErrAccountExists) {
		t.Fatalf("second seeding: %v", err)
	}
	in.Password = "password1234"
	if _, err := s.CreateVerifiedAccount(ctx, in); !isField(err, "password") {
		t.Fatalf("weak password: %v", err)
	}
}

// limited returns err as a RATE_LIMITED refusal (account's locked sign-in).
func limited(err error) (*apierr.Error, bool) {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.RateLimited {
		return nil, false
	}
	return e, true
}

// isLimited reports a RATE_LIMITED refusal whose Retry-After is want.
func isLimited(err error, want time.Duration) bool {
	e, ok := limited(err)
	return ok && e.RetryAfter() == want
}

// isLimitedWithin reports a RATE_LIMITED refusal whose Retry-After is positive and, when
// bound is not 0, at most bound.
func isLimitedWithin(err error, bound time.Duration) bool {
	e, ok := limited(err)
	return ok && e.RetryAfter() > 0 && (bound == 0 || e.RetryAfter() <= bound)
}

// isField reports a VALIDATION_FAILED refusal of field.
func isField(err error, field string) bool {
	_, v, ok := apierr.FieldOf(err)
	return ok && v.Path == field
}

// isRule reports a VALIDATION_FAILED refusal breaking rule.
func isRule(err error, rule string) bool {
	_, v, ok := apierr.FieldOf(err)
	return ok && v.Rule == rule
}
