package checkout

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	kit "github.com/takapay/payments/shared/foundation/page"
)

const testBase = "/v1/public/checkout/lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ_-"

func pendingView() View {
	return View{
		InvoiceID:     "8e60c1d2-4b7a-4f0e-9a51-2c3d4e5f6a7b",
		Status:        "PENDING",
		AmountMinor:   150000,
		AmountDisplay: "৳1,500.00",
		Currency:      "BDT",
		Reference:     "ORDER-42",
		MerchantName:  "Dhaka Books",
		ExpiresAt:     time.Date(2026, 3, 1, 8, 35, 0, 0, time.UTC),
		Environment:   "sandbox",
		Routes:        SandboxRoutes,
		ActionBase:    testBase,
	}
}

func lockedView(env string) View {
	v := pendingView()
	v.Environment = env
	v.Lock = &LockView{Route: "bkash", RouteLabel: "bKash", PayerMasked: "017•••••678"}
	return v
}

func terminalView(status, returnURL string) View {
	v := lockedView("sandbox")
	v.Status, v.Terminal, v.ReturnURL = status, true, returnURL
	return v
}

func render(t *testing.T, v View) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderPage(&buf, v); err != nil {
		t.Fatalf("RenderPage: %v", err)
	}
	return buf.String()
}

func mustContain(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func mustNotContain(t *testing.T, page string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(page, u) {
			t.Errorf("page contains %q", u)
		}
	}
}

var (
	startTagRE = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	attrRE     = regexp.MustCompile(`\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?`)
	formRE     = regexp.MustCompile(`(?s)<form\b([^>]*)>(.*?)</form>`)
	scriptRE   = regexp.MustCompile(`(?s)<script\b([^>]*)>(.*?)</script>`)
	styleRE    = regexp.MustCompile(`(?s)<style\b([^>]*)>(.*?)</style>`)
)

// attrs parses the attributes of one start tag (values unescaped).
func attrs(tag string) map[string]string {
	out := map[string]string{}
	inner := strings.TrimSuffix(tag[strings.IndexAny(tag, " \t\n>"):], ">")
	for _, m := range attrRE.FindAllStringSubmatch(inner, -1) {
		out[strings.ToLower(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

// markup is page without the contents of its <script> and <style> elements.
func markup(page string) string {
	page = scriptRE.ReplaceAllString(page, "<script$1></script>")
	return styleRE.ReplaceAllString(page, "<style$1></style>")
}

// tagByID returns the attributes of the element with id, or nil.
func tagByID(t *testing.T, page, id string) map[string]string {
	t.Helper()
	var found map[string]string
	for _, tag := range startTagRE.FindAllString(markup(page), -1) {
		a := attrs(tag)
		if a["id"] == id {
			if found != nil {
				t.Fatalf("two elements with id %q", id)
			}
			found = a
		}
	}
	return found
}

// textByID returns the text inside the element with id (no nested elements of the same name).
func textByID(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<([a-z0-9]+)\b[^>]*\sid="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</([a-z0-9]+)>`).FindStringSubmatch(markup(page))
	if m == nil {
		t.Fatalf("no element with id %q", id)
	}
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[2], ""))
}

// formOf returns the attributes of the form holding the element with id and the form's body.
func formOf(t *testing.T, page, id string) (map[string]string, string) {
	t.Helper()
	for _, m := range formRE.FindAllStringSubmatch(markup(page), -1) {
		if strings.Contains(m[2], ` id="`+id+`"`) {
			return attrs("<form" + m[1] + ">"), m[2]
		}
	}
	t.Fatalf("no form holds #%s", id)
	return nil, ""
}

func checkPostForm(t *testing.T, page, buttonID, action string) string {
	t.Helper()
	form, body := formOf(t, page, buttonID)
	if form["method"] != "post" || form["action"] != action {
		t.Errorf("form of #%s: method %q action %q, want post %q", buttonID, form["method"], form["action"], action)
	}
	b := tagByID(t, page, buttonID)
	if b["type"] != "submit" {
		t.Errorf("#%s is not a submit button: %v", buttonID, b)
	}
	return body
}

func checkAbsent(t *testing.T, page string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if tagByID(t, page, id) != nil {
			t.Errorf("page has #%s", id)
		}
	}
}

func checkPresent(t *testing.T, page string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if tagByID(t, page, id) == nil {
			t.Errorf("page lacks #%s", id)
		}
	}
}

