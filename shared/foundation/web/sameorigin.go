package web

import (
	"net/url"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// CheckSameOrigin refuses a browser form post from another site to a public, token-addressed
// page (the hosted checkout, a public document). The token in the URL is the only credential
// (nothing ambient such as a cookie), but a page elsewhere must still not be able to drive a
// payer's page through their browser. Fetch Metadata decides when the browser sends it (with
// Referrer-Policy no-referrer, browsers send "Origin: null" even on same-origin posts);
// otherwise a present Origin must be this host.
func CheckSameOrigin(r *Request) error {
	refused := apierr.New(apierr.ScopeOrEnvironmentDenied, "cross-site form submission refused")
	if site := r.Header("Sec-Fetch-Site"); site != "" {
		if site != "same-origin" {
			return refused
		}
		return nil
	}
	origin := r.Header("Origin")
	if origin == "" {
		return nil // not a browser
	}
	if u, err := url.Parse(origin); err != nil || u.Host != r.Host {
		return refused
	}
	return nil
}
