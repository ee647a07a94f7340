package publicdoc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/document"
	kit "github.com/takapay/payments/shared/foundation/page"
)

func render(t *testing.T, p Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderPage(&buf, p); err != nil {
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
	startTagRE     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	attrRE         = regexp.MustCompile(`\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?`)
	styleRE        = regexp.MustCompile(`(?s)<style\b([^>]*)>(.*?)</style>`)
	formRE         = regexp.MustCompile(`(?s)<form\b([^>]*)>(.*?)</form>`)
	selectRE       = regexp.MustCompile(`(?s)(<select\b[^>]*>)(.*?)</select>`)
	optionRE       = regexp.MustCompile(`<option\b[^>]*>`)
	textareaRE     = regexp.MustCompile(`(?s)(<textarea\b[^>]*>)(.*?)</textarea>`)
	fieldsetRE     = regexp.MustCompile(`(?s)<fieldset\b[^>]*>\s*<legend>(.*?)</legend>(.*?)</fieldset>`)
	quotedRE       = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	eventHandlerRE = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	styleAttrRE    = regexp.MustCompile(`(?i)\sstyle\s*=`)
)

// tagName returns the lower-case element name of a start tag.
func tagName(tag string) string {
	end := strings.IndexAny(tag, " \t\n>")
	return strings.ToLower(tag[1:end])
}

// attrs parses the attributes of one start tag (values unescaped).
func attrs(tag string) map[string]string {
	out := map[string]string{}
	inner := strings.TrimSuffix(tag[strings.IndexAny(tag, " \t\n>"):], ">")
	for _, m := range attrRE.FindAllStringSubmatch(inner, -1) {
		out[strings.ToLower(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

// markup is page without the contents of its <style> element.
func markup(page string) string {
	return styleRE.ReplaceAllString(page, "<style$1></style>")
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

func hasID(page, id string) bool {
	for _, tag := range startTagRE.FindAllString(markup(page), -1) {
		if attrs(tag)["id"] == id {
			return true
		}
	}
	return false
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

// Every page: no script at all, one style that the CSP hashes, no inline handlers or style
// attributes, no javascript: URL, unique ids.
func TestPagesHaveNoScriptAndMatchTheCSP(t *testing.T) {
	csp := cspSources(t, SecurityHeaders(false)["Content-Security-Policy"])
	for name, page := range renderGolden(t) {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(strings.ToLower(page), "<script") {
				t.Errorf("page has a <script")
			}
			styles := styleRE.FindAllStringSubmatch(page, -1)
			if n := strings.Count(strings.ToLower(page), "<style"); n != 1 || len(styles) != 1 {
				t.Fatalf("%d <style tags, %d style elements, want 1", n, len(styles))
			}
			if got := sha256Source(styles[0][2]); styles[0][1] != "" || styles[0][2] != style.Source() || !slices.Equal(csp["style-src"], []string{got}) {
				t.Errorf("style-src %v, inline style (attrs %q) hashes to %s", csp["style-src"], styles[0][1], got)
			}
			m := markup(page)
			ids := map[string]bool{}
			for _, tag := range startTagRE.FindAllString(m, -1) {
				names := quotedRE.ReplaceAllString(tag, `""`) // attribute names only, whatever the values hold
				if eventHandlerRE.MatchString(names) {
					t.Errorf("inline event handler: %s", tag)
				}
				if styleAttrRE.MatchString(names) {
					t.Errorf("style attribute: %s", tag)
				}
				if id, ok := attrs(tag)["id"]; ok {
					if ids[id] || id == "" || strings.ContainsAny(id, " \t\n\f\r") {
						t.Errorf("id %q repeated, empty or with white space", id)
					}
					ids[id] = true
				}
				for _, a := range []string{"src", "href", "action"} {
					if u, ok := attrs(tag)[a]; ok && (strings.HasPrefix(u, "//") || strings.Contains(strings.ToLower(u), "javascript:")) {
						t.Errorf("%s=%q", a, u)
					}
				}
			}
			if strings.Contains(strings.ToLower(m), "javascript:") {
				t.Errorf("javascript: in markup")
			}
			lang := name[strings.LastIndexByte(name, '.')+1:]
			mustContain(t, page, "<!doctype html>\n<html lang=\""+lang+"\">", `<meta name="viewport" content="width=device-width, initial-scale=1">`,
				`<meta name="color-scheme" content="light dark">`, `<meta name="robots" content="noindex, nofollow">`, "<title>", "<h1", "<main")
		})
	}
}

// Every form control has a label tied to it by for/id (a radio's group also has a legend), and
// every label names a control that exists.
func TestLabelsAreAssociated(t *testing.T) {
	for name, page := range renderGolden(t) {
		t.Run(name, func(t *testing.T) {
			m := markup(page)
			controls := map[string]string{} // id → element name
			labelFor := map[string]int{}
			for _, tag := range startTagRE.FindAllString(m, -1) {
				a := attrs(tag)
				switch n := tagName(tag); n {
				case "input", "select", "textarea":
					if a["type"] == "hidden" {
						continue
					}
					if a["id"] == "" {
						t.Errorf("control without id: %s", tag)
					}
					controls[a["id"]] = n
				case "label":
					labelFor[a["for"]]++
				}
			}
			for id := range controls {
				if labelFor[id] != 1 {
					t.Errorf("control #%s has %d labels", id, labelFor[id])
				}
			}
			for id := range labelFor {
				if _, ok := controls[id]; !ok {
					t.Errorf("label for=%q names no control", id)
				}
			}
			// Radios are grouped in a fieldset with a legend.
			radios := strings.Count(m, `type="radio"`)
			inGroups := 0
			for _, fs := range fieldsetRE.FindAllStringSubmatch(m, -1) {
				if strings.TrimSpace(fs[1]) == "" {
					t.Errorf("empty legend")
				}
				inGroups += strings.Count(fs[2], `type="radio"`)
			}
			if radios != inGroups {
				t.Errorf("%d radios, %d in a fieldset with a legend", radios, inGroups)
			}
		})
	}
}

// submit returns what a browser would post for the page's form as it is rendered (every
// control with a name: inputs' values, checked boxes, the selected or first option, the
// textarea's text).
func submit(t *testing.T, page string) string {
	t.Helper()
	forms := formRE.FindAllStringSubmatch(markup(page), -1)
	if len(forms) != 1 {
		t.Fatalf("%d forms", len(forms))
	}
	body := forms[0][2]
	var pairs []string
	add := func(name, value string) { pairs = append(pairs, url.QueryEscape(name)+"="+url.QueryEscape(value)) }
	for _, tag := range startTagRE.FindAllString(body, -1) {
		a := attrs(tag)
		if tagName(tag) != "input" || a["name"] == "" {
			continue
		}
		if a["type"] == "checkbox" || a["type"] == "radio" {
			if _, checked := a["checked"]; !checked {
				continue
			}
		}
		add(a["name"], a["value"])
	}
	for _, s := range selectRE.FindAllStringSubmatch(body, -1) {
		options := optionRE.FindAllString(s[2], -1)
		value := attrs(options[0])["value"]
		for _, o := range options {
			if _, sel := attrs(o)["selected"]; sel {
				value = attrs(o)["value"]
			}
		}
		add(attrs(s[1])["name"], value)
	}
	for _, ta := range textareaRE.FindAllStringSubmatch(body, -1) {
		add(attrs(ta[1])["name"], html.UnescapeString(strings.TrimPrefix(ta[2], "\n")))
	}
	return strings.Join(pairs, "&")
}

// Refilled answers, posted back as the browser posts the form, are the same answers.
func TestRefilledFormPostsTheSameAnswers(t *testing.T) {
	p := linkPage(t)
	for _, body := range []string{
		`{"quantity":3,"fields":{"size":"L","colour":"Red","print_name":"Rahim \"R\" <b>","note":"line 1\n\nline 3 & more","terms":true,"news":true},"payer":{"name":"Karim","email":"karim@example.com","phone":"01711000000"}}`,
		`{"fields":{"size":"S","terms":true}}`,
		`{"quantity":5,"fields":{"size":"M","terms":true,"note":"\n\nstarts with blank lines"}}`,
	} {
		a, err := ParseAnswers([]byte(body), false, p.View)
		if err != nil {
			t.Fatal(err)
		}
		p.Values = *a
		posted := submit(t, render(t, p))
		again, err := ParseAnswers([]byte(posted), true, p.View)
		if err != nil {
			t.Fatalf("posting %q: %v", posted, err)
		}
		if again.Canonical() != a.Canonical() {
			t.Errorf("posted %q\ngot  %s\nwant %s", posted, again.Canonical(), a.Canonical())
		}
	}
	// The empty form of a link and of an invoice posts only defaults: the required fields are
	// missing, nothing else is refused.
	for _, p := range []Page{linkPage(t), invoicePage(t, document.StatusIssued, 0)} {
		posted := submit(t, render(t, p))
		_, err := ParseAnswers([]byte(posted), true, p.View)
		for _, path := range paths(err) {
			if !slices.Contains([]string{"body.fields.size", "body.fields.terms", "body.fields.student"}, path) {
				t.Errorf("empty form %q: %v", posted, err)
			}
		}
	}
}

func TestPageStates(t *testing.T) {
	t.Run("payable link", func(t *testing.T) {
		page := render(t, linkPage(t))
		forms := formRE.FindAllStringSubmatch(markup(page), -1)
		if len(forms) != 1 {
			t.Fatalf("%d forms", len(forms))
		}
		if a := attrs("<form" + forms[0][1] + ">"); a["method"] != "post" || a["action"] != testAction {
			t.Errorf("form %v", a)
		}
		if textByID(t, page, "continue") != "Continue to payment" || textByID(t, page, "amount") != "৳850.00" {
			t.Errorf("button %q amount %q", textByID(t, page, "continue"), textByID(t, page, "amount"))
		}
		q := attrsByID(t, page, "quantity")
		if q["type"] != "number" || q["min"] != "1" || q["max"] != "5" || q["name"] != "quantity" || q["value"] != "1" {
			t.Errorf("quantity %v", q)
		}
		names := map[string]bool{}
		for _, tag := range startTagRE.FindAllString(forms[0][2], -1) {
			if n, ok := attrs(tag)["name"]; ok {
				names[n] = true
			}
		}
		var got []string
		for n := range names {
			got = append(got, n)
		}
		sort.Strings(got)
		want := []string{"field.colour", "field.news", "field.note", "field.print_name", "field.size", "field.terms", "payer_email", "payer_name", "payer_phone", "quantity"}
		if !slices.Equal(got, want) {
			t.Errorf("form names %v, want %v (no file input)", got, want)
		}
		mustContain(t, page, `Size <span class="req">(required)</span>`, `id="field-size" required>`, `id="field-terms" value="true" required>`,
			"File upload is not available yet", `autocomplete="name"`, `autocomplete="email"`, `autocomplete="tel"`, `id="sandbox-banner"`,
			`maxlength="1000"`, `maxlength="4000"`, `<legend>Colour</legend>`, `<time datetime="2026-03-31T18:00:00Z">1 April 2026, 00:00</time> (Dhaka time)`)
		mustNotContain(t, page, `type="file"`, "has been paid", "no longer payable")
	})
	t.Run("link of one unit", func(t *testing.T) {
		p := linkPage(t)
		p.View.MaxQuantity = 1
		page := render(t, p)
		mustContain(t, page, `<input type="hidden" name="quantity" value="1">`, "<p class=\"amount-label\" id=\"amount-label\">Price</p>")
		if hasID(page, "quantity") {
			t.Errorf("visible quantity")
		}
	})
	t.Run("payable invoice", func(t *testing.T) {
		page := render(t, invoicePage(t, document.StatusIssued, 50000))
		mustContain(t, page, `<input type="hidden" name="quantity" value="1">`, "Continue to payment", "Amount due",
			`<td>Physics textbook</td><td class="num">2</td><td class="num"><span class="money">৳750.00</span></td><td class="num"><span class="money">৳1,500.00</span></td>`,
			`<th scope="row">Discount</th><td class="num"><span class="money">-৳50.00</span></td>`, `<th scope="row">Paid</th><td class="num"><span class="money">৳500.00</span></td>`,
			`Due <time datetime="2026-03-15T12:00:00Z">15 March 2026, 18:00</time> (Dhaka time)`)
		// Whom the invoice is for, by name only: never the customer's email, phone or notes.
		mustNotContain(t, page, "sandbox-banner", "PRIVATE", "private.payer", "1711", "notes")
		mustContain(t, page, `<p class="billed-to">Billed to: <span id="customer-name">Rahim Uddin</span></p>`)
		if strings.Index(page, `id="customer-name"`) > strings.Index(page, `id="amount"`) {
			t.Errorf("the customer's name is below the amount")
		}
		if textByID(t, page, "amount") != "৳1,632.50" {
			t.Errorf("amount %q", textByID(t, page, "amount"))
		}
	})
	t.Run("paid invoice", func(t *testing.T) {
		page := render(t, invoicePage(t, document.StatusIssued, invoiceTotal))
		if got := textByID(t, page, "status-title"); got != "This invoice has been paid" {
			t.Errorf("title %q", got)
		}
		mustNotContain(t, page, "<form", "<input", "Continue to payment", "Due ")
		if textByID(t, page, "amount-label") != "Invoice total" || textByID(t, page, "amount") != "৳2,132.50" {
			t.Errorf("amount %q %q", textByID(t, page, "amount-label"), textByID(t, page, "amount"))
		}
	})
	for _, c := range []struct {
		name, title string
		p           Page
	}{
		{"cancelled invoice", "This invoice is no longer payable", invoicePage(t, document.StatusCancelled, 0)},
		{"archived link", "This payment link is no longer payable", func() Page {
			p := linkPage(t)
			p.View = mustView(t, record(t, document.PaymentLinks, document.StatusArchived, linkBody, 0), testNow)
			return p
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := render(t, c.p)
			if got := textByID(t, page, "status-title"); got != c.title {
				t.Errorf("title %q", got)
			}
			mustNotContain(t, page, "<form", "<input", "<select", "<textarea", "Continue to payment", "Amount due", "Available until")
		})
	}
	t.Run("error", func(t *testing.T) {
		p := linkPage(t)
		p.Error = "Choose a size"
		page := render(t, p)
		mustContain(t, page, `<div class="error" id="error" role="alert"><p>Choose a size</p></div>`)
		if strings.Contains(render(t, linkPage(t)), `role="alert"`) {
			t.Errorf("alert without an error")
		}
	})
	t.Run("no view", func(t *testing.T) {
		if err := RenderPage(&bytes.Buffer{}, Page{}); err == nil {
			t.Errorf("no error")
		}
	})
}

func attrsByID(t *testing.T, page, id string) map[string]string {
	t.Helper()
	for _, tag := range startTagRE.FindAllString(markup(page), -1) {
		if a := attrs(tag); a["id"] == id {
			return a
		}
	}
	t.Fatalf("no #%s", id)
	return nil
}

func TestDatesInDhakaTime(t *testing.T) {
	p := invoicePage(t, document.StatusIssued, 0)
	for at, want := range map[string]string{
		"2026-12-31T20:30:00-04:00": `<time datetime="2027-01-01T00:30:00Z">1 January 2027, 06:30</time>`,
		"2026-06-01T00:00:00.5Z":    `<time datetime="2026-06-01T00:00:00Z">1 June 2026, 06:00</time>`,
		"not a date <b>":            `Due not a date &lt;b&gt; (Dhaka time)</p>`,
	} {
		p.View.DueAt = &at
		mustContain(t, render(t, p), want)
	}
}

func TestHostileValuesAreEscaped(t *testing.T) {
	v := hostileView()
	v.MerchantName = `Evil "Shop" <img src=x onerror=alert(1)>`
	v.Reference = `<script>alert(1)</script>`
	p := Page{View: v, Action: "javascript:alert(1)", Error: `</p><script>alert(2)</script>`,
		Values: Answers{Fields: map[string]Answer{"ta</textarea><script>": {Text: "</textarea><script>alert(3)</script>"}}}}
	page := render(t, p)
	mustNotContain(t, page, "<script", "<img", "<svg", "<label for=x", "<legend><", `"><option>`, "<input onmouseover", "<input type=file", "javascript:")
	mustContain(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "Evil &#34;Shop&#34; &lt;img src=x onerror=alert(1)&gt;",
		"&lt;/p&gt;&lt;script&gt;alert(2)&lt;/script&gt;", `action="#"`, "&lt;/textarea&gt;&lt;script&gt;alert(3)&lt;/script&gt;</textarea>")
	if got := textByID(t, page, "merchant-name"); got != v.MerchantName {
		t.Errorf("merchant text %q", got)
	}
	if got := textByID(t, page, "reference"); got != v.Reference {
		t.Errorf("reference text %q", got)
	}
	// A field id with quotes stays inside its attributes.
	a := attrsByID(t, page, fieldDOMID(`x" onfocus="alert(4)`))
	if _, handler := a["onfocus"]; a["name"] != `field.x" onfocus="alert(4)` || handler || len(a) != 6 {
		t.Errorf("attributes %v", a)
	}

	var buf bytes.Buffer
	if err := ErrorPage(&buf, kit.EN, `<script>alert(5)</script>`, `<img src=x onerror=alert(6)>`, ""); err != nil {
		t.Fatal(err)
	}
	mustNotContain(t, buf.String(), "<script", "<img")
	mustContain(t, buf.String(), "&lt;script&gt;alert(5)&lt;/script&gt;", "&lt;img src=x onerror=alert(6)&gt;")
}

func TestFieldDOMID(t *testing.T) {
	ids := []string{"a", "a.b", "a:b", "a_b", "a-b", "a~2eb", "a b", "a~o1", "", "ক", "a_2eb", "a-1", "a-1-1", "1", "option-a", "field-a"}
	seen := map[string]string{}
	for _, id := range ids {
		for _, d := range []string{fieldDOMID(id), optionDOMID(id, 1), optionDOMID(id, 2)} {
			if other, dup := seen[d]; dup {
				t.Errorf("%q and %q both give %q", id, other, d)
			}
			seen[d] = id
			if strings.ContainsAny(d, " \t\n\f\r\"'<>&") {
				t.Errorf("%q gives %q", id, d)
			}
		}
	}
	if got := fieldDOMID("gift.wrap:v_2-x"); got != "field-gift.wrap:v_2-x" {
		t.Errorf("plain id kept as %q", got)
	}
	if got := optionDOMID("colour", 2); got != "option-colour-2" {
		t.Errorf("option id %q", got)
	}
}

func TestErrorPage(t *testing.T) {
	var buf bytes.Buffer
	if err := ErrorPage(&buf, kit.EN, "Document not found", "This link is not valid", ""); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	mustContain(t, page, `<html lang="en">`, `name="viewport"`, "<title>Document not found — Takapay</title>")
	if got := textByID(t, page, "error-title"); got != "Document not found" {
		t.Errorf("title %q", got)
	}
	if got := textByID(t, page, "error-message"); got != "This link is not valid" {
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
	var keys []string
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
		"style-src":       {sha256Source(style.Source())},
		"img-src":         {"'self'", "data:"},
		"form-action":     {"'self'"},
		"base-uri":        {"'none'"},
		"frame-ancestors": {"'none'"},
	}
	if len(csp) != len(wantCSP) {
		t.Errorf("CSP %q has %d directives, want %d (no script-src, no connect-src)", h["Content-Security-Policy"], len(csp), len(wantCSP))
	}
	for d, sources := range wantCSP {
		if !slices.Equal(csp[d], sources) {
			t.Errorf("%s %v, want %v", d, csp[d], sources)
		}
	}
	// Each call returns a new map: callers add Location and error headers to it.
	h["Location"] = "/v1/public/checkout/x"
	if _, leaked := SecurityHeaders(false)["Location"]; leaked {
		t.Errorf("SecurityHeaders returned a shared map")
	}
	dev := cspSources(t, SecurityHeaders(true)["Content-Security-Policy"])
	if want := []string{"'self'", "http://localhost:*", "http://127.0.0.1:*"}; !slices.Equal(dev["form-action"], want) {
		t.Errorf("dev form-action %v, want %v", dev["form-action"], want)
	}
	if _, ok := dev["script-src"]; ok {
		t.Errorf("dev CSP has script-src")
	}
}

func TestAssets(t *testing.T) {
	if strings.Contains(strings.ToLower(style.Source()), "</style") {
		t.Fatal("the stylesheet contains its own end tag")
	}
	if strings.Contains(style.Source(), "@import") || strings.Contains(style.Source(), "url(") {
		t.Errorf("publicdoc.css loads external resources")
	}
	// Every class the markup uses is styled (or is a deliberate hook).
	classes := map[string]bool{}
	for _, page := range renderGolden(t) {
		for _, tag := range startTagRE.FindAllString(markup(page), -1) {
			for _, c := range strings.Fields(attrs(tag)["class"]) {
				classes[c] = true
			}
		}
	}
	for c := range classes {
		if c != "answers" && !strings.Contains(style.Source(), "."+c) {
			t.Errorf("class %q has no rule", c)
		}
	}
}
