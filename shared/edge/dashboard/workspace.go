package dashboard

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// get serves a signed-in page.
func (s *Service) get(h handler) web.HandlerFunc {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.signedIn(ctx, r); err != nil {
			return nil, err
		}
		return h(ctx, r)
	})
}

// post serves a signed-in form: site, session and CSRF checked first.
func (s *Service) post(h handler) web.HandlerFunc {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.sessionPost(ctx, r); err != nil {
			return nil, err
		}
		return h(ctx, r)
	})
}

// Home is GET /dashboard: the workspace, its environment, what the role may do.
func (s *Service) Home(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		v := r.viewer
		if v.ws.WorkspaceID == "" {
			return s.page(r, 200, t(r.l(), "dash.home.none.title"), func(d *doc) {
				d.node(h.P(d.tx("dash.home.none")), d.accountActions())
			}), nil
		}
		var o *overview
		if s.Payments != nil && v.can(auth.ViewWorkspace) {
			var err error
			if o, err = s.overview(ctx, v.ws.WorkspaceID, r.env()); err != nil {
				return nil, err
			}
		}
		return s.page(r, 200, t(r.l(), "dash.home.title"), func(d *doc) {
			if r.Query["notice"] == "joined" {
				d.notice("dash.notice.joined", "workspace", v.ws.WorkspaceName)
			}
			d.envSwitch()
			d.node(d.homeFacts())
			if o != nil {
				d.overviewPayments(o)
			}
			d.node(d.homeLinks(), d.workspaces(), d.accountActions())
		}), nil
	})(ctx, wr)
}

// homeFacts are the workspace, the environment and who is signed in, with what role.
func (d *doc) homeFacts() h.Node {
	v := d.r.viewer
	env := "dash.home.sandbox"
	if d.r.env() == auth.Live {
		env = "dash.overview.live"
	}
	return ui.Facts("home-facts",
		ui.Fact{Term: d.t("dash.home.workspace"), ID: "home-workspace", Value: h.Text(v.ws.WorkspaceName)},
		ui.Fact{Term: d.t("dash.home.environment"), ID: "home-environment", Value: d.tx(env)},
		ui.Fact{Term: d.t("dash.home.you"), ID: "home-user", Value: h.Group{
			ui.Long(v.user.Email, false), h.Text(" · " + d.t("dash.role."+string(v.ws.Role)))}},
	)
}

// homeLinks are the pages the role may use.
func (d *doc) homeLinks() h.Node {
	v := d.r.viewer
	li := func(path, id, key string) h.Node { return h.Li(d.linkNode(path, id, key)) }
	keys := "dash.home.view_keys"
	if v.can(auth.ManageKeys) {
		keys = "dash.home.manage_keys"
	}
	team := "dash.home.view_team"
	if v.can(auth.ManageTeam) {
		team = "dash.home.manage_team"
	}
	return h.Group{
		h.H2(d.tx("dash.home.can")),
		h.Ul(h.ID("home-links"),
			h.If(v.can(auth.ViewKeys), li("/dashboard/keys", "home-keys", keys)),
			li("/dashboard/team", "home-team", team),
			h.If(v.can(auth.ViewActivity), li("/dashboard/activity", "home-activity", "dash.home.activity")),
			li("/dashboard/passkeys", "home-passkeys", "dash.home.passkeys"),
		),
	}
}

// workspaces lists the user's workspaces, each but this one with its switch (none for one).
func (d *doc) workspaces() h.Node {
	v := d.r.viewer
	if len(v.all) < 2 {
		return nil
	}
	return h.Group{
		h.H2(d.tx("dash.home.workspaces")),
		h.Ul(h.Map(v.all, func(m Membership) h.Node {
			if m.WorkspaceID == v.ws.WorkspaceID {
				return h.Li(h.Strong(h.Text(m.WorkspaceName)))
			}
			return h.Li(d.actionButton("/dashboard/workspace", "switch-"+m.WorkspaceID, "dash.home.switch", false, "workspace", m.WorkspaceID),
				h.Text(" "+m.WorkspaceName))
		})),
	}
}

