package dashboard

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
	"github.com/takapay/payments/shared/foundation/web"
)

// The invoice and payment-link pages' markup, held in golden files: the list, an invoice's
// page, a payment link's page and the new invoice form with errors, in both languages. Each
// file holds the page's <main> (what these pages write; the shell around it is render.go's
// and is checked with the other pages): `go test -run TestGoldenDocuments -update` rewrites
// them.

var docGolden = pagetest.Golden{Dir: filepath.Join("testdata", "golden", "documents")}

var goldenAt = time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)

func goldenReq(l page.Lang, path string) *req {
	return &req{
		Request: &web.Request{Method: "GET", Path: path, Query: map[string]string{page.QueryParam: string(l)}, BaseURL: "https://pay.takapay.com.bd"},
		lang:    page.Choice{Lang: l, Explicit: true},
		viewer: &viewer{csrf: "csrf-token-0001", user: SessionUser{Email: "owner@shop.example.com.bd"},
			ws: Membership{WorkspaceID: "ws-1", WorkspaceName: "Rahim Traders", Role: auth.RoleOwner}},
	}
}

func i64(n int64) *int64 { return &n }

func goldenRecord(kind document.Kind, id, ref, status string, amount *int64, paid int64, body string) *document.Record {
	return &document.Record{ID: id, Kind: kind, Reference: ref, Status: status, Version: 2, Environment: auth.Sandbox,
		Body: json.RawMessage(body), AmountMinor: amount, PaidMinor: paid,
		PublicToken: "lEZVx2mQ7s0e9p4uYc1bN8aR3dF6gH5jK2wT0vXyZ_-", CreatedAt: goldenAt, UpdatedAt: goldenAt.Add(90 * time.Minute),
		History: []document.HistoryEntry{{Version: 1, Status: document.StatusDraft, Action: "create", OccurredAt: goldenAt},
			{Version: 2, Status: status, Action: "issue", OccurredAt: goldenAt.Add(90 * time.Minute)}}}
}

const goldenInvoiceBody = `{"reference": "INV-2026-0042", "name": "Rahim Traders", "email": "accounts.department@rahim-traders-wholesale.example.com.bd",
	"items": [{"title": "Darjeeling tea, 500 g", "quantity": 2, "unit_amount_minor": 15000000}, {"title": "Clay cup", "quantity": 1, "unit_amount_minor": 5000}],
	"discount_minor": 2000, "tax_minor": 1500, "due_at": "2026-12-31T17:59:59Z", "notes": "Thank you <3", "tags": ["wholesale", "eid"]}`

const goldenLinkBody = `{"reference": "T-SHIRT", "description": "Eid t-shirt", "amount_minor": 50000, "max_quantity": 3, "max_uses": 100,
	"return_url": "https://shop.example.com.bd/thanks/for/your/order?campaign=eid-2026&source=payment-link",
	"fields": [{"id": "size", "label": "Size", "type": "select", "required": true, "options": ["S", "M", "L"]}]}`

func goldenInvoice() *document.Record {
	rec := goldenRecord(document.Invoices, "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b", "INV-2026-0042", document.StatusIssued,
		i64(30005000+1500-2000), 15000000, goldenInvoiceBody)
	rec.Payments = []document.PaymentRef{
		{IntentID: "5f0c2d7e-1b3a-4c5d-8e9f-0a1b2c3d4e5f", State: "FAILED", AmountMinor: 15000000, OccurredAt: goldenAt.Add(2 * time.Hour)},
		{IntentID: "6a1d3e8f-2c4b-4d6e-9fa0-1b2c3d4e5f60", State: "COMPLETED", AmountMinor: 15000000, OccurredAt: goldenAt.Add(3 * time.Hour)},
	}
	return rec
}

// mainOf is a page's <main> element.
func mainOf(t *testing.T, res *web.Response) string {
	t.Helper()
	s := string(res.Raw)
	i, j := strings.Index(s, "<main"), strings.Index(s, "</main>")
	if i < 0 || j < i {
		t.Fatalf("no <main> in\n%.2000s", s)
	}
	return lines.Replace(s[i:j+len("</main>")]) + "\n"
}

// lines starts each block element on a line of its own, so that a golden file reads (and
// diffs) as markup; the pages write none of these line breaks.
var lines = strings.NewReplacer("<div", "\n<div", "<p ", "\n<p ", "<p>", "\n<p>", "<tr", "\n<tr", "<table", "\n<table",
	"<h2", "\n<h2", "<dl", "\n<dl", "<fieldset", "\n<fieldset", "<details", "\n<details", "<form", "\n<form",
	"<nav", "\n<nav", "<figure", "\n<figure", "<ul", "\n<ul", "<li", "\n<li", "<input", "\n<input", "<select", "\n<select",
	"<textarea", "\n<textarea", "<button", "\n<button", "</main>", "\n</main>")

