// Package account is the one home of dashboard accounts: sign up with email verification,
// sign in with email and password, the limits on failed sign-ins, sessions (idle timeout and
// absolute lifetime, sign out, sign out everywhere) and password reset. It is plain Go: the
// Store (shared/dynamo) keeps the items and a mail.Sender sends the emails.
package account
