// Package team is a workspace's people: invitations by email, members and their roles,
// removal, leaving, the transfer of ownership, and the workspaces a user belongs to.
//
// Who may do what (auth.Role.Can is the one home of the permissions; this package adds only
// whom a permitted actor may act on):
//
//   - Invite, ListInvites, RevokeInvite, ChangeRole, Remove need auth.ManageTeam (owner, admin).
//     Invitable roles: viewer, developer, admin. Nobody is invited, promoted or demoted to or
//     from owner: ownership moves only by TransferOwnership.
//   - ChangeRole and Remove act on any member but an owner and but the actor (an admin may demote
//     or remove another admin; the owner is out of every admin's reach, and undoes an admin's
//     change by inviting again). An owner steps down with TransferOwnership or Leave.
//   - ListMembers needs auth.ViewWorkspace (every member sees who is on the team).
//   - TransferOwnership needs auth.TransferOwnership (owner): the target, a member, becomes an
//     owner and the actor an admin.
//   - Leave: any member leaves; the last owner cannot (ErrLastOwner).
//
// The last owner, without transactions: the workspace item keeps the set of its current
// ownerships ("owners", elements "<user id>/<grant>") and of ended ones ("released"). Each time
// a membership becomes owner it gets a fresh random grant (stored on the membership). The
// rules, each one single-item conditional write:
//
//  1. An ownership is added to the set only after its membership says owner with that grant,
//     and only if that grant was never released (AddOwner).
//  2. Before an owner's membership is demoted or deleted, its grant is released: removed from
//     the set and recorded as released, in one UpdateItem on the workspace item whose
//     condition is that the set exists and either holds the grant and another element, or
//     does not hold it (the grant was never added, or a release whose membership write did not
//     follow) (ReleaseOwner). Only the owner themself ends their ownership (Leave,
//     TransferOwnership; ChangeRole and Remove refuse owners; the operator CLI releases first).
//
// Hence every element of the set is an owner's membership with that grant (rule 1 adds only
// those; rule 2 removes an element before its membership changes, and a released grant never
// comes back, even from a transfer that raced with its target's leaving). A release that
// succeeds left another element, so another owner. A crash between two writes leaves an owner
// out of the set (counted too few: safe; finishing or retrying the operation completes it),
// never zero owners. Two owners leaving at once are two conditional writes on one item,
// applied one after the other: exactly one succeeds (TestConcurrentOwnersLeave). A workspace
// made before the set existed (or by the sign-up, which writes an owner membership without a
// grant: grant "") gets its set from its owner memberships on first need.
//
// Activity: every change that succeeds is recorded through Config.Recorder (member.invited,
// member.joined, member.role_changed, member.removed, member.left, ownership.transferred,
// invite.revoked), with the actor's client (or the one put in the context,
// activity.WithClient). A record that fails does not undo or fail the change:
// Config.OnRecordError hears of it.
//
// A removed member's sessions stop working for the workspace at once: the membership is
// gone, and auth.AuthenticateWorkspace reads it (strongly consistent) on every request.
package team

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/mail"
	"github.com/takapay/payments/shared/ratelimit"
)

// Actor is the signed-in user acting on their workspace, as auth.AuthenticateWorkspace
// established it for this request (Role from the membership it read): build it from that
// Identity (UserID, WorkspaceID, Role) and the user's email, never from request input.
// TransferOwnership and Leave re-read the actor's membership; the other methods trust Role.
type Actor struct {
	WorkspaceID string
	UserID      string
	Email       string
	Role        auth.Role
	// Client is who sent the request (the address API Gateway saw, the user agent): the
	// activity records name it (zero: the client activity.WithClient put in the context).
	Client activity.Client
}

// Invitation is an invitation to join a workspace with a role.
type Invitation struct {
	ID            string
	WorkspaceID   string
	WorkspaceName string
	// Email is the invitee's address as the inviter typed it (trimmed).
	Email         string
	Role          auth.Role
	InviterUserID string
	InviterEmail  string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	// Token is the secret of the invitation link, set only in Invite's answer (it is stored
	// only as a hash); the email carries it.
	Token string
}

// InviteRecord is a stored invitation: the invitation without its token, and the token's hash.
type InviteRecord struct {
	Invitation
	// TokenHash is the hex SHA-256 of the token text.
	TokenHash string
}

