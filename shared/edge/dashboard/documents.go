package dashboard

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
	"github.com/takapay/payments/shared/foundation/web"
)

// The invoice and payment-link pages (DashboardDocumentsFunction): the lists, a document's
// page (every field, the public link with a copy button, a payment link's QR code, its
// payments, deliveries and history) and the lifecycle commands. Every read and every change
// calls the documents rules (Service.Documents, docops.go): the same listing, the same
// transitions from the same states, the same version check as the API. The create and edit forms are
// docform*.go's.

// documentsPageSize is a list page's length: the API reads it plus one record (to know there
// is a next page), in one Query.
const documentsPageSize = 25

// QRCodes draws a link's QR code (package qr). Only DashboardDocumentsFunction sets
// Service.QR: the encoder's tables (half a megabyte of data initialised at start) stay out of
// the other dashboard binaries, which link this package too.
type QRCodes interface {
	// SVG returns the code as an SVG document titled title, and its content type.
	SVG(url, title string) ([]byte, string, error)
	// PNG returns the code as a size×size PNG, and its content type.
	PNG(url string, size int) ([]byte, string, error)
}

// qrPNGSize is the downloaded PNG's side in pixels.
const qrPNGSize = 512

// docKind is what differs between the invoice and the payment-link pages.
type docKind struct {
	kind document.Kind
	// path is the list's path; a document's page is path/{documentID}.
	path string
	// msg is the kind's message group: dash.docs.<msg>.*.
	msg string
}

var (
	invoicePages = docKind{kind: document.Invoices, path: "/dashboard/invoices", msg: "invoice"}
	linkPages    = docKind{kind: document.PaymentLinks, path: "/dashboard/payment-links", msg: "link"}
)

func (k docKind) docPath(id string) string { return k.path + "/" + url.PathEscape(id) }

// InvoicesPage is GET /dashboard/invoices.
func (s *Service) InvoicesPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentsList(invoicePages)(ctx, wr)
}

// PaymentLinksPage is GET /dashboard/payment-links.
func (s *Service) PaymentLinksPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentsList(linkPages)(ctx, wr)
}

// InvoicePage is GET /dashboard/invoices/{documentID}.
func (s *Service) InvoicePage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentDetail(invoicePages)(ctx, wr)
}

// PaymentLinkPage is GET /dashboard/payment-links/{documentID}.
func (s *Service) PaymentLinkPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentDetail(linkPages)(ctx, wr)
}

// IssueInvoice is POST /dashboard/invoices/{documentID}/issue.
func (s *Service) IssueInvoice(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentTransition(invoicePages, "issue")(ctx, wr)
}

// CancelInvoice is POST /dashboard/invoices/{documentID}/cancel.
func (s *Service) CancelInvoice(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentTransition(invoicePages, "cancel")(ctx, wr)
}

// PublishPaymentLink is POST /dashboard/payment-links/{documentID}/publish.
func (s *Service) PublishPaymentLink(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentTransition(linkPages, "publish")(ctx, wr)
}

// ArchivePaymentLink is POST /dashboard/payment-links/{documentID}/archive.
func (s *Service) ArchivePaymentLink(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.documentTransition(linkPages, "archive")(ctx, wr)
}

// PaymentLinkQRSVG is GET /dashboard/payment-links/{documentID}/qr.svg: the public link's QR
// code as an SVG file to download.
func (s *Service) PaymentLinkQRSVG(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.qrDownload("svg")(ctx, wr)
}

// PaymentLinkQRPNG is GET /dashboard/payment-links/{documentID}/qr.png: the public link's QR
// code as a 512-pixel PNG file to download.
func (s *Service) PaymentLinkQRPNG(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.qrDownload("png")(ctx, wr)
}

// asBadRequest turns the API's 422 about the page's own query (a cursor that is not one)
// into 400: the address is wrong, there is no form to correct.
func asBadRequest(err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.ValidationFailed {
		return apierr.New(apierr.MalformedRequest, "%s", ae.Message)
	}
	return err
}

func (s *Service) documentsList(k docKind) web.HandlerFunc {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		query := map[string]string{"limit": strconv.Itoa(documentsPageSize)}
		for _, p := range []string{"cursor", "q"} {
			if v := r.Query[p]; v != "" {
				query[p] = v
			}
		}
		res, err := s.docList(ctx, r, k.kind, query)
		if err != nil {
			return nil, asBadRequest(err)
		}
		return s.page(r, 200, t(r.l(), "dash.docs."+k.msg+".list_title"), func(d *doc) {
			d.node(d.documentsList(k, query["q"], query["cursor"], res))
		}), nil
	})
}

