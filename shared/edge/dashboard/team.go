package dashboard

import (
	"context"
	"errors"
	"net/url"
	"slices"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// invitable are the roles an invitation or a role change may give (never owner: ownership
// is transferred).
var invitable = []auth.Role{auth.RoleViewer, auth.RoleDeveloper, auth.RoleAdmin}

// TeamPage is GET /dashboard/team: every member sees the members; admins and owners invite,
// change roles and remove; the owner transfers ownership; anyone may leave (not the last owner).
func (s *Service) TeamPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		return s.teamPage(ctx, r, 200, nil, r.Query["notice"])
	})(ctx, wr)
}

func (s *Service) teamPage(ctx context.Context, r *req, status int, f *form, notice string) (*web.Response, error) {
	v := r.viewer
	members, err := s.Team.ListMembers(ctx, v.actor(r))
	if err != nil {
		return nil, err
	}
	manage := v.can(auth.ManageTeam)
	var invites []Invite
	if manage {
		if invites, err = s.Team.ListInvites(ctx, v.actor(r)); err != nil {
			return nil, err
		}
	}
	return s.page(r, status, t(r.l(), "dash.team.title"), func(d *doc) {
		switch notice {
		case "invited", "role-changed", "removed", "transferred", "invite-revoked":
			d.notice("dash.notice." + notice)
		}
		d.node(d.membersTable(members, manage, v.user.UserID))
		if manage {
			d.node(d.invites(invites), d.inviteForm(f))
		}
		if v.can(auth.TransferOwnership) {
			d.node(d.transferForm(members, v.user.UserID))
		}
		d.node(h.H2(d.tx("dash.team.leave")), h.P(h.Class("hint"), d.tx("dash.team.leave_hint")),
			d.actionButton("/dashboard/team/leave", "leave", "dash.team.leave_submit", true))
	}), nil
}

// membersTable is the workspace's members, cards on a phone: who (the email) and their role
// first, then since when, then (admins) the role and remove forms.
func (d *doc) membersTable(members []Member, manage bool, self string) h.Node {
	cols := []ui.Column{{Head: d.t("dash.field.email")}, {Head: d.t("dash.team.role")}, {Head: d.t("dash.team.since")}}
	if manage {
		cols = append(cols, ui.Column{Head: d.t("dash.keys.col.actions")})
	}
	rows := make([]ui.Row, len(members))
	for i, m := range members {
		rows[i] = d.memberRow(m, manage, self)
	}
	return h.Group{
		d.tally("members-count", "dash.team.count", len(members)),
		ui.Table("members-table", d.t("dash.team.members"), cols, rows),
	}
}

// memberRow is one member of the members table (with the role and remove forms when manage,
// but not for self, the viewer, nor for an owner): the role as a pill (the owner's in the
// good tone), "you" beside the viewer's own email.
func (d *doc) memberRow(m Member, manage bool, self string) ui.Row {
	tone := ui.Info
	if m.Role == auth.RoleOwner {
		tone = ui.Good
	}
	cells := []h.Node{
		h.Group{ui.Long(m.Email, false), h.If(m.UserID == self, h.Group{h.Text(" "), h.Span(h.Class("tag"), d.tx("dash.team.you"))})},
		ui.TonePill(tone, string(m.Role), d.t("dash.role."+string(m.Role))),
		ui.Date(d.l, m.Since),
	}
	if manage {
		cells = append(cells, h.Div(h.Class("actions"), h.If(m.UserID != self && m.Role != auth.RoleOwner, d.memberActions(m))))
	}
	return ui.Row{ID: "member-" + m.UserID, Cells: cells}
}

// memberActions are a member's role and remove forms.
func (d *doc) memberActions(m Member) h.Node {
	roles := make([]string, len(invitable))
	for i, ro := range invitable {
		roles[i] = string(ro)
	}
	return h.Group{
		d.formNode("/dashboard/team/members/"+m.UserID+"/role", "",
			d.inlineChoice("role", "role-"+m.UserID, "dash.team.role", roles, "dash.role.", string(m.Role)),
			d.button("change-role-"+m.UserID, "dash.team.change_role", false)),
		d.actionButton("/dashboard/team/members/"+m.UserID+"/remove", "remove-"+m.UserID, "dash.team.remove", true),
	}
}

