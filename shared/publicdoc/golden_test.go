package publicdoc

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/document"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/*.html from the current renderer")

// The golden files hold the rendered documents with the inline style replaced by this marker,
// so that they stay readable and do not change when the stylesheet does. The test expands the
// marker and compares the whole document byte for byte.
const goldenStyle = "<style>@@assets/publicdoc.css@@</style>"

func collapseAssets(page string) string {
	return strings.Replace(page, "<style>"+styleSource+"</style>", goldenStyle, 1)
}

func expandAssets(golden string) string {
	return strings.Replace(golden, goldenStyle, "<style>"+styleSource+"</style>", 1)
}

// hostile holds every character that matters to HTML or URL escaping, a NUL, a tab, a
// non-breaking space, non-ASCII text and a byte that is not UTF-8.
const hostile = `<script>alert("x")</script> & 'q' + 1 > 0 a=b;c%41%zz (p) ` + "\x00\t\u00a0৳\xff"

// testAction is the page's own path.
const testAction = "/v1/public/documents/lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ_-"

func linkPage(t *testing.T) Page {
	return Page{View: mustView(t, record(t, document.PaymentLinks, document.StatusActive, linkBody, 0), testNow), Action: testAction, Sandbox: true}
}

// invoicePage is an invoice's page without the sandbox banner (the record is a sandbox one: a
// live one would not be payable in this release, see unavailableInvoicePage).
func invoicePage(t *testing.T, status string, paid int64) Page {
	rec := record(t, document.Invoices, status, invoiceBody, paid)
	return Page{View: mustView(t, rec, testNow), Action: testAction}
}

// unavailableInvoicePage is a live invoice's page: this release takes sandbox payments only.
func unavailableInvoicePage(t *testing.T) Page {
	rec := record(t, document.Invoices, document.StatusIssued, invoiceBody, 0)
	rec.Environment = "live"
	return Page{View: mustView(t, rec, testNow), Action: testAction}
}

// hostileView is a payable payment link whose every string is hostile.
func hostileView() *View {
	due := `2026-03-15T18:00:00Z"><script>alert(7)</script>`
	return &View{
		Kind: document.PaymentLinks, Reference: `ORDER "42" & <b>co</b> 'x' + y`,
		MerchantName: `Evil "Shop" & Sons' <img src=x onerror=alert(1)> ` + hostile,
		Environment:  "sandbox", Description: "<p onclick=alert(2)>desc</p>\n" + hostile,
		Items:       []document.LineItem{{Title: `<svg onload=alert(3)>` + hostile, Quantity: 2, UnitAmountMinor: 100}},
		AmountMinor: 100, TotalMinor: 100, OutstandingMinor: 100, AmountDisplay: "৳1.00 " + hostile,
		ExpiresAt: &due, MaxQuantity: 3, State: StatePayable,
		Fields: []Field{
			{ID: `x" onfocus="alert(4)`, Label: `<label for=x>` + hostile, Type: "text", Required: true},
			{ID: "ta</textarea><script>", Label: `</textarea><script>alert(5)</script>`, Type: "textarea"},
			{ID: "sel", Label: `"><select>` + hostile, Type: "select", Options: []string{`"><option>`, hostile, `</select><script>alert(6)</script>`}},
			{ID: "rad io", Label: `<legend>` + hostile, Type: "radio", Required: true, Options: []string{`" checked onclick="alert(8)`, hostile}},
			{ID: "chk'", Label: `<input onmouseover=alert(9)>` + hostile, Type: "checkbox"},
			{ID: "fil<e>", Label: `<input type=file>` + hostile, Type: "file"},
		},
	}
}