func goldenDocPages(t *testing.T, l page.Lang) map[string]string {
	s := &Service{}
	pages := map[string]string{}
	sfx := "-" + string(l)

	list := &document.ListResult{Items: []*document.Record{goldenInvoice(),
		goldenRecord(document.Invoices, "1c8f7a3d-4d2e-4a6f-8b9c-8d7e6f5a4b3c", "", document.StatusDraft, nil, 0, `{"reference": ""}`)}}
	next := "1c8f7a3d-4d2e-4a6f-8b9c-8d7e6f5a4b3c"
	list.NextCursor = &next
	r := goldenReq(l, "/dashboard/invoices")
	pages["invoice-list"+sfx] = mainOf(t, s.page(r, 200, t0(r, "dash.docs.invoice.list_title"), func(d *doc) {
		d.node(d.documentsList(invoicePages, "", "", list))
	}))
	r = goldenReq(l, "/dashboard/invoices")
	pages["invoice-list-search-empty"+sfx] = mainOf(t, s.page(r, 200, t0(r, "dash.docs.invoice.list_title"), func(d *doc) {
		d.node(d.documentsList(invoicePages, "rahim", "", &document.ListResult{}))
	}))

	inv := goldenInvoice()
	body, err := inv.Content()
	if err != nil {
		t.Fatal(err)
	}
	r = goldenReq(l, "/dashboard/invoices/"+inv.ID)
	deliveries := []document.Delivery{{ID: "evt_01HZX5Q9M2V7K3B8N4C6D1F0GH", Kind: "payment.completed", Status: "delivered", CreatedAt: goldenAt.Add(3 * time.Hour)}}
	pages["invoice-detail"+sfx] = mainOf(t, s.documentView(&docView{r: r, k: invoicePages, rec: inv, body: body, deliveries: deliveries,
		payable: true, write: true}, 200, "issue", false))

	link := goldenRecord(document.PaymentLinks, "2d9e8b4f-5e3f-4b7a-9cad-9e8f7a6b5c4d", "T-SHIRT", document.StatusActive, i64(50000), 0, goldenLinkBody)
	lbody, err := link.Content()
	if err != nil {
		t.Fatal(err)
	}
	r = goldenReq(l, "/dashboard/payment-links/"+link.ID)
	pages["link-detail"+sfx] = mainOf(t, s.documentView(&docView{r: r, k: linkPages, rec: link, body: lbody, payable: true, write: true,
		qrSVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21" role="img"><title>QR</title><path d="M0 0h7v7H0z"/></svg>`)},
		200, "", false))

	df := &docForm{k: invoicePages, items: 2, fields: 1, idem: "idem-key-0001", f: &form{values: map[string]string{
		"reference": "", "item-0-title": "Rice <5 kg>", "item-0-quantity": "2", "item-0-unit_amount": "12.345",
		"discount": "abc", "due_at": "2026-02-30", "email": "rahim@example.com.bd",
	}}}
	df.build(l)
	df.f.fail("reference", t0(goldenReq(l, "/"), "dash.docform.label.reference")+": "+t0(goldenReq(l, "/"), "dash.docform.rule.reference"))
	r = goldenReq(l, "/dashboard/invoices")
	pages["invoice-form-errors"+sfx] = mainOf(t, s.docPage(r, 422, df))
	return pages
}

func t0(r *req, key string) string { return t(r.l(), key) }

func TestGoldenDocuments(t *testing.T) {
	UseMessages(DocumentsMessages(), DocFormMessages())
	pages := map[string]string{}
	for _, l := range []page.Lang{page.EN, page.BN} {
		for name, p := range goldenDocPages(t, l) {
			pages[name] = p
			if strings.Contains(p, "dash.") {
				t.Errorf("%s shows a message key: %.200s", name, p[strings.Index(p, "dash."):])
			}
		}
	}
	// A Bangla form leaves validation to the server (no English tooltips); an English one
	// lets the browser help too.
	if !strings.Contains(pages["invoice-form-errors-bn"], `novalidate id="doc-form">`) || !strings.Contains(pages["invoice-form-errors-en"], `action="/dashboard/invoices?lang=en" id="doc-form">`) {
		t.Error("novalidate: want it on the Bangla form only")
	}
	// The date input agrees with its hint: a date input, and no ISO date written beside it.
	for _, l := range []string{"en", "bn"} {
		p := pages["invoice-form-errors-"+l]
		if !strings.Contains(p, `<input type="date" class="field" id="f-due_at" name="due_at"`) || strings.Contains(p, "2026-01-31") {
			t.Errorf("%s: the due date is not a date input with a hint that agrees", l)
		}
	}
	docGolden.CheckAll(t, pages)
}