func checkStatus(t *testing.T, page, want string) {
	t.Helper()
	if got := tagByID(t, page, "status")["data-status"]; got != want {
		t.Errorf("#status data-status = %q, want %q", got, want)
	}
}

func TestPendingWithoutLock(t *testing.T) {
	page := render(t, pendingView())

	mustContain(t, page,
		"<!doctype html>", `<html lang="en">`, `<meta charset="utf-8">`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		"<title>Pay ৳1,500.00 to Dhaka Books — Takapay</title>")
	checkStatus(t, page, "PENDING")
	if got := textByID(t, page, "amount"); got != "৳1,500.00" {
		t.Errorf("amount %q", got)
	}
	if got := textByID(t, page, "merchant-name"); got != "Dhaka Books" {
		t.Errorf("merchant %q", got)
	}
	if got := textByID(t, page, "reference"); got != "ORDER-42" {
		t.Errorf("reference %q", got)
	}
	banner := tagByID(t, page, "sandbox-banner")
	if banner == nil || banner["role"] != "status" || textByID(t, page, "sandbox-banner") != "Sandbox — no real money moves" {
		t.Errorf("sandbox banner %v %q", banner, page)
	}
	if got := tagByID(t, page, "expiry")["data-expires-at"]; got != "2026-03-01T08:35:00Z" {
		t.Errorf("data-expires-at %q", got)
	}
	mustContain(t, page, `Expires <time datetime="2026-03-01T08:35:00Z">14:35</time> (Dhaka time)`)
	if got := tagByID(t, page, "checkout")["data-status-url"]; got != testBase {
		t.Errorf("data-status-url %q", got)
	}

	body := checkPostForm(t, page, "continue", testBase+"/lock")
	for _, r := range SandboxRoutes {
		in := tagByID(t, page, "route-"+r.ID)
		if in == nil {
			t.Fatalf("no radio for %s", r.ID)
		}
		if in["type"] != "radio" || in["name"] != "route" || in["value"] != r.ID {
			t.Errorf("radio %s: %v", r.ID, in)
		}
		if _, ok := in["data-payer-label"]; ok {
			t.Errorf("radio %s still carries the script's data: %v", r.ID, in)
		}
		if _, checked := in["checked"]; checked {
			t.Errorf("radio %s pre-checked among several routes", r.ID)
		}
		if !strings.Contains(body, `id="route-`+r.ID+`"`) {
			t.Errorf("radio %s outside the lock form", r.ID)
		}
		mustContain(t, page, `<label class="option" for="route-`+r.ID+`">`, "<span>"+r.Label+"</span>")
		// Each method has its own labelled field, in the form, named for the route.
		payer := tagByID(t, page, "payer-"+r.ID)
		wantType := map[string]string{"phone": "tel", "email": "email"}[r.PayerKind]
		if payer["name"] != "payer_"+r.ID || payer["type"] != wantType || payer["placeholder"] != r.Placeholder || !strings.Contains(body, `id="payer-`+r.ID+`"`) {
			t.Errorf("payer input of %s: %v", r.ID, payer)
		}
		if _, ok := payer["value"]; ok {
			t.Errorf("payer input of %s filled on a fresh page: %v", r.ID, payer)
		}
		if l := tagByID(t, page, "payer-"+r.ID+"-label"); l["for"] != "payer-"+r.ID || textByID(t, page, "payer-"+r.ID+"-label") != r.PayerLabel {
			t.Errorf("payer label of %s: %v %q", r.ID, l, textByID(t, page, "payer-"+r.ID+"-label"))
		}
	}
	checkAbsent(t, page, "payer", "payer-label", "payer-hint", "purchase", "options")
	// The form holds a field per method and only the chosen one is read: a browser check of
	// another method's field (an unfinished email) must not block paying by bKash.
	if _, ok := tagByID(t, page, "lock-form")["novalidate"]; !ok {
		t.Errorf("the lock form lets the browser check fields of methods not chosen")
	}
	checkPostForm(t, page, "cancel", testBase+"/notices/cancel")
	checkAbsent(t, page, "approve", "decline", "return", "error", "lock", "no-routes")
	if n := strings.Count(page, "<form"); n != 2 {
		t.Errorf("%d forms, want 2", n)
	}
}

