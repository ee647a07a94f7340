// Package mail composes the emails the dashboard sends — verification, an address that already
// has an account, password reset, password changed, sign-in attempts, invitation — in the
// recipient's language (English or Bangla), each as plain text and HTML, and names the one
// interface that sends them (Sender). It is plain Go: the SES adapter is shared/aws/sesmail.
//
// Compose is the one place an email's words, links and headers are decided. Everything it puts
// into a message is checked first: the recipient is one bare address, no value carries a control
// character (so nothing can add a header line or a forged paragraph), the link is an absolute
// http(s) URL; the HTML is a tree of package h's nodes in ui.Email (the page kit's
// components), which escape every value by where it goes.
// Numbers shown to people (hours, days, attempts) use the language's digits, as the payer pages
// do (page.Lang.Number).
package mail

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/page"
)

// Message is one email, ready to send: one recipient, a subject, and the same content as plain
// text and as HTML (a multipart/alternative message).
type Message struct {
	To, Subject, Text, HTML string
}

// Sender sends a composed message. Implementations bound the call themselves (a deadline per
// call) and refuse a To or Subject that could add a header (CheckHeaders).
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Kind is which email to compose.
type Kind string

// The emails of the dashboard.
const (
	// VerifyEmail asks a new user to confirm their address (Link, valid ValidFor, default 24 h).
	VerifyEmail Kind = "verify_email"
	// AccountExists tells the owner of an address that someone tried to sign up with it (Link: sign
	// in or reset the password).
	AccountExists Kind = "account_exists"
	// ResetPassword carries a password-reset link (Link, valid ValidFor, default 30 min).
	ResetPassword Kind = "reset_password"
	// ResetNoAccount answers a password reset asked for an address that has no account (Link:
	// sign in), so that an address with an account and one without get one email each.
	ResetNoAccount Kind = "reset_no_account"
	// PasswordChanged says the password was changed and every session ended (Link optional: sign in).
	PasswordChanged Kind = "password_changed"
	// SignInAttempts warns that the account is being guessed (Attempts failed sign-ins; Link: reset).
	SignInAttempts Kind = "signin_attempts"
	// Invitation invites someone to a workspace (InviterEmail, WorkspaceName, Role, Link, valid
	// ValidFor, default 7 days).
	Invitation Kind = "invitation"
	// PasskeyAdded says a passkey was added to the account (PasskeyName, At; Link: the
	// password reset page, whose form can remove every passkey).
	PasskeyAdded Kind = "passkey_added"
)

// Kinds are every kind Compose knows, in a stable order.
var Kinds = []Kind{VerifyEmail, AccountExists, ResetPassword, ResetNoAccount, PasswordChanged, SignInAttempts, Invitation, PasskeyAdded}

// Data is what an email says besides its fixed words. Which fields a kind needs is said at the
// kind; a field a kind does not use is ignored.
type Data struct {
	To, Link, WorkspaceName, InviterEmail, Role string
	// ValidFor is how long Link works; zero means the kind's default.
	ValidFor time.Duration
	// Attempts is the number of failed sign-ins (SignInAttempts).
	Attempts int
	// Passkeys are the account's passkeys, which a ResetPassword email lists (none: it says
	// there are none).
	Passkeys []Passkey
	// PasskeyName and At are the passkey a PasskeyAdded email names and when it was added.
	PasskeyName string
	At          time.Time
}

// Passkey is one passkey of an account as an email lists it.
type Passkey struct {
	Name      string
	CreatedAt time.Time
}

// maxPasskeyName bounds a passkey's name in an email (package passkey allows 64 characters).
const maxPasskeyName = 64

// Default validity of the links, when Data.ValidFor is zero.
const (
	VerifyValidFor     = 24 * time.Hour
	ResetValidFor      = 30 * time.Minute
	InvitationValidFor = 7 * 24 * time.Hour
)

// ErrInvalid is wrapped by every error Compose and CheckHeaders return for data they refuse.
var ErrInvalid = errors.New("mail: invalid message data")

func invalid(field, rule string) error {
	return fmt.Errorf("%w: %s %s", ErrInvalid, field, rule)
}

// Limits on the values put into a message.
const (
	maxAddress   = 254
	maxLink      = 2048
	maxWorkspace = 200
)

// CheckHeaders refuses a message whose To or Subject could add or break a header: To must be one
// bare address (no display name, no list, no control character) and Subject one line without
// control characters. Compose checks its own output with it; every Sender calls it before sending.
func CheckHeaders(m Message) error {
	if err := checkAddress("To", m.To); err != nil {
		return err
	}
	if strings.TrimSpace(m.Subject) == "" {
		return invalid("Subject", "is required")
	}
	if hasControl(m.Subject) {
		return invalid("Subject", "must not contain control characters (CR, LF…)")
	}
	return nil
}

