// Package activity is a workspace's activity log: who did what, when, from which client
// address and user agent — sign-ins, key, webhook-secret and team changes — listed newest
// first to the workspace's owners and admins (auth.ViewActivity).
//
// Retention: an event is kept for Retention (90 days) after it happened. Each stored event
// carries a ttl of At + Retention; DynamoDB deletes it some time after, and until then (and
// always on dynalite, which has no TTL) List never returns an event older than Retention.
//
// Plain Go: the store (shared/aws/dynamo) implements Store. Record never fails because a field is
// too long: it bounds every field (see the Max constants) so that a stored event stays under
// 1 KB, and replaces invalid UTF-8.
package activity

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// Retention is how long an event is kept and listed.
const Retention = 90 * 24 * time.Hour

// Action is what happened.
type Action = string

// The recorded actions. Owners may add, never rename (stored events keep their text).
const (
	SignInSucceeded      Action = "signin.succeeded"
	SignInFailed         Action = "signin.failed"
	SignInLimited        Action = "signin.limited"
	PasswordReset        Action = "password.reset"
	SignOutEverywhere    Action = "signout.everywhere"
	KeyCreated           Action = "key.created"
	KeyRevoked           Action = "key.revoked"
	KeyRolled            Action = "key.rolled"
	WebhookSecretIssued  Action = "webhook_secret.issued"
	WebhookSecretRolled  Action = "webhook_secret.rolled"
	MemberInvited        Action = "member.invited"
	MemberJoined         Action = "member.joined"
	MemberRoleChanged    Action = "member.role_changed"
	MemberRemoved        Action = "member.removed"
	MemberLeft           Action = "member.left"
	OwnershipTransferred Action = "ownership.transferred"
	InviteRevoked        Action = "invite.revoked"
	PasskeyAdded         Action = "passkey.added"
	PasskeyRemoved       Action = "passkey.removed"
	// PasskeysRemoved is every passkey of a user removed at once, as the owner chose on the
	// password reset or sign-out-everywhere form.
	PasskeysRemoved    Action = "passkeys.removed"
	DocumentWebhookSet Action = "document_webhook.set"
	WebhookTestSent    Action = "webhook.test_sent"
	// PaymentsExported is a CSV export of payments (the dashboard's export page).
	PaymentsExported Action = "payments.exported"
	// The refund actions of the dashboard (its refund pages): a refund asked for, each
	// transition, and the workspace's two-person amount set.
	RefundCreated   Action = "refund.created"
	RefundReviewed  Action = "refund.reviewed"
	RefundApproved  Action = "refund.approved"
	RefundRejected  Action = "refund.rejected"
	RefundReturned  Action = "refund.returned"
	RefundCancelled Action = "refund.cancelled"
	RefundPolicySet Action = "refund_policy.set"
)

// Actions lists every action Record accepts.
var Actions = []Action{
	SignInSucceeded, SignInFailed, SignInLimited, PasswordReset, SignOutEverywhere,
	KeyCreated, KeyRevoked, KeyRolled, WebhookSecretIssued, WebhookSecretRolled,
	MemberInvited, MemberJoined, MemberRoleChanged, MemberRemoved, MemberLeft,
	OwnershipTransferred, InviteRevoked, PasskeyAdded, PasskeyRemoved, PasskeysRemoved, DocumentWebhookSet, WebhookTestSent,
	PaymentsExported,
	RefundCreated, RefundReviewed, RefundApproved, RefundRejected, RefundReturned, RefundCancelled, RefundPolicySet,
}

// Field bounds (bytes of UTF-8; longer values are cut at a character boundary). With ids of
// 36 characters and the key attributes, a stored event is at most 910 bytes
// (TestEventItemSize measures the worst case).
const (
	MaxEmail     = 254 // RFC 5321 path limit
	MaxTarget    = 160 // e.g. "key <id> (name)", "user@example.com as developer"
	MaxIP        = 45  // the longest IPv6 text form
	MaxUserAgent = 256
	MaxID        = 36 // a UUID
)

// Event is one thing that happened in a workspace.
type Event struct {
	WorkspaceID string
	// ActorUserID and ActorEmail are who did it (ActorUserID empty for a failed sign-in of an
	// unknown person; ActorEmail then is the email that was tried).
	ActorUserID string
	ActorEmail  string
	Action      Action
	// Target is what it was done to, in words for the activity page ("key 0190… (CI)",
	// "ana@example.com as developer"); never a secret.
	Target    string
	IP        string
	UserAgent string
	// At is when it happened (the Service's clock when zero).
	At time.Time
}

