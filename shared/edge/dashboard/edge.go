// Package dashboard is the merchant dashboard's HTTP edge: server-rendered pages under
// /dashboard/ (sign up, sign in, keys, team, activity, passkeys) in Bangla and English on the
// page kit, with the kit's security headers and a strict CSP, working without JavaScript
// (passkeys and the copy button aside). Every state-changing form is checked three ways:
// Sec-Fetch-Site (same-origin or none), an exact Origin (one of the dashboard origins), and
// a CSRF token compared in constant time — per session (an HMAC keyed by the session token)
// once signed in, a double-submit cookie before (sign up, sign in, forgot, reset, verify).
// The server checks auth.Role.Can before every action, whatever the page showed.
//
// The domain work is done by the services behind the interfaces in services.go.
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/takapay/payments/shared/account"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/refund"
)

// Cookie names. The session cookie is the API's own (auth.SessionCookie): Path=/ because
// the /v1 workspace routes read it too. With Service.HostCookies (an https origin) the session
// and form-token cookies are named with the __Host- prefix (__Host-takapay_session,
// __Host-takapay_csrf), Secure, Path=/, no Domain.
const (
	SessionCookie   = auth.SessionCookie
	preCSRFCookie   = "takapay_csrf"
	workspaceCookie = "takapay_ws"
	csrfField       = "csrf"
)

// Limits the pages state (the account service enforces them).
const (
	SessionIdle     = 30 * time.Minute
	SessionLifetime = 8 * time.Hour
)

// Service serves the dashboard's pages.
type Service struct {
	Accounts Accounts
	Team     Team
	Keys     Keys
	Activity Activity
	Passkeys Passkeys
	// Origins are the exact origins allowed to post forms (DASHBOARD_ORIGINS); the origin of
	// the request's BaseURL is allowed too.
	Origins []string
	// InsecureCookies leaves Secure off the cookies: never set outside tests over plain http
	// to a host a browser does not treat as secure. make dev serves 127.0.0.1, which is.
	InsecureCookies bool
	// HostCookies names the session and form-token cookies with the __Host- prefix (Secure,
	// Path=/, no Domain): set from the configured origin when it is https (auth.HostCookies),
	// never from a request header. make dev's plain-http localhost keeps the plain names.
	HostCookies bool
	Now         func() time.Time
	// OfferPasskeys shows "Sign in with a passkey" on the sign-in page (its form posts to
	// the passkey pages, which DashboardPasskeysFunction serves).
	OfferPasskeys bool
	// PasskeyScript is package passkey's ceremony script, set where the passkey pages are
	// served; the dashboard's other pages do without it (and without linking go-webauthn).
	PasskeyScript string
	// QR draws the payment links' QR codes (documents.go; nil: none drawn).
	QR QRCodes
	// Documents is the documents rules the invoice, payment-link and customer pages call
	// (docops.go; set by the functions that serve those pages, nil elsewhere).
	Documents *document.Service
	// Webhooks lists deliveries and sends test events (webhooks.go; DashboardWebhooksFunction).
	Webhooks Webhooks
	// Payments streams the workspace's payments (the overview's figures and the export, in
	// home.go and export.go): the store. Exports records an export in the activity log.
	Payments export.Store
	Exports  ExportRecorder
	// Refunds lists the workspace's refunds for the refunds export (refund.Service; set by
	// DashboardExportFunction, nil elsewhere: the export offers payments only).
	Refunds RefundLister
	// Forms keeps the create forms' one-use tokens and the secrets they show once (once.go).
	Forms FormClaims
	// FormLimits limits the public and email-sending forms across instances (limits.go; nil:
	// unlimited).
	FormLimits *FormLimits

	scriptOnce sync.Once
	inline     *page.Inline
}

