package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	accmail "github.com/takapay/payments/shared/mail"
)

// Session defaults (Config's zero values mean these).
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultLifetime    = 8 * time.Hour
	// RefreshEvery is how often, at most, Authenticate moves a session's idle deadline (one
	// conditional UpdateItem), so a busy session costs one write a minute, not one a request.
	RefreshEvery = time.Minute
	// VerifyValidFor and ResetValidFor are how long a sign-up's verification link and a
	// password reset link work.
	VerifyValidFor = 24 * time.Hour
	ResetValidFor  = 30 * time.Minute
	// ClaimLease is how long a verification or reset being carried out holds its token: a second
	// use within it is refused (of two concurrent uses one wins); after it, a use that failed
	// half way may be retried with the same link.
	ClaimLease = 30 * time.Second
	// DefaultAnswerFloor is the least time the failed sign-in that first reaches an account's
	// threshold takes, known account or not, so that the SignInAttempts email sent for a known
	// one shows in no timing. (SignUp and RequestPasswordReset hold no delay: they send one
	// email whatever the address.)
	DefaultAnswerFloor = 1500 * time.Millisecond
	// MaxEmailLen is the longest email address (RFC 5321 path limit).
	MaxEmailLen = 254
	// MaxWorkspaceNameRunes is the longest workspace name.
	MaxWorkspaceNameRunes = 160
	// MaxNextLen is the longest Next path kept with a sign-up.
	MaxNextLen = 512
)

// The links the emails carry, under Config.BaseURL: the dashboard serves these pages.
const (
	VerifyPath = "/verify-email" // ?token=<verify token>
	ResetPath  = "/reset-password"
	SignInPath = "/sign-in"
	// ForgotPath is the page that asks for a reset link (AccountExists and SignInAttempts
	// emails point there).
	ForgotPath = "/forgot-password"
)

// Event kinds (Event.Kind).
const (
	EventSignInSucceeded   = "signin.succeeded"
	EventSignInFailed      = "signin.failed"
	EventSignInLimited     = "signin.limited"
	EventPasswordReset     = "password.reset"
	EventSignUpVerified    = "signup.verified"
	EventSignOutEverywhere = "signout.everywhere"
	// EventPasskeysRemoved: a password reset or a sign out everywhere removed every passkey
	// of the user, as the owner chose on its form.
	EventPasskeysRemoved = "passkeys.removed"
	// EventPasskeyAdded: a passkey was activated after its owner was emailed (Target names it).
	EventPasskeyAdded = "passkey.added"
	// EventPasswordConfirmed: the user re-entered their password on a "confirm it's you"
	// step (ConfirmPassword); a wrong one is an EventSignInFailed.
	EventPasswordConfirmed = "password.confirmed"
	// EventMailFailed reports an email that could not be sent where the answer must not show it
	// (password reset, sign-in attempts).
	EventMailFailed = "mail.failed"
)

// Client is who is calling: the client address (API Gateway's sourceIp) and user agent.
type Client = activity.Client

// Event is something worth recording (the activity log): a sign-in that succeeded, failed or
// was limited, a verified sign-up, a password reset, a sign out everywhere. UserID is empty
// when the email has no account (failed, limited); Email is as typed.
type Event struct {
	Kind   string
	UserID string
	Email  string
	Client Client
	// Err is the error of a mail.failed event.
	Err error
	// Target names what the event is about (a passkey.added's passkey).
	Target string
}

// Session is a session just started. Token is the takapay_session cookie's value (shown once,
// stored only as its hash). ExpiresAt is the absolute end of the session (the cookie's
// Expires); it also ends after IdleTimeout without a request. WorkspaceID is the workspace a
// verified sign-up created (empty otherwise); Next is the sign-up's Next.
type Session struct {
	Token       string
	UserID      string
	WorkspaceID string
	Next        string
	ExpiresAt   time.Time
}

// SessionInfo is an authenticated session. CSRFToken is the session's form token (derived from
// the session token, so it needs no storage): pages put it in every form and check what comes
// back with CheckCSRF.
type SessionInfo struct {
	UserID            string
	Hash              string
	CreatedAt         time.Time
	ExpiresAt         time.Time // idle deadline, at most AbsoluteExpiresAt
	AbsoluteExpiresAt time.Time
	CSRFToken         string
	// ProvedAt is when the user last proved who they are in this session: the sign-in, or
	// ConfirmPassword (zero: never, an operator-made session).
	ProvedAt time.Time
}