// Member is one member of a workspace.
type Member struct {
	UserID string
	Email  string
	Role   auth.Role
	// Since is when the user joined (a role change keeps it).
	Since time.Time
}

// Membership is a stored membership with its owner grant: the random id of its current
// ownership while Role is owner ("" for an owner made without one, as at sign-up).
type Membership struct {
	auth.MembershipRecord
	OwnerGrant string
}

// NewGrant returns a fresh owner grant (16 hex digits).
func NewGrant() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// WorkspaceMembership is a workspace a user belongs to.
type WorkspaceMembership struct {
	WorkspaceID   string
	WorkspaceName string
	Role          auth.Role
	Since         time.Time
}

// Store keeps memberships, the owners set and invitations (shared/aws/dynamo implements it).
// Absent things are (nil, nil) or ("", false, nil); errors of conditional writes are this
// package's sentinels.
type Store interface {
	// WorkspaceName reads a workspace's name; ok false when there is no such workspace.
	WorkspaceName(ctx context.Context, workspaceID string) (name string, ok bool, err error)
	// WorkspaceNames reads the names of the workspaces that exist among ids.
	WorkspaceNames(ctx context.Context, ids []string) (map[string]string, error)
	// UserIDByEmail finds the user who holds an email (any letter case).
	UserIDByEmail(ctx context.Context, email string) (userID string, ok bool, err error)
	// UserEmails reads the emails of the users that exist among ids.
	UserEmails(ctx context.Context, ids []string) (map[string]string, error)

	// GetMember reads a membership with its owner grant (strongly consistent); nil when none.
	GetMember(ctx context.Context, userID, workspaceID string) (*Membership, error)
	// ListMembers lists a workspace's memberships; UserMemberships a user's.
	ListMembers(ctx context.Context, workspaceID string) ([]*auth.MembershipRecord, error)
	UserMemberships(ctx context.Context, userID string) ([]*auth.MembershipRecord, error)
	// AddMembership creates a membership only if the user has none there: it returns the
	// membership that is stored and whether this call created it.
	AddMembership(ctx context.Context, m *auth.MembershipRecord) (stored *auth.MembershipRecord, created bool, err error)
	// SetRole changes a membership's role to a role other than owner, only while it is from:
	// ErrConflict otherwise (or when there is no such membership).
	SetRole(ctx context.Context, userID, workspaceID string, from, to auth.Role) error
	// PromoteOwner makes a membership owner with the grant, only while its role is from (not
	// owner): ErrConflict otherwise.
	PromoteOwner(ctx context.Context, userID, workspaceID string, from auth.Role, grant string) error
	// DeleteMembership deletes a membership only while its role is role: ErrConflict otherwise.
	DeleteMembership(ctx context.Context, userID, workspaceID string, role auth.Role) error

	// AddOwner puts the ownership (userID, grant), whose membership already says owner with
	// that grant, into the workspace's owners set: ErrConflict when that grant was released.
	AddOwner(ctx context.Context, workspaceID, userID, grant string) error
	// ReleaseOwner takes the ownership (userID, grant) out of the owners set and records it
	// released, before the membership stops being owner: only if another ownership stays in
	// the set (ErrLastOwner otherwise); an ownership not in a non-empty set is released too.
	ReleaseOwner(ctx context.Context, workspaceID, userID, grant string) error

	// PutInvite stores a new invitation (create-only).
	PutInvite(ctx context.Context, r *InviteRecord) error
	// GetInvite reads an invitation by id, expired or not.
	GetInvite(ctx context.Context, id string) (*InviteRecord, error)
	// ConsumeInvite deletes the invitation only if its token hash is tokenHash and it has not
	// expired at now: ErrInviteNotFound otherwise (used, revoked, expired or unknown).
	ConsumeInvite(ctx context.Context, id, tokenHash string, now time.Time) error
	// DeleteInvite deletes a workspace's invitation and returns it: ErrNotFound when that
	// workspace has no such invitation.
	DeleteInvite(ctx context.Context, workspaceID, id string) (*InviteRecord, error)
	// ListInvites lists a workspace's invitations, expired ones included.
	ListInvites(ctx context.Context, workspaceID string) ([]*InviteRecord, error)
}