// RefundLister is what the refunds export calls of refund.Service.
type RefundLister interface {
	List(ctx context.Context, scope refund.Scope, q refund.ListQuery) (refund.Page, error)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// req is one request as the pages see it.
type req struct {
	*web.Request
	lang page.Choice
	form url.Values
	// viewer is the signed-in person (nil on the public pages).
	viewer *viewer
	// preToken is the double-submit token of a public form (set on its GET).
	preToken  string
	setCookie []string
}

// viewer is the signed-in person in their current workspace.
type viewer struct {
	token string
	user  SessionUser
	ws    Membership
	all   []Membership
	csrf  string
}

func (v *viewer) can(p auth.Permission) bool { return v.ws.Role.Can(p) }

func (v *viewer) actor(r *req) Actor {
	return Actor{WorkspaceID: v.ws.WorkspaceID, UserID: v.user.UserID, Email: v.user.Email, Role: v.ws.Role, Client: r.client()}
}

func (r *req) client() Client { return Client{IP: r.SourceIP, UserAgent: r.Header("User-Agent")} }

func (s *Service) newReq(r *web.Request) *req {
	return &req{Request: r, lang: page.Choose(r.Query[page.QueryParam], "", r.Header("Accept-Language"))}
}

// url keeps an explicit language choice and the live environment (env=live) on a link of
// the dashboard.
func (r *req) url(path string) string {
	if r.env() == auth.Live && !strings.Contains(path, envParam+"=") {
		base, frag, hasFrag := strings.Cut(path, "#")
		if strings.Contains(base, "?") {
			base += "&" + envParam + "=live"
		} else {
			base += "?" + envParam + "=live"
		}
		if path = base; hasFrag {
			path += "#" + frag
		}
	}
	return r.lang.URL(path)
}

func (r *req) l() page.Lang { return r.lang.Lang }

// cookie returns the request's cookie by name.
func cookie(r *web.Request, name string) (string, bool) {
	var all []string
	all = append(all, r.Cookies...)
	if h := r.Header("Cookie"); h != "" {
		all = append(all, strings.Split(h, ";")...)
	}
	for _, c := range all {
		k, v, ok := strings.Cut(strings.TrimSpace(c), "=")
		if ok && k == name {
			return v, true
		}
	}
	return "", false
}

func (s *Service) cookieAttrs(path string, maxAge int) string {
	a := "; Path=" + path + "; HttpOnly; SameSite=Lax"
	if !s.InsecureCookies || s.HostCookies {
		a += "; Secure"
	}
	if maxAge >= 0 {
		a += "; Max-Age=" + strconv.Itoa(maxAge)
	}
	return a
}

func (s *Service) sessionCookie(token string) string {
	return s.sessionName() + "=" + token + s.cookieAttrs("/", int(SessionLifetime/time.Second))
}

// sessionName is the session cookie's name (auth.HostSessionCookie with HostCookies).
func (s *Service) sessionName() string { return auth.SessionCookieName(s.HostCookies) }

// clearSession clears the session cookie (both names: one left over from before the origin
// became https would otherwise make every request carry two).
func (s *Service) clearSession(r *req) {
	r.setCookie = append(r.setCookie, s.clearCookie(auth.SessionCookieName(true), "/"), s.clearCookie(auth.SessionCookieName(false), "/"))
}

// csrfCookie is the public forms' double-submit cookie: its name and path (__Host- and Path=/
// with HostCookies, the prefix's rule; else Path=/dashboard).
func (s *Service) csrfCookie() (name, path string) {
	if s.HostCookies {
		return auth.HostPrefix + preCSRFCookie, "/"
	}
	return preCSRFCookie, "/dashboard"
}

func (s *Service) clearCookie(name, path string) string {
	return name + "=" + s.cookieAttrs(path, 0)
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func equal(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// errDenied is a form post that failed the cross-site checks.
var errDenied = apierr.New(apierr.ScopeOrEnvironmentDenied, "cross-site form post refused")

// checkSite refuses a state-changing request that another site could have sent: a
// Sec-Fetch-Site other than same-origin or none, and an Origin that is absent or not
// exactly one of the dashboard's origins.
func (s *Service) checkSite(r *web.Request) error {
	switch r.Header("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return errDenied
	}
	origin := r.Header("Origin")
	if origin == "" || origin == "null" {
		return errDenied
	}
	if slices.Contains(s.Origins, origin) {
		return nil
	}
	if u, err := url.Parse(r.BaseURL); err == nil && origin == u.Scheme+"://"+u.Host {
		return nil
	}
	return errDenied
}

// parseForm reads an urlencoded form body (bad encoding: 400).
func (r *req) parseForm() error {
	f, err := url.ParseQuery(string(r.Body))
	if err != nil {
		return apierr.New(apierr.MalformedRequest, "the form could not be read")
	}
	r.form = f
	return nil
}

func (r *req) field(name string) string { return strings.TrimSpace(r.form.Get(name)) }

// publicPost checks a pre-session form: the site, then the double-submit token.
func (s *Service) publicPost(r *req) error {
	if err := s.checkSite(r.Request); err != nil {
		return err
	}
	if err := r.parseForm(); err != nil {
		return err
	}
	name, _ := s.csrfCookie()
	c, _ := cookie(r.Request, name)
	if !equal(c, r.form.Get(csrfField)) {
		return errDenied
	}
	r.preToken = c
	return nil
}

// publicGet gives a pre-session form its double-submit token (the cookie's, or a new one).
func (s *Service) publicGet(r *req) {
	name, path := s.csrfCookie()
	if c, ok := cookie(r.Request, name); ok && len(c) == 43 {
		r.preToken = c
		return
	}
	r.preToken = randomToken()
	r.setCookie = append(r.setCookie, name+"="+r.preToken+s.cookieAttrs(path, 2*3600))
}

// errSignIn sends a request without a session to the sign-in page.
type errSignIn struct{ next string }

func (e *errSignIn) Error() string { return "dashboard: sign in first" }

// signedIn loads the viewer: the session, then the workspace (the takapay_ws cookie when the
// user is a member of it, else the session's, else their first). A request carrying two
// session cookies (auth.ErrTwoSessionCookies) has no session: it goes to the sign-in page,
// and the host's own session cookies are cleared (decision record).
func (s *Service) signedIn(ctx context.Context, r *req) error {
	token, ok, err := auth.FindSessionCookie(r.Request, s.sessionName())
	next := r.Path
	if r.Method != "GET" {
		next = "/dashboard"
	}
	if err != nil {
		s.clearSession(r)
		return &errSignIn{next: next}
	}
	if !ok || token == "" {
		return &errSignIn{next: next}
	}
	u, err := s.Accounts.Authenticate(ctx, token)
	if errors.Is(err, account.ErrNoSession) {
		return &errSignIn{next: next}
	}
	if err != nil {
		return err
	}
	v := &viewer{token: token, user: *u, csrf: u.CSRF}
	if v.all, err = s.Team.Workspaces(ctx, u.UserID); err != nil {
		return err
	}
	want, _ := cookie(r.Request, workspaceCookie)
	for _, id := range []string{want, u.WorkspaceID} {
		if i := slices.IndexFunc(v.all, func(m Membership) bool { return id != "" && m.WorkspaceID == id }); i >= 0 {
			v.ws = v.all[i]
			break
		}
	}
	if v.ws.WorkspaceID == "" && len(v.all) > 0 {
		v.ws = v.all[0]
	}
	r.viewer = v
	return nil
}

// sessionPost checks a signed-in form: the site, the session, then its CSRF token.
func (s *Service) sessionPost(ctx context.Context, r *req) error {
	if err := s.checkSite(r.Request); err != nil {
		return err
	}
	if err := r.parseForm(); err != nil {
		return err
	}
	if err := s.signedIn(ctx, r); err != nil {
		return err
	}
	if !equal(r.viewer.csrf, r.form.Get(csrfField)) {
		return errDenied
	}
	return nil
}

// need refuses what the viewer's role does not allow (403), and a viewer with no workspace.
func (r *req) need(p auth.Permission) error {
	if r.viewer.ws.WorkspaceID == "" || !r.viewer.can(p) {
		return apierr.New(apierr.ScopeOrEnvironmentDenied, "your role does not allow this")
	}
	return nil
}

// safeNext keeps a next path only when it is a path of the dashboard (no open redirect).
func safeNext(next string) string {
	if strings.HasPrefix(next, "/dashboard") && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") &&
		!strings.Contains(next, "..") && !strings.Contains(next, "%") &&
		(len(next) == len("/dashboard") || next[len("/dashboard")] == '/' || next[len("/dashboard")] == '?') {
		return next
	}
	return "/dashboard"
}

// redirect is a 303 to a dashboard path (after a form post, or to sign in).
func (s *Service) redirect(r *req, to string) *web.Response {
	h := s.headers(nil)
	h["Location"] = r.url(to)
	return &web.Response{Status: 303, Headers: h, Raw: []byte{}, Cookies: r.setCookie}
}
