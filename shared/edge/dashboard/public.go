package dashboard

import (
	"context"
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// handler is a page's work on a request the edge has prepared.
type handler func(ctx context.Context, r *req) (*web.Response, error)

// serve turns a page's handler into a route: the request's language, then the handler, then
// what its error means for a browser (sign in first, a limit, a refusal, a broken link).
func (s *Service) serve(h handler) web.HandlerFunc {
	return func(ctx context.Context, wr *web.Request) (*web.Response, error) {
		if wr.Method == "GET" && len(wr.Path) > 1 && strings.HasSuffix(wr.Path, "/") {
			return s.withoutSlash(wr), nil
		}
		r := s.newReq(wr)
		resp, err := h(ctx, r)
		if err == nil {
			return resp, nil
		}
		var signIn *errSignIn
		var limited *LimitedError
		var ae *apierr.Error
		switch {
		case errors.As(err, &signIn):
			return s.redirect(r, "/dashboard/sign-in?next="+urlQueryEscape(signIn.next)), nil
		case errors.As(err, &limited) && limited.Form:
			return s.formLimitedPage(r, limited.RetryAfter, limited.Daily), nil
		case errors.As(err, &limited):
			return s.limitedPage(r, limited.RetryAfter), nil
		case errors.Is(err, account.ErrInvalidToken):
			return s.errorPage(r, 404, "dash.err.link.title", "dash.err.link"), nil
		case errors.As(err, &ae):
			return s.apiErrorPage(r, ae), nil
		}
		return nil, err
	}
}

// withoutSlash sends a page asked for with a trailing slash ("/dashboard/", which a gateway
// may hand to GET /dashboard's function with the path as sent) to its one address, the query
// kept: 308, permanent (decision 76). Links, the navigation's aria-current and the language
// switch all name the address without the slash.
func (s *Service) withoutSlash(wr *web.Request) *web.Response {
	loc := strings.TrimRight(wr.Path, "/")
	if loc == "" {
		loc = "/dashboard"
	}
	if len(wr.Query) > 0 {
		q := url.Values{}
		for k, v := range wr.Query {
			q.Set(k, v)
		}
		loc += "?" + q.Encode()
	}
	hd := s.headers(nil)
	hd["Location"] = loc
	return &web.Response{Status: 308, Headers: hd, Raw: []byte{}}
}

// ErrorPage renders the edge's errors (a dependency unreachable: 503; anything else: 500)
// as a dashboard page.
func (s *Service) ErrorPage(wr *web.Request, e *apierr.Error) *web.Response {
	return s.apiErrorPage(s.newReq(wr), e)
}

func (s *Service) apiErrorPage(r *req, e *apierr.Error) *web.Response {
	switch e.Status() {
	case 403:
		return s.errorPage(r, 403, "dash.err.denied.title", "dash.err.denied")
	case 404:
		return s.errorPage(r, 404, "dash.err.not_found.title", "dash.err.not_found")
	case 409:
		return s.errorPage(r, 409, "dash.err.conflict.title", "dash.err.conflict")
	case 400, 413:
		return s.errorPage(r, e.Status(), "dash.err.bad_request.title", "dash.err.bad_request")
	case 429:
		wait := e.RetryAfter() // a locked sign-in's (account)
		if wait == 0 {
			wait = time.Minute
		}
		return s.limitedPage(r, wait)
	}
	resp := s.errorPage(r, e.Status(), "dash.err.internal.title", "dash.err.internal")
	if e.Code.Retryable() {
		resp.Headers["Retry-After"] = "1"
	}
	return resp
}

func (s *Service) errorPage(r *req, status int, titleKey, msgKey string) *web.Response {
	l := r.l()
	return s.page(r, status, t(l, titleKey), func(d *doc) {
		back := d.linkNode("/dashboard/sign-in", "back-sign-in", "dash.sign_in")
		if r.viewer != nil {
			back = d.linkNode("/dashboard", "back-home", "dash.back_home")
		}
		d.node(h.P(h.Class("error-message"), h.ID("error-message"), h.Text(d.t(msgKey))), newline,
			h.P(h.Class("links"), back), newline)
	})
}

// limitedPage is 429 with Retry-After in whole seconds and the wait in minutes on the page:
// sign-in paused for an account.
func (s *Service) limitedPage(r *req, wait time.Duration) *web.Response {
	return s.tooMany(r, wait, "dash.limited", "/dashboard/forgot-password", "forgot-link", "dash.forgot.link")
}

// formLimitedPage is 429 for a form past its limit (FormLimits, or a workspace's invitations
// a day), linking back to sign-in (which goes on to the dashboard when signed in).
func (s *Service) formLimitedPage(r *req, wait time.Duration, daily bool) *web.Response {
	key := "dash.limited.form"
	if daily {
		key = "dash.limited.invites"
	}
	return s.tooMany(r, wait, key, "/dashboard/sign-in", "back-sign-in", "dash.sign_in")
}

func (s *Service) tooMany(r *req, wait time.Duration, msgKey, path, linkID, linkKey string) *web.Response {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	mins := (secs + 59) / 60
	resp := s.page(r, 429, t(r.l(), "dash.limited.title"), func(d *doc) {
		d.node(h.P(h.Class("error-message"), h.ID("error-message"), h.Text(d.t(msgKey, "minutes", d.l.Digits(strconv.Itoa(mins))))), newline,
			h.P(h.Class("links"), d.linkNode(path, linkID, linkKey)), newline)
	})
	resp.Headers["Retry-After"] = strconv.Itoa(secs)
	return resp
}

func urlQueryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
		}
	}
	return b.String()
}