// accountActions is the sign-out-everywhere form (with its remove-every-passkey box).
func (d *doc) accountActions() h.Node {
	return h.Group{
		h.H2(d.tx("dash.home.sessions")),
		h.P(h.Class("hint"), d.tx("dash.home.sessions_hint")),
		d.formNode("/dashboard/sign-out-everywhere", "sign-out-everywhere-form",
			h.Div(h.Class("row"), h.Label(h.Class("check"),
				h.Input(h.Type("checkbox"), h.Value("yes"), h.Name(removePasskeysField), h.ID("sign-out-remove-passkeys")),
				h.Text(" "+d.t("dash.remove_passkeys")))),
			d.button("sign-out-everywhere", "dash.sign_out_everywhere", true)),
	}
}

// SwitchWorkspace is POST /dashboard/workspace: another workspace of the user's.
func (s *Service) SwitchWorkspace(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		id := r.field("workspace")
		if !slices.ContainsFunc(r.viewer.all, func(m Membership) bool { return m.WorkspaceID == id }) {
			return nil, apierr.New(apierr.NotFound, "no such workspace")
		}
		r.setCookie = append(r.setCookie, workspaceCookie+"="+id+s.cookieAttrs("/dashboard", int(SessionLifetime/time.Second)))
		return s.redirect(r, "/dashboard"), nil
	})(ctx, wr)
}

// --- API keys --------------------------------------------------------------------------------

// graces are the roll's choices: the old key expires now, in 1 hour, 24 hours or 7 days.
var graces = []struct {
	value string
	d     time.Duration
}{{"now", 0}, {"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}}

func parseGrace(v string) (time.Duration, bool) {
	for _, g := range graces {
		if g.value == v {
			return g.d, true
		}
	}
	return 0, false
}

var keyScopes = []auth.Scope{auth.PaymentsWrite, auth.PaymentsRead, auth.DocumentsRead, auth.DocumentsWrite}

// KeysPage is GET /dashboard/keys: the list for developers and up; create, revoke and roll
// for admins and owners.
func (s *Service) KeysPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewKeys); err != nil {
			return nil, err
		}
		// A create or roll lands here (?shown=): its secret, this once.
		v, st, err := s.reveal(ctx, r)
		if err != nil {
			return nil, err
		}
		var issued *IssuedKey
		if st == shownNow {
			issued = &IssuedKey{Key: Key{Name: v["name"]}, Secret: v["secret"]}
		}
		return s.keysPage(ctx, r, 200, nil, issued, r.Query["notice"], st)
	})(ctx, wr)
}

func (s *Service) keysPage(ctx context.Context, r *req, status int, f *form, issued *IssuedKey, notice string, st shownState) (*web.Response, error) {
	keys, err := s.Keys.ListKeys(ctx, r.viewer.ws.WorkspaceID)
	if err != nil {
		return nil, err
	}
	manage := r.viewer.can(auth.ManageKeys)
	return s.page(r, status, t(r.l(), "dash.keys.title"), func(d *doc) {
		if notice == "revoked" {
			d.notice("dash.notice.revoked")
		}
		d.shownNotice(st)
		if issued != nil {
			d.node(h.H2(h.ID("issued-title"), d.tx("dash.keys.issued", "name", issued.Name)))
			d.secretBox("issued-secret", issued.Secret)
		}
		d.node(d.keysTable(keys, manage))
		if !manage {
			d.node(h.P(h.Class("hint"), h.ID("keys-readonly"), d.tx("dash.keys.readonly")))
			return
		}
		d.node(d.createKeyForm(f))
	}), nil
}