// invites lists the pending invitations, cards on a phone, each with its revoke form.
func (d *doc) invites(invites []Invite) h.Node {
	head := h.H2(h.ID("invites-title"), d.tx("dash.team.invites"))
	if len(invites) == 0 {
		return h.Group{head, ui.Empty("invites", d.t("dash.team.no_invites"), nil)}
	}
	cols := []ui.Column{{Head: d.t("dash.field.email")}, {Head: d.t("dash.team.role")}, {Head: d.t("dash.keys.col.state")},
		{Head: d.t("dash.team.expires")}, {Head: d.t("dash.keys.col.actions")}}
	rows := make([]ui.Row, len(invites))
	for i, in := range invites {
		rows[i] = ui.Row{ID: "invite-" + in.ID, Cells: []h.Node{
			ui.Long(in.Email, false),
			d.tx("dash.role." + string(in.Role)),
			ui.TonePill(ui.Waiting, "invited", d.t("dash.team.invited")),
			ui.Date(d.l, in.ExpiresAt),
			d.actionButton("/dashboard/team/invites/"+in.ID+"/revoke", "revoke-invite-"+in.ID, "dash.team.revoke_invite", true),
		}}
	}
	return h.Group{head, ui.Table("invites", plural(d.l, "dash.team.invites_count", len(invites)), cols, rows)}
}

// inviteForm invites someone by email, with a role.
func (d *doc) inviteForm(f *form) h.Node {
	want := f.value("role")
	if want == "" {
		want = string(auth.RoleDeveloper)
	}
	return h.Group{
		h.H2(h.ID("invite-title"), d.tx("dash.team.invite")),
		d.errorSummaryNode(f, "f-"),
		d.formNode("/dashboard/team/invites", "invite-form", onceInput(),
			d.field(f, "email", "email", "dash.field.email", "off", "dash.hint.invite", true),
			h.Div(h.Class("row"),
				h.Label(h.Class("field-label"), h.For("f-role"), d.tx("dash.team.role")),
				h.Select(h.Class("field"), h.ID("f-role"), h.Name("role"),
					h.If(f.err("role") != "", h.Group{h.Attr("aria-invalid", "true"), h.Aria("describedby", "f-role-error")}),
					h.Map(invitable, func(ro auth.Role) h.Node {
						return h.Option(h.Value(string(ro)), h.Selected(string(ro) == want), d.tx("dash.role."+string(ro)))
					})),
				h.If(f.err("role") != "", h.P(h.Class("field-error"), h.ID("f-role-error"), h.Text(f.err("role"))))),
			d.mainButton("invite-submit", "dash.team.invite_submit")),
	}
}

// transferForm offers the ownership to another member (none when the viewer, self, is alone).
func (d *doc) transferForm(members []Member, self string) h.Node {
	var others []Member
	for _, m := range members {
		if m.UserID != self {
			others = append(others, m)
		}
	}
	if len(others) == 0 {
		return nil
	}
	return h.Group{
		h.H2(d.tx("dash.team.transfer")),
		d.formNode("/dashboard/team/transfer", "transfer-form",
			h.Div(h.Class("row"),
				h.Label(h.Class("field-label"), h.For("f-transfer"), d.tx("dash.team.transfer_to")),
				h.Select(h.Class("field"), h.ID("f-transfer"), h.Name("user"), h.Map(others, func(m Member) h.Node {
					return h.Option(h.Value(m.UserID), h.Text(m.Email))
				}))),
			d.button("transfer-submit", "dash.team.transfer_submit", true)),
	}
}