// fieldMessage is a service's validation error in the page's language: the catalogue's
// words for the field and rule when it has them, else the service's own message.
func (r *req) fieldMessage(fe *refusal) string {
	for _, key := range []string{"dash.rule." + fe.field + "." + fe.rule, "dash.rule." + fe.rule} {
		if has(key) {
			return t(r.l(), key)
		}
	}
	return fe.message
}

// emailRule is the form's check of an email, before any service is called: account's rule,
// the one rule for a dashboard user's email. It returns the message key of what is wrong
// ("" when nothing): a look-alike (non-ASCII) address has its own words.
func emailRule(s string) string {
	_, fe := account.ParseEmail(s)
	switch {
	case fe == nil:
		return ""
	case fe.Violations[0].Rule == account.RuleASCII:
		return "dash.rule.email.ascii"
	}
	return "dash.rule.email"
}

// --- sign up ---------------------------------------------------------------------------------

// inviteNext reports whether next is an invitation's page: a sign-up for it joins only.
func inviteNext(next string) bool { return strings.HasPrefix(next, "/dashboard/invite?") }

// SignUpPage is GET /dashboard/sign-up.
func (s *Service) SignUpPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		s.publicGet(r)
		next := ""
		if n := r.Query["next"]; n != "" {
			next = safeNext(n)
		}
		return s.signUpForm(r, 200, &form{values: map[string]string{"next": next}}), nil
	})(ctx, wr)
}

func (s *Service) signUpForm(r *req, status int, f *form) *web.Response {
	joinOnly := inviteNext(f.value("next"))
	path := "/dashboard/sign-in"
	if next := f.value("next"); next != "" {
		path += "?next=" + urlQueryEscape(next)
	}
	return s.page(r, status, t(r.l(), "dash.sign_up.title"), func(d *doc) {
		d.node(d.errorSummaryNode(f, "f-"),
			h.If(joinOnly, ui.Flash(d.t("dash.sign_up.join"))), newline,
			d.formPost("/dashboard/sign-up", h.ID("sign-up-form"),
				d.nextField(f),
				d.field(f, "email", "email", "dash.field.email", "email", "", true), newline,
				d.field(f, "password", "password", "dash.field.password", "new-password", "dash.hint.password", true), newline,
				h.If(!joinOnly, h.Group{d.field(f, "workspace", "text", "dash.field.workspace", "organization", "dash.hint.workspace", true), newline}),
				ui.Submit("sign-up-submit", d.t("dash.sign_up.submit"))), newline,
			h.P(h.Class("links"), h.Text(d.t("dash.sign_up.have_account")+" "), d.linkNode(path, "sign-in-link", "dash.sign_in")), newline)
	})
}