type goldenCase struct {
	name string
	page func(t *testing.T) Page
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"payable-link-all-fields", linkPage},
		{"payable-invoice", func(t *testing.T) Page { return invoicePage(t, document.StatusIssued, 50000) }},
		{"paid-invoice", func(t *testing.T) Page { return invoicePage(t, document.StatusIssued, invoiceTotal) }},
		{"closed-invoice", func(t *testing.T) Page { return invoicePage(t, document.StatusCancelled, 0) }},
		{"unavailable-invoice", unavailableInvoicePage},
		{"closed-link", func(t *testing.T) Page {
			p := linkPage(t)
			p.View = mustView(t, record(t, document.PaymentLinks, document.StatusArchived, linkBody, 0), testNow)
			return p
		}},
		{"closed-link-expired-bare", func(t *testing.T) Page {
			p := linkPage(t)
			p.View = mustView(t, record(t, document.PaymentLinks, document.StatusActive, `{"reference":"X","amount_minor":100,"expires_at":"2026-01-01T00:00:00Z"}`, 0), testNow)
			p.View.MerchantName, p.Sandbox = "", false
			return p
		}},
		{"payable-link-single-no-fields", func(t *testing.T) Page {
			p := linkPage(t)
			p.View = mustView(t, record(t, document.PaymentLinks, document.StatusActive, `{"reference":"DONATE","amount_minor":50000}`, 0), testNow)
			p.Action = ""
			return p
		}},
		{"error-refill", func(t *testing.T) Page {
			p := linkPage(t)
			body := "quantity=4&field.size=L&field.colour=Red&field.print_name=Rahim+%22R%22&field.note=line+1%0D%0A%0D%0Aline+3" +
				"&field.news=on&payer_name=Karim&payer_email=karim%40&payer_phone=01711000000"
			a, err := ParseAnswers([]byte(body), true, p.View)
			if err == nil {
				t.Fatal("want a 422")
			}
			p.Error, p.Values = "Check your answers: "+apierr.As(err).Message, *a
			return p
		}},
		{"hostile", func(t *testing.T) Page {
			yes := true
			return Page{
				View:   hostileView(),
				Action: `/v1/public/documents/a b"c'd<e>f(g)h+i&j%41%zz৳` + "\x00\xff",
				Error:  `</p><script>alert(10)</script> & "x" 'y' +` + hostile,
				Values: Answers{
					Quantity: ptr(int64(2)),
					Fields: map[string]Answer{
						`x" onfocus="alert(4)`:  {Text: `"><script>alert(11)</script>`},
						"ta</textarea><script>": {Text: "</textarea><script>alert(12)</script>\n" + hostile},
						"sel":                   {Text: hostile},
						"rad io":                {Text: `" checked onclick="alert(8)`},
						"chk'":                  {Bool: &yes},
					},
					Payer: Payer{Name: `"><script>alert(13)</script>`, Email: `a"@b.co`, Phone: `<01711>`},
				},
				Sandbox: true,
			}
		}},
		{"hostile-javascript-action-paid", func(t *testing.T) Page {
			v := hostileView()
			v.Kind, v.State = document.Invoices, StatePaid
			return Page{View: v, Action: "javascript:alert(1)//"}
		}},
		{"hostile-closed-unknown-state", func(t *testing.T) Page {
			v := hostileView()
			v.State = hostile
			return Page{View: v, Action: "javascript:alert(1)//"}
		}},
	}
}

type errorCase struct{ name, title, message string }

var goldenErrorCases = []errorCase{
	{"error-page", "Document not found", "This link is not valid"},
	{"error-page-empty", "", ""},
	{"error-page-hostile", `<script>alert(5)</script> "t" & 't' +`, `<img src=x onerror=alert(6)> ` + hostile},
}

// renderGolden renders every golden case.
func renderGolden(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range goldenCases() {
		var buf bytes.Buffer
		if err := RenderPage(&buf, c.page(t)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out[c.name] = buf.String()
	}
	for _, c := range goldenErrorCases {
		var buf bytes.Buffer
		if err := ErrorPage(&buf, c.title, c.message); err != nil {
			t.Fatal(err)
		}
		out[c.name] = buf.String()
	}
	return out
}

// TestGolden compares the rendered documents with testdata/golden (go test -update rewrites
// them).
func TestGolden(t *testing.T) {
	for name, got := range renderGolden(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "golden", name+".html")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(collapseAssets(got)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update ./shared/publicdoc/ writes it)", err)
			}
			if want := expandAssets(string(golden)); got != want {
				t.Errorf("%s differs from %s:\n%s", name, path, firstDifference(want, got))
			}
		})
	}
	// Every golden file is a case (a renamed case leaves no stale file behind).
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.html"))
	cases := renderGolden(t)
	for _, f := range files {
		if _, ok := cases[strings.TrimSuffix(filepath.Base(f), ".html")]; !ok && !*updateGolden {
			t.Errorf("%s is no golden case", f)
		}
	}
}

// firstDifference describes where want and got first differ, line by line.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, clip(wl), clip(gl))
		}
	}
	return "(no line differs)"
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
