package takapay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// CreatePaymentInput is a standalone create (createPayment, or a payment intent priced by the
// client): the amount as an exact Amount, and every other member of the contract's
// PaymentCreateRequest (whose float Amount is never sent: this Amount is).
type CreatePaymentInput struct {
	Amount Amount
	PaymentCreateRequest
}

// MarshalJSON is the PaymentCreateRequest with amount written as the exact number literal.
func (in CreatePaymentInput) MarshalJSON() ([]byte, error) {
	if in.Amount.IsZero() {
		return nil, errors.New("takapay: no amount")
	}
	b, err := json.Marshal(in.PaymentCreateRequest)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["amount"] = json.RawMessage(in.Amount.String())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// CreatePayment creates a hosted payment (POST /v1/payment/create) with an Idempotency-Key
// (generated unless WithIdempotencyKey gives one), the same on every retry.
func (c *Client) CreatePayment(ctx context.Context, in CreatePaymentInput, opts ...CallOption) (*PaymentCreateResponse, error) {
	cc, err := c.callConfig(opts, true)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	req, err := NewCreatePaymentRequestWithBody(c.baseURL, &CreatePaymentParams{IdempotencyKey: &cc.idempotencyKey}, "application/json", bytes.NewReader(body))
	return call[PaymentCreateResponse](ctx, c, req, err, cc)
}

// Expected is what the order says a payment must be; the server compares it exactly.
type Expected struct {
	Amount    Amount
	Currency  string // "BDT" when empty
	Reference string
}

func (e *Expected) wire() *PaymentVerifyExpected {
	if e == nil {
		return nil
	}
	cur := e.Currency
	if cur == "" {
		cur = "BDT"
	}
	return &PaymentVerifyExpected{AmountMinor: int(e.Amount.Paisa()), Currency: cur, Reference: e.Reference}
}

// Verification is a verify's answer with the comparison as plain fields: Match is true only
// when the payment is COMPLETED and equals Expected; Mismatches names what differed.
type Verification struct {
	PaymentVerifyResponse
	Match      bool
	Mismatches []PaymentVerifyResponseMismatches
}

// VerifyPayment asks the server for the payment (POST /v1/payment/verify) and, with expected,
// compares it with the order. A mismatch is an answer, not an error.
func (c *Client) VerifyPayment(ctx context.Context, invoiceID string, expected *Expected, opts ...CallOption) (*Verification, error) {
	id, err := uuid.Parse(invoiceID)
	if err != nil {
		return nil, fmt.Errorf("takapay: invoice_id %q is not a UUID", invoiceID)
	}
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewVerifyPaymentRequest(c.baseURL, VerifyPaymentJSONRequestBody{InvoiceId: id, Expected: expected.wire()})
	var out PaymentVerifyResponse
	if err := c.do(ctx, req, err, cc, &out); err != nil {
		return nil, err
	}
	v := &Verification{PaymentVerifyResponse: out}
	if out.Match != nil {
		v.Match = *out.Match
	}
	if out.Mismatches != nil {
		v.Mismatches = *out.Mismatches
	}
	return v, nil
}

// MerchantContext is what the key is (GET /v1/merchant/context): workspace, environment, scopes.
func (c *Client) MerchantContext(ctx context.Context, opts ...CallOption) (*MerchantContext, error) {
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewGetMerchantContextRequest(c.baseURL)
	return call[MerchantContext](ctx, c, req, err, cc)
}
