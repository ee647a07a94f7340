package htmlw

import (
	"bytes"
	"errors"
	"html"
	"html/template" // only as the reference the escaping is checked against
	"strings"
	"testing"
)

// hostile strings: every byte the escapers treat specially, markup, entities, NUL, control
// characters, non-ASCII text and bytes that are not UTF-8.
var hostile = []string{
	"",
	"plain text 123",
	`<script>alert("x")</script>`,
	`"><img src=x onerror=alert(1)>`,
	`' onmouseover='alert(1)`,
	"a & b &amp; c &#34; &lt;",
	"1 + 1 = 2",
	"+ADw-script+AD4-alert(1)+ADw-/script+AD4-",
	"nul\x00byte",
	"tab\tnewline\ncr\rff\f",
	"৳1,500.00 · 017•••••678 — ok",
	"bad utf-8 \xff\xfe \xe0\xa7",
	"\ufdd0\uffff noncharacters",
	"</title></textarea></p>",
	"%41%zz%4 %",
}

func TestEscapeString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"&", "&amp;"},
		{"<", "&lt;"},
		{">", "&gt;"},
		{`"`, "&#34;"},
		{"'", "&#39;"},
		{"+", "&#43;"},
		{"\x00", "\uFFFD"},
		{"&amp;", "&amp;amp;"},
		{`<a href="x">O'Neil & Sons + co</a>`, "&lt;a href=&#34;x&#34;&gt;O&#39;Neil &amp; Sons &#43; co&lt;/a&gt;"},
		{"৳ \xff \t\n", "৳ \xff \t\n"},
	} {
		if got := EscapeString(c.in); got != c.want {
			t.Errorf("EscapeString(%q) = %q, want %q", c.in, got, c.want)
		}
		var b Builder
		b.Text(c.in)
		if b.String() != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
	for _, s := range hostile {
		e := EscapeString(s)
		if strings.ContainsAny(e, "<>\"'+\x00") {
			t.Errorf("EscapeString(%q) = %q keeps a special character", s, e)
		}
		if want := strings.ReplaceAll(s, "\x00", "\uFFFD"); html.UnescapeString(e) != want {
			t.Errorf("EscapeString(%q) = %q does not unescape back", s, e)
		}
	}
}

func TestAttr(t *testing.T) {
	var b Builder
	b.Raw("<input")
	b.Attr("value", `x" onclick="alert(1)`)
	b.Attr("data-label", "<b>O'Neil</b> & co")
	b.Attr("placeholder", "")
	b.Raw(">")
	want := `<input value="x&#34; onclick=&#34;alert(1)" data-label="&lt;b&gt;O&#39;Neil&lt;/b&gt; &amp; co" placeholder="">`
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	for _, s := range hostile {
		var b Builder
		b.Attr("title", s)
		out := b.String()
		if !strings.HasPrefix(out, ` title="`) || !strings.HasSuffix(out, `"`) || strings.Count(out, `"`) != 2 || strings.ContainsAny(out, "<>'") {
			t.Errorf("Attr(title, %q) = %s: the value can leave its quotes", s, out)
		}
	}
}

func TestSafeURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Refused: a scheme other than http or https, however it is spelled.
		{"javascript:alert(1)", "#"},
		{"JavaScript:alert(1)", "#"},
		{" javascript:alert(1)", "#"},
		{"\x00javascript:alert(1)", "#"},
		{"java\tscript:alert(1)", "#"},
		{"java\nscript:alert(1)", "#"},
		{"data:text/html,<script>alert(1)</script>", "#"},
		{"vbscript:msgbox(1)", "#"},
		{"mailto:shop@example.com", "#"},
		{"file:///etc/passwd", "#"},
		{"ftp://example.com/", "#"},
		{"?next=a:b", "#"},
		{"https\x00:x", "#"},
		// Allowed: http, https (any case), relative and scheme-relative URLs.
		{"", ""},
		{"https://shop.example.com.bd/thanks?order=42&invoice_id=1#top", "https://shop.example.com.bd/thanks?order=42&invoice_id=1#top"},
		{"HTTP://SHOP.EXAMPLE/A", "HTTP://SHOP.EXAMPLE/A"},
		{"HttpS://x/", "HttpS://x/"},
		{"/v1/public/checkout/lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ_-/lock", "/v1/public/checkout/lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ_-/lock"},
		{"../thanks?a=1&b=2+3", "../thanks?a=1&b=2+3"},
		{"//shop.example/x", "//shop.example/x"},
		{"/a/b:c", "/a/b:c"},
		{"#frag", "#frag"},
		// Entities are not decoded: the & is escaped in the attribute, so this stays relative.
		{"javascript&#58;alert(1)//:", "javascript&#58;alert%281%29//:"},
		// Normalised: bytes that are not allowed in a URL are percent-encoded.
		{"/a b", "/a%20b"},
		{`/"q"`, "/%22q%22"},
		{"/'q'", "/%27q%27"},
		{"/<x>", "/%3cx%3e"},
		{"/(p)", "/%28p%29"},
		{"/{}|\\^`", "/%7b%7d%7c%5c%5e%60"},
		{"/৳", "/%e0%a7%b3"},
		{"/\x00\xff\t\n", "/%00%ff%09%0a"},
		{"/%41%4a%4A%zz%4", "/%41%4a%4A%25zz%254"},
		{"/%", "/%25"},
		{"/a%2", "/a%252"},
		{"https://x/[::1]!$*,;=@~", "https://x/[::1]!$*,;=@~"},
	} {
		if got := SafeURL(c.in); got != c.want {
			t.Errorf("SafeURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestURLAttr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://shop.example/ok?a=1&b=2+3", ` href="https://shop.example/ok?a=1&amp;b=2&#43;3"`},
		{`/x?a="b"&c=<d>`, ` href="/x?a=%22b%22&amp;c=%3cd%3e"`},
		{"javascript:alert(1)", ` href="#"`},
		{`" onclick="alert(1)`, ` href="%22%20onclick=%22alert%281%29"`},
	} {
		var b Builder
		b.URLAttr("href", c.in)
		if b.String() != c.want {
			t.Errorf("URLAttr(href, %q) = %s, want %s", c.in, b.String(), c.want)
		}
	}
	for _, s := range hostile {
		var b Builder
		b.URLAttr("href", s)
		out := b.String()
		value, ok := strings.CutPrefix(out, ` href="`)
		if value, ok = strings.CutSuffix(value, `"`); !ok || strings.ContainsAny(value, "<>\"' \t\n\x00") {
			t.Errorf("URLAttr(href, %q) = %s", s, out)
		}
	}
}

