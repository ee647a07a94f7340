package dashboard

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
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
				d.Raw("<p>")
				d.text("dash.home.none")
				d.Raw("</p>\n")
				s.accountActions(d)
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
			switch r.Query["notice"] {
			case "joined":
				d.notice("dash.notice.joined", "workspace", v.ws.WorkspaceName)
			}
			d.envSwitch()
			d.Raw(`<dl><dt>`)
			d.text("dash.home.workspace")
			d.Raw(`</dt><dd id="home-workspace">`)
			d.Text(v.ws.WorkspaceName)
			d.Raw(`</dd><dt>`)
			d.text("dash.home.environment")
			d.Raw(`</dt><dd id="home-environment">`)
			if r.env() == auth.Live {
				d.text("dash.overview.live")
			} else {
				d.text("dash.home.sandbox")
			}
			d.Raw(`</dd><dt>`)
			d.text("dash.home.you")
			d.Raw(`</dt><dd id="home-user">`)
			d.Text(v.user.Email)
			d.Raw(" · ")
			d.text("dash.role." + string(v.ws.Role))
			d.Raw("</dd></dl>\n")
			if o != nil {
				d.overviewPayments(o)
			}
			d.Raw("<h2>")
			d.text("dash.home.can")
			d.Raw("</h2>\n<ul id=\"home-links\">")
			li := func(path, id, key string) {
				d.Raw("<li>")
				d.link(path, id, key)
				d.Raw("</li>")
			}
			if v.can(auth.ManageKeys) {
				li("/dashboard/keys", "home-keys", "dash.home.manage_keys")
			} else if v.can(auth.ViewKeys) {
				li("/dashboard/keys", "home-keys", "dash.home.view_keys")
			}
			if v.can(auth.ManageTeam) {
				li("/dashboard/team", "home-team", "dash.home.manage_team")
			} else {
				li("/dashboard/team", "home-team", "dash.home.view_team")
			}
			if v.can(auth.ViewActivity) {
				li("/dashboard/activity", "home-activity", "dash.home.activity")
			}
			li("/dashboard/passkeys", "home-passkeys", "dash.home.passkeys")
			d.Raw("</ul>\n")
			if len(v.all) > 1 {
				d.Raw("<h2>")
				d.text("dash.home.workspaces")
				d.Raw("</h2>\n<ul>")
				for _, m := range v.all {
					d.Raw("<li>")
					if m.WorkspaceID == v.ws.WorkspaceID {
						d.Raw("<strong>")
						d.Text(m.WorkspaceName)
						d.Raw("</strong>")
					} else {
						d.smallButton("/dashboard/workspace", "switch-"+m.WorkspaceID, "dash.home.switch", false, "workspace", m.WorkspaceID)
						d.Raw(" ")
						d.Text(m.WorkspaceName)
					}
					d.Raw("</li>")
				}
				d.Raw("</ul>\n")
			}
			s.accountActions(d)
		}), nil
	})(ctx, wr)
}

func (s *Service) accountActions(d *doc) {
	d.Raw("<h2>")
	d.text("dash.home.sessions")
	d.Raw("</h2>\n<p class=\"hint\">")
	d.text("dash.home.sessions_hint")
	d.Raw("</p>\n")
	d.formStart("/dashboard/sign-out-everywhere", "sign-out-everywhere-form")
	d.removePasskeysBox("sign-out-remove-passkeys", false)
	d.Raw(`<button type="submit" class="linkbutton danger" id="sign-out-everywhere">`)
	d.text("dash.sign_out_everywhere")
	d.Raw("</button></form>")
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
			d.Raw(`<h2 id="issued-title">`)
			d.text("dash.keys.issued", "name", issued.Name)
			d.Raw("</h2>\n")
			d.secretBox("issued-secret", issued.Secret)
		}
		d.tableStart("keys-caption", "keys-table")
		d.Raw(`<caption class="hint" id="keys-caption">`)
		d.text("dash.keys.caption")
		d.Raw("</caption><thead><tr>")
		for _, h := range []string{"name", "environment", "scopes", "prefix", "created", "last_used", "state"} {
			d.Raw(`<th scope="col">`)
			d.text("dash.keys.col." + h)
			d.Raw("</th>")
		}
		if manage {
			d.Raw(`<th scope="col">`)
			d.text("dash.keys.col.actions")
			d.Raw("</th>")
		}
		d.Raw("</tr></thead><tbody>")
		if len(keys) == 0 {
			d.Raw(`<tr><td colspan="8">`)
			d.text("dash.keys.none")
			d.Raw("</td></tr>")
		}
		for _, k := range keys {
			d.keyRow(k, manage)
		}
		d.Raw("</tbody></table></div>\n")
		if !manage {
			d.Raw(`<p class="hint" id="keys-readonly">`)
			d.text("dash.keys.readonly")
			d.Raw("</p>\n")
			return
		}
		d.createKeyForm(f)
	}), nil
}