// The refusals, each an *apierr.Error (the one domain error type; apierr's table maps each
// code to its status once), compared with errors.Is: ErrForbidden and ErrInviteEmailMismatch
// SCOPE_OR_ENVIRONMENT_DENIED; ErrNotFound NOT_FOUND; ErrInviteNotFound and ErrInviteExpired
// NOT_FOUND caused by account.ErrInvalidToken (an invitation link is a link that is unknown,
// used or expired, as a verify or reset link); ErrOwnerProtected, ErrLastOwner, ErrConflict,
// ErrTooManyInvites STATE_CONFLICT; ErrAlreadyMember VALIDATION_FAILED on email. A refused
// input is apierr.Field (VALIDATION_FAILED naming the field and the rule); the workspace's
// invitations a day spent is apierr.Limited (RATE_LIMITED, Retry-After the rest of the day).
var (
	ErrForbidden           = apierr.New(apierr.ScopeOrEnvironmentDenied, "team: your role does not allow this")
	ErrNotFound            = apierr.New(apierr.NotFound, "team: no such member or invitation in this workspace")
	ErrOwnerProtected      = apierr.New(apierr.StateConflict, "team: an owner's role changes only by transfer of ownership or by leaving")
	ErrLastOwner           = apierr.New(apierr.StateConflict, "team: the last owner cannot leave or step down; transfer ownership first")
	ErrConflict            = apierr.New(apierr.StateConflict, "team: the member changed meanwhile; reload and retry")
	ErrAlreadyMember       = apierr.Field("email", "already_member", "team: that person is already a member")
	ErrTooManyInvites      = apierr.New(apierr.StateConflict, "team: too many pending invitations; revoke some first")
	ErrInviteNotFound      = &apierr.Error{Code: apierr.NotFound, Message: "team: invitation not found or already used", Cause: account.ErrInvalidToken}
	ErrInviteExpired       = &apierr.Error{Code: apierr.NotFound, Message: "team: invitation expired", Cause: account.ErrInvalidToken}
	ErrInviteEmailMismatch = apierr.New(apierr.ScopeOrEnvironmentDenied, "team: this invitation is for another email address")
)

// Defaults and limits.
const (
	// InviteValidFor is how long an invitation link works.
	InviteValidFor = 7 * 24 * time.Hour
	// MaxPendingInvites is how many unexpired invitations a workspace may hold at once.
	MaxPendingInvites = 50
	// InvitesPerDay is how many invitations (each an email) a workspace may send in a UTC day,
	// counted as they are sent: revoking one does not give it back (Config.Quotas).
	InvitesPerDay = 100
	// MaxEmailLen is the longest email address (RFC 5321 path limit).
	MaxEmailLen = 254
	// InvitePath is the dashboard page that takes an invitation: the link in the email is
	// Config.BaseURL + InvitePath + "?token=" + token.
	InvitePath = "/invite"
	// recordTimeout bounds an activity record made after a change succeeded.
	recordTimeout = 3 * time.Second
)

// Config configures a Service.
type Config struct {
	// BaseURL is the dashboard's origin and path ("https://…/dashboard"): links start with it.
	BaseURL string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Recorder records the activity of every change (none when nil).
	Recorder activity.Recorder
	// OnRecordError hears of an activity record that failed (the change itself stands).
	OnRecordError func(ctx context.Context, e activity.Event, err error)
	// Quotas counts each workspace's invitations a day across instances (one conditional
	// write per invitation); nil: not counted. InvitesPerDay is the cap (the InvitesPerDay
	// constant when 0).
	Quotas        *ratelimit.Quotas
	InvitesPerDay int
}

// Service is the team's rules over a Store; mail goes out through a mail.Sender.
type Service struct {
	cfg    Config
	store  Store
	sender mail.Sender
}

// New returns a Service.
func New(cfg Config, store Store, sender mail.Sender) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Service{cfg: cfg, store: store, sender: sender}
}

// InviteLink is the link an invitation email carries.
func InviteLink(baseURL, token string) string {
	return strings.TrimRight(baseURL, "/") + InvitePath + "?token=" + token
}

// invitableRoles are the roles an invitation or a role change may give.
var invitableRoles = []auth.Role{auth.RoleAdmin, auth.RoleDeveloper, auth.RoleViewer}

