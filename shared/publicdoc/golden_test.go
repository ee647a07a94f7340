package publicdoc

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	kit "github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/intent"
)

// golden holds the rendered documents with the inline style replaced by a marker, so that
// the files stay readable and do not change when the stylesheet does; the harness expands
// the marker and compares whole documents byte for byte.
var golden = pagetest.Golden{Dir: filepath.Join("testdata", "golden"), Markers: []pagetest.Marker{
	{Text: "<style>" + style.Source() + "</style>", Mark: "<style>@@page/assets/base.css + assets/publicdoc.css@@</style>"},
}}

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
			p.Values, p.Problems = *a, a.Problems
			return p
		}},
		{"error-every-problem", func(t *testing.T) Page { return refusedPage(t, 0) }},
		{"error-invoice-quantity", func(t *testing.T) Page { return refusedPage(t, 2) }},
		{"hostile", func(t *testing.T) Page {
			yes := true
			return Page{
				View:   hostileView(),
				Action: `/v1/public/documents/a b"c'd<e>f(g)h+i&j%41%zz৳` + "\x00\xff",
				Error:  `</p><script>alert(10)</script> & "x" 'y' +` + hostile,
				Problems: []Problem{
					{Label: `<b>` + hostile, Key: "doc.problem.too_long", Args: []string{"max", "10<0"}},
					{LabelKey: "doc.email", Key: "doc.problem.email"},
				},
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

// goldenErrors are the error pages a browser gets, by the envelope's code.
var goldenErrors = []struct {
	name string
	code apierr.Code
}{
	{"error-not-found", apierr.NotFound},
	{"error-rate-limited", apierr.RateLimited},
	{"error-denied", apierr.ScopeOrEnvironmentDenied},
	{"error-bad-request", apierr.MalformedRequest},
	{"error-internal", apierr.Internal},
}

// goldenRefusals are a form post refused for the document's state, in the page's words.
var goldenRefusals = []struct {
	name  string
	state string
	err   *apierr.Error
}{
	{"refused-paid-invoice", StatePaid, apierr.New(apierr.StateConflict, intent.InvoicePaidMessage)},
	{"refused-link-taken", StatePayable, apierr.New(apierr.StateConflict, "all uses are held")},
	{"refused-busy", StatePayable, apierr.New(apierr.RateLimited, "too many")},
}

// renderGolden renders every golden case in every language: "<case>.en" as a browser that
// asked for nothing gets it, "<case>.bn" as a payer who chose Bangla (?lang=bn on the form and
// the switch).
func renderGolden(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range kit.Langs {
		choice := kit.Choice{Lang: l, Explicit: l != kit.EN}
		for _, c := range append(goldenCases(), refundGoldenCases()...) {
			p := c.page(t)
			p.Lang = choice
			var buf bytes.Buffer
			if err := RenderPage(&buf, p); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			out[c.name+"."+string(l)] = buf.String()
		}
		for _, c := range goldenRefusals {
			p := linkPage(t)
			if c.state == StatePaid {
				p = invoicePage(t, document.StatusIssued, invoiceTotal)
			}
			p.Lang, p.Error = choice, PayerMessage(l, p.View, c.err)
			var buf bytes.Buffer
			if err := RenderPage(&buf, p); err != nil {
				t.Fatal(err)
			}
			out[c.name+"."+string(l)] = buf.String()
		}
		for _, c := range goldenErrors {
			var buf bytes.Buffer
			if err := RenderError(&buf, l, apierr.New(c.code, "developer text"), testAction); err != nil {
				t.Fatal(err)
			}
			out[c.name+"."+string(l)] = buf.String()
		}
		var buf bytes.Buffer
		if err := ErrorPage(&buf, l, `<script>alert(5)</script> "t" & 't' +`, `<img src=x onerror=alert(6)> `+hostile, `/x?"<>`); err != nil {
			t.Fatal(err)
		}
		out["error-page-hostile."+string(l)] = buf.String()
		buf.Reset()
		if err := ErrorPage(&buf, l, "", "", ""); err != nil {
			t.Fatal(err)
		}
		out["error-page-empty."+string(l)] = buf.String()
	}
	return out
}

// TestGolden compares the rendered documents, in both languages, with testdata/golden (go
// test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	golden.CheckAll(t, renderGolden(t))
}

// refusedPage is the page a refused form gets back: everyProblemBodies[i] posted to its view,
// with the problems listed and the answers refilled.
func refusedPage(t *testing.T, i int) Page {
	c := everyProblemBodies[i]
	v := c.view()
	a, err := ParseAnswers([]byte(c.body), true, v)
	if err == nil {
		t.Fatal("want a 422")
	}
	return Page{View: v, Action: testAction, Sandbox: true, Values: *a, Problems: a.Problems}
}