// keyRow is one key of the keys table (with its revoke and roll forms when manage).
func (d *doc) keyRow(k Key, manage bool) {
	d.Raw("<tr")
	d.Attr("id", "key-"+k.ID)
	d.Raw("><td>")
	d.Text(k.Name)
	d.Raw("</td><td>")
	d.text("dash.env." + string(k.Environment))
	d.Raw("</td><td>")
	var sc []string
	for _, x := range k.Scopes {
		sc = append(sc, string(x))
	}
	d.Text(strings.Join(sc, ", "))
	d.Raw("</td><td><code>")
	d.Text(k.Prefix)
	d.Raw("</code></td><td>")
	d.Text(k.CreatedBy)
	d.Raw("<br>")
	d.date(k.CreatedAt)
	d.Raw("</td><td>")
	if k.LastUsed != nil {
		d.Text(d.l.Digits(k.LastUsed.UTC().Format("2006-01-02")))
	} else {
		d.text("dash.keys.never")
	}
	d.Raw(`</td><td class="state">`)
	d.text("dash.keys.state." + k.State)
	if k.ExpiresAt != nil && k.State == "active" {
		d.Raw("<br>")
		d.text("dash.keys.until")
		d.Raw(" ")
		d.date(*k.ExpiresAt)
	}
	d.Raw("</td>")
	if manage {
		d.keyActions(k)
	}
	d.Raw("</tr>")
}

// keyActions are an active key's revoke and roll forms.
func (d *doc) keyActions(k Key) {
	d.Raw(`<td><div class="actions">`)
	if k.State == "active" {
		d.smallButton("/dashboard/keys/"+k.ID+"/revoke", "revoke-"+k.ID, "dash.keys.revoke", true)
		d.formStart("/dashboard/keys/"+k.ID+"/roll", "")
		d.onceToken()
		values := make([]string, len(graces))
		for i, g := range graces {
			values[i] = g.value
		}
		d.inlineChoice("grace", "grace-"+k.ID, "dash.keys.grace", values, "dash.grace.", "", "roll-"+k.ID, "dash.keys.roll")
		d.Raw("</form>")
	}
	d.Raw("</div></td>")
}

// inlineChoice is a table row's labelled select (class inline-field) and its submit button: an
// option per value, worded by optionKey+value, selected the one marked.
func (d *doc) inlineChoice(name, id, labelKey string, values []string, optionKey, selected, buttonID, submitKey string) {
	d.Raw(`<label`)
	d.Attr("for", id)
	d.Raw(">")
	d.text(labelKey)
	d.Raw(`</label><select class="inline-field"`)
	d.Attr("name", name)
	d.Attr("id", id)
	d.Raw(">")
	for _, v := range values {
		d.Raw("<option")
		d.Attr("value", v)
		if v == selected {
			d.Raw(" selected")
		}
		d.Raw(">")
		d.text(optionKey + v)
		d.Raw("</option>")
	}
	d.Raw(`</select><button type="submit" class="linkbutton"`)
	d.Attr("id", buttonID)
	d.Raw(">")
	d.text(submitKey)
	d.Raw("</button>")
}