// keysTable is the workspace's keys, cards on a phone: what a key is called (and its
// environment) and whether it works first, its prefix (an id) and permissions last, then
// (admins) its revoke and roll forms. Six columns, so that the table fits its card on a
// desktop with the roll form's select whole.
func (d *doc) keysTable(keys []Key, manage bool) h.Node {
	if len(keys) == 0 {
		return ui.Empty("keys-none", d.t("dash.keys.none"), nil)
	}
	active := 0
	for _, k := range keys {
		if k.State == "active" {
			active++
		}
	}
	var cols []ui.Column
	for _, c := range []string{"name", "state", "created", "last_used", "prefix"} {
		cols = append(cols, ui.Column{Head: d.t("dash.keys.col." + c)})
	}
	if manage {
		cols = append(cols, ui.Column{Head: d.t("dash.keys.col.actions")})
	}
	rows := make([]ui.Row, len(keys))
	for i, k := range keys {
		rows[i] = d.keyRow(k, manage)
	}
	return h.Group{
		d.tally("keys-count", "dash.keys.count", len(keys), h.Text(" · "+plural(d.l, "dash.keys.active", active))),
		ui.Table("keys-table", d.t("dash.keys.caption"), cols, rows),
	}
}

// keyRow is one key of the keys table (with its revoke and roll forms when manage).
func (d *doc) keyRow(k Key, manage bool) ui.Row {
	sc := make([]string, len(k.Scopes))
	for i, x := range k.Scopes {
		sc[i] = string(x)
	}
	used := d.tx("dash.keys.never")
	if k.LastUsed != nil {
		used = h.Time(h.Attr("datetime", k.LastUsed.UTC().Format(time.DateOnly)), h.Text(d.day(*k.LastUsed)))
	}
	cells := []h.Node{
		h.Group{h.Strong(ui.Long(k.Name, false)), h.Br(), h.Span(h.Class("tag"), d.tx("dash.env."+string(k.Environment)))},
		d.keyState(k),
		h.Group{ui.Date(d.l, k.CreatedAt), h.Br(), h.Span(h.Class("hint long"), h.Text(k.CreatedBy))},
		used,
		h.Group{ui.Long(k.Prefix, true), h.Br(), h.Span(h.Class("hint long"),
			h.Text(d.t("dash.keys.col.scopes")+": "+strings.Join(sc, ", ")))},
	}
	if manage {
		cells = append(cells, d.keyActions(k))
	}
	return ui.Row{ID: "key-" + k.ID, Cells: cells}
}

// keyState is a key's state pill: active, expiring (a rolled key, until its grace ends),
// revoked or expired.
func (d *doc) keyState(k Key) h.Node {
	switch {
	case k.State == "active" && k.ExpiresAt != nil:
		return h.Group{ui.TonePill(ui.Waiting, "expiring", d.t("dash.keys.state.expiring")), h.Br(),
			d.tx("dash.keys.until"), h.Text(" "), ui.Date(d.l, *k.ExpiresAt)}
	case k.State == "active":
		return ui.TonePill(ui.Good, k.State, d.t("dash.keys.state.active"))
	case k.State == "revoked":
		return ui.TonePill(ui.Bad, k.State, d.t("dash.keys.state.revoked"))
	}
	return ui.TonePill(ui.Off, k.State, d.t("dash.keys.state."+k.State))
}

// day is a calendar day as the page's language writes it ("28 November 2026"), the date of
// ui.Date without its clock: a key's last use is known to the day.
func (d *doc) day(t time.Time) string {
	full := d.l.DateTime(t)
	if i := strings.LastIndex(full, ", "); i > 0 {
		return full[:i]
	}
	return full
}

// keyActions are an active key's revoke and roll forms.
func (d *doc) keyActions(k Key) h.Node {
	if k.State != "active" {
		return nil
	}
	values := make([]string, len(graces))
	for i, g := range graces {
		values[i] = g.value
	}
	return h.Div(h.Class("actions"),
		d.actionButton("/dashboard/keys/"+k.ID+"/revoke", "revoke-"+k.ID, "dash.keys.revoke", true),
		d.formNode("/dashboard/keys/"+k.ID+"/roll", "", onceInput(),
			d.inlineChoice("grace", "grace-"+k.ID, "dash.keys.grace", values, "dash.grace.", ""),
			d.button("roll-"+k.ID, "dash.keys.roll", false)),
	)
}