// InviteMember is POST /dashboard/team/invites (admins and owners), a one-use form (once.go):
// a refresh or a double click sends one invitation.
func (s *Service) InviteMember(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageTeam); err != nil {
			return nil, err
		}
		email := r.field("email")
		f := &form{values: map[string]string{"email": email, "role": r.field("role")}}
		if rule := emailRule(email); rule != "" {
			f.fail("email", t(r.l(), rule))
		}
		role, ok := auth.ParseRole(r.field("role"))
		if !ok || !slices.Contains(invitable, role) {
			f.fail("role", t(r.l(), "dash.rule.role"))
		}
		if f.failed() {
			return s.teamPage(ctx, r, 422, f, "")
		}
		return s.once(ctx, r, "/dashboard/team?notice=invited", func() (effect, error) {
			if err := s.limitForm(ctx, r, FormInvite); err != nil {
				return effect{}, err
			}
			_, err := s.Team.Invite(ctx, r.viewer.actor(r), email, role, string(r.l()))
			if e := (*apierr.Error)(nil); errors.As(err, &e) && e.Code == apierr.RateLimited {
				// The invitation's one limit of its own: the workspace's invitations a day.
				return effect{}, &LimitedError{RetryAfter: e.RetryAfter(), Form: true, Daily: true}
			}
			if fe, ok := refused(err); ok {
				f.fail(fe.field, r.fieldMessage(fe))
				page, err := s.teamPage(ctx, r, 422, f, "")
				return effect{page: page}, err
			}
			if err != nil {
				return effect{}, err
			}
			return effect{location: "/dashboard/team?notice=invited"}, nil
		})
	})(ctx, wr)
}

// RevokeInvite is POST /dashboard/team/invites/{inviteID}/revoke.
func (s *Service) RevokeInvite(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageTeam); err != nil {
			return nil, err
		}
		if err := s.Team.RevokeInvite(ctx, r.viewer.actor(r), r.PathParams["inviteID"]); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/team?notice=invite-revoked"), nil
	})(ctx, wr)
}

// ChangeRole is POST /dashboard/team/members/{userID}/role.
func (s *Service) ChangeRole(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageTeam); err != nil {
			return nil, err
		}
		role, ok := auth.ParseRole(r.field("role"))
		if !ok || !slices.Contains(invitable, role) {
			return nil, apierr.New(apierr.MalformedRequest, "role must be viewer, developer or admin")
		}
		if _, err := s.Team.ChangeRole(ctx, r.viewer.actor(r), r.PathParams["userID"], role); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/team?notice=role-changed"), nil
	})(ctx, wr)
}

// RemoveMember is POST /dashboard/team/members/{userID}/remove.
func (s *Service) RemoveMember(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageTeam); err != nil {
			return nil, err
		}
		if err := s.Team.Remove(ctx, r.viewer.actor(r), r.PathParams["userID"]); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/team?notice=removed"), nil
	})(ctx, wr)
}

// TransferOwnership is POST /dashboard/team/transfer (the owner).
func (s *Service) TransferOwnership(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.TransferOwnership); err != nil {
			return nil, err
		}
		if _, err := s.Team.TransferOwnership(ctx, r.viewer.actor(r), r.field("user")); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/team?notice=transferred"), nil
	})(ctx, wr)
}

// Leave is POST /dashboard/team/leave (the last owner cannot: 409).
func (s *Service) Leave(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		if err := s.Team.Leave(ctx, r.viewer.actor(r)); err != nil {
			return nil, err
		}
		r.setCookie = append(r.setCookie, s.clearCookie(workspaceCookie, "/dashboard"))
		return s.redirect(r, "/dashboard"), nil
	})(ctx, wr)
}

