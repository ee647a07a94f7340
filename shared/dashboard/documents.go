package dashboard

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/money"
	"github.com/takapay/payments/shared/web"
)

// The invoice and payment-link pages (DashboardDocumentsFunction): the lists, a document's
// page (every field, the public link with a copy button, a payment link's QR code, its
// payments, deliveries and history) and the lifecycle commands. Every read and every change
// runs the documents API's own handler (Service.API, api.go): the same listing, the same
// transitions from the same states, the same version check. The create and edit forms are
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
	write := r.viewer.can(auth.WriteDocuments)
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

		// Summary: state, money, version.
		d.Raw("<dl class=\"facts\"><dt>")
		d.text("dash.docs.col.state")
		d.Raw(`</dt><dd id="document-state">`)
		d.docState(rec)
		d.Raw("</dd><dt>")
		d.text("dash.docs.col." + k.msg + ".total")
		d.Raw(`</dt><dd id="document-total">`)
		d.optAmount(rec.AmountMinor)
		d.Raw("</dd><dt>")
		d.text("dash.docs.col.paid")
		d.Raw(`</dt><dd id="document-paid">`)
		d.Text(d.l.Amount(money.Paisa(rec.PaidMinor)))
		d.Raw("</dd><dt>")
		d.text("dash.docs.col.outstanding")
		d.Raw(`</dt><dd id="document-outstanding">`)
		d.outstanding(rec)
		d.Raw("</dd>")
		if rec.PaidAfterCloseMinor > 0 {
			d.Raw("<dt>")
			d.text("dash.docs.paid_after_close")
			d.Raw(`</dt><dd id="document-paid-after-close">`)
			d.Text(d.l.Amount(money.Paisa(rec.PaidAfterCloseMinor)))
			d.Raw("</dd>")
		}
		d.Raw("<dt>")
		d.text("dash.docs.version")
		d.Raw(`</dt><dd id="document-version">`)
		d.Text(d.l.Number(rec.Version))
		d.Raw("</dd><dt>")
		d.text("dash.docs.environment")
		d.Raw("</dt><dd>")
		d.text("dash.env." + string(rec.Environment))
		d.Raw("</dd><dt>")
		d.text("dash.docs.id")
		d.Raw(`</dt><dd><code id="document-id">`)
		d.Text(rec.ID)
		d.Raw("</code></dd><dt>")
		d.text("dash.docs.col.created")
		d.Raw("</dt><dd>")
		d.date(rec.CreatedAt)
		d.Raw("</dd><dt>")
		d.text("dash.docs.updated")
		d.Raw("</dt><dd>")
		d.date(rec.UpdatedAt)
		d.Raw("</dd></dl>\n")

		// What the viewer may do: edit, and the commands this state allows.
		if write {
			d.Raw(`<div class="actions" id="document-actions">`)
			if document.Editable(rec.Kind, rec.Status) {
				d.link(k.docPath(rec.ID)+"/edit", "edit-document", "dash.docs.edit")
			}
			version := strconv.FormatInt(rec.Version, 10)
			for _, tr := range document.Transitions {
				if tr.Kind != k.kind || !slices.Contains(tr.From, rec.Status) {
					continue
				}
				danger := tr.Action == "cancel" || tr.Action == "archive"
				d.smallButton(k.docPath(rec.ID)+"/"+tr.Action, tr.Action, "dash.docs.action."+tr.Action, danger, "version", version)
			}
			d.Raw("</div>\n")
		}

		// The public link, and a payment link's QR code.
		d.Raw(`<h2 id="public-link-title">`)
		d.text("dash.docs.public_link")
		d.Raw("</h2>\n<p class=\"hint\" id=\"public-link-hint\">")
		switch {
		case rec.Status == document.StatusDraft:
			d.text("dash.docs." + k.msg + ".link_draft")
		case payable:
			d.text("dash.docs.link_open")
		default:
			d.text("dash.docs.link_closed")
		}
		d.Raw("</p>\n")
		link := publicLink(r, rec)
		d.Raw(`<code class="secret" id="public-link" aria-describedby="public-link-hint">`)
		d.Text(link)
		d.Raw(`</code><p class="js-only"><button type="button" class="linkbutton" data-copy="public-link" id="public-link-copy"`)
		d.Attr("data-done", d.t("dash.copied"))
		d.Raw(">")
		d.text("dash.docs.copy_link")
		d.Raw("</button></p>\n<p class=\"links\"><a id=\"open-public-link\"")
		d.URLAttr("href", link)
		d.Raw(">")
		d.text("dash.docs.open_link")
		d.Raw("</a></p>\n")
		if qrSVG != nil {
			d.Raw(`<h2 id="qr-title">`)
			d.text("dash.docs.qr.heading")
			d.Raw("</h2>\n<figure class=\"qr\" id=\"qr\" aria-labelledby=\"qr-caption\">")
			// Our own drawing (package qr): its one text, the title, is XML-escaped there.
			d.Raw(string(qrSVG))
			d.Raw(`<figcaption id="qr-caption">`)
			d.text("dash.docs.qr.caption", "link", link)
			d.Raw("</figcaption></figure>\n<p class=\"links\">")
			d.link(k.docPath(rec.ID)+"/qr.svg", "qr-svg", "dash.docs.qr.svg")
			d.Raw(" ")
			d.link(k.docPath(rec.ID)+"/qr.png", "qr-png", "dash.docs.qr.png")
			d.Raw("</p>\n")
		}

		// The body, field by field.
		d.Raw(`<h2>`)
		d.text("dash.docs.details")
		d.Raw("</h2>\n<dl class=\"facts\" id=\"document-body\">")
		fact := func(key, text string) {
			d.Raw("<dt>")
			d.text("dash.docs.field." + key)
			d.Raw("</dt><dd")
			d.Attr("id", "field-"+key)
			d.Raw(">")
			d.Text(text)
			d.Raw("</dd>")
		}
		field := func(key string, v *string) {
			if v != nil && *v != "" {
				fact(key, *v)
			}
		}
		amount := func(key string, v *int64) {
			if v != nil {
				fact(key, d.l.Amount(money.Paisa(*v)))
			}
		}
		number := func(key string, v *int64) {
			if v != nil {
				fact(key, d.l.Number(*v))
			}
		}
		ref := body.Reference
		field("reference", &ref)
		field("name", body.Name)
		field("email", body.Email)
		field("phone", body.Phone)
		field("description", body.Description)
		field("notes", body.Notes)
		field("private_notes", body.PrivateNotes)
		if len(body.Tags) > 0 {
			tags := strings.Join(body.Tags, ", ")
			field("tags", &tags)
		}
		if rec.CustomerID != nil {
			d.Raw("<dt>")
			d.text("dash.docs.field.customer_id")
			d.Raw(`</dt><dd id="field-customer_id"><a`)
			d.URLAttr("href", r.url("/dashboard/customers/"+url.PathEscape(*rec.CustomerID)))
			d.Raw(">")
			d.Text(*rec.CustomerID)
			d.Raw("</a></dd>")
		}
		if k.kind == document.PaymentLinks {
			amount("amount_minor", body.AmountMinor)
		}
		amount("tax_minor", body.TaxMinor)
		amount("fee_minor", body.FeeMinor)
		amount("shipping_minor", body.ShippingMinor)
		amount("discount_minor", body.DiscountMinor)
		if k.kind == document.Invoices && len(body.Items) == 0 {
			amount("amount_minor", body.AmountMinor)
		}
		d.dateField("due_at", body.DueAt)
		d.dateField("expires_at", body.ExpiresAt)
		number("max_quantity", body.MaxQuantity)
		number("max_uses", body.MaxUses)
		field("image_url", body.ImageURL)
		field("return_url", body.ReturnURL)
		d.Raw("</dl>\n")

		if len(body.Items) > 0 {
			d.tableStart("items-caption", "document-items")
			d.Raw(`<caption id="items-caption">`)
			d.text("dash.docs.items")
			d.Raw("</caption>")
			d.thead("dash.docs.item.", "title", "quantity", "unit", "line")
			for _, it := range body.Items {
				d.Raw(`<tr><th scope="row">`)
				d.Text(it.Title)
				d.Raw(`</th><td class="num">`)
				d.Text(d.l.Number(it.Quantity))
				d.Raw(`</td><td class="num">`)
				d.Text(d.l.Amount(money.Paisa(it.UnitAmountMinor)))
				d.Raw(`</td><td class="num">`)
				d.Text(d.l.Amount(money.Paisa(it.Quantity * it.UnitAmountMinor)))
				d.Raw("</td></tr>")
			}
			d.Raw("</tbody></table></div>\n")
		}

		if len(body.Fields) > 0 {
			d.tableStart("fields-caption", "document-fields")
			d.Raw(`<caption id="fields-caption">`)
			d.text("dash.docs.fields")
			d.Raw("</caption>")
			d.thead("dash.docs.cf.", "label", "id", "type", "required", "options")
			for _, f := range body.Fields {
				d.Raw(`<tr><th scope="row">`)
				d.Text(f.Label)
				d.Raw("</th><td><code>")
				d.Text(f.ID)
				d.Raw("</code></td><td>")
				d.Text(f.Type)
				d.Raw("</td><td>")
				if f.Required != nil && *f.Required {
					d.text("dash.docs.yes")
				} else {
					d.text("dash.docs.no")
				}
				d.Raw("</td><td>")
				d.Text(strings.Join(f.Options, ", "))
				d.Raw("</td></tr>")
			}
			d.Raw("</tbody></table></div>\n")
		}

		// Payments (the record's latest, newest first) and their deliveries.
		d.Raw(`<h2 id="payments-title">`)
		d.text("dash.docs.payments")
		d.Raw("</h2>\n<p class=\"hint\">")
		d.text("dash.docs.payments_hint", "count", d.l.Number(document.PaymentsWindow))
		d.Raw("</p>\n")
		d.tableStart("payments-title", "document-payments")
		d.thead("dash.docs.pay.", "payment", "state", "amount", "when")
		if len(rec.Payments) == 0 {
			d.Raw(`<tr><td colspan="4">`)
			d.text("dash.docs.no_payments")
			d.Raw("</td></tr>")
		}
		for i := len(rec.Payments) - 1; i >= 0; i-- {
			p := rec.Payments[i]
			d.Raw(`<tr><th scope="row"><a`)
			d.URLAttr("href", r.url("/dashboard/payments/"+url.PathEscape(p.IntentID)))
			d.Raw("><code>")
			d.Text(p.IntentID)
			d.Raw("</code></a></th><td>")
			d.payState(p.State)
			if p.AfterClose {
				d.Raw(" ")
				d.text("dash.docs.after_close")
			}
			d.Raw(`</td><td class="num">`)
			d.Text(d.l.Amount(money.Paisa(p.AmountMinor)))
			d.Raw("</td><td>")
			d.date(p.OccurredAt)
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n")

		d.Raw(`<h2 id="deliveries-title">`)
		d.text("dash.docs.deliveries")
		d.Raw("</h2>\n<p class=\"hint\">")
		d.text("dash.docs.deliveries_hint")
		d.Raw("</p>\n")
		d.tableStart("deliveries-title", "document-deliveries")
		d.thead("dash.docs.del.", "event", "kind", "status", "when")
		if len(deliveries) == 0 {
			d.Raw(`<tr><td colspan="4">`)
			d.text("dash.docs.no_deliveries")
			d.Raw("</td></tr>")
		}
		for _, dl := range deliveries {
			d.Raw(`<tr><th scope="row"><code>`)
			d.Text(dl.ID)
			d.Raw("</code></th><td>")
			d.Text(dl.Kind)
			d.Raw("</td><td>")
			d.keyOr("dash.docs.del.status."+dl.Status, dl.Status)
			d.Raw("</td><td>")
			d.date(dl.CreatedAt)
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n")

		// History: the latest versions, newest first.
		d.Raw(`<h2 id="history-title">`)
		d.text("dash.docs.history")
		d.Raw("</h2>\n")
		d.tableStart("history-title", "document-history")
		d.thead("dash.docs.hist.", "version", "action", "state", "when")
		for i := len(rec.History) - 1; i >= 0; i-- {
			h := rec.History[i]
			d.Raw(`<tr><th scope="row">`)
			d.Text(d.l.Number(h.Version))
			d.Raw("</th><td>")
			d.keyOr("dash.docs.hist.action."+h.Action, h.Action)
			d.Raw("</td><td>")
			d.keyOr("dash.docs.state."+h.Status, h.Status)
			d.Raw("</td><td>")
			d.date(h.OccurredAt)
			d.Raw("</td></tr>")
		}
		d.Raw("</tbody></table></div>\n<p class=\"links\">")
		d.link(k.path, "back-to-list", "dash.docs."+k.msg+".back")
		d.Raw("</p>\n")
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