// InvitableRoles returns the roles Invite and ChangeRole accept (a fresh slice).
func InvitableRoles() []auth.Role { return slices.Clone(invitableRoles) }

func parseGivenRole(s auth.Role) (auth.Role, error) {
	r, ok := auth.ParseRole(string(s))
	if ok && r == auth.RoleOwner {
		return "", apierr.Field("role", "not_owner", "ownership is given only by transferring it")
	}
	if !ok {
		return "", apierr.Field("role", "one_of", "must be admin, developer or viewer")
	}
	return r, nil
}

// parseEmail applies account.ParseEmail, the one email rule.
func parseEmail(email string) (string, error) {
	email, fe := account.ParseEmail(email)
	if fe != nil {
		return "", fe
	}
	return email, nil
}

// foldEmail is the case-insensitive form of an email (as the user email claims fold it).
func foldEmail(email string) string {
	return strings.ToLower(strings.ToUpper(strings.TrimSpace(email)))
}

// canonicalUserID returns a UUID in canonical form; ok false when s is none.
func canonicalUserID(s string) (string, bool) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", false
	}
	return u.String(), true
}

// Invitation tokens: the invitation's id (16 bytes) then 32 random bytes, base64url without
// padding (64 characters). The id finds the invitation with one GetItem; the 256 random bits
// are the secret, checked against the stored SHA-256 of the whole token in constant time.
const (
	tokenBytes  = 16 + 32
	tokenLength = 64
)