// InvitePage is GET /dashboard/invite: who invites, to what, as what; signed in, a
// button to join; otherwise sign up or sign in first (then back here).
func (s *Service) InvitePage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		in, err := s.Team.LookupInvite(ctx, r.token())
		if err != nil {
			return nil, err
		}
		if err := s.signedIn(ctx, r); err != nil {
			var si *errSignIn
			if !errors.As(err, &si) {
				return nil, err
			}
		}
		self := "/dashboard/invite?token=" + url.QueryEscape(r.token())
		return s.page(r, 200, t(r.l(), "dash.invite.title", "workspace", in.WorkspaceName), func(d *doc) {
			d.node(h.P(h.ID("invite-message"), d.tx("dash.invite.message", "inviter", in.InviterEmail, "workspace", in.WorkspaceName,
				"role", t(d.l, "dash.role."+string(in.Role)))))
			if r.viewer != nil {
				d.node(d.formNode(self, "accept-form",
					h.P(d.tx("dash.invite.as", "email", r.viewer.user.Email)),
					d.mainButton("accept-invite", "dash.invite.accept")))
				return
			}
			d.node(h.P(h.Class("links"),
				d.linkNode("/dashboard/sign-up?next="+urlQueryEscape(self), "invite-sign-up", "dash.invite.sign_up"),
				h.Text(" · "),
				d.linkNode("/dashboard/sign-in?next="+urlQueryEscape(self), "invite-sign-in", "dash.invite.sign_in")))
		}), nil
	})(ctx, wr)
}

// AcceptInvite is POST /dashboard/invite: the signed-in person joins.
func (s *Service) AcceptInvite(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		m, err := s.Team.AcceptInvite(ctx, r.token(), r.viewer.user.UserID, r.viewer.user.Email)
		if err != nil {
			return nil, err
		}
		r.setCookie = append(r.setCookie, workspaceCookie+"="+m.WorkspaceID+s.cookieAttrs("/dashboard", int(SessionLifetime.Seconds())))
		return s.redirect(r, "/dashboard?notice=joined"), nil
	})(ctx, wr)
}

// --- activity --------------------------------------------------------------------------------

// ActivityPage is GET /dashboard/activity (admins and owners), newest first, 50 a page.
func (s *Service) ActivityPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewActivity); err != nil {
			return nil, err
		}
		list, err := s.Activity.List(ctx, r.viewer.ws.WorkspaceID, r.Query["cursor"], 50)
		if err != nil {
			return nil, err
		}
		events, next := list.Items, list.NextCursor
		return s.page(r, 200, t(r.l(), "dash.activity.title"), func(d *doc) {
			d.node(h.P(h.Class("hint"), d.tx("dash.activity.retention")), d.activityTable(events))
			if next != "" {
				d.node(h.P(h.Class("links"), d.linkNode("/dashboard/activity?cursor="+urlQueryEscape(next), "activity-next", "dash.activity.older")))
			}
		}), nil
	})(ctx, wr)
}

// activityTable is a page of the log, newest first, cards on a phone: when, who and what
// first, then what it was done to and from where.
func (d *doc) activityTable(events []activity.Entry) h.Node {
	if len(events) == 0 {
		return ui.Empty("activity-table", d.t("dash.activity.none"), nil)
	}
	var cols []ui.Column
	for _, c := range []string{"when", "who", "what", "target", "client"} {
		cols = append(cols, ui.Column{Head: d.t("dash.activity.col." + c)})
	}
	rows := make([]ui.Row, len(events))
	for i, e := range events {
		what := h.Text(string(e.Action))
		if key := "dash.action." + string(e.Action); has(key) {
			what = d.tx(key)
		}
		rows[i] = ui.Row{Cells: []h.Node{
			ui.Date(d.l, e.At),
			ui.Long(e.ActorEmail, false),
			what,
			ui.Long(e.Target, false),
			h.Group{ui.Long(e.IP, false), h.Br(), h.Span(h.Class("hint long"), h.Text(e.UserAgent))},
		}}
	}
	return h.Group{
		d.tally("activity-count", "dash.activity.count", len(events)),
		ui.Table("activity-table", d.t("dash.activity.caption"), cols, rows),
	}
}

// --- passkeys --------------------------------------------------------------------------------