// SignUp is POST /dashboard/sign-up. Whatever the email, the answer is the same "check your
// email" page: a taken email gets an email saying so, never a different page.
func (s *Service) SignUp(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		next := ""
		if n := r.field("next"); n != "" {
			next = safeNext(n)
		}
		in := SignUpInput{Email: r.field("email"), Password: r.form.Get("password"), WorkspaceName: r.field("workspace"),
			Lang: string(r.l()), Next: next, JoinOnly: inviteNext(next), Client: r.client()}
		f := &form{values: map[string]string{"email": in.Email, "workspace": in.WorkspaceName, "next": next}}
		switch {
		case in.Email == "":
			f.fail("email", t(r.l(), "dash.rule.required"))
		case emailRule(in.Email) != "":
			f.fail("email", t(r.l(), emailRule(in.Email)))
		}
		if in.Password == "" {
			f.fail("password", t(r.l(), "dash.rule.required"))
		}
		if !in.JoinOnly && in.WorkspaceName == "" {
			f.fail("workspace", t(r.l(), "dash.rule.required"))
		}
		if !f.failed() {
			if err := s.limitForm(ctx, r, FormSignUp); err != nil {
				return nil, err
			}
			err := s.Accounts.SignUp(ctx, in)
			fe, invalid := refused(err)
			switch {
			case invalid:
				if fe.field == "workspace_name" {
					fe.field = "workspace" // the form's name of account's workspace_name
				}
				f.fail(fe.field, r.fieldMessage(fe))
			case err != nil:
				return nil, err
			default:
				return s.redirect(r, "/dashboard/check-email?for=sign-up"), nil
			}
		}
		return s.signUpForm(r, 422, f), nil
	})(ctx, wr)
}

// CheckEmail is GET /dashboard/check-email: the same words whether or not an account exists.
func (s *Service) CheckEmail(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		key := "dash.check_email.sign_up"
		if r.Query["for"] == "reset" {
			key = "dash.check_email.reset"
		}
		return s.page(r, 200, t(r.l(), "dash.check_email.title"), func(d *doc) {
			d.node(h.P(h.ID("check-email-message"), h.Text(d.t(key))), newline,
				h.P(h.Class("hint"), h.Text(d.t("dash.check_email.spam"))), newline,
				h.P(h.Class("links"), d.linkNode("/dashboard/sign-in", "sign-in-link", "dash.sign_in")), newline)
		}), nil
	})(ctx, wr)
}

// VerifyPage is GET /dashboard/verify-email: a button, so that a mail scanner that opens
// the link does not use it up.
func (s *Service) VerifyPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		s.publicGet(r)
		return s.verifyForm(r, 200, &form{}), nil
	})(ctx, wr)
}

// verifyForm asks for the password chosen at sign-up: only the person who chose it can
// finish the sign-up (decision record: someone who signed up with another's address cannot
// have its owner click the account into being with the first sign-up's password).
func (s *Service) verifyForm(r *req, status int, f *form) *web.Response {
	return s.page(r, status, t(r.l(), "dash.verify.title"), func(d *doc) {
		d.node(d.errorSummaryNode(f, "f-"),
			h.P(h.Text(d.t("dash.verify.message"))), newline,
			d.formPost("/dashboard/verify-email?token="+url.QueryEscape(r.token()), h.ID("verify-form"),
				d.field(f, "password", "password", "dash.field.password", "current-password", "dash.hint.verify_password", true), newline,
				ui.Submit("verify-submit", d.t("dash.verify.submit"))), newline)
	})
}

// Verify is POST /dashboard/verify-email: with the sign-up's password, the address is
// verified, the workspace created, and the person signed in.
func (s *Service) Verify(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		f := &form{}
		pw := r.form.Get("password")
		if pw == "" {
			f.fail("password", t(r.l(), "dash.rule.required"))
			return s.verifyForm(r, 422, f), nil
		}
		sess, err := s.Accounts.VerifyEmail(ctx, r.token(), pw, r.client())
		fe, invalid := refused(err)
		switch {
		case errors.Is(err, account.ErrBadCredentials):
			f.fail("password", t(r.l(), "dash.verify.bad_password"))
			return s.verifyForm(r, 422, f), nil
		case invalid:
			f.fail("password", r.fieldMessage(fe))
			return s.verifyForm(r, 422, f), nil
		case err != nil:
			return nil, err
		}
		return s.startSession(r, sess, sess.Next), nil
	})(ctx, wr)
}

// startSession sets the new session's cookie (and forgets the public form token and any
// workspace choice of a previous session), then goes on.
func (s *Service) startSession(r *req, sess *Session, next string) *web.Response {
	csrfName, csrfPath := s.csrfCookie()
	r.setCookie = append(r.setCookie, s.sessionCookie(sess.Token), s.clearCookie(csrfName, csrfPath),
		s.clearCookie(workspaceCookie, "/dashboard"))
	if next == "" {
		next = "/dashboard"
	}
	return s.redirect(r, safeNext(next))
}

// --- sign in ---------------------------------------------------------------------------------