// Config configures a Service.
type Config struct {
	// BaseURL is the dashboard's origin and path ("https://pay.example.com/dashboard"): the
	// emails' links are BaseURL + VerifyPath and so on.
	BaseURL string
	// IdleTimeout ends a session after this long without a request (DefaultIdleTimeout when 0).
	IdleTimeout time.Duration
	// Lifetime ends a session this long after sign-in whatever its use (DefaultLifetime when 0).
	Lifetime time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// OnEvent receives the events (nil: dropped). It must not block for long.
	OnEvent func(ctx context.Context, e Event)
	// AnswerFloor is the least time a failed sign-in that reaches the account threshold takes
	// (DefaultAnswerFloor when 0; negative: none, for tests). It is measured on the real
	// clock, not Now.
	AnswerFloor time.Duration
	// Passkeys are the users' passkeys as accounts see them: a reset email lists them, and a
	// reset or sign out everywhere removes them when the owner asks (nil: no passkeys).
	Passkeys Passkeys
}

// PasskeyInfo is one passkey of a user, as a reset email lists it. Pending: registered, not
// yet active (its owner not yet emailed).
type PasskeyInfo struct {
	ID, Name  string
	CreatedAt time.Time
	Pending   bool
}

// Passkeys lists, activates and removes a user's passkeys (package passkey's store; adapted
// in wire).
type Passkeys interface {
	ListPasskeys(ctx context.Context, userID string) ([]PasskeyInfo, error)
	ActivatePasskey(ctx context.Context, userID, id string) error
	DeletePasskey(ctx context.Context, userID, id string) error
}

// User is a dashboard user as accounts see it.
type User struct {
	ID           string
	Email        string
	PasswordHash string // PHC argon2id; empty for a user without a password (operator-made)
	Lang         string
	CreatedAt    time.Time
	// SessionEpoch grows with every sign out everywhere and password change: a sign-in that
	// read an older epoch does not start a session.
	SessionEpoch int64
}

// Token kinds of pending tokens.
const (
	TokenSignUp = "SIGNUP"
	TokenReset  = "RESET"
)

// PendingToken is a sign-up waiting for its email's verification, or a password reset waiting
// for its new password, stored under the SHA-256 of its 256-bit token.
type PendingToken struct {
	Kind string
	Hash string
	// UserID and WorkspaceID are chosen at sign-up, so that a verification that failed half
	// way and is retried makes the same user and workspace. A reset's UserID is the user's
	// (empty for the decoy written for an email with no account).
	UserID, WorkspaceID string
	Email               string
	PasswordHash        string
	WorkspaceName       string
	Lang                string
	Next                string
	JoinOnly            bool
	// Epoch is a reset's user's session epoch when the link was sent: a reset whose user's
	// epoch has moved since (another reset used, a sign out everywhere) is no longer valid.
	Epoch     int64
	CreatedAt time.Time
	ExpiresAt time.Time
	ClaimedAt time.Time // zero until a use claims it
}