// PasskeysPage is GET /dashboard/passkeys: the signed-in user's passkeys, and the form that
// adds one (each view begins a registration ceremony: one write).
func (s *Service) PasskeysPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		return s.passkeysPage(ctx, r, 200, nil, r.Query["notice"])
	})(ctx, wr)
}

func (s *Service) passkeysPage(ctx context.Context, r *req, status int, f *form, notice string) (*web.Response, error) {
	if s.Passkeys == nil {
		return nil, apierr.New(apierr.NotFound, "passkeys are not available")
	}
	list, err := s.Passkeys.List(ctx, r.viewer.user.UserID)
	if err != nil {
		return nil, err
	}
	// A user at passkey.MaxPerUser gets no ceremony ("" from BeginRegistration): no form. A
	// session without a recent proof gets the "confirm it's you" form instead.
	options, ceremony, err := s.Passkeys.BeginRegistration(ctx, r.viewer.user.UserID, r.viewer.user.Email, r.viewer.user.ProvedAt)
	confirm := errors.Is(err, ErrProofNeeded)
	if err != nil && !confirm {
		return nil, err
	}
	return s.page(r, status, t(r.l(), "dash.passkeys.title"), func(d *doc) {
		switch notice {
		case "added", "renamed", "removed-passkey":
			d.notice("dash.notice." + notice)
		}
		d.node(h.P(d.tx("dash.passkeys.about")), d.passkeyList(list))
		if confirm {
			d.node(h.H2(d.tx("dash.passkeys.add")), d.confirmForm(f))
			return
		}
		if ceremony == "" {
			return
		}
		d.node(h.H2(d.tx("dash.passkeys.add")), d.errorSummaryNode(f, "f-"),
			h.P(h.Class("hint"), h.Attr("data-passkey-unsupported", ""), h.Bool("hidden", true), d.tx("dash.passkeys.needs_js")),
			h.El("noscript", h.P(h.Class("hint"), d.tx("dash.passkeys.needs_js"))),
			d.passkeyForm("/dashboard/passkeys/register", "passkey-register-form", "register", options, ceremony,
				d.field(f, "name", "text", "dash.passkeys.name", "off", "dash.hint.passkey_name", true),
				"dash.passkeys.add_submit", "passkey-add"))
	}), nil
}

// passkeyList is the user's passkeys, cards on a phone: the name and whether it signs in
// first, then when it was added, then its rename and remove forms.
func (d *doc) passkeyList(list []Passkey) h.Node {
	if len(list) == 0 {
		return ui.Empty("passkeys", d.t("dash.passkeys.none"), nil)
	}
	cols := []ui.Column{{Head: d.t("dash.passkeys.name")}, {Head: d.t("dash.keys.col.state")},
		{Head: d.t("dash.keys.col.created")}, {Head: d.t("dash.keys.col.actions")}}
	rows := make([]ui.Row, len(list))
	for i, p := range list {
		state := ui.TonePill(ui.Good, "active", d.t("dash.keys.state.active"))
		if p.Pending {
			state = h.Group{ui.TonePill(ui.Waiting, "pending", d.t("dash.passkeys.state.pending")), h.Br(),
				d.linkNode("/dashboard/passkeys/activate", "activate-"+p.ID, "dash.passkeys.pending")}
		}
		rows[i] = ui.Row{ID: "passkey-" + p.ID, Cells: []h.Node{
			h.Strong(ui.Long(p.Name, false)),
			state,
			ui.Date(d.l, p.CreatedAt),
			h.Div(h.Class("actions"),
				d.formNode("/dashboard/passkeys/"+p.ID+"/rename", "",
					h.Label(h.For("rename-"+p.ID), d.tx("dash.passkeys.name")),
					h.Input(h.Class("inline-field"), h.Name("name"), h.Attr("maxlength", "64"), h.Required(true),
						h.ID("rename-"+p.ID), h.Value(p.Name)),
					d.button("rename-submit-"+p.ID, "dash.passkeys.rename", false)),
				d.actionButton("/dashboard/passkeys/"+p.ID+"/remove", "remove-passkey-"+p.ID, "dash.passkeys.remove", true)),
		}}
	}
	return h.Group{
		d.tally("passkeys-count", "dash.passkeys.count", len(list)),
		ui.Table("passkeys", d.t("dash.passkeys.caption"), cols, rows),
	}
}