// After a refused post (a wrong number) the chosen method stays checked and every typed value
// stays in its field; the chosen field is marked invalid and described by the error. The form
// is novalidate in both languages: the server's message, in the page's language, is the only one.
func TestRefusedPostKeepsTheChoiceAndTheNumber(t *testing.T) {
	for _, l := range kit.Langs {
		v := pendingView()
		v.Lang = kit.Choice{Lang: l, Explicit: true}
		v.Error = l.T("checkout.err.phone")
		v.Chosen = "nagad"
		v.Typed = map[string]string{"nagad": "0171234", "card": `a"b@example.com`}
		page := render(t, v)
		if _, checked := tagByID(t, page, "route-nagad")["checked"]; !checked {
			t.Errorf("%s: the chosen method is not checked", l)
		}
		for _, id := range []string{"bkash", "card"} {
			if _, checked := tagByID(t, page, "route-"+id)["checked"]; checked {
				t.Errorf("%s: %s checked too", l, id)
			}
		}
		nagad := tagByID(t, page, "payer-nagad")
		if nagad["value"] != "0171234" || nagad["aria-invalid"] != "true" || nagad["aria-describedby"] != "error" {
			t.Errorf("%s: the chosen field %v", l, nagad)
		}
		if card := tagByID(t, page, "payer-card"); card["value"] != `a"b@example.com` || card["aria-invalid"] != "" {
			t.Errorf("%s: the other typed field %v", l, card)
		}
		if _, ok := tagByID(t, page, "payer-bkash")["value"]; ok {
			t.Errorf("%s: an untouched field got a value", l)
		}
		if _, ok := tagByID(t, page, "lock-form")["novalidate"]; !ok {
			t.Errorf("%s: the lock form is not novalidate", l)
		}
	}
}

// A payment link's checkout says what is bought above the total: quantity × unit price and
// the options the payer chose; the footer names the payment reference.
func TestPurchaseAboveTheTotal(t *testing.T) {
	v := pendingView()
	v.AmountMinor = 15000000
	v.Purchase = &Purchase{Quantity: 2, UnitMinor: 7500000, Options: []Option{{Label: "Size", Value: "<M>"}}}
	page := render(t, v)
	if got := textByID(t, page, "purchase"); got != "Quantity: 2 × ৳75,000.00" {
		t.Errorf("purchase %q", got)
	}
	if strings.Index(page, `id="purchase"`) > strings.Index(page, `id="amount"`) {
		t.Errorf("the purchase is not above the total")
	}
	mustContain(t, page, "<dt>Size</dt><dd>&lt;M&gt;</dd>", "Payment reference: <span id=\"invoice\">"+v.InvoiceID+"</span>")
	v.Lang = kit.Choice{Lang: kit.BN}
	if got := textByID(t, render(t, v), "purchase"); !strings.HasPrefix(got, "পরিমাণ: ২ × ৳") {
		t.Errorf("Bangla purchase %q", got)
	}
}

func TestPendingSingleRouteIsChosen(t *testing.T) {
	v := pendingView()
	v.Routes = SandboxRoutes[:1]
	in := tagByID(t, render(t, v), "route-"+SandboxRoutes[0].ID)
	if _, checked := in["checked"]; !checked {
		t.Errorf("the only route is not checked: %v", in)
	}
}

func TestPendingWithoutRoutes(t *testing.T) {
	v := pendingView()
	v.Environment, v.Routes = "live", []Route{}
	page := render(t, v)
	checkPresent(t, page, "no-routes", "cancel")
	checkAbsent(t, page, "continue", "payer", "sandbox-banner")
}

func TestPendingLockedSandbox(t *testing.T) {
	page := render(t, lockedView("sandbox"))
	checkStatus(t, page, "PENDING")
	if got := textByID(t, page, "lock"); got != "Paying with bKash · 017•••••678" {
		t.Errorf("lock text %q", got)
	}
	checkPresent(t, page, "sandbox-banner", "expiry")
	checkPostForm(t, page, "approve", testBase+"/notices/approve")
	checkPostForm(t, page, "decline", testBase+"/notices/decline")
	checkPostForm(t, page, "cancel", testBase+"/notices/cancel")
	mustContain(t, page, "Approve (sandbox)", "Decline (sandbox)", "Cancel payment", `data-locked="true"`)
	checkAbsent(t, page, "continue", "payer", "route-bkash", "return")
	if n := strings.Count(page, "<form"); n != 3 {
		t.Errorf("%d forms, want 3", n)
	}
}

