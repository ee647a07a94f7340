package passkey

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// Config is the relying party.
type Config struct {
	// Origin is the dashboard's origin exactly as the browser sends it ("https://dash.example.com",
	// "http://localhost:3000"): responses from any other origin are refused.
	Origin string
	// RPID is the relying party id: Origin's host or a registrable suffix of it
	// ("example.com", "localhost"). Passkeys are bound to it: changing it orphans them all.
	RPID string
	// Name is shown by the authenticator ("Takapay").
	Name string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// OnEvent, when set, hears every passkey sign-in's outcome (for the activity log and
	// alerts); it must not block for long. Registration, rename and removal are recorded by
	// the caller, which knows the workspace and the client.
	OnEvent func(ctx context.Context, e Event)
}

// Event kinds.
const (
	EventSignInSucceeded = "passkey.signin.succeeded"
	// EventSignInFailed: a response that did not verify (ErrRefused) or a cloned
	// authenticator (ErrCloned). UserID is the user the response claimed (its user handle)
	// when that user has the passkey it names, else "". Unknown, expired or reused
	// ceremonies are not events (nothing was tried against a user).
	EventSignInFailed = "passkey.signin.failed"
)

// Event is a passkey sign-in's outcome.
type Event struct {
	Kind      string
	UserID    string
	PasskeyID string
	// Reason is "refused" or "cloned" for a failure.
	Reason string
	Client Client
}

// Client is who asked: kept with the session the sign-in starts.
type Client struct{ IP, UserAgent string }

// SessionStarter starts a dashboard session for a user who proved a passkey. The account
// service satisfies it through a tiny adapter (account.Service.StartSession returns an
// *account.Session: its Token and ExpiresAt).
type SessionStarter interface {
	StartSession(ctx context.Context, userID string, ip, userAgent string) (token string, expires time.Time, err error)
}

// Service runs passkey ceremonies and manages a user's passkeys.
type Service struct {
	cfg      Config
	wa       *webauthn.WebAuthn
	store    Store
	sessions SessionStarter
}

// New checks the configuration and returns the service.
func New(cfg Config, store Store, sessions SessionStarter) (*Service, error) {
	u, err := url.Parse(cfg.Origin)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
		return nil, fmt.Errorf("passkey: Origin %q must be scheme://host[:port] only", cfg.Origin)
	}
	if cfg.RPID == "" || cfg.Name == "" || store == nil || sessions == nil {
		return nil, errors.New("passkey: RPID, Name, a store and a session starter are required")
	}
	timeout := webauthn.TimeoutConfig{Timeout: CeremonyLifetime, TimeoutUVD: CeremonyLifetime}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          cfg.RPID,
		RPDisplayName: cfg.Name,
		RPOrigins:     []string{cfg.Origin},
		// A passkey: discoverable (sign in with it alone) and user-verified (a PIN or biometric,
		// so the passkey is the whole sign-in, not a second factor).
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationRequired,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		// The ceremony's lifetime is enforced here with Config.Now (CeremonyLifetime), not by the
		// library's wall clock; these are the browser's timeouts.
		Timeouts: webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	return &Service{cfg: cfg, wa: wa, store: store, sessions: sessions}, nil
}

func (s *Service) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// Ceremony is a begun ceremony: the page puts ID in the form's hidden "ceremony" field and
// Options in its data-passkey-options attribute (see the package documentation).
type Ceremony struct {
	// ID is the ceremony's capability (43 base64url characters, 256 random bits); only its
	// SHA-256 is stored.
	ID string
	// Options is the JSON for navigator.credentials.create or .get ({"publicKey": {...}}),
	// binary members base64url-encoded.
	Options   string
	ExpiresAt time.Time
}

// webauthnUser adapts a user to go-webauthn. The user handle is the user id itself (a UUID,
// no personal data): a discoverable sign-in names its user, so the passkeys are found with one
// Query of that user's items and no index or lookup item is needed.
type webauthnUser struct {
	id, email string
	creds     []webauthn.Credential
}

