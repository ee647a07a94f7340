package publicdocapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/publicdoc"
	"github.com/takapay/payments/shared/refund"
)

// paidPayment is the payment that paid an invoice through its page: its live intent, when it
// is this invoice's and COMPLETED in the sandbox (nil otherwise: the page offers no refund).
func (a *API) paidPayment(ctx context.Context, o *publicdoc.Opened) (*payment.Payment, error) {
	if a.Refunds == nil || o.View.State != publicdoc.StatePaid || o.Doc.Kind != document.Invoices || o.Doc.LiveIntentID == "" {
		return nil, nil
	}
	p, err := a.Docs.Store.GetPayment(ctx, o.Doc.LiveIntentID)
	if err != nil || p == nil || p.Source.DocumentID != o.Doc.ID || !payerrefund.Offered(p) {
		return nil, err
	}
	return p, nil
}

// refundSection is a paid invoice's refund part (nil when the page offers none, or a read
// failed: the page is still the invoice's, and the request's log line says why).
func (a *API) refundSection(ctx context.Context, o *publicdoc.Opened) *payerrefund.Section {
	p, err := a.paidPayment(ctx, o)
	if err == nil && p != nil {
		r, refundable, err := a.Refunds.Status(ctx, p)
		if err == nil {
			return &payerrefund.Section{Request: r, Refundable: refundable}
		}
		obs.Annotate(ctx, slog.String("refund_error", err.Error()))
		return nil
	}
	if err != nil {
		obs.Annotate(ctx, slog.String("refund_error", err.Error()))
	}
	return nil
}

// refund serves the paid invoice page's refund form (a POST of the page's path with
// form=refund): cross-site posts refused; the request (payerrefund.Door) then 303 back to the
// page; a refusal the payer can mend renders the page again with their words and values.
func (a *API) refund(ctx context.Context, r *web.Request, o *publicdoc.Opened) (*web.Response, error) {
	if err := web.CheckSameOrigin(r); err != nil {
		return nil, err
	}
	p, err := a.paidPayment(ctx, o)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, apierr.New(apierr.StateConflict, "this invoice's payment cannot be refunded from this page")
	}
	form, err := payerrefund.ParseForm(r.Body)
	if err != nil {
		return nil, err
	}
	lang := langOf(r)
	_, _, err = a.Refunds.Request(ctx, p, r.SourceIP, form.Input())
	if err == nil {
		h := publicdoc.SecurityHeaders(a.AllowLocalhostFormAction)
		h["Location"] = lang.URL(r.Path) + "#refund"
		return &web.Response{Status: http.StatusSeeOther, Headers: h}, nil
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		return nil, err
	}
	sec := a.refundSection(ctx, o)
	switch {
	case sec == nil:
		return nil, err
	case ae.Code == apierr.ValidationFailed:
		sec.Form, sec.Violations = form, ae.Violations
	case errors.Is(err, refund.ErrNothingRefundable):
		sec.Form, sec.Refusal = form, payerrefund.RefusalNothing
	case ae.Code == apierr.RateLimited:
		sec.Form, sec.Refusal = form, payerrefund.RefusalRateLimited
	default:
		return nil, err
	}
	resp, rerr := a.render(ae.Status(), publicdoc.Page{View: o.View, Action: r.Path, Sandbox: o.Doc.Environment == auth.Sandbox, Lang: lang, Refund: sec})
	if rerr != nil {
		return nil, err
	}
	for k, v := range ae.Headers {
		resp.Headers[k] = v
	}
	return resp, nil
}