func TestPendingLockedLive(t *testing.T) {
	v := lockedView("live")
	v.Routes = []Route{}
	page := render(t, v)
	if got := textByID(t, page, "lock"); got != "Paying with bKash · 017•••••678" {
		t.Errorf("lock text %q", got)
	}
	checkPostForm(t, page, "cancel", testBase+"/notices/cancel")
	checkAbsent(t, page, "approve", "decline", "sandbox-banner", "continue", "payer")
	mustNotContain(t, page, "/notices/approve", "/notices/decline", "Sandbox")
	if got := tagByID(t, page, "refresh")["href"]; got != testBase {
		t.Errorf("refresh link %q", got)
	}
}

func TestTerminalStates(t *testing.T) {
	const ret = "https://shop.example.com.bd/thanks?order=42&invoice_id=8e60c1d2-4b7a-4f0e-9a51-2c3d4e5f6a7b"
	for status, title := range map[string]string{
		"COMPLETED": "Payment received",
		"FAILED":    "Payment failed",
		"CANCELLED": "Payment cancelled",
		"EXPIRED":   "This payment has expired",
	} {
		for _, returnURL := range []string{"", ret} {
			t.Run(status+"/return="+returnURL, func(t *testing.T) {
				page := render(t, terminalView(status, returnURL))
				checkStatus(t, page, status)
				if got := textByID(t, page, "status-title"); got != title {
					t.Errorf("status title %q, want %q", got, title)
				}
				mustContain(t, page, "<title>"+title+" · Pay ৳1,500.00 to Dhaka Books — Takapay</title>", `data-terminal="true"`)
				if got := textByID(t, page, "amount"); got != "৳1,500.00" {
					t.Errorf("amount %q", got)
				}
				mustNotContain(t, page, "<form", "Expires ")
				checkAbsent(t, page, "approve", "decline", "cancel", "continue", "payer", "expiry")
				if returnURL == "" {
					checkAbsent(t, page, "return")
					checkPresent(t, page, "final")
					return
				}
				a := tagByID(t, page, "return")
				if a == nil || a["href"] != returnURL {
					t.Fatalf("return link %v, want href %q", a, returnURL)
				}
				mustContain(t, page, `href="https://shop.example.com.bd/thanks?order=42&amp;invoice_id=`)
				if got := textByID(t, page, "return"); got != "Return to Dhaka Books" {
					t.Errorf("return link text %q", got)
				}
				checkAbsent(t, page, "final")
			})
		}
	}
}

func TestErrorMessage(t *testing.T) {
	v := pendingView()
	v.Error = "Enter a Bangladeshi mobile number"
	page := render(t, v)
	e := tagByID(t, page, "error")
	if e == nil || e["role"] != "alert" || textByID(t, page, "error") != v.Error {
		t.Errorf("error element %v", e)
	}
	checkPresent(t, page, "continue")
	if strings.Contains(render(t, pendingView()), `role="alert"`) {
		t.Errorf("alert without an error")
	}
}

func TestExpiryInDhakaTime(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 1, 8, 35, 0, 0, time.UTC), `Expires <time datetime="2026-03-01T08:35:00Z">14:35</time> (Dhaka time)`},
		{time.Date(2026, 3, 1, 18, 5, 59, 0, time.UTC), `Expires <time datetime="2026-03-01T18:05:59Z">00:05</time> (Dhaka time)`},
		{time.Date(2026, 7, 1, 2, 35, 0, 0, time.FixedZone("x", -4*3600)), `Expires <time datetime="2026-07-01T06:35:00Z">12:35</time> (Dhaka time)`},
	} {
		v := pendingView()
		v.ExpiresAt = c.at
		page := render(t, v)
		mustContain(t, page, c.want)
		if got := tagByID(t, page, "expiry")["data-expires-at"]; got != c.at.UTC().Format(time.RFC3339) {
			t.Errorf("data-expires-at %q for %v", got, c.at)
		}
	}
	v := pendingView()
	v.ExpiresAt = time.Time{}
	checkAbsent(t, render(t, v), "expiry")
}