// passkeyForm is a ceremony form as package passkey's script expects it (its form contract):
// hidden until the script finds WebAuthn, the options in data-passkey-options, the ceremony id
// and the answer in hidden fields, an error line, the submit button.
func (d *doc) passkeyForm(action, id, kind, options, ceremony string, fields h.Node, submitKey, submitID string) h.Node {
	return h.Form(h.Method("post"), h.Bool("hidden", true), h.ID(id), h.Action(d.r.url(action)),
		h.Attr("data-passkey", kind), h.Attr("data-passkey-options", options), h.Bool("novalidate", d.l == page.BN),
		h.Input(h.Type("hidden"), h.Name(csrfField), h.Value(d.formToken())),
		ui.Hidden("ceremony", ceremony),
		ui.Hidden("response", ""),
		fields,
		h.P(h.Class("error"), h.Attr("data-passkey-error", ""), h.Role("alert"), h.Bool("hidden", true), d.tx("dash.passkeys.failed")),
		d.mainButton(submitID, submitKey))
}

// FinishPasskeyRegistration is POST /dashboard/passkeys/register: the authenticator's
// answer to the ceremony the passkeys page began.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if s.Passkeys == nil {
			return nil, apierr.New(apierr.NotFound, "passkeys are not available")
		}
		name := r.field("name")
		err := s.Passkeys.FinishRegistration(ctx, r.viewer.user.UserID, r.form.Get("ceremony"), name, r.form.Get("response"),
			r.viewer.user.ProvedAt, r.client())
		if errors.Is(err, ErrProofNeeded) {
			return s.passkeysPage(ctx, r, 403, nil, "")
		}
		if fe, ok := refused(err); ok {
			f := &form{values: map[string]string{"name": name}}
			f.fail("name", r.fieldMessage(fe))
			return s.passkeysPage(ctx, r, 422, f, "")
		}
		if err != nil {
			return nil, err
		}
		// The passkey is pending: DashboardFunction emails the owner, then activates it.
		return s.redirect(r, "/dashboard/passkeys/activate"), nil
	})(ctx, wr)
}

// ActivatePasskeys is GET /dashboard/passkeys/activate (DashboardFunction, which sends the
// email): where registering a passkey goes next. Each of the user's pending passkeys is
// emailed to them, then activated (signs in from then on) and recorded in the activity log.
// A GET because it only finishes what the user's own registration began, whoever makes the
// browser load it.
func (s *Service) ActivatePasskeys(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.Accounts.ActivatePasskeys(ctx, r.viewer.user.UserID, r.client()); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/passkeys?notice=added"), nil
	})(ctx, wr)
}

// confirmForm is the "confirm it's you" step: the password again, posted to
// /dashboard/confirm-password (DashboardFunction), which goes back to the passkeys page.
func (d *doc) confirmForm(f *form) h.Node {
	return h.Group{
		h.P(d.tx("dash.passkeys.confirm")),
		d.errorSummaryNode(f, "f-"),
		d.formNode("/dashboard/confirm-password", "passkey-confirm-form",
			d.field(f, "password", "password", "dash.field.password", "current-password", "", true),
			d.mainButton("passkey-confirm", "dash.passkeys.confirm_submit")),
	}
}