func newToken(id uuid.UUID) (token, hash string, err error) {
	var b [tokenBytes]byte
	copy(b[:16], id[:])
	if _, err := rand.Read(b[16:]); err != nil {
		return "", "", err
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token), nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// parseToken returns the invitation id and the hash of a presented token.
func parseToken(token string) (id, hash string, ok bool) {
	if len(token) != tokenLength {
		return "", "", false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != tokenBytes {
		return "", "", false
	}
	u, err := uuid.FromBytes(b[:16])
	if err != nil {
		return "", "", false
	}
	return u.String(), hashToken(token), true
}

// record records an event of a change that succeeded, with the request's client, on a
// context that outlives the request's by at most recordTimeout.
func (s *Service) record(ctx context.Context, e activity.Event) {
	if s.cfg.Recorder == nil {
		return
	}
	if e.IP == "" && e.UserAgent == "" {
		c := activity.ClientFrom(ctx)
		e.IP, e.UserAgent = c.IP, c.UserAgent
	}
	e.At = s.cfg.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := s.cfg.Recorder.Record(rctx, e); err != nil && s.cfg.OnRecordError != nil {
		s.cfg.OnRecordError(ctx, e, err)
	}
}

func (s *Service) actorEvent(a Actor, action activity.Action, target string) activity.Event {
	return activity.Event{WorkspaceID: a.WorkspaceID, ActorUserID: a.UserID, ActorEmail: a.Email, Action: action, Target: target,
		IP: a.Client.IP, UserAgent: a.Client.UserAgent}
}

// email returns a user's email, "" when unknown (for activity targets).
func (s *Service) email(ctx context.Context, userID string) string {
	m, err := s.store.UserEmails(ctx, []string{userID})
	if err != nil {
		return ""
	}
	return m[userID]
}

// Invite invites email to the actor's workspace with role (admin, developer or viewer) and emails
// the link in lang ("bn" or "en"; English otherwise). It needs auth.ManageTeam. A pending
// invitation of the same email (any letter case) is replaced by the new one; someone who already is
// a member is ErrAlreadyMember; at most MaxPendingInvites are pending, and at most InvitesPerDay
// are sent a day (a RATE_LIMITED *apierr.Error; revoking does not undo one). If the email cannot be
// sent, the invitation is deleted again and the error returned. An invitation outlives its
// inviter's role: owners and admins see and revoke pending ones (ListInvites).
func (s *Service) Invite(ctx context.Context, actor Actor, email string, role auth.Role, lang string) (*Invitation, error) {
	if !actor.Role.Can(auth.ManageTeam) {
		return nil, ErrForbidden
	}
	email, err := parseEmail(email)
	if err != nil {
		return nil, err
	}
	if role, err = parseGivenRole(role); err != nil {
		return nil, err
	}
	l, ok := page.ParseLang(lang)
	if !ok {
		l = page.EN
	}
	name, err := s.invitee(ctx, actor, email)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now().UTC()
	replaced, err := s.pendingOf(ctx, actor, email, now)
	if err != nil {
		return nil, err
	}
	daily := ratelimit.Quota{Name: "invites.workspace", Limit: cmp.Or(s.cfg.InvitesPerDay, InvitesPerDay), Period: 24 * time.Hour}
	if ok, wait := s.cfg.Quotas.Allow(ctx, daily, actor.WorkspaceID); !ok {
		return nil, apierr.Limited(wait, "team: the workspace sent %d invitations today; try again in %s", daily.Limit, wait)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	token, hash, err := newToken(id)
	if err != nil {
		return nil, err
	}
	rec := &InviteRecord{TokenHash: hash, Invitation: Invitation{
		ID: id.String(), WorkspaceID: actor.WorkspaceID, WorkspaceName: name, Email: email, Role: role,
		InviterUserID: actor.UserID, InviterEmail: actor.Email, CreatedAt: now, ExpiresAt: now.Add(InviteValidFor),
	}}
	if err := s.sendInvite(ctx, rec, token, l); err != nil {
		return nil, err
	}
	for _, old := range replaced {
		// Best effort: an old invitation left behind still expires, and accepting it joins the
		// same person once.
		_, _ = s.store.DeleteInvite(ctx, actor.WorkspaceID, old)
	}
	s.record(ctx, s.actorEvent(actor, activity.MemberInvited, email+" as "+string(role)))
	inv := rec.Invitation
	inv.Token = token
	return &inv, nil
}

// invitee reads the name of the actor's workspace (ErrNotFound when it is gone) and refuses
// an email whose user already is a member (ErrAlreadyMember).
func (s *Service) invitee(ctx context.Context, actor Actor, email string) (workspaceName string, err error) {
	name, ok, err := s.store.WorkspaceName(ctx, actor.WorkspaceID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrNotFound
	}
	uid, ok, err := s.store.UserIDByEmail(ctx, email)
	if err != nil || !ok {
		return name, err
	}
	m, err := s.store.GetMember(ctx, uid, actor.WorkspaceID)
	if err != nil {
		return "", err
	}
	if m != nil {
		return "", ErrAlreadyMember
	}
	return name, nil
}

// pendingOf reads the workspace's pending invitations: the ids of those of the same email
// (any letter case), which the new one replaces; ErrTooManyInvites when MaxPendingInvites
// others are live.
func (s *Service) pendingOf(ctx context.Context, actor Actor, email string, now time.Time) (replaced []string, err error) {
	pending, err := s.store.ListInvites(ctx, actor.WorkspaceID)
	if err != nil {
		return nil, err
	}
	live := 0
	for _, p := range pending {
		switch {
		case !now.Before(p.ExpiresAt):
		case foldEmail(p.Email) == foldEmail(email):
			replaced = append(replaced, p.ID)
		default:
			live++
		}
	}
	if live >= MaxPendingInvites {
		return nil, ErrTooManyInvites
	}
	return replaced, nil
}

// sendInvite stores the invitation and emails its link in l; when the email cannot be sent,
// the invitation is deleted again and the error returned.
func (s *Service) sendInvite(ctx context.Context, rec *InviteRecord, token string, l page.Lang) error {
	msg, err := mail.Compose(mail.Invitation, l, mail.Data{
		To: rec.Email, Link: InviteLink(s.cfg.BaseURL, token), WorkspaceName: rec.WorkspaceName,
		InviterEmail: rec.InviterEmail, Role: string(rec.Role), ValidFor: InviteValidFor,
	})
	if err != nil {
		return fmt.Errorf("compose invitation: %w", err)
	}
	if err := s.store.PutInvite(ctx, rec); err != nil {
		return err
	}
	if err := s.sender.Send(ctx, msg); err != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		_, _ = s.store.DeleteInvite(dctx, rec.WorkspaceID, rec.ID)
		return fmt.Errorf("send invitation: %w", err)
	}
	return nil
}

// LookupInvite returns the invitation a token opens (without its token):
// ErrInviteNotFound for an unknown, used or revoked one, ErrInviteExpired past ExpiresAt.
func (s *Service) LookupInvite(ctx context.Context, token string) (*Invitation, error) {
	rec, err := s.lookup(ctx, token)
	if err != nil {
		return nil, err
	}
	inv := rec.Invitation
	return &inv, nil
}

func (s *Service) lookup(ctx context.Context, token string) (*InviteRecord, error) {
	id, hash, ok := parseToken(strings.TrimSpace(token))
	if !ok {
		return nil, ErrInviteNotFound
	}
	rec, err := s.store.GetInvite(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec == nil || subtle.ConstantTimeCompare([]byte(rec.TokenHash), []byte(hash)) != 1 {
		return nil, ErrInviteNotFound
	}
	if !s.cfg.Now().Before(rec.ExpiresAt) {
		return nil, ErrInviteExpired
	}
	return rec, nil
}

// AcceptInvite joins the signed-in user (userID, userEmail) to the invitation's workspace
// with its role. userEmail must be the invitation's email (any letter case):
// ErrInviteEmailMismatch otherwise, and the invitation stays. The invitation is used up by
// one conditional delete before the membership is written, so of two accepts exactly one
// proceeds (the other gets ErrInviteNotFound); a crash between the two writes leaves no
// membership and a used invitation (ask for a new one), never a reusable invitation. A user
// who already is a member keeps their membership as it is (no duplicate, no role change), and
// that membership is returned.
func (s *Service) AcceptInvite(ctx context.Context, token, userID, userEmail string) (*auth.MembershipRecord, error) {
	rec, err := s.lookup(ctx, token)
	if err != nil {
		return nil, err
	}
	uid, ok := canonicalUserID(userID)
	if !ok {
		return nil, ErrInviteEmailMismatch
	}
	if subtle.ConstantTimeCompare([]byte(foldEmail(rec.Email)), []byte(foldEmail(userEmail))) != 1 {
		return nil, ErrInviteEmailMismatch
	}
	now := s.cfg.Now().UTC()
	if err := s.store.ConsumeInvite(ctx, rec.ID, rec.TokenHash, now); err != nil {
		return nil, err
	}
	m, created, err := s.store.AddMembership(ctx, &auth.MembershipRecord{UserID: uid, WorkspaceID: rec.WorkspaceID, Role: rec.Role, CreatedAt: now})
	if err != nil {
		return nil, err
	}
	if created {
		s.record(ctx, activity.Event{WorkspaceID: rec.WorkspaceID, ActorUserID: uid, ActorEmail: userEmail,
			Action: activity.MemberJoined, Target: userEmail + " as " + string(rec.Role) + ", invited by " + rec.InviterEmail})
	}
	return m, nil
}

// ListMembers lists the actor's workspace's members with their emails: owners first, then
// admins, developers and viewers, each by email. It needs auth.ViewWorkspace. It reads an
// index, so a change may take a moment to show (every decision reads the membership itself).
func (s *Service) ListMembers(ctx context.Context, actor Actor) ([]Member, error) {
	if !actor.Role.Can(auth.ViewWorkspace) {
		return nil, ErrForbidden
	}
	list, err := s.store.ListMembers(ctx, actor.WorkspaceID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list))
	for _, m := range list {
		ids = append(ids, m.UserID)
	}
	emails, err := s.store.UserEmails(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Member, 0, len(list))
	for _, m := range list {
		out = append(out, Member{UserID: m.UserID, Email: emails[m.UserID], Role: m.Role, Since: m.CreatedAt})
	}
	slices.SortFunc(out, func(a, b Member) int {
		return cmp.Or(cmp.Compare(roleRank(a.Role), roleRank(b.Role)), cmp.Compare(a.Email, b.Email), cmp.Compare(a.UserID, b.UserID))
	})
	return out, nil
}

func roleRank(r auth.Role) int {
	if i := slices.Index(auth.AllRoles, r); i >= 0 {
		return i
	}
	return len(auth.AllRoles)
}

// ListInvites lists the actor's workspace's pending (unexpired) invitations, newest first,
// without tokens. It needs auth.ManageTeam.
func (s *Service) ListInvites(ctx context.Context, actor Actor) ([]Invitation, error) {
	if !actor.Role.Can(auth.ManageTeam) {
		return nil, ErrForbidden
	}
	list, err := s.store.ListInvites(ctx, actor.WorkspaceID)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	out := []Invitation{}
	for _, r := range list {
		if now.Before(r.ExpiresAt) {
			out = append(out, r.Invitation)
		}
	}
	slices.SortFunc(out, func(a, b Invitation) int { return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID)) })
	return out, nil
}

