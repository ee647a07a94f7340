package checkoutapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payerrefund"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// Refund serves POST /v1/public/checkout/{token}/refunds: the payer asks for a refund of a
// COMPLETED payment (refund.RequestByPayer through payerrefund.Door). An API client gets the
// request as its payer sees it, 201 when this call made it and 200 for the open one; a form
// post from the page goes back to the page (303), or, refused, comes back with the payer's
// words and values.
func (h *Handlers) Refund(ctx context.Context, r *web.Request) (*web.Response, error) {
	p, m, base, err := h.load(ctx, r)
	if err != nil {
		return nil, err
	}
	if h.Refunds == nil {
		return nil, apierr.New(apierr.NotFound, "refund requests are not offered here")
	}
	if m.html {
		if err := checkSameOrigin(r); err != nil {
			return nil, err
		}
	}
	form, err := refundFields(r)
	if err != nil {
		return nil, err
	}
	res, created, err := h.Refunds.Request(ctx, p, r.SourceIP, form.Input())
	if err != nil && m.html {
		if resp := h.refundRefused(ctx, p, base, m, form, err); resp != nil {
			return resp, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if m.html {
		return h.seeOther(m.lang.URL(base) + "#refund"), nil
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return web.JSON(status, payerrefund.ViewOf(res)), nil
}

// refundFields reads the request: the page's form, or a JSON object with only reason, note
// and contact, each a string (the rule checks them).
func refundFields(r *web.Request) (payerrefund.Form, error) {
	if isForm(r) {
		return payerrefund.ParseForm(r.Body)
	}
	var f payerrefund.Form
	if len(strings.TrimSpace(string(r.Body))) == 0 {
		return f, nil
	}
	obj, err := jsonbody.ParseObject(r.Body)
	if err != nil {
		return f, err
	}
	rd := jsonbody.NewReader(obj)
	rd.OnlyKnown(payerrefund.FieldReason, payerrefund.FieldNote, payerrefund.FieldContact)
	f.Reason, _ = rd.String(payerrefund.FieldReason, jsonbody.StringRule{Max: 64})
	f.Note, _ = rd.String(payerrefund.FieldNote, jsonbody.StringRule{AllowControl: true})
	f.Contact, _ = rd.String(payerrefund.FieldContact, jsonbody.StringRule{Max: 254})
	f.Contact = strings.TrimSpace(f.Contact)
	return f, rd.Err()
}

// refundRefused renders the page again for a refused form: the field errors and the values
// kept (422), or the refusal in the payer's words (409, 429); nil for any other error (the
// error page says it).
func (h *Handlers) refundRefused(ctx context.Context, p *payment.Payment, base string, m mode, form payerrefund.Form, err error) *web.Response {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		return nil
	}
	var fill func(*checkout.View)
	switch {
	case ae.Code == apierr.ValidationFailed:
		fill = func(v *checkout.View) {
			if v.Refund != nil {
				v.Refund.Form, v.Refund.Violations = form, ae.Violations
			}
		}
	case errors.Is(err, refund.ErrNothingRefundable), ae.Code == apierr.RateLimited:
		key := payerrefund.RefusalNothing
		if ae.Code == apierr.RateLimited {
			key = payerrefund.RefusalRateLimited
		}
		fill = func(v *checkout.View) {
			if v.Refund != nil {
				v.Refund.Form, v.Refund.Refusal = form, key
			}
		}
	default:
		return nil
	}
	resp := h.render(ctx, p, base, m, fill, ae.Status())
	for k, v := range ae.Headers {
		resp.Headers[k] = v
	}
	return resp
}

// refundSection is the refund part of p's page: the payer's latest request and, while one
// can be made, the form (nil when p's page offers none, or the read failed: the page is still
// the payment's, and the request's log line says why).
func (h *Handlers) refundSection(ctx context.Context, p *payment.Payment) *payerrefund.Section {
	if h.Refunds == nil || !payerrefund.Offered(p) {
		return nil
	}
	r, refundable, err := h.Refunds.Status(ctx, p)
	if err != nil {
		obs.Annotate(ctx, slog.String("refund_error", err.Error()))
		return nil
	}
	return &payerrefund.Section{Request: r, Refundable: refundable} // the page sets its words and action
}