// createKeyForm is the keys page's create form: name, environment, scopes.
func (d *doc) createKeyForm(f *form) h.Node {
	env := f.value("environment")
	if env == "" {
		env = "sandbox"
	}
	scopesErr := f.err("scopes")
	return h.Group{
		h.H2(h.ID("create-title"), d.tx("dash.keys.create")),
		d.errorSummaryNode(f, "f-"),
		d.formNode("/dashboard/keys", "create-key-form", onceInput(),
			d.field(f, "name", "text", "dash.field.key_name", "off", "", true),
			h.Fieldset(h.ID("f-environment"),
				h.Legend(d.tx("dash.field.environment")),
				h.Map([]string{"sandbox", "live"}, func(e string) h.Node {
					return h.Label(h.Class("check"),
						h.Input(h.Type("radio"), h.Name("environment"), h.Value(e), h.ID("env-"+e), h.Checked(e == env)),
						h.Text(" "+d.t("dash.env."+e)))
				}),
				h.P(h.Class("hint"), d.tx("dash.keys.live_note"))),
			h.Fieldset(h.If(scopesErr != "", h.Aria("describedby", "f-scopes-error")), h.ID("f-scopes"),
				h.Legend(d.tx("dash.field.scopes")),
				h.Map(keyScopes, func(sc auth.Scope) h.Node {
					on := f == nil || strings.Contains(","+f.value("scopes")+",", ","+string(sc)+",")
					return h.Label(h.Class("check"),
						h.Input(h.Type("checkbox"), h.Name("scopes"), h.Value(string(sc)),
							h.ID("scope-"+strings.ReplaceAll(string(sc), ":", "-")), h.Checked(on)),
						h.Text(" "+string(sc)+" — "+d.t("dash.scope."+strings.ReplaceAll(string(sc), ":", "_"))))
				}),
				h.If(scopesErr != "", h.P(h.Class("field-error"), h.ID("f-scopes-error"), h.Text(scopesErr)))),
			d.mainButton("create-key-submit", "dash.keys.create_submit"),
		),
	}
}

// CreateKey is POST /dashboard/keys (admins and owners), a one-use form (once.go): 303 to
// the keys page, which shows the secret once (never in a URL).
func (s *Service) CreateKey(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageKeys); err != nil {
			return nil, err
		}
		nk := NewKey{Name: r.field("name")}
		f := &form{values: map[string]string{"name": nk.Name, "environment": r.field("environment"),
			"scopes": strings.Join(r.form["scopes"], ",")}}
		if nk.Name == "" {
			f.fail("name", t(r.l(), "dash.rule.required"))
		}
		env, ok := auth.ParseEnvironment(r.field("environment"))
		if !ok {
			f.fail("environment", t(r.l(), "dash.rule.environment"))
		}
		nk.Environment = env
		for _, v := range r.form["scopes"] {
			sc, ok := auth.ParseScope(v)
			if !ok || !slices.Contains(keyScopes, sc) {
				f.fail("scopes", t(r.l(), "dash.rule.scopes"))
				break
			}
			if !slices.Contains(nk.Scopes, sc) {
				nk.Scopes = append(nk.Scopes, sc)
			}
		}
		if len(nk.Scopes) == 0 {
			f.fail("scopes", t(r.l(), "dash.rule.scopes"))
		}
		if f.failed() {
			return s.keysPage(ctx, r, 422, f, nil, "", shownNone)
		}
		return s.once(ctx, r, "/dashboard/keys", func() (effect, error) {
			issued, err := s.Keys.CreateKey(ctx, r.viewer.actor(r), nk)
			if fe, ok := refused(err); ok {
				// credential words its rules in English ("must be at most 64 characters"): the
				// page says them in its language (refusalMessage).
				f.fail(fe.field, refusalMessage(r.l(), fe))
				page, err := s.keysPage(ctx, r, 422, f, nil, "", shownNone)
				return effect{page: page}, err
			}
			if err != nil {
				return effect{}, err
			}
			return issuedEffect(issued), nil
		})
	})(ctx, wr)
}

// issuedEffect is a new key's effect: its secret, shown once on the keys page.
func issuedEffect(k *IssuedKey) effect {
	return effect{secret: map[string]string{"name": k.Name, "secret": k.Secret}}
}

// RevokeKey is POST /dashboard/keys/{keyID}/revoke.
func (s *Service) RevokeKey(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageKeys); err != nil {
			return nil, err
		}
		if err := s.Keys.RevokeKey(ctx, r.viewer.actor(r), r.PathParams["keyID"]); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/keys?notice=revoked"), nil
	})(ctx, wr)
}

