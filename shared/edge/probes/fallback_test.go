package probes

import (
	"context"
	"testing"

	"github.com/takapay/payments/shared/foundation/web"
)

// GET /dashboard/ (no HTTP API route can end in "/") is sent to the overview with its query;
// other methods and other paths under /dashboard/ get the fallback's 404 as before.
func TestFallbackSendsDashboardSlashToTheOverview(t *testing.T) {
	for _, c := range []struct {
		query map[string]string
		want  string
	}{
		{nil, "/dashboard"},
		{map[string]string{"lang": "bn", "env": "live"}, "/dashboard?env=live&lang=bn"},
		{map[string]string{"next": "/dashboard/keys?x=1&y"}, "/dashboard?next=%2Fdashboard%2Fkeys%3Fx%3D1%26y"},
	} {
		resp, err := Fallback(context.Background(), &web.Request{Method: "GET", Path: "/dashboard/", Query: c.query})
		if err != nil || resp.Status != 308 || resp.Headers["Location"] != c.want {
			t.Errorf("GET /dashboard/ %v: %+v, %v; want 308 to %s", c.query, resp, err, c.want)
		}
	}
	for _, r := range []*web.Request{{Method: "POST", Path: "/dashboard/"}, {Method: "GET", Path: "/dashboard/keys/"}, {Method: "GET", Path: "/dashboard//"}} {
		if resp, err := Fallback(context.Background(), r); err == nil || resp != nil {
			t.Errorf("%s %s: %+v, %v; want the 404 envelope", r.Method, r.Path, resp, err)
		}
	}
}
