// Package account is the one home of dashboard accounts: sign up with email verification,
// sign in with email and password, the limits on failed sign-ins, sessions (idle timeout and
// absolute lifetime, sign out, sign out everywhere) and password reset. It is plain Go: the
// Store (shared/aws/dynamo, accounts.go) keeps the items, a mail.Sender sends the emails, and the
// dashboard reads its refusals, all *apierr.Error (errors.go): apierr.Field's VALIDATION_FAILED
// naming the field and rule, apierr.Limited's RATE_LIMITED with Retry-After,
// ErrBadCredentials, ErrInvalidToken, ErrNoSession, ErrAccountExists).
//
// What it promises:
//
//   - Passwords: argon2id (golang.org/x/crypto/argon2) with the OWASP Password Storage Cheat
//     Sheet's parameters m=19456 KiB, t=2, p=1, a 16-byte salt and a 32-byte key, stored as a
//     PHC string ($argon2id$v=19$m=19456,t=2,p=1$salt$key) so parameters can change later;
//     12 to 128 characters (code points), no composition rules, the 1,000 most common
//     passwords refused (commonpasswords.txt: SecLists, MIT), also with digits or symbols
//     around them, repeated, and straight sequences. Compared in constant time.
//   - Verification links: 256-bit tokens stored as SHA-256, valid 24 hours, single use.
//     Reset links: the same, valid 30 minutes; a reset ends every session of the user and
//     clears the account's failed sign-ins (a locked-out owner resets and signs in).
//   - No answer, and as far as a server can make it no timing or number of requests, tells
//     whether an email has an account: sign in verifies unknown emails against a dummy hash
//     and reads a dummy user; sign up and reset do the same work either way (the same
//     requests, one email composed and sent: a reset for an address without an account gets
//     a "no account has this address" email) and hold no fixed delay; the failed sign-in that
//     first reaches an account's threshold (which emails a known account) takes at least
//     Config.AnswerFloor (1.5 s); limits count unknown emails like known ones.
//   - Failed sign-ins: 5 per account in 15 minutes lock it for 1 minute, each further failure
//     after a lock doubles it up to 1 hour, and the user gets one SignInAttempts email per
//     window; 50 per client address (IPv6: its /64) in 15 minutes lock the address for the
//     rest of the window. Counted in DynamoDB, exactly, across instances.
//   - At most 5 verification and account-exists emails an hour go to one address, and 5
//     reset (or no-account) emails an hour to one address from one client address, counted
//     apart; past that the forms answer as usual and send nothing (no inbox flooding), and
//     sign-ups or another client's resets never spend the owner's reset.
//   - Sessions: a new 256-bit token at every sign-in (stored as SHA-256), ended after 30
//     minutes without a request (idle timeout) and 8 hours after sign-in (absolute lifetime);
//     sign out ends one server-side, sign out everywhere and a password reset end all.
package account