// documentsList is a list page: the new button, the search folded away, the table (cards on
// a phone: reference, amount, state, date first) or the empty state, and the pages.
func (d *doc) documentsList(k docKind, q, cursor string, res *document.ListResult) h.Node {
	r, msg := d.r, "dash.docs."+k.msg
	col := func(key, class string) ui.Column { return ui.Column{Head: d.t("dash.docs.col." + key), Class: class} }
	cols := []ui.Column{col("reference", ""), col(k.msg+".total", "num"), col("state", ""), col("created", ""),
		col("paid", "num"), col("outstanding", "num")}
	rows := make([]ui.Row, 0, len(res.Items))
	for _, rec := range res.Items {
		rows = append(rows, ui.Row{ID: "doc-" + rec.ID, Cells: []h.Node{
			h.A(h.Href(r.url(k.docPath(rec.ID))), ui.Long(docName(rec), false)),
			d.optAmount(rec.AmountMinor), d.docState(rec), d.when(rec.CreatedAt),
			d.money(rec.PaidMinor), d.outstanding(rec),
		}})
	}
	env := d.t("dash.env." + string(r.env()))
	caption := d.t(msg+".caption", "environment", env)
	none := d.t(msg + ".none")
	if q != "" {
		caption, none = d.t(msg+".caption_q", "environment", env, "q", q), d.t(msg+".none_q", "q", q)
	}
	next := ""
	if res.NextCursor != nil {
		next = k.path + "?cursor=" + url.QueryEscape(*res.NextCursor)
		if q != "" {
			next += "&q=" + url.QueryEscape(q)
		}
	}
	first := k.path
	if q != "" {
		first += "?q=" + url.QueryEscape(q)
	}
	return h.Group{
		h.If(r.viewer.can(auth.WriteDocuments), h.P(h.Class("links"), d.linkNode(k.path+"/new", "new-document", msg+".new"))),
		d.documentsSearch(k, q),
		h.IfElse(len(rows) == 0, ui.Empty("documents-empty", none, nil), ui.Table("documents-table", caption, cols, rows)),
		h.If(cursor != "" || next != "", h.Nav(h.Class("links pager"), h.Aria("label", d.t("dash.docs.pages")),
			h.If(cursor != "", h.Group{d.linkNode(first, "first-page", "dash.docs.first_page"), h.Text(" ")}),
			h.If(next != "", d.linkNode(next, "next-page", "dash.docs.next_page")))),
	}
}

// documentsSearch is the list's search (GET), folded into a disclosure that is open while a
// search is shown. The environment and an explicit language are hidden fields: a GET form
// replaces its action's query.
func (d *doc) documentsSearch(k docKind, q string) h.Node {
	return h.Details(h.Class("filters"), h.ID("documents-filter"), h.Bool("open", q != ""),
		h.Summary(d.tx("dash.docs.filter")),
		h.Form(h.Method("get"), h.Role("search"), h.ID("documents-search"), h.Action(k.path), d.banglaNoValidate(),
			h.If(d.r.env() == auth.Live, ui.Hidden(envParam, "live")),
			h.If(d.r.lang.Explicit, ui.Hidden(page.QueryParam, string(d.l))),
			ui.Field{Name: "q", Type: "search", Label: d.t("dash.docs.search"), Value: q, Hint: d.t("dash.docs.search_hint"),
				Autocomplete: "off", Extra: []h.Node{h.Attr("maxlength", strconv.Itoa(document.MaxQ))}},
			h.Button(h.Class("linkbutton"), h.Type("submit"), h.ID("documents-search-submit"), d.tx("dash.docs.search_submit")),
		))
}

// docName is what a document is called on a page: its reference, else its id.
func docName(rec *document.Record) string {
	if strings.TrimSpace(rec.Reference) != "" {
		return rec.Reference
	}
	return rec.ID
}

// docTones give a document's state its pill's colour: an issued invoice waits for payment.
var docTones = map[string]string{
	document.StatusDraft: "DRAFT", document.StatusIssued: "OPEN", document.StatusActive: "ACTIVE",
	document.StatusArchived: "ARCHIVED", document.StatusCancelled: "CANCELLED",
}

// docState is a document's state as a pill (colour and words); an invoice with nothing
// outstanding says so in a second pill.
func (d *doc) docState(rec *document.Record) h.Node {
	o, ok := rec.Outstanding()
	return h.Group{
		ui.Pill(docTones[rec.Status], d.txOr("dash.docs.state."+rec.Status, rec.Status)),
		h.If(ok && o == 0 && rec.PaidMinor > 0, h.Group{h.Text(" "), ui.Pill("PAID", d.t("dash.docs.paid_in_full"))}),
	}
}

// optAmount is an amount in taka, or a dash with words for screen readers when none.
func (d *doc) optAmount(minor *int64) h.Node {
	if minor == nil {
		return d.noValue()
	}
	return d.money(*minor)
}

// outstanding is what an invoice has left to collect (document.Record.Outstanding), or a dash
// where there is no such figure (a payment link, an invoice without an amount).
func (d *doc) outstanding(rec *document.Record) h.Node {
	if o, ok := rec.Outstanding(); ok {
		return d.money(o)
	}
	return d.noValue()
}

// getDocument reads the page's {documentID}: the record and the deliveries of its latest
// payments. Another workspace's or environment's id is the rules' 404.
func (s *Service) getDocument(ctx context.Context, r *req, k docKind) (*document.Record, []document.Delivery, error) {
	rec, deliveries, err := s.docRecord(ctx, r, k.kind, r.PathParams["documentID"])
	if err != nil {
		return nil, nil, asBadRequest(err)
	}
	return rec, deliveries, nil
}