// cspSources parses a Content-Security-Policy into directive → sources.
func cspSources(t *testing.T, csp string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			t.Fatalf("empty directive in %q", csp)
		}
		if _, dup := out[f[0]]; dup {
			t.Fatalf("directive %s twice in %q", f[0], csp)
		}
		out[f[0]] = f[1:]
	}
	return out
}

func sha256Source(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

var (
	quotedRE       = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	eventHandlerRE = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	styleAttrRE    = regexp.MustCompile(`(?i)\sstyle\s*=`)
)

// checkInlineContentMatchesCSP asserts that page's only script and style are the ones the CSP
// hashes and that it has no inline handlers or style attributes.
func checkInlineContentMatchesCSP(t *testing.T, page string, wantScript bool) {
	t.Helper()
	csp := cspSources(t, SecurityHeaders(false)["Content-Security-Policy"])
	scripts := scriptRE.FindAllStringSubmatch(page, -1)
	if n := strings.Count(strings.ToLower(page), "<script"); n != len(scripts) {
		t.Fatalf("%d <script tags, %d complete script elements", n, len(scripts))
	}
	switch {
	case wantScript && len(scripts) != 1:
		t.Fatalf("%d script elements, want 1", len(scripts))
	case !wantScript && len(scripts) != 0:
		t.Fatalf("%d script elements, want 0", len(scripts))
	}
	for _, s := range scripts {
		if s[1] != "" {
			t.Errorf("script element has attributes %q", s[1])
		}
		if got := sha256Source(s[2]); !slices.Equal(csp["script-src"], []string{got}) {
			t.Errorf("script-src %v, inline script hashes to %s", csp["script-src"], got)
		}
		if s[2] != scriptSource {
			t.Errorf("inline script differs from assets/checkout.js")
		}
	}
	styles := styleRE.FindAllStringSubmatch(page, -1)
	if n := strings.Count(strings.ToLower(page), "<style"); n != 1 || len(styles) != 1 {
		t.Fatalf("%d <style tags, %d style elements, want 1", n, len(styles))
	}
	if got := sha256Source(styles[0][2]); styles[0][1] != "" || !slices.Equal(csp["style-src"], []string{got}) {
		t.Errorf("style-src %v, inline style (attrs %q) hashes to %s", csp["style-src"], styles[0][1], got)
	}
	m := markup(page)
	for _, tag := range startTagRE.FindAllString(m, -1) {
		names := quotedRE.ReplaceAllString(tag, `""`) // attribute names only, whatever the values hold
		if eventHandlerRE.MatchString(names) {
			t.Errorf("inline event handler: %s", tag)
		}
		if styleAttrRE.MatchString(names) {
			t.Errorf("style attribute: %s", tag)
		}
	}
	if strings.Contains(strings.ToLower(m), "javascript:") {
		t.Errorf("javascript: URL in markup")
	}
	for _, tag := range startTagRE.FindAllString(m, -1) {
		a := attrs(tag)
		for _, name := range []string{"src", "href", "action"} {
			if u, ok := a[name]; ok && (strings.HasPrefix(u, "//") || strings.Contains(u, "cdn")) {
				t.Errorf("external resource %s=%q", name, u)
			}
		}
	}
}

func TestCSPMatchesInlineContent(t *testing.T) {
	withError := pendingView()
	withError.Error = "Enter a Bangladeshi mobile number"
	for name, v := range map[string]View{
		"pending":         pendingView(),
		"error":           withError,
		"locked sandbox":  lockedView("sandbox"),
		"locked live":     lockedView("live"),
		"completed":       terminalView("COMPLETED", "https://shop.example.com.bd/ok?invoice_id=1"),
		"expired (final)": terminalView("EXPIRED", ""),
	} {
		t.Run(name, func(t *testing.T) { checkInlineContentMatchesCSP(t, render(t, v), true) })
	}
	t.Run("error page", func(t *testing.T) {
		var buf bytes.Buffer
		if err := ErrorPage(&buf, kit.EN, "Payment not found", "This payment link is not valid", ""); err != nil {
			t.Fatal(err)
		}
		checkInlineContentMatchesCSP(t, buf.String(), false)
	})
}

func TestHostileValuesAreEscaped(t *testing.T) {
	v := terminalView("COMPLETED", "javascript:alert(1)")
	v.MerchantName = `Evil "Shop" <img src=x onerror=alert(1)>`
	v.Reference = `<script>alert(1)</script>`
	v.Lock.PayerMasked = `<b>x</b>`
	p := pendingView()
	p.MerchantName, p.Reference = v.MerchantName, v.Reference
	p.Error = `</p><script>alert(2)</script>`
	p.Routes = []Route{{ID: `x" onclick="alert(3)`, Label: `<i>L</i>`, PayerKind: "phone", PayerLabel: `"><svg onload=alert(4)>`, Placeholder: `'`}}
	for name, page := range map[string]string{"terminal": render(t, v), "pending": render(t, p)} {
		t.Run(name, func(t *testing.T) {
			checkInlineContentMatchesCSP(t, page, true)
			mustNotContain(t, page, "<script>alert", "<img", "<svg", "<b>x", "<i>L", `"Shop"`, "javascript:alert")
			mustContain(t, page,
				"&lt;script&gt;alert(1)&lt;/script&gt;",
				"Evil &#34;Shop&#34; &lt;img src=x onerror=alert(1)&gt;")
			if got := textByID(t, page, "merchant-name"); got != `Evil "Shop" <img src=x onerror=alert(1)>` {
				t.Errorf("merchant text %q", got)
			}
			if got := textByID(t, page, "reference"); got != `<script>alert(1)</script>` {
				t.Errorf("reference text %q", got)
			}
		})
	}
	if a := tagByID(t, render(t, v), "return"); a["href"] != "#" {
		t.Errorf("javascript: return URL rendered as %q", a["href"])
	}
	mustContain(t, render(t, p), "&lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;")

	var buf bytes.Buffer
	if err := ErrorPage(&buf, kit.EN, `<script>alert(5)</script>`, `<img src=x onerror=alert(6)>`, ""); err != nil {
		t.Fatal(err)
	}
	mustNotContain(t, buf.String(), "<script", "<img")
	mustContain(t, buf.String(), "&lt;script&gt;alert(5)&lt;/script&gt;", "&lt;img src=x onerror=alert(6)&gt;")
}

func TestErrorPage(t *testing.T) {
	var buf bytes.Buffer
	if err := ErrorPage(&buf, kit.EN, "Payment not found", "This payment link is not valid", ""); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	mustContain(t, page, `<html lang="en">`, `name="viewport"`, "<title>Payment not found — Takapay</title>")
	if got := textByID(t, page, "error-title"); got != "Payment not found" {
		t.Errorf("title %q", got)
	}
	if got := textByID(t, page, "error-message"); got != "This payment link is not valid" {
		t.Errorf("message %q", got)
	}
	mustNotContain(t, page, "<form", "<script")
}

func TestSecurityHeaders(t *testing.T) {
	h := SecurityHeaders(false)
	want := map[string]string{
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
		"Content-Type":           "text/html; charset=utf-8",
	}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("%s = %q, want %q", k, h[k], v)
		}
	}
	keys := []string{}
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !slices.Equal(keys, []string{"Cache-Control", "Content-Security-Policy", "Content-Type", "Referrer-Policy", "X-Content-Type-Options", "X-Frame-Options"}) {
		t.Errorf("headers %v", keys)
	}

	csp := cspSources(t, h["Content-Security-Policy"])
	wantCSP := map[string][]string{
		"default-src":     {"'none'"},
		"script-src":      {sha256Source(scriptSource)},
		"style-src":       {sha256Source(style.Source())},
		"img-src":         {"'self'", "data:"},
		"connect-src":     {"'self'"},
		"form-action":     {"'self'", "https:"},
		"base-uri":        {"'none'"},
		"frame-ancestors": {"'none'"},
	}
	if len(csp) != len(wantCSP) {
		t.Errorf("CSP %q has %d directives, want %d", h["Content-Security-Policy"], len(csp), len(wantCSP))
	}
	for d, sources := range wantCSP {
		if !slices.Equal(csp[d], sources) {
			t.Errorf("%s %v, want %v", d, csp[d], sources)
		}
	}

	// Each call returns a new map: callers add Location and error headers to it.
	h["Location"] = "https://example.com/"
	if _, leaked := SecurityHeaders(false)["Location"]; leaked {
		t.Errorf("SecurityHeaders returned a shared map")
	}

	dev := cspSources(t, SecurityHeaders(true)["Content-Security-Policy"])
	if want := []string{"'self'", "https:", "http://localhost:*", "http://127.0.0.1:*"}; !slices.Equal(dev["form-action"], want) {
		t.Errorf("dev form-action %v, want %v", dev["form-action"], want)
	}
	if !slices.Equal(dev["frame-ancestors"], []string{"'none'"}) {
		t.Errorf("dev frame-ancestors %v", dev["frame-ancestors"])
	}
	if got := cspSources(t, SecurityHeaders(false)["Content-Security-Policy"])["form-action"]; !slices.Equal(got, []string{"'self'", "https:"}) {
		t.Errorf("form-action after reset %v", got)
	}
}