func TestBuilder(t *testing.T) {
	var b Builder
	b.Grow(100)
	b.Raw("<p")
	b.Attr("class", "a")
	b.Raw(">")
	b.Text("x<y")
	b.Raw("</p>")
	const want = `<p class="a">x&lt;y</p>`
	if b.String() != want || string(b.Bytes()) != want || b.Len() != len(want) {
		t.Fatalf("got %q", b.String())
	}
	var out bytes.Buffer
	if n, err := b.WriteTo(&out); err != nil || n != int64(len(want)) || out.String() != want {
		t.Fatalf("WriteTo: %d %v %q", n, err, out.String())
	}
	if _, err := b.WriteTo(failingWriter{}); err == nil {
		t.Fatal("WriteTo hid the writer's error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// reference renders s with html/template in the contexts htmlw covers: text, RCDATA,
// attribute values, URL attributes.
var reference = template.Must(template.New("").Parse(
	`<p>{{.}}</p>|<title>{{.}}</title>|<a title="{{.}}" data-x="{{.}}">|` +
		`<a href="{{.}}">|<form action="{{.}}">|<main data-status-url="{{.}}">`))

func referenceRender(t testing.TB, s string) string {
	var buf bytes.Buffer
	if err := reference.Execute(&buf, s); err != nil {
		t.Fatal(err)
	}
	// The intended differences: htmlw writes "#" for a refused URL, and refuses mailto:.
	out := strings.ReplaceAll(buf.String(), `"#ZgotmplZ"`, `"#"`)
	if scheme, _, ok := strings.Cut(s, ":"); ok && strings.EqualFold(scheme, "mailto") {
		text, _, _ := strings.Cut(out, "|<a href=")
		out = text + `|<a href="#">|<form action="#">|<main data-status-url="#">`
	}
	return out
}

func render(s string) string {
	var b Builder
	b.Raw("<p>")
	b.Text(s)
	b.Raw("</p>|<title>")
	b.Text(s)
	b.Raw("</title>|<a")
	b.Attr("title", s)
	b.Attr("data-x", s)
	b.Raw(">|<a")
	b.URLAttr("href", s)
	b.Raw(">|<form")
	b.URLAttr("action", s)
	b.Raw(">|<main")
	b.URLAttr("data-status-url", s)
	b.Raw(">")
	return b.String()
}

// TestMatchesHTMLTemplate checks the escaping against html/template's for the same contexts.
func TestMatchesHTMLTemplate(t *testing.T) {
	inputs := append([]string{
		"javascript:alert(1)", "mailto:a@b.c", "MAILTO:a b", "https://x/a b?c=\"d\"&e=f+g#h",
		"/rel/path?x=1", "//scheme.relative/", "?a:b", "%", "%4", "%41", "%zz",
	}, hostile...)
	for _, s := range inputs {
		if got, want := render(s), referenceRender(t, s); got != want {
			t.Errorf("input %q:\n got  %s\n want %s", s, got, want)
		}
	}
}

func FuzzMatchesHTMLTemplate(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("javascript:alert(1)")
	f.Add("https://x/a b?c=\"d\"&e=f+g#h")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := render(s), referenceRender(t, s); got != want {
			t.Errorf("input %q:\n got  %s\n want %s", s, got, want)
		}
	})
}