// RevokeInvite deletes a pending invitation of the actor's workspace: its link stops working.
// It needs auth.ManageTeam; an invitation of another workspace is ErrNotFound.
func (s *Service) RevokeInvite(ctx context.Context, actor Actor, inviteID string) error {
	if !actor.Role.Can(auth.ManageTeam) {
		return ErrForbidden
	}
	id, ok := canonicalUserID(inviteID)
	if !ok {
		return ErrNotFound
	}
	rec, err := s.store.DeleteInvite(ctx, actor.WorkspaceID, id)
	if err != nil {
		return err
	}
	s.record(ctx, s.actorEvent(actor, activity.InviteRevoked, rec.Email+" as "+string(rec.Role)))
	return nil
}

// target reads the member the actor acts on: ErrNotFound unless userID is a member of the
// actor's workspace; a VALIDATION_FAILED on user_id (not_self) when it is the actor.
func (s *Service) target(ctx context.Context, actor Actor, userID string) (*Membership, error) {
	uid, ok := canonicalUserID(userID)
	if !ok {
		return nil, ErrNotFound
	}
	if uid == actor.UserID {
		return nil, errNotSelf("you cannot change or remove yourself here: leave the workspace or transfer ownership")
	}
	m, err := s.store.GetMember(ctx, uid, actor.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, ErrNotFound
	}
	return m, nil
}