// publicLink is the document's public page on this origin: where payers open it.
func publicLink(r *req, rec *document.Record) string {
	return r.BaseURL + document.PublicPath(rec.PublicToken)
}

func (s *Service) documentDetail(k docKind) web.HandlerFunc {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		return s.documentPage(ctx, r, k, 200, r.Query["notice"], false)
	})
}

// documentTransition runs the API's lifecycle command with the version the page showed
// (expected_version): a document that changed since, or is no longer in a state the command
// leaves, is the API's 409, shown on the document's page as it is now, to review and retry.
func (s *Service) documentTransition(k docKind, action string) web.HandlerFunc {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.WriteDocuments); err != nil {
			return nil, err
		}
		var expected *int64
		if v := r.field("version"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > document.MaxVersion {
				return nil, apierr.New(apierr.MalformedRequest, "version must be the document's version")
			}
			expected = &n
		}
		id := r.PathParams["documentID"]
		err := s.docTransition(ctx, r, k.kind, id, action, expected)
		var ae *apierr.Error
		if errors.As(err, &ae) && (ae.Status() == 409 || ae.Status() == 412) {
			return s.documentPage(ctx, r, k, ae.Status(), "", true)
		}
		if err != nil {
			return nil, asBadRequest(err)
		}
		return s.redirect(r, k.docPath(id)+"?notice="+action), nil
	})
}

// qrDownload serves the payment link's QR code as a file (Content-Disposition attachment).
func (s *Service) qrDownload(format string) web.HandlerFunc {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ViewWorkspace); err != nil {
			return nil, err
		}
		rec, _, err := s.getDocument(ctx, r, linkPages)
		if err != nil {
			return nil, err
		}
		if s.QR == nil {
			return nil, apierr.New(apierr.NotFound, "QR codes are not drawn here")
		}
		var b []byte
		var ctype string
		if format == "svg" {
			b, ctype, err = s.QR.SVG(publicLink(r, rec), t(r.l(), "dash.docs.qr.title"))
		} else {
			b, ctype, err = s.QR.PNG(publicLink(r, rec), qrPNGSize)
		}
		if err != nil {
			return nil, err
		}
		h := s.headers(map[string]string{"Content-Type": ctype,
			"Content-Disposition": `attachment; filename="payment-link-` + rec.ID + "." + format + `"`})
		return &web.Response{Status: 200, Headers: h, Raw: b, Cookies: r.setCookie}, nil
	})
}

// documentPage renders a document's page. conflict shows, above it, that a command found the
// document changed (or in another state) and did nothing.
func (s *Service) documentPage(ctx context.Context, r *req, k docKind, status int, notice string, conflict bool) (*web.Response, error) {
	rec, deliveries, err := s.getDocument(ctx, r, k)
	if err != nil {
		return nil, err
	}
	body, err := rec.Content()
	if err != nil {
		return nil, err
	}
	// Whether payers can pay at the public link now: the rule of the public page and the API.
	var payable bool
	if rec.Kind != document.Customers {
		p, err := document.Payable(rec, s.now())
		if err != nil {
			return nil, err
		}
		payable = p.State == document.PayOpen
	}
	var qrSVG []byte
	if k.kind == document.PaymentLinks && s.QR != nil {
		if qrSVG, _, err = s.QR.SVG(publicLink(r, rec), t(r.l(), "dash.docs.qr.title")); err != nil {
			return nil, err
		}
	}
	v := &docView{r: r, k: k, rec: rec, body: body, deliveries: deliveries, payable: payable, qrSVG: qrSVG,
		write: r.viewer.can(auth.WriteDocuments)}
	return s.documentView(v, status, notice, conflict), nil
}

// documentView renders a document's page from what documentPage read.
func (s *Service) documentView(v *docView, status int, notice string, conflict bool) *web.Response {
	r, rec := v.r, v.rec
	title := t(r.l(), "dash.docs."+v.k.msg+".title", "reference", docName(rec))
	return s.page(r, status, title, func(d *doc) {
		known := notice == "issue" || notice == "cancel" || notice == "publish" || notice == "archive" ||
			notice == "created" || notice == "saved"
		d.node(h.If(known, ui.Flash(d.t("dash.docs.notice."+notice))),
			h.If(conflict, h.Div(h.Class("error"), h.Role("alert"), h.ID("transition-conflict"),
				h.P(d.tx("dash.docs.conflict", "state", d.t("dash.docs.state."+rec.Status), "version", d.l.Number(rec.Version))))),
			v.summary(d), v.actions(d), v.linkSection(d), v.bodyFacts(d), v.itemsTable(d), v.fieldsTable(d),
			v.paymentsTable(d), v.deliveriesTable(d), v.historyTable(d))
	})
}

func parseRFC3339(v string) (time.Time, error) { return time.Parse(time.RFC3339Nano, v) }