// RollKey is POST /dashboard/keys/{keyID}/roll, a one-use form: a new key, the old one
// expiring after the chosen grace; 303 to the keys page, which shows the new secret once.
func (s *Service) RollKey(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageKeys); err != nil {
			return nil, err
		}
		grace, ok := parseGrace(r.field("grace"))
		if !ok {
			return nil, apierr.New(apierr.MalformedRequest, "grace must be now, 1h, 24h or 7d")
		}
		return s.once(ctx, r, "/dashboard/keys", func() (effect, error) {
			issued, err := s.Keys.RollKey(ctx, r.viewer.actor(r), r.PathParams["keyID"], grace)
			if err != nil {
				return effect{}, err
			}
			return issuedEffect(issued), nil
		})
	})(ctx, wr)
}

// --- webhook signing secrets ----------------------------------------------------------------

// SecretsPage is GET /dashboard/webhook-secrets.
func (s *Service) SecretsPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewKeys); err != nil {
			return nil, err
		}
		// An issue or roll lands here (?shown=): its secret, this once.
		v, st, err := s.reveal(ctx, r)
		if err != nil {
			return nil, err
		}
		return s.secretsPage(ctx, r, 200, auth.Environment(v["environment"]), v["secret"], nil, st)
	})(ctx, wr)
}

func (s *Service) secretsPage(ctx context.Context, r *req, status int, env auth.Environment, secret string, f *form, st shownState) (*web.Response, error) {
	hooks, err := s.Keys.DocumentWebhooks(ctx, r.viewer.ws.WorkspaceID)
	if err != nil {
		return nil, err
	}
	lists := map[auth.Environment][]WebhookSecret{}
	for _, e := range []auth.Environment{auth.Sandbox, auth.Live} {
		l, err := s.Keys.ListWebhookSecrets(ctx, r.viewer.ws.WorkspaceID, e)
		if err != nil {
			return nil, err
		}
		lists[e] = l
	}
	manage := r.viewer.can(auth.ManageKeys)
	return s.page(r, status, t(r.l(), "dash.secrets.title"), func(d *doc) {
		d.shownNotice(st)
		if secret != "" {
			d.node(h.H2(h.ID("issued-title"), d.tx("dash.secrets.issued", "environment", t(d.l, "dash.env."+string(env)))))
			d.secretBox("issued-secret", secret)
		}
		if r.Query["notice"] == "endpoint" {
			d.notice("dash.secrets.endpoint_saved")
		}
		d.node(d.errorSummaryNode(f, "f-"), h.P(d.tx("dash.secrets.about")))
		for _, e := range []auth.Environment{auth.Sandbox, auth.Live} {
			d.node(h.H2(d.tx("dash.env."+string(e))), d.secretsTable(e, lists[e]))
			if manage {
				d.node(d.secretForm(e, len(lists[e]) > 0))
			}
			d.node(d.endpointForm(e, hooks[e], manage, f))
		}
	}), nil
}

// secretsTable is an environment's signing secrets, cards on a phone: whether each signs and
// until when first, its id last.
func (d *doc) secretsTable(e auth.Environment, list []WebhookSecret) h.Node {
	id := "secrets-" + string(e)
	if len(list) == 0 {
		return ui.Empty(id, d.t("dash.secrets.none"), nil)
	}
	cols := []ui.Column{{Head: d.t("dash.keys.col.state")}, {Head: d.t("dash.keys.col.created")}, {Head: d.t("dash.secrets.col.id")}}
	rows := make([]ui.Row, len(list))
	for i, w := range list {
		state := ui.TonePill(ui.Good, "current", d.t("dash.secrets.current"))
		if !w.Current {
			state = ui.TonePill(ui.Waiting, "signing", d.t("dash.secrets.signing"))
		}
		if w.ExpiresAt != nil {
			state = h.Group{state, h.Br(), d.tx("dash.keys.until"), h.Text(" "), ui.Date(d.l, *w.ExpiresAt)}
		}
		rows[i] = ui.Row{Cells: []h.Node{state, ui.Date(d.l, w.CreatedAt), ui.Long(w.ID, true)}}
	}
	return ui.Table(id, d.t("dash.secrets.caption", "environment", d.t("dash.env."+string(e))), cols, rows)
}