// SignInPage is GET /dashboard/sign-in.
func (s *Service) SignInPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		s.publicGet(r)
		f := &form{values: map[string]string{"next": ""}}
		if n := r.Query["next"]; n != "" {
			f.values["next"] = safeNext(n)
		}
		return s.signInForm(r, 200, f, r.Query["notice"]), nil
	})(ctx, wr)
}

func (s *Service) signInForm(r *req, status int, f *form, notice string) *web.Response {
	signUp := "/dashboard/sign-up"
	if next := f.value("next"); next != "" {
		signUp += "?next=" + urlQueryEscape(next)
	}
	return s.page(r, status, t(r.l(), "dash.sign_in.title"), func(d *doc) {
		switch notice {
		case "reset", "signed-out", "signed-out-everywhere", "left":
			d.notice("dash.notice." + notice)
		}
		d.node(d.errorSummaryNode(f, "f-"),
			d.formPost("/dashboard/sign-in", h.ID("sign-in-form"),
				d.nextField(f),
				d.field(f, "email", "email", "dash.field.email", "username webauthn", "", true), newline,
				d.field(f, "password", "password", "dash.field.password", "current-password", "", true), newline,
				ui.Submit("sign-in-submit", d.t("dash.sign_in.submit"))), newline,
			h.If(s.OfferPasskeys, h.Group{h.Div(h.Class("js-only links"),
				d.formPost("/dashboard/passkeys/sign-in", h.ID("passkey-begin-form"),
					h.Button(h.Type("submit"), h.Class("button"), h.ID("passkey-sign-in"), h.Text(d.t("dash.passkey.sign_in"))))), newline}),
			h.P(h.Class("links"), d.linkNode("/dashboard/forgot-password", "forgot-link", "dash.forgot.link"), h.Text(" · "),
				d.linkNode(signUp, "sign-up-link", "dash.sign_up.link")), newline)
	})
}

// SignIn is POST /dashboard/sign-in. A wrong email and a wrong password get the same answer.
func (s *Service) SignIn(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		email, password := r.field("email"), r.form.Get("password")
		next := ""
		if n := r.field("next"); n != "" {
			next = safeNext(n)
		}
		f := &form{values: map[string]string{"email": email, "next": next}}
		if email == "" {
			f.fail("email", t(r.l(), "dash.rule.required"))
		} else if rule := emailRule(email); rule != "" {
			f.fail("email", t(r.l(), rule))
		}
		if password == "" {
			f.fail("password", t(r.l(), "dash.rule.required"))
		}
		if !f.failed() {
			sess, err := s.Accounts.SignIn(ctx, email, password, r.client())
			switch {
			case errors.Is(err, account.ErrBadCredentials):
				f.fail("password", t(r.l(), "dash.sign_in.bad"))
			case err != nil:
				return nil, err
			default:
				if next == "" {
					next = sess.Next
				}
				return s.startSession(r, sess, next), nil
			}
		}
		return s.signInForm(r, 422, f, ""), nil
	})(ctx, wr)
}

// --- password reset --------------------------------------------------------------------------

// ForgotPage is GET /dashboard/forgot.
func (s *Service) ForgotPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		s.publicGet(r)
		return s.forgotForm(r, 200, &form{}), nil
	})(ctx, wr)
}

func (s *Service) forgotForm(r *req, status int, f *form) *web.Response {
	return s.page(r, status, t(r.l(), "dash.forgot.title"), func(d *doc) {
		d.node(d.errorSummaryNode(f, "f-"),
			h.P(h.Text(d.t("dash.forgot.message"))), newline,
			d.formPost("/dashboard/forgot-password", h.ID("forgot-form"),
				d.field(f, "email", "email", "dash.field.email", "email", "", true), newline,
				ui.Submit("forgot-submit", d.t("dash.forgot.submit"))), newline,
			h.P(h.Class("links"), d.linkNode("/dashboard/sign-in", "sign-in-link", "dash.sign_in")), newline)
	})
}

// Forgot is POST /dashboard/forgot: the same answer whether or not the email has an account.
func (s *Service) Forgot(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		email := r.field("email")
		f := &form{values: map[string]string{"email": email}}
		if rule := emailRule(email); rule != "" {
			f.fail("email", t(r.l(), rule))
			return s.forgotForm(r, 422, f), nil
		}
		if err := s.limitForm(ctx, r, FormReset); err != nil {
			return nil, err
		}
		if err := s.Accounts.RequestPasswordReset(ctx, email, string(r.l()), r.client()); err != nil {
			return nil, err
		}
		return s.redirect(r, "/dashboard/check-email?for=reset"), nil
	})(ctx, wr)
}

