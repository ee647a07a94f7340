package page

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

func TestInline(t *testing.T) {
	st := NewStyle(".x { color: red; }\n")
	if !strings.HasPrefix(st.Source(), BaseCSS()) || !strings.HasSuffix(st.Source(), ".x { color: red; }\n") {
		t.Errorf("the stylesheet is not the base and then the additions")
	}
	if st.Hash() != sha(st.Source()) {
		t.Errorf("style hash %s is not of its bytes", st.Hash())
	}
	sc := NewScript("var a = 1;")
	if sc.Hash() != sha("var a = 1;") {
		t.Errorf("script hash %s", sc.Hash())
	}
	for _, f := range []func(){
		func() { NewStyle("a{} </STYLE><script>") },
		func() { NewScript("x = '</script>'") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("an asset with its own end tag was accepted")
				}
			}()
			f()
		}()
	}
	for _, banned := range []string{"@import", "url(", "</style"} {
		if strings.Contains(strings.ToLower(BaseCSS()), banned) {
			t.Errorf("base.css holds %q (no external resource, no end tag)", banned)
		}
	}
}

func TestHeaders(t *testing.T) {
	st, sc := NewStyle(""), NewScript("1")
	h := Headers(Policy{Style: st, Script: sc, Connect: true, FormAction: []string{"'self'", "https:"}})
	want := "default-src 'none'; script-src '" + sc.Hash() + "'; style-src '" + st.Hash() + "'; img-src 'self' data:; connect-src 'self'; form-action 'self' https:; base-uri 'none'; frame-ancestors 'none'"
	if h["Content-Security-Policy"] != want {
		t.Errorf("CSP\n%s\nwant\n%s", h["Content-Security-Policy"], want)
	}
	for k, v := range map[string]string{"Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Frame-Options": "DENY",
		"X-Content-Type-Options": "nosniff", "Content-Type": "text/html; charset=utf-8"} {
		if h[k] != v {
			t.Errorf("%s = %q", k, h[k])
		}
	}
	if len(h) != 6 {
		t.Errorf("%d headers", len(h))
	}
	h = Headers(Policy{Style: st, FormAction: []string{"'self'"}, AllowLocalhost: true})
	want = "default-src 'none'; style-src '" + st.Hash() + "'; img-src 'self' data:; form-action 'self' http://localhost:* http://127.0.0.1:*; base-uri 'none'; frame-ancestors 'none'"
	if h["Content-Security-Policy"] != want {
		t.Errorf("CSP without script\n%s\nwant\n%s", h["Content-Security-Policy"], want)
	}
	h["Location"] = "x"
	if _, shared := Headers(Policy{Style: st, FormAction: []string{"'self'"}})["Location"]; shared {
		t.Errorf("Headers returned a shared map")
	}
}
