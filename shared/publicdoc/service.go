package publicdoc

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/page"
	"github.com/takapay/payments/shared/ratelimit"
	"github.com/takapay/payments/shared/web"
)

// Store finds a document by its public token, and an invoice's live intent.
type Store interface {
	// PublicDocument returns the invoice or payment link whose public token is token and its
	// workspace (its name is shown; its document webhook is where the payments report); nil
	// when there is none.
	PublicDocument(ctx context.Context, token string) (*document.Record, *auth.Workspace, error)
	PaymentReader
}

// Service serves GET /v1/public/documents/{token}: public, no merchant credential; the token
// (43 base64url characters, 256 random bits) is the capability.
type Service struct {
	Store Store
	// Limiter bounds requests per token and per client address (shared with the POST).
	Limiter *ratelimit.CapabilityLimiter
	// AllowLocalhostFormAction lets the page's form post to http://localhost (make dev only).
	AllowLocalhostFormAction bool
	Now                      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// wantsHTML reports a browser: Accept names text/html.
func wantsHTML(r *web.Request) bool { return strings.Contains(r.Header("Accept"), "text/html") }

// langOf is the page's language: the payer's explicit ?lang=, else the browser's
// Accept-Language, else English (a document has no locale of its own).
func langOf(r *web.Request) page.Choice {
	return page.Choose(r.Query[page.QueryParam], "", r.Header("Accept-Language"))
}

func notFound() error {
	return apierr.New(apierr.NotFound, "no invoice or payment link at this address")
}

// validToken reports whether a token is well formed (a public token is 32 random bytes as
// 43 base64url characters): anything else is refused without a read.
func validToken(t string) bool {
	if len(t) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.Strict().DecodeString(t)
	return err == nil
}

// View answers the document as the payer may see it: the page to a browser, the View as
// JSON otherwise. An unknown token, a draft and a customer are all 404.
func (s *Service) View(ctx context.Context, r *web.Request) (*web.Response, error) {
	token := r.PathParams["token"]
	if !validToken(token) {
		return nil, notFound()
	}
	if err := s.Limiter.Allow(token, r.SourceIP, s.now()); err != nil {
		return nil, err
	}
	doc, ws, err := s.Store.PublicDocument(ctx, token)
	if err != nil {
		return nil, err
	}
	if doc == nil || ws == nil {
		return nil, notFound()
	}
	v, err := viewOf(ctx, s.Store, doc, ws.Name, s.now())
	if errors.Is(err, ErrNotPublic) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	if !wantsHTML(r) {
		resp := web.JSON(http.StatusOK, v)
		resp.Headers = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
		return resp, nil
	}
	var buf bytes.Buffer
	p := Page{View: v, Action: r.Path, Sandbox: doc.Environment == auth.Sandbox, Lang: langOf(r)}
	if err := RenderPage(&buf, p); err != nil {
		return nil, err
	}
	return &web.Response{Status: http.StatusOK, Headers: SecurityHeaders(s.AllowLocalhostFormAction), Raw: buf.Bytes()}, nil
}

// ErrorPage renders an error as a plain page for a browser (nil: the JSON envelope), in words
// for the payer (the envelope's message is for developers and stays in the JSON).
func (s *Service) ErrorPage(r *web.Request, e *apierr.Error) *web.Response {
	if !wantsHTML(r) {
		return nil
	}
	return errorPage(r, e, s.AllowLocalhostFormAction)
}

// errorPage is the error page of e in the request's language, with the envelope's status and
// headers.
func errorPage(r *web.Request, e *apierr.Error, allowLocalhost bool) *web.Response {
	l := langOf(r).Lang
	key := "page.err.internal"
	switch e.Code {
	case apierr.NotFound:
		key = "doc.err.not_found"
	case apierr.RateLimited:
		key = "page.err.rate_limited"
	case apierr.ScopeOrEnvironmentDenied:
		key = "page.err.denied"
	case apierr.MalformedRequest, apierr.ValidationFailed:
		key = "page.err.bad_request"
	}
	// The page's path is the same for its GET and its POST: the switch links to the page.
	var buf bytes.Buffer
	_ = ErrorPage(&buf, l, l.T(key+".title"), l.T(key), r.Path)
	h := SecurityHeaders(allowLocalhost)
	for k, v := range e.Headers {
		h[k] = v
	}
	return &web.Response{Status: e.Status(), Headers: h, Raw: buf.Bytes()}
}
