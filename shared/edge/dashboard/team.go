package dashboard

import (
	"context"
	"errors"
	"net/url"
	"slices"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
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
		d.tableStart("members-caption", "members-table")
		d.Raw(`<caption class="hint" id="members-caption">`)
		d.text("dash.team.members")
		d.Raw(`</caption><thead><tr><th scope="col">`)
		d.text("dash.field.email")
		d.Raw(`</th><th scope="col">`)
		d.text("dash.team.role")
		d.Raw(`</th><th scope="col">`)
		d.text("dash.team.since")
		d.Raw("</th>")
		if manage {
			d.Raw(`<th scope="col">`)
			d.text("dash.keys.col.actions")
			d.Raw("</th>")
		}
		d.Raw("</tr></thead><tbody>")
		for _, m := range members {
			d.memberRow(m, manage, v.user.UserID)
		}
		d.Raw("</tbody></table></div>\n")
		if manage {
			d.invites(invites, f)
		}
		if v.can(auth.TransferOwnership) {
			d.transferForm(members, v.user.UserID)
		}
		d.Raw("<h2>")
		d.text("dash.team.leave")
		d.Raw("</h2>\n<p class=\"hint\">")
		d.text("dash.team.leave_hint")
		d.Raw("</p>\n")
		d.smallButton("/dashboard/team/leave", "leave", "dash.team.leave_submit", true)
	}), nil
}

// memberRow is one member of the members table (with the role and remove forms when manage,
// but not for self, the viewer, nor for an owner).
func (d *doc) memberRow(m Member, manage bool, self string) {
	d.Raw("<tr")
	d.Attr("id", "member-"+m.UserID)
	d.Raw("><td>")
	d.Text(m.Email)
	d.Raw("</td><td>")
	d.text("dash.role." + string(m.Role))
	d.Raw("</td><td>")
	d.date(m.Since)
	d.Raw("</td>")
	if manage {
		d.Raw(`<td><div class="actions">`)
		if m.UserID != self && m.Role != auth.RoleOwner {
			d.memberActions(m)
		}
		d.Raw("</div></td>")
	}
	d.Raw("</tr>")
}

// memberActions are a member's role and remove forms.
func (d *doc) memberActions(m Member) {
	d.formStart("/dashboard/team/members/"+m.UserID+"/role", "")
	roles := make([]string, len(invitable))
	for i, ro := range invitable {
		roles[i] = string(ro)
	}
	d.inlineChoice("role", "role-"+m.UserID, "dash.team.role", roles, "dash.role.", string(m.Role), "change-role-"+m.UserID, "dash.team.change_role")
	d.Raw("</form>")
	d.smallButton("/dashboard/team/members/"+m.UserID+"/remove", "remove-"+m.UserID, "dash.team.remove", true)
}

// invites lists the pending invitations (each with its revoke form), then the invite form.
func (d *doc) invites(invites []Invite, f *form) {
	d.Raw(`<h2>`)
	d.text("dash.team.invites")
	d.Raw("</h2>\n<ul id=\"invites\">")
	if len(invites) == 0 {
		d.Raw("<li>")
		d.text("dash.team.no_invites")
		d.Raw("</li>")
	}
	for _, in := range invites {
		d.Raw("<li>")
		d.Text(in.Email)
		d.Raw(" · ")
		d.text("dash.role." + string(in.Role))
		d.Raw(" · ")
		d.text("dash.keys.until")
		d.Raw(" ")
		d.date(in.ExpiresAt)
		d.Raw(" ")
		d.smallButton("/dashboard/team/invites/"+in.ID+"/revoke", "revoke-invite-"+in.ID, "dash.team.revoke_invite", true)
		d.Raw("</li>")
	}
	d.Raw("</ul>\n<h2 id=\"invite-title\">")
	d.text("dash.team.invite")
	d.Raw("</h2>\n")
	d.errorSummary(f)
	d.formStart("/dashboard/team/invites", "invite-form")
	d.onceToken()
	d.input(f, "email", "email", "dash.field.email", "off", "dash.hint.invite", true)
	d.Raw(`<div class="row"><label class="field-label" for="f-role">`)
	d.text("dash.team.role")
	d.Raw(`</label><select class="field" id="f-role" name="role">`)
	want := f.value("role")
	if want == "" {
		want = string(auth.RoleDeveloper)
	}
	for _, ro := range invitable {
		d.Raw("<option")
		d.Attr("value", string(ro))
		if string(ro) == want {
			d.Raw(" selected")
		}
		d.Raw(">")
		d.text("dash.role." + string(ro))
		d.Raw("</option>")
	}
	d.Raw("</select></div>\n")
	d.submit("dash.team.invite_submit", "invite-submit")
	d.Raw("</form>\n")
}