func TestAssets(t *testing.T) {
	if strings.Contains(strings.ToLower(scriptSource), "</script") || strings.Contains(strings.ToLower(style.Source()), "</style") {
		t.Fatal("an asset contains its own end tag")
	}
	// The script carries no words of its own: it shows the server's headlines, from the
	// page's data-messages, in the page's language; and it polls as documented.
	for _, l := range kit.Langs {
		for _, status := range []string{"COMPLETED", "FAILED", "CANCELLED", "EXPIRED"} {
			if title := StateTitle(l, status); strings.Contains(scriptSource, title) || !strings.Contains(scriptMessages(l), `"`+status+`":"`+title+`"`) {
				t.Errorf("%s %s: checkout.js holds %q, or the page's messages lack it", l, status, title)
			}
		}
	}
	mustNotContain(t, scriptSource, "Payment received", "Return to", "Check again", "Taking you back", "min left")
	mustContain(t, scriptSource, `Accept: "application/json"`, `cache: "no-store"`, "POLL_FIRST_MS = 3000", "POLL_MAX_MS = 30000",
		"POLL_BUDGET_MS = 600000", "POLL_MAX_COUNT = 30", `"If-None-Match"`, "REDIRECT_MS = 1500")
	for _, banned := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", ".style."} {
		if strings.Contains(scriptSource, banned) {
			t.Errorf("checkout.js uses %s", banned)
		}
	}
	if strings.Contains(style.Source(), "@import") || strings.Contains(style.Source(), "url(") {
		t.Errorf("checkout.css loads external resources")
	}
}

