package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	accmail "github.com/takapay/payments/shared/mail"
	"github.com/takapay/payments/shared/ratelimit"
)

// Failed sign-ins are limited per account (the email as typed, case-folded, whether or not it
// has an account, so that limits tell nothing) and per client address, across every instance:
// each has one counter item in the Store, changed by single-item writes conditioned on its
// version (exact under concurrency).
//
//   - Account: AccountThreshold failures within AccountWindow lock it for AccountLockBase;
//     each further failure after a lock ends locks it again for twice as long, up to
//     AccountLockMax. The chain ends, and the count starts over, once a whole window passes
//     after a lock without a failure. The failure that first reaches the threshold in a window
//     sends the user (if any) one SignInAttempts email: at most one per window.
//   - Client address (IPv4, or the /64 of an IPv6 address): IPThreshold failures within
//     IPWindow lock it until the window ends.
//
// A locked account or address answers a RATE_LIMITED *apierr.Error (apierr.Limited) before the
// password is looked at, so it answers the same for a right and a wrong password. A successful
// sign-in clears the account's counter (not the address's).
const (
	AccountThreshold = 5
	AccountWindow    = 15 * time.Minute
	AccountLockBase  = time.Minute
	AccountLockMax   = time.Hour
	IPThreshold      = 50
	IPWindow         = 15 * time.Minute
)

// dummyUserID is read when an email has no account, so that a sign-in makes the same
// requests either way. No user has it (ids are UUIDv7).
const dummyUserID = "00000000-0000-0000-0000-000000000000"

// Counter is one failed-sign-in counter. Version is the stored version (0: absent); Expires is
// when the item may be forgotten (treated as absent after it).
type Counter struct {
	Key         string
	Failures    int
	WindowStart time.Time
	LockedUntil time.Time
	Level       int // locks so far in the current chain (the next lasts Base << Level)
	NotifiedAt  time.Time
	Version     int64
	Expires     time.Time
}

type limitRule struct {
	threshold int
	window    time.Duration
	base, max time.Duration // base 0: lock until the window ends
}

var (
	accountRule = limitRule{threshold: AccountThreshold, window: AccountWindow, base: AccountLockBase, max: AccountLockMax}
	ipRule      = limitRule{threshold: IPThreshold, window: IPWindow}
)

// MailsPerAddress verification and account-exists emails go to one address in MailWindow at
// most, whatever the client; ResetMailsPerClient reset (or no-account) emails go to one
// address per client address in MailWindow. Past them, SignUp and RequestPasswordReset answer
// as usual but send nothing, so nobody can flood an inbox through them. The two are counted
// apart, and the reset's per client: sign-ups for an address never spend its resets, and a
// client flooding resets for an address spends only its own, so the owner's reset, asked
// from the owner's own connection, is still sent.
const (
	MailsPerAddress     = 5
	ResetMailsPerClient = 5
	MailWindow          = time.Hour
)

var (
	signUpMailRule = limitRule{threshold: MailsPerAddress, window: MailWindow}
	resetMailRule  = limitRule{threshold: ResetMailsPerClient, window: MailWindow}
)

// signUpMailKey and resetMailKey name the mail counters: the address (case-folded), and for
// resets the client address too (an IPv4 address or an IPv6 /64).
func signUpMailKey(email string) string {
	sum := sha256.Sum256([]byte(foldEmail(email)))
	return "mail#" + hex.EncodeToString(sum[:])
}

func resetMailKey(email, ip string) string {
	sum := sha256.Sum256([]byte(foldEmail(email) + "\x00" + ratelimit.ClientKey(ip)))
	return "mailreset#" + hex.EncodeToString(sum[:])
}

// allowMail counts one email on the counter k (one BatchGetItem and one conditional PutItem,
// more on a lost race) and reports whether it is within the rule's threshold.
func (s *Service) allowMail(ctx context.Context, k string, rule limitRule, now time.Time) (bool, error) {
	for attempt := 0; ; attempt++ {
		got, err := s.store.GetSignInCounters(ctx, k)
		if err != nil {
			return false, err
		}
		next, _ := rule.fail(live(k, got[k], now), now)
		err = s.store.PutSignInCounter(ctx, &next, next.Version-1)
		if err == nil {
			return next.Failures <= rule.threshold, nil
		}
		if !errors.Is(err, ErrConflict) || attempt >= 8 {
			return false, fmt.Errorf("count emails: %w", err)
		}
	}
}