// createKeyForm is the keys page's create form: name, environment, scopes.
func (d *doc) createKeyForm(f *form) {
	d.Raw(`<h2 id="create-title">`)
	d.text("dash.keys.create")
	d.Raw("</h2>\n")
	d.errorSummary(f)
	d.formStart("/dashboard/keys", "create-key-form")
	d.onceToken()
	d.input(f, "name", "text", "dash.field.key_name", "off", "", true)
	d.Raw(`<fieldset><legend>`)
	d.text("dash.field.environment")
	d.Raw("</legend>")
	env := f.value("environment")
	if env == "" {
		env = "sandbox"
	}
	for _, e := range []string{"sandbox", "live"} {
		d.Raw(`<label class="check"><input type="radio" name="environment"`)
		d.Attr("value", e)
		d.Attr("id", "env-"+e)
		if e == env {
			d.Raw(" checked")
		}
		d.Raw("> ")
		d.text("dash.env." + e)
		d.Raw("</label>")
	}
	d.Raw(`<p class="hint">`)
	d.text("dash.keys.live_note")
	d.Raw("</p></fieldset>\n<fieldset")
	if f.err("scopes") != "" {
		d.Raw(` aria-describedby="f-scopes-error"`)
	}
	d.Raw(` id="f-scopes"><legend>`)
	d.text("dash.field.scopes")
	d.Raw("</legend>")
	for _, sc := range keyScopes {
		d.Raw(`<label class="check"><input type="checkbox" name="scopes"`)
		d.Attr("value", string(sc))
		d.Attr("id", "scope-"+strings.ReplaceAll(string(sc), ":", "-"))
		if f == nil || strings.Contains(","+f.value("scopes")+",", ","+string(sc)+",") {
			d.Raw(" checked")
		}
		d.Raw("> ")
		d.Text(string(sc))
		d.Raw(" — ")
		d.text("dash.scope." + strings.ReplaceAll(string(sc), ":", "_"))
		d.Raw("</label>")
	}
	if e := f.err("scopes"); e != "" {
		d.Raw(`<p class="field-error" id="f-scopes-error">`)
		d.Text(e)
		d.Raw("</p>")
	}
	d.Raw("</fieldset>\n")
	d.submit("dash.keys.create_submit", "create-key-submit")
	d.Raw("</form>\n")
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
				// credential words its rules ("must be at most 64 characters"): "name must be ...".
				f.fail(fe.field, fe.field+" "+fe.rule)
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
			d.Raw(`<h2 id="issued-title">`)
			d.text("dash.secrets.issued", "environment", t(d.l, "dash.env."+string(env)))
			d.Raw("</h2>\n")
			d.secretBox("issued-secret", secret)
		}
		if r.Query["notice"] == "endpoint" {
			d.notice("dash.secrets.endpoint_saved")
		}
		d.errorSummary(f)
		d.Raw("<p>")
		d.text("dash.secrets.about")
		d.Raw("</p>\n")
		for _, e := range []auth.Environment{auth.Sandbox, auth.Live} {
			d.Raw("<h2>")
			d.text("dash.env." + string(e))
			d.Raw("</h2>\n<ul")
			d.Attr("id", "secrets-"+string(e))
			d.Raw(">")
			if len(lists[e]) == 0 {
				d.Raw("<li>")
				d.text("dash.secrets.none")
				d.Raw("</li>")
			}
			for _, w := range lists[e] {
				d.Raw("<li><code>")
				d.Text(w.ID)
				d.Raw("</code> · ")
				d.date(w.CreatedAt)
				if w.Current {
					d.Raw(" · ")
					d.text("dash.secrets.current")
				}
				if w.ExpiresAt != nil {
					d.Raw(" · ")
					d.text("dash.keys.until")
					d.Raw(" ")
					d.date(*w.ExpiresAt)
				}
				d.Raw("</li>")
			}
			d.Raw("</ul>\n")
			if manage {
				d.formStart("/dashboard/webhook-secrets", "")
				d.onceToken()
				d.Raw(`<input type="hidden" name="environment"`)
				d.Attr("value", string(e))
				d.Raw(`><div class="actions">`)
				if len(lists[e]) > 0 {
					d.Raw(`<label`)
					d.Attr("for", "secret-grace-"+string(e))
					d.Raw(">")
					d.text("dash.secrets.grace")
					d.Raw(`</label><select class="inline-field" name="grace"`)
					d.Attr("id", "secret-grace-"+string(e))
					d.Raw(">")
					for _, g := range graces {
						d.Raw("<option")
						d.Attr("value", g.value)
						if g.value == "24h" {
							d.Raw(" selected")
						}
						d.Raw(">")
						d.text("dash.grace." + g.value)
						d.Raw("</option>")
					}
					d.Raw("</select>")
				}
				d.Raw(`<button type="submit" class="linkbutton"`)
				d.Attr("id", "secret-issue-"+string(e))
				d.Raw(">")
				if len(lists[e]) > 0 {
					d.text("dash.secrets.roll")
				} else {
					d.text("dash.secrets.issue")
				}
				d.Raw("</button></div></form>\n")
			}
			s.endpointForm(d, e, hooks[e], manage, f)
		}
	}), nil
}

// endpointForm shows an environment's document webhook: where the payments that payers start
// on the invoice and payment-link pages report, and (admins) the form that sets it.
func (s *Service) endpointForm(d *doc, e auth.Environment, current string, manage bool, f *form) {
	d.Raw("<h3>")
	d.text("dash.secrets.endpoint")
	d.Raw("</h3>\n<p")
	d.Attr("id", "endpoint-"+string(e))
	d.Raw(">")
	if current == "" {
		d.text("dash.secrets.endpoint_none")
	} else {
		d.Raw("<code>")
		d.Text(current)
		d.Raw("</code>")
	}
	d.Raw("</p>\n")
	if !manage {
		return
	}
	name := "url-" + string(e)
	d.formStart("/dashboard/webhook-secrets/endpoint", "endpoint-form-"+string(e))
	d.Raw(`<input type="hidden" name="environment"`)
	d.Attr("value", string(e))
	d.Raw(">")
	if f == nil || f.value(name) == "" {
		f = &form{values: map[string]string{name: current}, errs: f.errsOrNil()}
	}
	d.input(f, name, "url", "dash.secrets.endpoint_url", "url", "dash.secrets.endpoint_hint", false)
	d.Raw(`<div class="actions">`)
	d.submit("dash.secrets.endpoint_save", "endpoint-save-"+string(e))
	d.Raw("</div></form>\n")
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
			f.fail(name, t(r.l(), "dash.secrets.endpoint_invalid", "rule", fe.rule))
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