// ChangeRole gives a member of the actor's workspace another role (admin, developer or viewer). It
// needs auth.ManageTeam; an owner's role is ErrOwnerProtected, the actor's own a VALIDATION_FAILED
// refusal. The write is conditional on the role the decision read (ErrConflict if it changed
// meanwhile). The same role again changes nothing.
func (s *Service) ChangeRole(ctx context.Context, actor Actor, userID string, role auth.Role) (*auth.MembershipRecord, error) {
	if !actor.Role.Can(auth.ManageTeam) {
		return nil, ErrForbidden
	}
	role, err := parseGivenRole(role)
	if err != nil {
		return nil, err
	}
	m, err := s.target(ctx, actor, userID)
	if err != nil {
		return nil, err
	}
	if m.Role == auth.RoleOwner {
		return nil, ErrOwnerProtected
	}
	if m.Role == role {
		return &m.MembershipRecord, nil
	}
	if err := s.store.SetRole(ctx, m.UserID, m.WorkspaceID, m.Role, role); err != nil {
		return nil, err
	}
	s.record(ctx, s.actorEvent(actor, activity.MemberRoleChanged, s.email(ctx, m.UserID)+": "+string(m.Role)+" → "+string(role)))
	out := m.MembershipRecord
	out.Role = role
	return &out, nil
}

// Remove removes a member from the actor's workspace; their sessions stop working for it on
// their next request. It needs auth.ManageTeam; an owner is ErrOwnerProtected, the actor a
// VALIDATION_FAILED refusal (use Leave).
func (s *Service) Remove(ctx context.Context, actor Actor, userID string) error {
	if !actor.Role.Can(auth.ManageTeam) {
		return ErrForbidden
	}
	m, err := s.target(ctx, actor, userID)
	if err != nil {
		return err
	}
	if m.Role == auth.RoleOwner {
		return ErrOwnerProtected
	}
	email := s.email(ctx, m.UserID)
	if err := s.store.DeleteMembership(ctx, m.UserID, m.WorkspaceID, m.Role); err != nil {
		return err
	}
	s.record(ctx, s.actorEvent(actor, activity.MemberRemoved, email+" ("+string(m.Role)+")"))
	return nil
}