// live returns c as it stands at now: a zero counter (keeping its version) when absent or
// expired.
func live(key string, c *Counter, now time.Time) Counter {
	if c == nil {
		return Counter{Key: key}
	}
	if !now.Before(c.Expires) {
		return Counter{Key: key, Version: c.Version}
	}
	return *c
}

// fail returns the counter after one more failure at now, and whether this failure first
// reached the threshold in its window (notify).
func (r limitRule) fail(c Counter, now time.Time) (Counter, bool) {
	n := c
	if n.WindowStart.IsZero() || !now.Before(n.WindowStart.Add(r.window)) {
		n.Failures, n.WindowStart = 0, now
		if n.Level > 0 && now.Before(n.LockedUntil.Add(r.window)) {
			// A chain of locks goes on across windows: the first failure after a lock
			// locks again, for twice as long.
			n.Failures = r.threshold - 1
		} else {
			n.Level = 0
		}
	}
	n.Failures++
	notify := false
	if n.Failures >= r.threshold {
		lock := n.WindowStart.Add(r.window).Sub(now)
		if r.base > 0 {
			lock = r.base << min(n.Level, 20)
			if lock > r.max || lock <= 0 {
				lock = r.max
			}
			n.Level++
		}
		n.LockedUntil = now.Add(lock)
		if n.NotifiedAt.Before(n.WindowStart) {
			notify, n.NotifiedAt = true, now
		}
	}
	n.Expires = later(n.LockedUntil, n.WindowStart.Add(r.window)).Add(r.window)
	n.Version = c.Version + 1
	return n, notify
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// accountKey and ipKey name the counters.
func accountKey(email string) string {
	sum := sha256.Sum256([]byte(foldEmail(email)))
	return "acct#" + hex.EncodeToString(sum[:])
}

func ipKey(ip string) string {
	if k := ratelimit.ClientKey(ip); k != "" {
		return "ip#" + k
	}
	return ""
}

// SignIn signs a user in with email and password and starts a new session. It answers
// ErrBadCredentials for an unknown email and a wrong password alike, after the same work (an
// unknown email is verified against a dummy hash and reads a dummy user), and a RATE_LIMITED
// *apierr.Error (apierr.Limited) while the account or the client address is locked.
// Requests: one BatchGetItem (counters), the email claim and user GetItems; then on failure
// one conditional write per counter, on success the session listing PutItem, the user GetItem
// (epoch check), the session PutItem and, when the account had failures, one DeleteItem of
// its counter (and, once, an UpdateItem storing a fresh hash when the stored one has other
// parameters than DefaultParams).
func (s *Service) SignIn(ctx context.Context, email, password string, c Client) (*Session, error) {
	email, fe := ParseEmail(email)
	if fe != nil {
		return nil, fe
	}
	if fe := checkPresented(password); fe != nil {
		return nil, fe
	}
	start, now := time.Now(), s.now()
	keys, counters, err := s.checkLocks(ctx, email, now, c)
	if err != nil {
		return nil, err
	}
	u, err := s.ownerOf(ctx, email)
	if err != nil {
		return nil, err
	}
	hash := dummyHash()
	if u != nil && u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	ok, err := VerifyPassword(hash, password)
	if err != nil {
		return nil, fmt.Errorf("verify password: %w", err)
	}
	if !ok || u == nil || u.PasswordHash == "" {
		return nil, s.signInFailed(ctx, start, now, keys, counters, u, email, c)
	}
	return s.signedIn(ctx, u, password, keys[0], counters[keys[0]] != nil, c)
}

// ownerOf reads the user whose email claim is email (nil when none), with the same requests
// whether or not there is one: an unknown email reads a dummy user.
func (s *Service) ownerOf(ctx context.Context, email string) (*User, error) {
	owner, err := s.store.EmailOwner(ctx, email)
	if err != nil {
		return nil, err
	}
	lookup := owner
	if lookup == "" {
		lookup = dummyUserID
	}
	u, err := s.store.GetAccountUser(ctx, lookup)
	if err != nil {
		return nil, err
	}
	if owner == "" || u == nil || u.ID != owner {
		return nil, nil
	}
	return u, nil
}

// signInFailed counts a failed sign-in (u nil: an unknown email) and records it: always
// ErrBadCredentials, unless the count could not be written.
func (s *Service) signInFailed(ctx context.Context, start, now time.Time, keys []string, counters map[string]*Counter, u *User,
	email string, c Client) error {
	crossed, err := s.recordFailure(ctx, keys, counters, now, u, c)
	if err != nil {
		return err
	}
	if crossed {
		// Known or not, the failure that reaches the threshold takes AnswerFloor, so the
		// email sent for a known account shows in no timing.
		s.floor(ctx, start)
	}
	userID := ""
	if u != nil {
		userID = u.ID
	}
	s.event(ctx, EventSignInFailed, userID, email, c)
	return ErrBadCredentials
}

// signedIn starts the session of a user whose password was right, clears the account's
// failures (accountKey, when it had any) and stores a fresh hash when its parameters are old.
func (s *Service) signedIn(ctx context.Context, u *User, password, accountKey string, hadFailures bool, c Client) (*Session, error) {
	epoch := u.SessionEpoch
	sess, err := s.startSession(ctx, u, &epoch)
	if errors.Is(err, errEpochMoved) {
		return nil, ErrBadCredentials
	}
	if err != nil {
		return nil, err
	}
	if hadFailures {
		_ = s.store.DeleteSignInCounter(ctx, accountKey)
	}
	if NeedsRehash(u.PasswordHash) {
		// The parameters changed since this hash was made: store one with today's, best
		// effort (the old one keeps working).
		if h, err := HashPassword(password); err == nil {
			_ = s.store.RehashPassword(ctx, u.ID, u.PasswordHash, h)
		}
	}
	s.event(ctx, EventSignInSucceeded, u.ID, u.Email, c)
	return sess, nil
}

// checkPresented checks a password typed to prove who one is (sign in, confirm it's you):
// required, at most MaxPasswordRunes.
func checkPresented(password string) *apierr.Error {
	if password == "" {
		return apierr.Field("password", RuleRequired, "password is required")
	}
	if utf8.RuneCountInString(password) > MaxPasswordRunes {
		return apierr.Field("password", RuleMaxLength, fmt.Sprintf("password must be at most %d characters", MaxPasswordRunes))
	}
	return nil
}

// checkLocks reads the failure counters of the account (email) and the client address (one
// BatchGetItem) and answers a RATE_LIMITED *apierr.Error (apierr.Limited) while either is locked.
func (s *Service) checkLocks(ctx context.Context, email string, now time.Time, c Client) ([]string, map[string]*Counter, error) {
	keys := []string{accountKey(email)}
	if k := ipKey(c.IP); k != "" {
		keys = append(keys, k)
	}
	counters, err := s.store.GetSignInCounters(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	var wait time.Duration
	for _, k := range keys {
		if cur := live(k, counters[k], now); cur.LockedUntil.After(now) {
			wait = max(wait, cur.LockedUntil.Sub(now))
		}
	}
	if wait > 0 {
		s.event(ctx, EventSignInLimited, "", email, c)
		return nil, nil, apierr.Limited(wait, "too many failed sign-ins: retry after %s", wait)
	}
	return keys, counters, nil
}

// recordFailure counts one failure on every counter (re-reading on a lost race) and sends
// the SignInAttempts email when the account's counter first reaches the threshold in its
// window (crossed: whether or not the email has an account).
func (s *Service) recordFailure(ctx context.Context, keys []string, read map[string]*Counter, now time.Time, u *User, c Client) (crossed bool, err error) {
	for i, k := range keys {
		rule := accountRule
		if i > 0 {
			rule = ipRule
		}
		cur := read[k]
		for attempt := 0; ; attempt++ {
			next, notify := rule.fail(live(k, cur, now), now)
			err := s.store.PutSignInCounter(ctx, &next, next.Version-1)
			if err == nil {
				if notify && i == 0 {
					crossed = true
					if u != nil {
						s.notifyAttempts(ctx, u, next.Failures, c)
					}
				}
				break
			}
			if !errors.Is(err, ErrConflict) || attempt >= 8 {
				return crossed, fmt.Errorf("count failed sign-in: %w", err)
			}
			got, err := s.store.GetSignInCounters(ctx, k)
			if err != nil {
				return crossed, err
			}
			cur = got[k]
		}
	}
	return crossed, nil
}

func (s *Service) notifyAttempts(ctx context.Context, u *User, attempts int, c Client) {
	err := s.send(ctx, accmail.SignInAttempts, u.Lang, accmail.Data{
		To: u.Email, Link: s.cfg.BaseURL + ForgotPath, Attempts: attempts,
	})
	if err != nil {
		s.mailFailed(ctx, u.ID, u.Email, c, err)
	}
}