func checkAddress(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "is required")
	case len(s) > maxAddress:
		return invalid(field, "must be at most 254 bytes")
	case !utf8.ValidString(s) || hasControl(s):
		return invalid(field, "must not contain control characters (CR, LF…)")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || strings.ContainsAny(s, " ,;<>\"") {
		return invalid(field, "must be one bare email address")
	}
	return nil
}

// hasControl reports whether s holds a control character (C0, DEL, C1) or a line or paragraph
// separator.
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

func checkText(field, s string, max int) error {
	switch {
	case strings.TrimSpace(s) == "":
		return invalid(field, "is required")
	case !utf8.ValidString(s) || hasControl(s):
		return invalid(field, "must not contain control characters")
	case utf8.RuneCountInString(s) > max:
		return invalid(field, fmt.Sprintf("must be at most %d characters", max))
	}
	return nil
}

func checkLink(s string) error {
	if s == "" {
		return invalid("Link", "is required")
	}
	if len(s) > maxLink || hasControl(s) || strings.ContainsAny(s, " \"'<>\\") {
		return invalid("Link", "must be an absolute http(s) URL without spaces or control characters")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return invalid("Link", "must be an absolute http(s) URL")
	}
	return nil
}

// roles are the role names an invitation may carry.
var roles = map[string][2]string{ // role -> {English, Bangla}
	"owner":     {"owner", "মালিক"},
	"admin":     {"admin", "অ্যাডমিন"},
	"developer": {"developer", "ডেভেলপার"},
	"viewer":    {"viewer", "দর্শক"},
}

// Compose builds the email k in language l (English for anything but page.BN) from d. It
// refuses (ErrInvalid, naming the field) a recipient that is not one bare address, a missing or
// non-http(s) link where the kind needs one, a value with a control character, an unknown role
// or kind, and a SignInAttempts without attempts.
func Compose(k Kind, l page.Lang, d Data) (Message, error) {
	if l != page.BN {
		l = page.EN
	}
	if err := checkAddress("To", d.To); err != nil {
		return Message{}, err
	}
	needsLink := k != PasswordChanged
	if needsLink || d.Link != "" {
		if err := checkLink(d.Link); err != nil {
			return Message{}, err
		}
	}
	if d.ValidFor < 0 {
		return Message{}, invalid("ValidFor", "must not be negative")
	}
	if d.ValidFor == 0 {
		d.ValidFor = defaultValidFor[k] // 0 for a kind whose email names no validity
	}
	if err := checkKind(k, d); err != nil {
		return Message{}, err
	}
	c := texts(k, l, d)
	c.Lang, c.Link = string(l), d.Link
	m := Message{To: d.To, Subject: c.Subject, Text: c.text(), HTML: c.html()}
	if err := CheckHeaders(m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// defaultValidFor is how long each kind's link is valid when Data.ValidFor is 0.
var defaultValidFor = map[Kind]time.Duration{
	VerifyEmail:   VerifyValidFor,
	ResetPassword: ResetValidFor,
	Invitation:    InvitationValidFor,
}

// checkKind checks the fields kind k's email shows (ErrInvalid, naming the field), and that k
// is an email kind.
func checkKind(k Kind, d Data) error {
	switch k {
	case ResetPassword:
		for _, p := range d.Passkeys {
			if err := checkText("Passkeys.Name", p.Name, maxPasskeyName); err != nil {
				return err
			}
		}
	case Invitation:
		if err := checkText("WorkspaceName", d.WorkspaceName, maxWorkspace); err != nil {
			return err
		}
		if err := checkAddress("InviterEmail", d.InviterEmail); err != nil {
			return err
		}
		if _, ok := roles[d.Role]; !ok {
			return invalid("Role", "must be owner, admin, developer or viewer")
		}
	case SignInAttempts:
		if d.Attempts <= 0 {
			return invalid("Attempts", "must be at least 1")
		}
	case PasskeyAdded:
		if err := checkText("PasskeyName", d.PasskeyName, maxPasskeyName); err != nil {
			return err
		}
		if d.At.IsZero() {
			return invalid("At", "is required")
		}
	case VerifyEmail, AccountExists, ResetNoAccount, PasswordChanged:
	default:
		return invalid("Kind", fmt.Sprintf("%q is not an email kind", string(k)))
	}
	return nil
}

// duration writes how long a link is valid as people say it: whole days from two days up,
// whole hours, else minutes (rounded up), in the language's digits.
func duration(l page.Lang, d time.Duration) string {
	type unit struct{ one, many, bn string }
	var n int64
	var u unit
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		n, u = int64(d/(24*time.Hour)), unit{"day", "days", "দিন"}
	case d >= time.Hour && d%time.Hour == 0:
		n, u = int64(d/time.Hour), unit{"hour", "hours", "ঘণ্টা"}
	default:
		n, u = int64((d+time.Minute-1)/time.Minute), unit{"minute", "minutes", "মিনিট"}
	}
	if l == page.BN {
		return l.Count(n, u.bn, u.bn)
	}
	return l.Count(n, u.one, u.many)
}