// ConfirmPassword is POST /dashboard/confirm-password: the "confirm it's you" step before
// adding a passkey. The password typed again is recorded in the session (the account service
// counts a wrong one as a failed sign-in, RATE_LIMITED past the limits), then the passkeys
// page offers its form. It is DashboardFunction's (which links the password and email code
// already), not DashboardPasskeysFunction's.
func (s *Service) ConfirmPassword(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		err := s.Accounts.ConfirmPassword(ctx, r.viewer.token, r.form.Get("password"), r.client())
		f := &form{}
		fe, invalid := refused(err)
		switch {
		case errors.Is(err, account.ErrBadCredentials):
			f.fail("password", t(r.l(), "dash.passkeys.confirm_bad"))
		case invalid:
			f.fail("password", r.fieldMessage(fe))
		case err != nil:
			return nil, err
		default:
			return s.redirect(r, "/dashboard/passkeys"), nil
		}
		return s.page(r, 422, t(r.l(), "dash.passkeys.confirm_submit"), func(d *doc) { d.node(d.confirmForm(f)) }), nil
	})(ctx, wr)
}

// RenamePasskey is POST /dashboard/passkeys/{passkeyID}/rename.
func (s *Service) RenamePasskey(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if s.Passkeys == nil {
			return nil, apierr.New(apierr.NotFound, "passkeys are not available")
		}
		name := r.field("name")
		err := s.Passkeys.Rename(ctx, r.viewer.user.UserID, r.PathParams["passkeyID"], name)
		if fe, ok := refused(err); ok {
			f := &form{values: map[string]string{}}
			f.fail("name", r.fieldMessage(fe))
			return s.passkeysPage(ctx, r, 422, f, "")
		}
		if err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/passkeys?notice=renamed"), nil
	})(ctx, wr)
}

// RemovePasskey is POST /dashboard/passkeys/{passkeyID}/remove.
func (s *Service) RemovePasskey(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if s.Passkeys == nil {
			return nil, apierr.New(apierr.NotFound, "passkeys are not available")
		}
		if err := s.Passkeys.Remove(ctx, r.viewer.user.UserID, r.PathParams["passkeyID"], r.client()); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/passkeys?notice=removed-passkey"), nil
	})(ctx, wr)
}

// PasskeySignIn is POST /dashboard/passkeys/sign-in (a public form on the sign-in page): a
// sign-in ceremony begins, and the page asks for the passkey.
func (s *Service) PasskeySignIn(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		if s.Passkeys == nil {
			return nil, apierr.New(apierr.NotFound, "passkeys are not available")
		}
		if err := s.limitForm(ctx, r, FormPasskeySignIn); err != nil {
			return nil, err
		}
		options, ceremony, err := s.Passkeys.BeginLogin(ctx)
		if err != nil {
			return nil, err
		}
		return s.page(r, 200, t(r.l(), "dash.passkey.sign_in"), func(d *doc) {
			d.node(h.P(d.tx("dash.passkeys.wait")),
				h.P(h.Class("error"), h.Attr("data-passkey-unsupported", ""), h.Bool("hidden", true), d.tx("dash.passkeys.needs_js")),
				d.passkeyForm("/dashboard/passkeys/sign-in/finish", "passkey-sign-in-form", "login", options, ceremony, nil,
					"dash.passkey.sign_in", "passkey-sign-in-submit"),
				h.P(h.Class("links"), d.linkNode("/dashboard/sign-in", "back-sign-in", "dash.sign_in.password")))
		}), nil
	})(ctx, wr)
}

// FinishPasskeySignIn is POST /dashboard/passkeys/sign-in/finish: a new session.
func (s *Service) FinishPasskeySignIn(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		if s.Passkeys == nil {
			return nil, apierr.New(apierr.NotFound, "passkeys are not available")
		}
		sess, err := s.Passkeys.FinishLogin(ctx, r.form.Get("ceremony"), r.form.Get("response"), r.client())
		if errors.Is(err, account.ErrBadCredentials) {
			f := &form{values: map[string]string{}}
			f.fail("password", t(r.l(), "dash.passkeys.failed"))
			return s.signInForm(r, 422, f, ""), nil
		}
		if err != nil {
			return nil, err
		}
		return s.startSession(r, sess, ""), nil
	})(ctx, wr)
}