// ResetPage is GET /dashboard/reset-password.
func (s *Service) ResetPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		s.publicGet(r)
		return s.resetForm(r, 200, &form{}), nil
	})(ctx, wr)
}

func (s *Service) resetForm(r *req, status int, f *form) *web.Response {
	return s.page(r, status, t(r.l(), "dash.reset.title"), func(d *doc) {
		d.node(d.errorSummaryNode(f, "f-"),
			d.formPost("/dashboard/reset-password?token="+url.QueryEscape(r.token()), h.ID("reset-form"),
				d.field(f, "password", "password", "dash.field.new_password", "new-password", "dash.hint.password", true), newline,
				d.removePasskeysCheck("remove-passkeys", f == nil || f.value(removePasskeysField) != "no"),
				ui.Submit("reset-submit", d.t("dash.reset.submit"))), newline)
	})
}

// Reset is POST /dashboard/reset-password: a new password, and every session of the user ends.
func (s *Service) Reset(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.publicPost(r); err != nil {
			return nil, err
		}
		f := &form{}
		pw := r.form.Get("password")
		if pw == "" {
			f.fail("password", t(r.l(), "dash.rule.required"))
			return s.resetForm(r, 422, f), nil
		}
		remove := r.form.Get(removePasskeysField) != ""
		if !remove {
			f.values = map[string]string{removePasskeysField: "no"}
		}
		err := s.Accounts.ResetPassword(ctx, r.token(), pw, remove, r.client())
		if fe, ok := refused(err); ok {
			f.fail("password", r.fieldMessage(fe))
			return s.resetForm(r, 422, f), nil
		}
		if err != nil {
			return nil, err
		}
		s.clearSession(r)
		return s.redirect(r, "/dashboard/sign-in?notice=reset"), nil
	})(ctx, wr)
}

// removePasskeysField is the box on the reset and sign-out-everywhere forms that removes every
// passkey of the user too (decision record: ticked by default on the reset, whose user may
// have lost control of the account; not on sign out everywhere, a routine action of a
// signed-in user who sees their passkeys listed).
const removePasskeysField = "remove_passkeys"

// removePasskeysBox writes the remove-every-passkey box.
func (d *doc) removePasskeysBox(id string, checked bool) { d.node(d.removePasskeysCheck(id, checked)) }

func (d *doc) removePasskeysCheck(id string, checked bool) h.Node {
	return h.Group{h.Div(h.Class("row"), h.Label(h.Class("check"),
		h.Input(h.Type("checkbox"), h.Value("yes"), h.Name(removePasskeysField), h.ID(id), h.Checked(checked)),
		h.Text(" "+d.t("dash.remove_passkeys")))), newline}
}

// nextField carries where to go after the form (a hidden field; nothing when nowhere).
func (d *doc) nextField(f *form) h.Node {
	next := f.value("next")
	return h.If(next != "", ui.Hidden("next", next))
}

// --- sign out --------------------------------------------------------------------------------

// SignOut is POST /dashboard/sign-out: the session ends on the server.
func (s *Service) SignOut(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.sessionPost(ctx, r); err != nil {
			return nil, err
		}
		if err := s.Accounts.SignOut(ctx, r.viewer.token); err != nil {
			return nil, err
		}
		s.clearSession(r)
		r.setCookie = append(r.setCookie, s.clearCookie(workspaceCookie, "/dashboard"))
		return s.redirect(r, "/dashboard/sign-in?notice=signed-out"), nil
	})(ctx, wr)
}

// SignOutEverywhere is POST /dashboard/sign-out-everywhere: every session of the user ends.
func (s *Service) SignOutEverywhere(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.serve(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := s.sessionPost(ctx, r); err != nil {
			return nil, err
		}
		remove := r.form.Get(removePasskeysField) != ""
		if err := s.Accounts.SignOutEverywhere(ctx, r.viewer.user.UserID, remove, r.client()); err != nil {
			return nil, err
		}
		s.clearSession(r)
		r.setCookie = append(r.setCookie, s.clearCookie(workspaceCookie, "/dashboard"))
		return s.redirect(r, "/dashboard/sign-in?notice=signed-out-everywhere"), nil
	})(ctx, wr)
}

// token is a link's token: ?token= on the page and on its form's action.
func (r *req) token() string { return r.Query["token"] }