// Leave ends the actor's own membership. An owner leaves only while another owner stays
// (ErrLastOwner): the owners set is updated first (see the package comment).
func (s *Service) Leave(ctx context.Context, actor Actor) error {
	m, err := s.store.GetMember(ctx, actor.UserID, actor.WorkspaceID)
	if err != nil {
		return err
	}
	if m == nil {
		return ErrNotFound
	}
	if m.Role == auth.RoleOwner {
		if err := s.store.ReleaseOwner(ctx, actor.WorkspaceID, actor.UserID, m.OwnerGrant); err != nil {
			return err
		}
	}
	if err := s.store.DeleteMembership(ctx, actor.UserID, actor.WorkspaceID, m.Role); err != nil {
		return err
	}
	s.record(ctx, s.actorEvent(actor, activity.MemberLeft, actor.Email+" ("+string(m.Role)+")"))
	return nil
}

// TransferOwnership makes toUserID, a member of the actor's workspace, an owner and the actor
// an admin. It needs auth.TransferOwnership, and the actor's stored membership must be owner.
// The writes, in this order, keep the workspace owned after a crash at any point: the target's
// membership becomes owner with a fresh grant (conditional on the role read), that ownership
// joins the owners set (unless the target released it meanwhile: ErrConflict), the actor's
// ownership is released (conditional on another staying), the actor's membership becomes
// admin (conditional on owner). A retry after a crash completes it.
func (s *Service) TransferOwnership(ctx context.Context, actor Actor, toUserID string) (*auth.MembershipRecord, error) {
	if !actor.Role.Can(auth.TransferOwnership) {
		return nil, ErrForbidden
	}
	self, err := s.store.GetMember(ctx, actor.UserID, actor.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if self == nil || !self.Role.Can(auth.TransferOwnership) {
		return nil, ErrForbidden
	}
	m, err := s.target(ctx, actor, toUserID)
	if err != nil {
		if _, v, ok := apierr.FieldOf(err); ok && v.Rule == "not_self" {
			return nil, errNotSelf("ownership goes to another member")
		}
		return nil, err
	}
	grant := m.OwnerGrant
	if m.Role != auth.RoleOwner {
		if grant, err = NewGrant(); err != nil {
			return nil, err
		}
		if err := s.store.PromoteOwner(ctx, m.UserID, m.WorkspaceID, m.Role, grant); err != nil {
			return nil, err
		}
	}
	// ErrConflict here: the target left (released this ownership) meanwhile.
	if err := s.store.AddOwner(ctx, actor.WorkspaceID, m.UserID, grant); err != nil {
		return nil, err
	}
	if err := s.store.ReleaseOwner(ctx, actor.WorkspaceID, actor.UserID, self.OwnerGrant); err != nil {
		return nil, err
	}
	if err := s.store.SetRole(ctx, actor.UserID, actor.WorkspaceID, auth.RoleOwner, auth.RoleAdmin); err != nil {
		return nil, err
	}
	s.record(ctx, s.actorEvent(actor, activity.OwnershipTransferred, "to "+s.email(ctx, m.UserID)+"; "+actor.Email+" is now admin"))
	out := m.MembershipRecord
	out.Role = auth.RoleOwner
	return &out, nil
}

// Workspaces lists the workspaces a user belongs to, with their names and the user's role,
// ordered by name (for the workspace switcher). It reads the user's own partition (strongly
// consistent) and the workspaces' names in one batch.
func (s *Service) Workspaces(ctx context.Context, userID string) ([]WorkspaceMembership, error) {
	uid, ok := canonicalUserID(userID)
	if !ok {
		return []WorkspaceMembership{}, nil
	}
	list, err := s.store.UserMemberships(ctx, uid)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list))
	for _, m := range list {
		ids = append(ids, m.WorkspaceID)
	}
	names, err := s.store.WorkspaceNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]WorkspaceMembership, 0, len(list))
	for _, m := range list {
		name, ok := names[m.WorkspaceID]
		if !ok {
			continue
		}
		out = append(out, WorkspaceMembership{WorkspaceID: m.WorkspaceID, WorkspaceName: name, Role: m.Role, Since: m.CreatedAt})
	}
	slices.SortFunc(out, func(a, b WorkspaceMembership) int {
		return cmp.Or(cmp.Compare(a.WorkspaceName, b.WorkspaceName), cmp.Compare(a.WorkspaceID, b.WorkspaceID))
	})
	return out, nil
}

// errNotSelf refuses acting on oneself (the user_id field's not_self rule).
func errNotSelf(message string) error { return apierr.Field("user_id", "not_self", message) }