func (u *webauthnUser) WebAuthnID() []byte                         { return []byte(u.id) }
func (u *webauthnUser) WebAuthnName() string                       { return u.email }
func (u *webauthnUser) WebAuthnDisplayName() string                { return u.email }
func (u *webauthnUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// decodeCredentials decodes stored credentials, skipping none (a record that does not decode
// is an error: the store is ours).
func decodeCredentials(recs []*Record) ([]webauthn.Credential, error) {
	out := make([]webauthn.Credential, 0, len(recs))
	for _, r := range recs {
		var c webauthn.Credential
		if err := json.Unmarshal(r.Credential, &c); err != nil {
			return nil, fmt.Errorf("passkey: stored credential %s: %w", r.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// fresh refuses (ErrStaleProof) a session whose last proof of its user, provedAt, is zero or
// older than FreshProof.
func (s *Service) fresh(provedAt time.Time) error {
	if provedAt.IsZero() || s.now().Sub(provedAt) > FreshProof || provedAt.After(s.now().Add(time.Minute)) {
		return ErrStaleProof
	}
	return nil
}

// BeginRegistration starts adding a passkey for a signed-in user (email is what the
// authenticator shows) whose session proved who they are at provedAt: ErrStaleProof unless
// within FreshProof. ErrTooMany when the user has MaxPerUser already. The user's existing
// passkeys are excluded, so an authenticator that holds one says so instead of making a
// second.
func (s *Service) BeginRegistration(ctx context.Context, userID, userEmail string, provedAt time.Time) (*Ceremony, error) {
	if !validUserID(userID) {
		return nil, fmt.Errorf("passkey: invalid user id")
	}
	if err := s.fresh(provedAt); err != nil {
		return nil, err
	}
	recs, err := s.store.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, err
	}
	if len(recs) >= MaxPerUser {
		return nil, ErrTooMany
	}
	creds, err := decodeCredentials(recs)
	if err != nil {
		return nil, err
	}
	user := &webauthnUser{id: userID, email: userEmail, creds: creds}
	creation, session, err := s.wa.BeginRegistration(user,
		webauthn.WithExclusions(webauthn.Credentials(creds).CredentialDescriptors()),
		webauthn.WithExtensions(webauthn.WithExtensionCredProps()))
	if err != nil {
		return nil, fmt.Errorf("passkey: begin registration: %w", err)
	}
	return s.saveCeremony(ctx, KindRegister, userID, creation, session)
}

// BeginLogin starts a discoverable sign-in (no user named; user verification required).
func (s *Service) BeginLogin(ctx context.Context) (*Ceremony, error) {
	assertion, session, err := s.wa.BeginDiscoverableLogin()
	if err != nil {
		return nil, fmt.Errorf("passkey: begin login: %w", err)
	}
	return s.saveCeremony(ctx, KindLogin, "", assertion, session)
}

func (s *Service) saveCeremony(ctx context.Context, kind, userID string, options any, session *webauthn.SessionData) (*Ceremony, error) {
	opts, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	sess, err := json.Marshal(session)
	if err != nil {
		return nil, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := base64.RawURLEncoding.EncodeToString(b[:])
	expires := s.now().Add(CeremonyLifetime)
	if err := s.store.PutCeremony(ctx, hashCeremonyID(id), &CeremonyRecord{Kind: kind, UserID: userID, ExpiresAt: expires, Session: sess}); err != nil {
		return nil, err
	}
	return &Ceremony{ID: id, Options: string(opts), ExpiresAt: expires}, nil
}

func hashCeremonyID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// takeCeremony consumes a ceremony (single use, whatever comes next) and checks its kind,
// user and expiry: ErrCeremony otherwise.
func (s *Service) takeCeremony(ctx context.Context, id, kind, userID string) (*webauthn.SessionData, error) {
	if len(id) != 43 {
		return nil, ErrCeremony
	}
	if b, err := base64.RawURLEncoding.Strict().DecodeString(id); err != nil || len(b) != 32 {
		return nil, ErrCeremony
	}
	c, err := s.store.TakeCeremony(ctx, hashCeremonyID(id))
	if err != nil {
		return nil, err
	}
	if c == nil || c.Kind != kind || c.UserID != userID || !s.now().Before(c.ExpiresAt) {
		return nil, ErrCeremony
	}
	var session webauthn.SessionData
	if err := json.Unmarshal(c.Session, &session); err != nil {
		return nil, fmt.Errorf("passkey: stored ceremony: %w", err)
	}
	return &session, nil
}

// FinishRegistration verifies the authenticator's response (the form's "response" field,
// JSON) to a ceremony the same user began, and stores the passkey under name, pending: it
// signs in only once activated (record.Store.ActivatePasskey, after the owner was emailed).
// It returns the new passkey. The session's proof (provedAt) must still be within FreshProof
// (ErrStaleProof, the ceremony kept). Otherwise the ceremony is used up whatever the outcome.
func (s *Service) FinishRegistration(ctx context.Context, userID, ceremonyID, name, responseJSON string, provedAt time.Time) (*Record, error) {
	if err := s.fresh(provedAt); err != nil {
		return nil, err
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	if !validUserID(userID) {
		return nil, ErrCeremony
	}
	session, err := s.takeCeremony(ctx, ceremonyID, KindRegister, userID)
	if err != nil {
		return nil, err
	}
	recs, err := s.store.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, err
	}
	if len(recs) >= MaxPerUser {
		return nil, ErrTooMany
	}
	if len(responseJSON) > maxResponseBytes {
		return nil, fmt.Errorf("%w: response too large", ErrRefused)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes([]byte(responseJSON))
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRefused, describe(err))
	}
	user := &webauthnUser{id: userID}
	cred, err := s.wa.CreateCredential(user, *session, parsed)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRefused, describe(err))
	}
	id := CredentialHash(cred.ID)
	if slices.ContainsFunc(recs, func(r *Record) bool { return r.ID == id }) {
		return nil, ErrDuplicate
	}
	credJSON, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	// Pending until the dashboard has told the owner (an email) and activates it: a passkey
	// nobody was told about never signs anyone in.
	rec := &Record{
		ID: id, UserID: userID, Name: name, CreatedAt: s.now().UTC(),
		SignCount: cred.Authenticator.SignCount, Credential: credJSON, Pending: true,
	}
	if err := s.store.PutPasskey(ctx, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// describe renders a go-webauthn error with its details (for logs; never shown to users).
func describe(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Type + ": " + pe.Details + " " + pe.DevInfo
	}
	return err.Error()
}

// Session is a sign-in's outcome: the session token (for the cookie only) of the user.
type Session struct {
	UserID    string
	Token     string
	ExpiresAt time.Time
	// PasskeyID is the passkey that signed in.
	PasskeyID string
}

// FinishLogin verifies a discoverable sign-in's response to a login ceremony and starts a
// session for the passkey's user. The ceremony is used up whatever the outcome. The user is
// the response's user handle (the user id given at registration) and the passkey must be
// one of that user's: ErrRefused otherwise, as for any response that does not verify;
// ErrCloned when the signature counter did not grow.
func (s *Service) FinishLogin(ctx context.Context, ceremonyID, responseJSON string, c Client) (*Session, error) {
	session, err := s.takeCeremony(ctx, ceremonyID, KindLogin, "")
	if err != nil {
		return nil, err
	}
	out, ev, err := s.finishLogin(ctx, session, responseJSON, c)
	if s.cfg.OnEvent != nil && ev.Kind != "" {
		ev.Client = c
		s.cfg.OnEvent(ctx, ev)
	}
	return out, err
}

// finishLogin verifies a response against a taken ceremony and says what to record.
func (s *Service) finishLogin(ctx context.Context, session *webauthn.SessionData, responseJSON string, c Client) (*Session, Event, error) {
	failed := Event{Kind: EventSignInFailed, Reason: "refused"}
	if len(responseJSON) > maxResponseBytes {
		return nil, failed, fmt.Errorf("%w: response too large", ErrRefused)
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes([]byte(responseJSON))
	if err != nil {
		return nil, failed, fmt.Errorf("%w: %s", ErrRefused, describe(err))
	}
	userID := string(parsed.Response.UserHandle)
	if !validUserID(userID) {
		return nil, failed, fmt.Errorf("%w: no usable user handle", ErrRefused)
	}
	recs, err := s.store.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, Event{}, err
	}
	id := CredentialHash(parsed.RawID)
	i := slices.IndexFunc(recs, func(r *Record) bool { return r.ID == id })
	if i < 0 {
		return nil, failed, fmt.Errorf("%w: unknown credential", ErrRefused)
	}
	rec := recs[i]
	failed.UserID, failed.PasskeyID = userID, id
	if rec.Pending {
		return nil, failed, fmt.Errorf("%w: the passkey is not active yet", ErrRefused)
	}
	creds, err := decodeCredentials([]*Record{rec})
	if err != nil {
		return nil, Event{}, err
	}
	user := &webauthnUser{id: userID, creds: creds}
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		if !bytes.Equal(userHandle, user.WebAuthnID()) {
			return nil, errors.New("user handle changed")
		}
		return user, nil
	}
	_, cred, err := s.wa.ValidatePasskeyLogin(handler, *session, parsed)
	if err != nil {
		return nil, failed, fmt.Errorf("%w: %s", ErrRefused, describe(err))
	}
	if cred.Authenticator.CloneWarning {
		failed.Reason = "cloned"
		return nil, failed, ErrCloned
	}
	credJSON, err := json.Marshal(cred)
	if err != nil {
		return nil, Event{}, err
	}
	if err := s.store.UsePasskey(ctx, userID, id, rec.SignCount, cred.Authenticator.SignCount, credJSON, s.now().UTC()); err != nil {
		if errors.Is(err, ErrNotFound) {
			// Removed, or used by a concurrent sign-in with the same counter, since it was read.
			return nil, failed, fmt.Errorf("%w: the passkey changed during the sign-in", ErrRefused)
		}
		return nil, Event{}, err
	}
	token, expires, err := s.sessions.StartSession(ctx, userID, c.IP, c.UserAgent)
	if err != nil {
		return nil, Event{}, err
	}
	return &Session{UserID: userID, Token: token, ExpiresAt: expires, PasskeyID: id},
		Event{Kind: EventSignInSucceeded, UserID: userID, PasskeyID: id}, nil
}

// List returns a user's passkeys, oldest first.
func (s *Service) List(ctx context.Context, userID string) ([]*Record, error) {
	if !validUserID(userID) {
		return nil, nil
	}
	recs, err := s.store.ListPasskeys(ctx, userID)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(recs, func(a, b *Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return recs, nil
}

// Rename names one of the user's passkeys; ErrNotFound when the user has none with that id.
func (s *Service) Rename(ctx context.Context, userID, passkeyID, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if !validUserID(userID) || !validPasskeyID(passkeyID) {
		return ErrNotFound
	}
	return s.store.RenamePasskey(ctx, userID, passkeyID, name)
}

// Remove deletes one of the user's passkeys; ErrNotFound when the user has none with that id
// (another user's passkey is not found either).
func (s *Service) Remove(ctx context.Context, userID, passkeyID string) error {
	if !validUserID(userID) || !validPasskeyID(passkeyID) {
		return ErrNotFound
	}
	return s.store.DeletePasskey(ctx, userID, passkeyID)
}
