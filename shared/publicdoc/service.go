package publicdoc

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/ratelimit"
)

// Store finds a document by its public token, and an invoice's live intent.
type Store interface {
	// PublicDocument returns the invoice or payment link whose public token is token and its
	// workspace (its name is shown; its document webhook is where the payments report); nil
	// when there is none.
	PublicDocument(ctx context.Context, token string) (*document.Record, *auth.Workspace, error)
	PaymentReader
}

// Service is the rules of a public document's link: who may open it (a well-formed token of
// an invoice or payment link past its draft, within the limits) and what the payer sees.
// The token (43 base64url characters, 256 random bits) is the capability; package
// edge/publicdocapi serves it over HTTP.
type Service struct {
	Store Store
	// Limiter bounds requests per token and per client address (shared with the POST).
	Limiter *ratelimit.CapabilityLimiter
	Now     func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// NotFound is the 404 of a token that names no public document.
func NotFound() error {
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

// Opened is a public document as a payer opened it: the record, its workspace, what the
// payer sees, and when.
type Opened struct {
	Doc       *document.Record
	Workspace *auth.Workspace
	View      *View
	Now       time.Time
}

// Open opens the document whose public token is token for a client at addr: 404 for a
// malformed or unknown token, a draft and a customer alike; 429 beyond the limits.
func (s *Service) Open(ctx context.Context, token, addr string) (*Opened, error) {
	if !validToken(token) {
		return nil, NotFound()
	}
	now := s.now()
	if err := s.Limiter.Allow(token, addr, now); err != nil {
		return nil, err
	}
	doc, ws, err := s.Store.PublicDocument(ctx, token)
	if err != nil {
		return nil, err
	}
	if doc == nil || ws == nil {
		return nil, NotFound()
	}
	v, err := viewOf(ctx, s.Store, doc, ws.Name, now)
	if errors.Is(err, ErrNotPublic) {
		return nil, NotFound()
	}
	if err != nil {
		return nil, err
	}
	return &Opened{Doc: doc, Workspace: ws, View: v, Now: now}, nil
}

// errorKey is the catalogue key of the payer's words for an error code.
func errorKey(code apierr.Code) string {
	switch code {
	case apierr.NotFound:
		return "doc.err.not_found"
	case apierr.RateLimited:
		return "page.err.rate_limited"
	case apierr.ScopeOrEnvironmentDenied:
		return "page.err.denied"
	case apierr.MalformedRequest, apierr.ValidationFailed:
		return "page.err.bad_request"
	}
	return "page.err.internal"
}

// RenderError writes the plain error page of e in l, in words for the payer (the envelope's
// message is for developers), for the page at self (the same path for its GET and its POST:
// the language switch links to it).
func RenderError(w io.Writer, l page.Lang, e *apierr.Error, self string) error {
	key := errorKey(e.Code)
	return ErrorPage(w, l, l.T(key+".title"), l.T(key), self)
}