func TestViewJSON(t *testing.T) {
	v := lockedView("sandbox")
	v.Error = "secret-ish page text"
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"amount_display", "amount_minor", "currency", "environment", "expires_at", "invoice_id", "lock",
		"merchant_name", "reference", "routes", "status", "terminal"}
	if !slices.Equal(keys, want) {
		t.Errorf("JSON keys %v, want %v", keys, want)
	}
	if string(m["lock"]) != `{"route":"bkash","route_label":"bKash","payer_masked":"017•••••678"}` {
		t.Errorf("lock %s", m["lock"])
	}
	var routes []map[string]string
	if err := json.Unmarshal(m["routes"], &routes); err != nil || len(routes) != len(SandboxRoutes) || routes[0]["id"] != "bkash" || routes[0]["payer_kind"] != "phone" {
		t.Errorf("routes %s", m["routes"])
	}
	v = terminalView("COMPLETED", "https://shop.example.com.bd/ok?invoice_id=1")
	v.Lock = nil
	b, _ = json.Marshal(v)
	mustContain(t, string(b), `"lock":null`, `"terminal":true`, `"return_url":"https://shop.example.com.bd/ok?invoice_id=1"`)
}

func BenchmarkRenderPage(b *testing.B) {
	for name, v := range map[string]View{
		"pending":        pendingView(),
		"locked-sandbox": lockedView("sandbox"),
		"completed":      terminalView("COMPLETED", "https://shop.example.com.bd/thanks?order=42&invoice_id=8e60c1d2-4b7a-4f0e-9a51-2c3d4e5f6a7b"),
	} {
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := RenderPage(&buf, v); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}

func BenchmarkErrorPage(b *testing.B) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := ErrorPage(&buf, kit.EN, "Payment not found", "This payment link is not valid", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
