package dashboard

import (
	"context"
	"net/url"
	"strings"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/web"
)

// The dashboard's payments, documents and customers pages do not hold a second copy of any
// rule: they run the API's own workspace-route handlers (document.Service, intent.Service)
// in-process, as the signed-in person (auth.WithSignedIn), and render what those answer —
// the same validation (422 naming the field path), the same version conflicts, the same
// refusals. Each function that serves such pages puts the handlers it needs in Service.API,
// keyed by the API's route key, so every call below is one grep away from its route.

// envParam is the query parameter that keeps the environment a page shows: absent is
// sandbox, "live" is live. Every link and form of a page keeps it (req.url).
const envParam = "env"

// env is the environment the page shows (the URL's env=, sandbox by default).
func (r *req) env() auth.Environment {
	if r.Query[envParam] == string(auth.Live) {
		return auth.Live
	}
	return auth.Sandbox
}

// call runs the API operation routeKey (a key of Service.API) for the signed-in viewer in
// the page's environment: params are its path parameters besides {workspaceID}, query its
// query parameters besides environment, body its JSON body (nil for none), idemKey its
// Idempotency-Key ("" for none). The answer is the handler's: a *web.Response whose JSON is
// the API's typed value, or its error (an *apierr.Error the page shows).
func (s *Service) call(ctx context.Context, r *req, routeKey string, params, query map[string]string, body []byte, idemKey string) (*web.Response, error) {
	h, ok := s.API[routeKey]
	if !ok || r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return nil, apierr.New(apierr.NotFound, "this page is not served here")
	}
	method, path, _ := strings.Cut(routeKey, " ")
	pp := map[string]string{"workspaceID": r.viewer.ws.WorkspaceID}
	for k, v := range params {
		pp[k] = v
	}
	for k, v := range pp {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	q := map[string]string{"environment": string(r.env())}
	for k, v := range query {
		q[k] = v
	}
	headers := map[string]string{"user-agent": r.Header("User-Agent")}
	if body != nil {
		headers["content-type"] = "application/json"
	}
	if idemKey != "" {
		headers["idempotency-key"] = idemKey
	}
	in := &web.Request{Method: method, RouteKey: routeKey, Path: path, PathParams: pp, Query: q, Headers: headers,
		Body: body, SourceIP: r.SourceIP, Host: r.Host, BaseURL: r.BaseURL, CorrelationID: r.CorrelationID}
	ctx = auth.WithSignedIn(ctx, auth.SignedIn{WorkspaceID: r.viewer.ws.WorkspaceID, UserID: r.viewer.user.UserID, Role: r.viewer.ws.Role})
	return h(ctx, in)
}
