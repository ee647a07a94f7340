package dashboard

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// One form, one effect. Every dashboard form that creates something through this package's
// services (an API key, a rolled key, a webhook signing secret, an invitation) carries a
// one-use form token — a random nonce in the hidden field "once", new on every rendering —
// and its POST runs through Service.once:
//
//  1. the token is claimed for the session: one conditional write of FORM#<id> in the
//     store, id an HMAC of the nonce keyed by the session token, so the claim is shared by
//     every instance and nobody without the session can name it;
//  2. only the request that claimed it creates; the claim then records where its answer
//     went, and a new secret sealed for the session (AES-GCM under a key derived from the
//     session token and the nonce, which the store never sees);
//  3. the answer is a 303 (post/redirect/get). A second POST of the same token — a refresh,
//     a double click, the back button — creates nothing: it is sent where the first went
//     (while the first is still running, to its landing page, which says so).
//
// A secret is shown on the page the redirect lands on (…?shown=<nonce>): the landing takes it
// out of the claim with one conditional write, so only the first GET shows it; a second GET,
// or one after FormTokenLifetime, says it was shown once. The secret is never in a URL, a
// cookie or a log line. The documents and customers forms carry the same kind of token, the
// API's own Idempotency-Key (docform.go, customers.go): the document and its key are one
// conditional write in the documents store, so they need no second claim.

// FormClaims keeps the one-use form tokens' claims (package dynamo: FORM#<id> / FORM). An
// expired claim is absent.
type FormClaims interface {
	// ClaimForm records id as claimed until expires, unless a live claim of it exists: then
	// claimed is false and prior is that claim.
	ClaimForm(ctx context.Context, id string, now, expires time.Time) (claimed bool, prior *FormClaim, err error)
	// FinishForm records a claim's effect: where its answer went and, for a new secret, the
	// secret sealed (nil: none).
	FinishForm(ctx context.Context, id, location string, sealed []byte) error
	// ReleaseForm forgets a claim whose form had no effect (refused, or failed).
	ReleaseForm(ctx context.Context, id string) error
	// TakeFormSecret removes the claim's sealed secret and returns it, with the claim; sealed
	// is nil when it was taken already or there is none, claim nil when no live claim exists.
	TakeFormSecret(ctx context.Context, id string, now time.Time) (sealed []byte, claim *FormClaim, err error)
}

// FormClaim is a claimed form token: Done once its effect is recorded, Location where its
// answer went.
type FormClaim struct {
	Done     bool
	Location string
}

const (
	// onceField is the form token's hidden field; onceParam is the landing page's parameter.
	onceField = "once"
	onceParam = "shown"
	// FormTokenLifetime is how long a claim (and the secret in it) lives after the POST.
	FormTokenLifetime = 15 * time.Minute
)

// errStaleForm is a create form posted without a token (a page from before the tokens, or a
// script): nothing is created.
var errStaleForm = apierr.New(apierr.MalformedRequest, "this form is out of date: open the page again and send it from there")

// onceToken writes the form's one-use token (a new one on every rendering).
func (d *doc) onceToken() { d.node(ui.Hidden(onceField, randomToken())) }

// effect is what a create form did: location is where the answer goes (ignored when secret is
// set: then the landing, where secret is shown once); page is an answer without effect (the
// form again with its problems), after which the token may be sent again.
type effect struct {
	location string
	secret   map[string]string
	page     *web.Response
}

// once runs a signed-in create form's effect at most once per form token (see above).
// landing is the page a repeat goes to while the first is still running, and where a secret
// is shown; create does the work.
func (s *Service) once(ctx context.Context, r *req, landing string, create func() (effect, error)) (*web.Response, error) {
	nonce := r.form.Get(onceField)
	if len(nonce) != 43 || strings.Trim(nonce, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return nil, errStaleForm
	}
	if s.Forms == nil {
		return nil, errors.New("dashboard: no form token store (Service.Forms)")
	}
	id, key := formKeys(r.viewer.token, nonce)
	landing = withQuery(landing, onceParam, nonce)
	now := s.now()
	claimed, prior, err := s.Forms.ClaimForm(ctx, id, now, now.Add(FormTokenLifetime))
	if err != nil {
		return nil, err
	}
	if !claimed {
		if prior != nil && prior.Done && prior.Location != "" {
			return s.redirect(r, prior.Location), nil
		}
		return s.redirect(r, landing), nil
	}
	e, err := create()
	if err != nil || e.page != nil {
		if rerr := s.Forms.ReleaseForm(context.WithoutCancel(ctx), id); rerr != nil && err == nil {
			err = rerr
		}
		if err != nil {
			return nil, err
		}
		return e.page, nil
	}
	loc := e.location
	var sealed []byte
	if e.secret != nil {
		loc = landing
		if sealed, err = sealSecret(key, id, e.secret); err != nil {
			return nil, err
		}
	}
	if err := s.Forms.FinishForm(context.WithoutCancel(ctx), id, loc, sealed); err != nil {
		return nil, err
	}
	return s.redirect(r, loc), nil
}

// shownState is what a landing page found for its ?shown= token.
type shownState int

const (
	shownNone    shownState = iota // no token in the URL
	shownNow                       // the secret, shown now
	shownGone                      // shown already, expired, or never there
	shownPending                   // the create is still running: reload
)

// reveal takes the secret a create form left for this landing page (its ?shown= token), for
// this session only and once.
func (s *Service) reveal(ctx context.Context, r *req) (map[string]string, shownState, error) {
	nonce := r.Query[onceParam]
	if nonce == "" {
		return nil, shownNone, nil
	}
	if len(nonce) != 43 || s.Forms == nil {
		return nil, shownGone, nil
	}
	id, key := formKeys(r.viewer.token, nonce)
	sealed, claim, err := s.Forms.TakeFormSecret(ctx, id, s.now())
	switch {
	case err != nil:
		return nil, shownNone, err
	case sealed != nil:
		v, err := openSecret(key, id, sealed)
		if err != nil {
			return nil, shownGone, nil
		}
		return v, shownNow, nil
	case claim != nil && !claim.Done:
		return nil, shownPending, nil
	}
	return nil, shownGone, nil
}

// shownNotice says, on a landing page, that its secret was shown already or is on its way.
func (d *doc) shownNotice(st shownState) {
	switch st {
	case shownGone:
		d.notice("dash.once.gone")
	case shownPending:
		d.notice("dash.once.pending")
	}
}

// formKeys derives a form token's claim id (what the store sees) and its sealing key from
// the session token, which the store never holds.
func formKeys(session, nonce string) (id string, key []byte) {
	mac := func(label string) []byte {
		h := hmac.New(sha256.New, []byte(session))
		h.Write([]byte(label + "\x00" + nonce))
		return h.Sum(nil)
	}
	return hex.EncodeToString(mac("takapay dashboard form claim")), mac("takapay dashboard form secret")
}

func sealSecret(key []byte, id string, v map[string]string) ([]byte, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, plain, []byte(id)), nil
}

func openSecret(key []byte, id string, sealed []byte) (map[string]string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if len(sealed) < gcm.NonceSize() {
		return nil, errors.New("dashboard: sealed form secret too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], []byte(id))
	if err != nil {
		return nil, err
	}
	var v map[string]string
	return v, json.Unmarshal(plain, &v)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// withQuery adds name=value (value URL-safe) to a path's query.
func withQuery(path, name, value string) string {
	if strings.Contains(path, "?") {
		return path + "&" + name + "=" + value
	}
	return path + "?" + name + "=" + value
}
