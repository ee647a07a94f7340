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
	"github.com/takapay/payments/shared/foundation/money"
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
		cursor := r.Query["cursor"]
		if cursor != "" {
			query["cursor"] = cursor
		}
		res, err := s.docList(ctx, r, k.kind, query)
		if err != nil {
			return nil, asBadRequest(err)
		}
		return s.page(r, 200, t(r.l(), "dash.docs."+k.msg+".list_title"), func(d *doc) {
			if r.viewer.can(auth.WriteDocuments) {
				d.Raw(`<p class="links">`)
				d.link(k.path+"/new", "new-document", "dash.docs."+k.msg+".new")
				d.Raw("</p>\n")
			}
			d.tableStart("documents-caption", "documents-table")
			d.Raw(`<caption class="hint" id="documents-caption">`)
			d.text("dash.docs."+k.msg+".caption", "environment", d.t("dash.env."+string(r.env())))
			d.Raw("</caption>")
			d.thead("dash.docs.col.", "reference", "state", k.msg+".total", "paid", "outstanding", "created")
			if len(res.Items) == 0 {
				d.Raw(`<tr><td colspan="6">`)
				d.text("dash.docs." + k.msg + ".none")
				d.Raw("</td></tr>")
			}
			for _, rec := range res.Items {
				d.Raw("<tr")
				d.Attr("id", "doc-"+rec.ID)
				d.Raw(`><th scope="row"><a`)
				d.URLAttr("href", r.url(k.docPath(rec.ID)))
				d.Raw(">")
				d.Text(docName(rec))
				d.Raw(`</a></th><td class="state">`)
				d.docState(rec)
				d.Raw(`</td><td class="num">`)
				d.optAmount(rec.AmountMinor)
				d.Raw(`</td><td class="num">`)
				d.Text(d.l.Amount(money.Paisa(rec.PaidMinor)))
				d.Raw(`</td><td class="num">`)
				d.outstanding(rec)
				d.Raw("</td><td>")
				d.date(rec.CreatedAt)
				d.Raw("</td></tr>")
			}
			d.Raw("</tbody></table></div>\n")
			if cursor != "" || res.NextCursor != nil {
				d.Raw(`<nav class="links"`)
				d.Attr("aria-label", d.t("dash.docs.pages"))
				d.Raw(">")
				if cursor != "" {
					d.link(k.path, "first-page", "dash.docs.first_page")
					d.Raw(" ")
				}
				if res.NextCursor != nil {
					d.link(k.path+"?cursor="+url.QueryEscape(*res.NextCursor), "next-page", "dash.docs.next_page")
				}
				d.Raw("</nav>\n")
			}
		}), nil
	})
}

// docName is what a document is called on a page: its reference, else its id.
func docName(rec *document.Record) string {
	if strings.TrimSpace(rec.Reference) != "" {
		return rec.Reference
	}
	return rec.ID
}

// docState writes a document's state in words (never colour alone).
func (d *doc) docState(rec *document.Record) {
	d.Raw(`<span class="tag">`)
	d.text("dash.docs.state." + rec.Status)
	d.Raw("</span>")
	// An invoice with nothing outstanding says so in words, next to its state.
	if o, ok := rec.Outstanding(); ok && o == 0 && rec.PaidMinor > 0 {
		d.Raw(` <span class="tag">`)
		d.text("dash.docs.paid_in_full")
		d.Raw("</span>")
	}
}

// optAmount writes an amount in taka, or a dash with words for screen readers when none.
func (d *doc) optAmount(minor *int64) {
	if minor == nil {
		d.none()
		return
	}
	d.Text(d.l.Amount(money.Paisa(*minor)))
}

func (d *doc) none() {
	d.Raw(`<span aria-hidden="true">—</span><span class="visually-hidden">`)
	d.text("dash.docs.none")
	d.Raw("</span>")
}

// outstanding writes what an invoice has left to collect (document.Record.Outstanding), or
// a dash where there is no such figure (a payment link, an invoice without an amount).
func (d *doc) outstanding(rec *document.Record) {
	if o, ok := rec.Outstanding(); ok {
		d.Text(d.l.Amount(money.Paisa(o)))
		return
	}
	d.none()
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
	title := t(r.l(), "dash.docs."+k.msg+".title", "reference", docName(rec))
	return s.page(r, status, title, func(d *doc) {
		switch notice {
		case "issue", "cancel", "publish", "archive", "created", "saved":
			d.notice("dash.docs.notice." + notice)
		}
		if conflict {
			d.Raw(`<div class="error" role="alert" id="transition-conflict"><p>`)
			d.text("dash.docs.conflict", "state", d.t("dash.docs.state."+rec.Status), "version", d.l.Number(rec.Version))
			d.Raw("</p></div>\n")
		}

		v.summary(d)
		v.actions(d)
		v.linkSection(d)
		v.bodyFacts(d)
		v.itemsTable(d)
		v.fieldsTable(d)
		v.paymentsTable(d)
		v.deliveriesTable(d)
		v.historyTable(d)
	}), nil
}

// keyOr writes the catalogue's words for key, or text as it is when the catalogue has none
// (a state or action a newer API added).
func (d *doc) keyOr(key, text string) {
	if has(key) {
		d.text(key)
		return
	}
	d.Text(text)
}

func (d *doc) payState(state string) {
	d.Raw(`<span class="tag">`)
	d.keyOr("dash.docs.pay.state."+state, state)
	d.Raw("</span>")
}

// dateField writes a body's date-time (RFC 3339 as the merchant sent it) in Dhaka time.
func (d *doc) dateField(key string, v *string) {
	if v == nil {
		return
	}
	d.Raw("<dt>")
	d.text("dash.docs.field." + key)
	d.Raw("</dt><dd")
	d.Attr("id", "field-"+key)
	d.Raw(">")
	if at, err := parseRFC3339(*v); err == nil {
		d.date(at)
	} else {
		d.Text(*v)
	}
	d.Raw("</dd>")
}

func parseRFC3339(v string) (time.Time, error) { return time.Parse(time.RFC3339Nano, v) }