// transferForm offers the ownership to another member (none when the viewer, self, is alone).
func (d *doc) transferForm(members []Member, self string) {
	var others []Member
	for _, m := range members {
		if m.UserID != self {
			others = append(others, m)
		}
	}
	if len(others) > 0 {
		d.Raw("<h2>")
		d.text("dash.team.transfer")
		d.Raw("</h2>\n")
		d.formStart("/dashboard/team/transfer", "transfer-form")
		d.Raw(`<div class="row"><label class="field-label" for="f-transfer">`)
		d.text("dash.team.transfer_to")
		d.Raw(`</label><select class="field" id="f-transfer" name="user">`)
		for _, m := range others {
			d.Raw("<option")
			d.Attr("value", m.UserID)
			d.Raw(">")
			d.Text(m.Email)
			d.Raw("</option>")
		}
		d.Raw("</select></div>")
		d.Raw(`<button type="submit" class="linkbutton danger" id="transfer-submit">`)
		d.text("dash.team.transfer_submit")
		d.Raw("</button></form>\n")
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
			d.Raw(`<p id="invite-message">`)
			d.text("dash.invite.message", "inviter", in.InviterEmail, "workspace", in.WorkspaceName,
				"role", t(d.l, "dash.role."+string(in.Role)))
			d.Raw("</p>\n")
			if r.viewer != nil {
				d.formStart(self, "accept-form")
				d.Raw("<p>")
				d.text("dash.invite.as", "email", r.viewer.user.Email)
				d.Raw("</p>")
				d.submit("dash.invite.accept", "accept-invite")
				d.Raw("</form>\n")
				return
			}
			d.Raw(`<p class="links">`)
			d.link("/dashboard/sign-up?next="+urlQueryEscape(self), "invite-sign-up", "dash.invite.sign_up")
			d.Raw(" · ")
			d.link("/dashboard/sign-in?next="+urlQueryEscape(self), "invite-sign-in", "dash.invite.sign_in")
			d.Raw("</p>\n")
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
			d.Raw(`<p class="hint">`)
			d.text("dash.activity.retention")
			d.Raw(`</p><div class="table-wrap" tabindex="0" role="region" aria-labelledby="activity-caption"><table id="activity-table"><caption class="hint" id="activity-caption">`)
			d.text("dash.activity.caption")
			d.Raw("</caption>")
			d.thead("dash.activity.col.", "when", "who", "what", "target", "client")
			if len(events) == 0 {
				d.Raw(`<tr><td colspan="5">`)
				d.text("dash.activity.none")
				d.Raw("</td></tr>")
			}
			for _, e := range events {
				d.Raw("<tr><td>")
				d.date(e.At)
				d.Raw("</td><td>")
				d.Text(e.ActorEmail)
				d.Raw("</td><td>")
				if action := string(e.Action); has("dash.action." + action) {
					d.text("dash.action." + action)
				} else {
					d.Text(action)
				}
				d.Raw("</td><td>")
				d.Text(e.Target)
				d.Raw("</td><td>")
				d.Text(e.IP)
				d.Raw("<br><span class=\"hint\">")
				d.Text(e.UserAgent)
				d.Raw("</span></td></tr>")
			}
			d.Raw("</tbody></table></div>\n")
			if next != "" {
				d.Raw(`<p class="links">`)
				d.link("/dashboard/activity?cursor="+urlQueryEscape(next), "activity-next", "dash.activity.older")
				d.Raw("</p>\n")
			}
		}), nil
	})(ctx, wr)
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
		d.Raw("<p>")
		d.text("dash.passkeys.about")
		d.Raw("</p>\n<ul id=\"passkeys\">")
		if len(list) == 0 {
			d.Raw("<li>")
			d.text("dash.passkeys.none")
			d.Raw("</li>")
		}
		for _, p := range list {
			d.Raw("<li")
			d.Attr("id", "passkey-"+p.ID)
			d.Raw("><strong>")
			d.Text(p.Name)
			d.Raw("</strong> · ")
			d.date(p.CreatedAt)
			if p.Pending {
				d.Raw(" · ")
				d.link("/dashboard/passkeys/activate", "activate-"+p.ID, "dash.passkeys.pending")
			}
			d.Raw(`<div class="actions">`)
			d.formStart("/dashboard/passkeys/"+p.ID+"/rename", "")
			d.Raw("<label")
			d.Attr("for", "rename-"+p.ID)
			d.Raw(">")
			d.text("dash.passkeys.name")
			d.Raw(`</label><input class="inline-field" name="name" maxlength="64" required`)
			d.Attr("id", "rename-"+p.ID)
			d.Attr("value", p.Name)
			d.Raw(`><button type="submit" class="linkbutton"`)
			d.Attr("id", "rename-submit-"+p.ID)
			d.Raw(">")
			d.text("dash.passkeys.rename")
			d.Raw("</button></form>")
			d.smallButton("/dashboard/passkeys/"+p.ID+"/remove", "remove-passkey-"+p.ID, "dash.passkeys.remove", true)
			d.Raw("</div></li>")
		}
		d.Raw("</ul>\n")
		if confirm {
			d.Raw("<h2>")
			d.text("dash.passkeys.add")
			d.Raw("</h2>\n")
			d.confirmForm(f)
			return
		}
		if ceremony == "" {
			return
		}
		d.Raw("<h2>")
		d.text("dash.passkeys.add")
		d.Raw("</h2>\n")
		d.errorSummary(f)
		d.Raw(`<p class="hint" data-passkey-unsupported hidden>`)
		d.text("dash.passkeys.needs_js")
		d.Raw("</p>\n<noscript><p class=\"hint\">")
		d.text("dash.passkeys.needs_js")
		d.Raw("</p></noscript>\n")
		d.passkeyForm("/dashboard/passkeys/register", "passkey-register-form", "register", options, ceremony, func() {
			d.input(f, "name", "text", "dash.passkeys.name", "off", "dash.hint.passkey_name", true)
		}, "dash.passkeys.add_submit", "passkey-add")
	}), nil
}