// Store keeps accounts' items. Every write is one single-item (conditional) write.
type Store interface {
	// EmailOwner returns the id of the user who claimed email (in any letter case), "" if none.
	EmailOwner(ctx context.Context, email string) (string, error)
	// ClaimEmail claims email for userID unless claimed, and returns the owner: userID when
	// this or an earlier call by the same user claimed it, another id when taken.
	ClaimEmail(ctx context.Context, email, userID string) (string, error)
	// GetAccountUser reads a user; nil, nil when absent.
	GetAccountUser(ctx context.Context, id string) (*User, error)
	// CreateAccountUser creates a user; ErrConflict when the id exists.
	CreateAccountUser(ctx context.Context, u *User) error
	// SetPassword replaces an existing user's password hash and grows its session epoch, only
	// while the epoch is still epoch: ErrUnknownUser when the user is absent or it moved.
	SetPassword(ctx context.Context, userID, hash string, at time.Time, epoch int64) error
	// RehashPassword replaces a user's password hash by an equivalent one (new parameters),
	// only if it is still old; it ends no session. ErrConflict when it is not.
	RehashPassword(ctx context.Context, userID, old, hash string) error
	// BumpSessionEpoch grows an existing user's session epoch; ErrUnknownUser when absent.
	BumpSessionEpoch(ctx context.Context, userID string) error

	PutPendingToken(ctx context.Context, p *PendingToken) error
	// ClaimPendingToken marks a pending token claimed at now and returns it, if it exists,
	// has not expired, and is unclaimed or was claimed before staleBefore; nil, nil otherwise.
	ClaimPendingToken(ctx context.Context, kind, hash string, now, staleBefore time.Time) (*PendingToken, error)
	// DeletePendingToken deletes a pending token still claimed at claimedAt.
	DeletePendingToken(ctx context.Context, kind, hash string, claimedAt time.Time) error
	// ReleasePendingToken unclaims a pending token still claimed at claimedAt (usable again
	// at once); ErrConflict when it is not.
	ReleasePendingToken(ctx context.Context, kind, hash string, claimedAt time.Time) error

	// CreateWorkspace creates a workspace; ErrConflict when the id exists.
	CreateWorkspace(ctx context.Context, w auth.Workspace) error
	PutMembership(ctx context.Context, m *auth.MembershipRecord) (*auth.MembershipRecord, error)

	PutSession(ctx context.Context, rec *auth.SessionRecord) error
	GetSession(ctx context.Context, hash string) (*auth.SessionRecord, error)
	// ProveSession sets a session's ProvedAt to at, if it exists and is not revoked
	// (ErrNoSession otherwise).
	ProveSession(ctx context.Context, hash string, at time.Time) error
	// TouchSession moves a session's idle deadline: seen_at from seen to now and expires_at to
	// expires, only if seen_at is still seen and it is not revoked (ErrConflict otherwise).
	TouchSession(ctx context.Context, hash string, seen, now, expires time.Time) error
	// EndSession revokes a session at t and returns its user. With mustExist false an absent
	// session is written revoked (a tombstone kept until keepUntil), so that a session
	// being started at that moment cannot be stored afterwards; with mustExist true an absent
	// session is ErrNoSession.
	EndSession(ctx context.Context, hash string, t, keepUntil time.Time, mustExist bool) (string, error)
	// PutUserSession lists a session under its user until expires; UserSessions lists the
	// hashes of a user's sessions not yet expired at now; DeleteUserSession unlists one.
	PutUserSession(ctx context.Context, userID, hash string, expires time.Time) error
	UserSessions(ctx context.Context, userID string, now time.Time) ([]string, error)
	DeleteUserSession(ctx context.Context, userID, hash string) error

	// GetSignInCounters reads the counters of keys (one request); absent ones are missing.
	GetSignInCounters(ctx context.Context, keys ...string) (map[string]*Counter, error)
	// PutSignInCounter writes c if the stored counter's version is still prev (0: absent);
	// ErrConflict otherwise.
	PutSignInCounter(ctx context.Context, c *Counter, prev int64) error
	// DeleteSignInCounter deletes a counter.
	DeleteSignInCounter(ctx context.Context, key string) error
}

// Service is the accounts use cases. It is safe for concurrent use.
type Service struct {
	cfg    Config
	store  Store
	sender accmail.Sender
}

// New returns a Service.
func New(cfg Config, store Store, sender accmail.Sender) *Service {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = DefaultLifetime
	}
	if cfg.AnswerFloor == 0 {
		cfg.AnswerFloor = DefaultAnswerFloor
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Service{cfg: cfg, store: store, sender: sender}
}

func (s *Service) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) event(ctx context.Context, kind, userID, email string, c Client) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(ctx, Event{Kind: kind, UserID: userID, Email: email, Client: c})
	}
}

func (s *Service) mailFailed(ctx context.Context, userID, email string, c Client, err error) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(ctx, Event{Kind: EventMailFailed, UserID: userID, Email: email, Client: c, Err: err})
	}
}