// Entry is a stored event with its id (unique, ordered like At).
type Entry struct {
	ID string
	Event
}

// Recorder records events; Service satisfies it. Other packages (team, the dashboard) take a
// Recorder so that tests can watch what they record.
type Recorder interface {
	Record(ctx context.Context, e Event) error
}

// Store keeps events. PutEvent creates one event item (create-only); ListEvents returns a
// workspace's events newest first: those strictly older than the position after (from the
// newest when ""), never one older than notBefore, at most limit, and the position of the
// last one returned when more may follow ("" otherwise). A malformed after is ErrBadCursor.
type Store interface {
	PutEvent(ctx context.Context, e Event) (Entry, error)
	ListEvents(ctx context.Context, workspaceID, after string, notBefore time.Time, limit int) ([]Entry, string, error)
}

// Errors. ErrBadCursor is a refusal of the request (400 MALFORMED_REQUEST, the one domain error
// type); the others are mistakes of the calling code.
var (
	ErrBadCursor     = apierr.New(apierr.MalformedRequest, "bad cursor")
	ErrInvalidEvent  = errors.New("activity: invalid event")
	ErrInvalidLimit  = errors.New("activity: limit must be 1 to 100")
	ErrUnknownAction = errors.New("activity: unknown action")
)

// Limits of List.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// Service records and lists events.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns a Service over store; now is the clock (time.Now when nil).
func New(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

var _ Recorder = (*Service)(nil)

// Record stores e (one PutItem). WorkspaceID must be an id (no "#", at most MaxID bytes) and
// Action one of Actions; every other field is bounded and made valid UTF-8, never refused.
func (s *Service) Record(ctx context.Context, e Event) error {
	if e.WorkspaceID == "" || len(e.WorkspaceID) > MaxID || strings.Contains(e.WorkspaceID, "#") {
		return ErrInvalidEvent
	}
	if !slices.Contains(Actions, e.Action) {
		return ErrUnknownAction
	}
	e = Bound(e)
	if e.At.IsZero() {
		e.At = s.now()
	}
	e.At = e.At.UTC()
	_, err := s.store.PutEvent(ctx, e)
	return err
}

// Bound cuts every text field of e to its Max constant and replaces invalid UTF-8 and
// control characters, as Record stores it.
func Bound(e Event) Event {
	e.ActorUserID = clean(e.ActorUserID, MaxID)
	e.ActorEmail = clean(e.ActorEmail, MaxEmail)
	e.Target = clean(e.Target, MaxTarget)
	e.IP = clean(e.IP, MaxIP)
	e.UserAgent = clean(e.UserAgent, MaxUserAgent)
	return e
}

// clean makes s valid UTF-8 without control characters and cuts it to at most max bytes at a
// character boundary.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// URL is what the log keeps of a URL a member set (a webhook's): its scheme, host and path.
// The query and fragment are dropped — a webhook URL's query may carry the receiver's secret
// token, and the log is read by every admin for 90 days — and so is any userinfo. A value
// that is not an absolute URL is kept as "(not a URL)".
func URL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(not a URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// Page is one page of a workspace's activity, newest first.
type Page struct {
	Items []Entry
	// NextCursor continues the list ("" at its end).
	NextCursor string
}

// List returns a workspace's events newest first, limit at a time (DefaultLimit when 0; 1 to
// MaxLimit), after the cursor of a previous page ("" for the first page). Events older than
// Retention are never listed. The cursor is opaque; one from another workspace's list only
// positions this workspace's list in time, it reveals nothing.
func (s *Service) List(ctx context.Context, workspaceID, cursor string, limit int) (*Page, error) {
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return nil, ErrInvalidLimit
	}
	if workspaceID == "" || strings.Contains(workspaceID, "#") {
		return &Page{}, nil
	}
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.Strict().DecodeString(cursor)
		if err != nil || len(b) == 0 {
			return nil, ErrBadCursor
		}
		after = string(b)
	}
	items, next, err := s.store.ListEvents(ctx, workspaceID, after, s.now().Add(-Retention), limit)
	if err != nil {
		return nil, err
	}
	p := &Page{Items: items}
	if next != "" {
		p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(next))
	}
	return p, nil
}

// Client is the address and user agent of the request an event comes from.
type Client struct{ IP, UserAgent string }

type clientKey struct{}

// WithClient returns ctx carrying the request's client, for services (team) that record
// events on the caller's behalf: the HTTP edge sets it once per request.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom returns the client WithClient put in ctx (zero when none).
func ClientFrom(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}