// secretForm issues an environment's first secret, or rolls it with the old one's grace.
func (d *doc) secretForm(e auth.Environment, roll bool) h.Node {
	values := make([]string, len(graces))
	for i, g := range graces {
		values[i] = g.value
	}
	submit := "dash.secrets.issue"
	if roll {
		submit = "dash.secrets.roll"
	}
	return d.formNode("/dashboard/webhook-secrets", "", onceInput(), ui.Hidden("environment", string(e)),
		h.Div(h.Class("actions"),
			h.If(roll, d.inlineChoice("grace", "secret-grace-"+string(e), "dash.secrets.grace", values, "dash.grace.", "24h")),
			d.button("secret-issue-"+string(e), submit, false)))
}

// endpointForm shows an environment's document webhook: where the payments that payers start
// on the invoice and payment-link pages report, and (admins) the form that sets it.
func (d *doc) endpointForm(e auth.Environment, current string, manage bool, f *form) h.Node {
	shown := d.tx("dash.secrets.endpoint_none")
	if current != "" {
		shown = h.Code(h.Text(current))
	}
	name := "url-" + string(e)
	if f == nil || f.value(name) == "" {
		f = &form{values: map[string]string{name: current}, errs: f.errsOrNil()}
	}
	return h.Group{
		h.H3(d.tx("dash.secrets.endpoint")),
		h.P(h.ID("endpoint-"+string(e)), h.Class("long"), shown),
		h.If(manage, d.formNode("/dashboard/webhook-secrets/endpoint", "endpoint-form-"+string(e),
			ui.Hidden("environment", string(e)),
			d.field(f, name, "url", "dash.secrets.endpoint_url", "url", "dash.secrets.endpoint_hint", false),
			h.Div(h.Class("actions"), d.mainButton("endpoint-save-"+string(e), "dash.secrets.endpoint_save")))),
	}
}

// SetEndpoint is POST /dashboard/webhook-secrets/endpoint: set or clear an environment's
// document webhook (admins and owners, like the secrets).
func (s *Service) SetEndpoint(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageKeys); err != nil {
			return nil, err
		}
		env, ok := auth.ParseEnvironment(r.field("environment"))
		if !ok {
			return nil, apierr.New(apierr.MalformedRequest, "environment must be sandbox or live")
		}
		name := "url-" + string(env)
		u := r.field(name)
		err := s.Keys.SetDocumentWebhook(ctx, r.viewer.actor(r), env, u)
		if fe, ok := refused(err); ok {
			f := &form{values: map[string]string{name: u}}
			f.fail(name, refusalMessage(r.l(), fe))
			return s.secretsPage(ctx, r, 422, "", "", f, shownNone)
		}
		if err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/webhook-secrets?notice=endpoint"), nil
	})(ctx, wr)
}

// IssueSecret is POST /dashboard/webhook-secrets, a one-use form: issue the first secret of
// an environment, or roll it with a grace; 303 to the secrets page, which shows it once.
func (s *Service) IssueSecret(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ManageKeys); err != nil {
			return nil, err
		}
		env, ok := auth.ParseEnvironment(r.field("environment"))
		if !ok {
			return nil, apierr.New(apierr.MalformedRequest, "environment must be sandbox or live")
		}
		grace := 24 * time.Hour
		if g := r.field("grace"); g != "" {
			if grace, ok = parseGrace(g); !ok {
				return nil, apierr.New(apierr.MalformedRequest, "grace must be now, 1h, 24h or 7d")
			}
		}
		return s.once(ctx, r, "/dashboard/webhook-secrets", func() (effect, error) {
			secret, err := s.Keys.IssueWebhookSecret(ctx, r.viewer.actor(r), env, grace)
			if err != nil {
				return effect{}, err
			}
			return effect{secret: map[string]string{"environment": string(env), "secret": secret}}, nil
		})
	})(ctx, wr)
}