// floor waits until start+AnswerFloor (or ctx's end).
func (s *Service) floor(ctx context.Context, start time.Time) {
	if s.cfg.AnswerFloor <= 0 {
		return
	}
	wait := time.Until(start.Add(s.cfg.AnswerFloor))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// send composes and sends one email.
func (s *Service) send(ctx context.Context, k accmail.Kind, lang string, d accmail.Data) error {
	m, err := accmail.Compose(k, langOf(lang), d)
	if err != nil {
		return fmt.Errorf("compose %s email: %w", k, err)
	}
	if err := s.sender.Send(ctx, m); err != nil {
		return fmt.Errorf("send %s email: %w", k, err)
	}
	return nil
}

// langOf reads a language code, English when it is none of the page languages.
func langOf(s string) page.Lang {
	if l, ok := page.ParseLang(s); ok {
		return l
	}
	return page.EN
}

// ParseEmail trims an email address and checks that it is one bare address
// (name@example.com: no display name, no list, no quoted local part) of at most MaxEmailLen
// bytes; the error names field "email". The whole address must be ASCII: a look-alike such
// as Cyrillic "аlice" is refused with RuleASCII, never folded into another address, and so is
// a domain in Unicode (bücher.example; its IDNA A-label form xn--bcher-kva.example is
// accepted as typed). It is the one rule for a dashboard user's email: sign up, sign in, reset,
// invitations (package team), the dashboard's forms and the operator's CLI call it.
func ParseEmail(email string) (string, *apierr.Error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", apierr.Field("email", RuleRequired, "email is required")
	}
	if len(email) > MaxEmailLen {
		return "", apierr.Field("email", RuleMaxLength, fmt.Sprintf("email must be at most %d characters", MaxEmailLen))
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || a.Name != "" || strings.ContainsAny(email, " ,;<>\"") {
		return "", apierr.Field("email", RuleFormat, "email must be an address like name@example.com")
	}
	at := strings.LastIndexByte(email, '@')
	local, domain := email[:at], email[at+1:]
	if !isASCII(local) {
		// A look-alike (Cyrillic а for Latin a) must never reach the case-folded claim, where
		// it could name another person's address, nor an inbox that renders it as theirs.
		return "", apierr.Field("email", RuleASCII, "the part of email before @ must be ASCII letters, digits and punctuation")
	}
	if !isASCII(domain) {
		// A Unicode domain is refused, not converted: its A-labels (xn--…) are accepted as
		// typed, so one domain has one spelling and no look-alike is ever mapped onto it.
		return "", apierr.Field("email", RuleASCII, "the domain of email must be written in ASCII (an internationalised domain as its xn-- form)")
	}
	return email, nil
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r > unicode.MaxASCII })
}

// foldEmail is the case-insensitive form of an email (as the email claim keys it).
func foldEmail(email string) string { return strings.ToLower(strings.ToUpper(email)) }

// checkWorkspaceName trims a workspace name and checks it is 1 to 160 characters without
// control characters.
func checkWorkspaceName(name string) (string, *apierr.Error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", apierr.Field("workspace_name", RuleRequired, "workspace name is required")
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl):
		return "", apierr.Field("workspace_name", RuleFormat, "workspace name must be plain text on one line")
	case utf8.RuneCountInString(name) > MaxWorkspaceNameRunes:
		return "", apierr.Field("workspace_name", RuleMaxLength, fmt.Sprintf("workspace name must be at most %d characters", MaxWorkspaceNameRunes))
	}
	return name, nil
}

// checkNext accepts "" or a path under /dashboard/ (no scheme, host, backslash, "..",
// control character), so that a sign-up can only send its user somewhere on the dashboard.
func checkNext(next string) *apierr.Error {
	if next == "" {
		return nil
	}
	bad := !strings.HasPrefix(next, "/dashboard/") || len(next) > MaxNextLen ||
		strings.Contains(next, "//") || strings.Contains(next, `\`) || strings.Contains(next, "..") ||
		strings.ContainsFunc(next, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) ||
		!utf8.ValidString(next)
	if bad {
		return apierr.Field("next", RuleFormat, "next must be a path under /dashboard/")
	}
	return nil
}

// Tokens of links (verify, reset) carry 256 random bits, base64url without padding (43
// characters), and are stored as hex SHA-256, like session tokens.
func newLinkToken() (token, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token), nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// parseLinkToken checks a presented link token's form and returns its hash.
func parseLinkToken(token string) (string, bool) {
	if len(token) != 43 {
		return "", false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != 32 {
		return "", false
	}
	return hashToken(token), true
}

func newID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// User returns a user's id and email (for pages that show who is signed in); nil, nil when
// there is no such user.
func (s *Service) User(ctx context.Context, userID string) (*User, error) {
	u, err := s.store.GetAccountUser(ctx, userID)
	if err != nil || u == nil {
		return nil, err
	}
	return &User{ID: u.ID, Email: u.Email, Lang: u.Lang, CreatedAt: u.CreatedAt}, nil
}