// passkeyForm writes a ceremony form as package passkey's script expects it (its form
// contract): hidden until the script finds WebAuthn, the options in data-passkey-options,
// the ceremony id and the answer in hidden fields, an error line, the submit button.
func (d *doc) passkeyForm(action, id, kind, options, ceremony string, fields func(), submitKey, submitID string) {
	d.Raw(`<form method="post" hidden`)
	d.Attr("id", id)
	d.URLAttr("action", d.r.url(action))
	d.Attr("data-passkey", kind)
	d.Attr("data-passkey-options", options)
	d.Raw(`><input type="hidden" name="` + csrfField + `"`)
	if d.r.viewer != nil {
		d.Attr("value", d.r.viewer.csrf)
	} else {
		d.Attr("value", d.r.preToken)
	}
	d.Raw(`><input type="hidden" name="ceremony"`)
	d.Attr("value", ceremony)
	d.Raw(`><input type="hidden" name="response" value="">`)
	if fields != nil {
		fields()
	}
	d.Raw(`<p class="error" data-passkey-error role="alert" hidden>`)
	d.text("dash.passkeys.failed")
	d.Raw("</p>")
	d.submit(submitKey, submitID)
	d.Raw("</form>\n")
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
func (d *doc) confirmForm(f *form) {
	d.Raw("<p>")
	d.text("dash.passkeys.confirm")
	d.Raw("</p>\n")
	d.errorSummary(f)
	d.formStart("/dashboard/confirm-password", "passkey-confirm-form")
	d.input(f, "password", "password", "dash.field.password", "current-password", "", true)
	d.submit("dash.passkeys.confirm_submit", "passkey-confirm")
	d.Raw("</form>\n")
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
		return s.page(r, 422, t(r.l(), "dash.passkeys.confirm_submit"), func(d *doc) { d.confirmForm(f) }), nil
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
			d.Raw(`<p>`)
			d.text("dash.passkeys.wait")
			d.Raw("</p>\n")
			d.Raw(`<p class="error" data-passkey-unsupported hidden>`)
			d.text("dash.passkeys.needs_js")
			d.Raw("</p>\n")
			d.passkeyForm("/dashboard/passkeys/sign-in/finish", "passkey-sign-in-form", "login", options, ceremony, nil,
				"dash.passkey.sign_in", "passkey-sign-in-submit")
			d.Raw(`<p class="links">`)
			d.link("/dashboard/sign-in", "back-sign-in", "dash.sign_in.password")
			d.Raw("</p>\n")
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
