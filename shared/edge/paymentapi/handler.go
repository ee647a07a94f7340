package paymentapi

import (
	"context"
	"net/http"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// CreateResponse is the 201 body of payment create.
type CreateResponse struct {
	InvoiceID  string         `json:"invoice_id"`
	Status     payment.Status `json:"status"`
	PaymentURL string         `json:"payment_url"`
}

// Create serves POST /v1/payment/create.
type Create struct {
	Auth    *auth.Authenticator
	Creator *payment.Creator
	URLs    urlcheck.Policy
}

// Handle authenticates, authorises (before reading the body: a caller who may not create
// learns nothing of its body's rules), reads the Idempotency-Key and the body, and creates
// (or idempotently replays) the payment.
func (h *Create) Handle(ctx context.Context, r *web.Request) (*web.Response, error) {
	id, err := h.Auth.Authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	if _, err := payment.Authorize(id, auth.PaymentsWrite); err != nil {
		return nil, err
	}
	key, err := payment.ParseIdempotencyKey(r)
	if err != nil {
		return nil, err
	}
	req, err := ParseCreateRequest(r.Body, h.URLs)
	if err != nil {
		return nil, err
	}
	c, err := h.Creator.Create(ctx, id, key, req)
	if err != nil {
		return nil, err
	}
	resp := web.JSON(http.StatusCreated, CreateResponse{c.InvoiceID, c.Status, r.BaseURL + c.CheckoutPath})
	if c.Replayed {
		resp.Headers = map[string]string{"Idempotent-Replayed": "true"}
	}
	return resp, nil
}

// Verify serves POST /v1/payment/verify.
type Verify struct {
	Auth     *auth.Authenticator
	Verifier *payment.Verifier
}

// Handle authenticates, authorises, reads the body and answers payment.Verifier's report.
func (h *Verify) Handle(ctx context.Context, r *web.Request) (*web.Response, error) {
	id, err := h.Auth.Authenticate(ctx, r)
	if err != nil {
		return nil, err
	}
	if _, err := payment.Authorize(id, auth.PaymentsRead); err != nil {
		return nil, err
	}
	req, err := ParseVerifyRequest(r.Body)
	if err != nil {
		return nil, err
	}
	resp, err := h.Verifier.Verify(ctx, id, req)
	if err != nil {
		return nil, err
	}
	return web.JSON(http.StatusOK, resp), nil
}
