package takapay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/google/uuid"
)

func parseID(what, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}, fmt.Errorf("takapay: %s %q is not a UUID", what, s)
	}
	return id, nil
}

// CreateIntent creates a standalone payment intent priced by the client (POST
// /v1/payment-intents) with an Idempotency-Key, the same on every retry.
func (c *Client) CreateIntent(ctx context.Context, in CreatePaymentInput, opts ...CallOption) (*PaymentIntent, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return c.createIntent(ctx, body, opts)
}

// CreateLinkedIntent creates a payment intent priced by the server from an invoice or payment link.
func (c *Client) CreateLinkedIntent(ctx context.Context, in PaymentIntentLinkedCreateRequest, opts ...CallOption) (*PaymentIntent, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return c.createIntent(ctx, body, opts)
}

func (c *Client) createIntent(ctx context.Context, body []byte, opts []CallOption) (*PaymentIntent, error) {
	cc, err := c.callConfig(opts, true)
	if err != nil {
		return nil, err
	}
	req, err := NewPostPaymentIntentsRequestWithBody(c.baseURL, &PostPaymentIntentsParams{IdempotencyKey: cc.idempotencyKey}, "application/json", bytes.NewReader(body))
	return call[PaymentIntent](ctx, c, req, err, cc)
}

// GetIntent is one payment intent (GET /v1/payment-intents/{id}).
func (c *Client) GetIntent(ctx context.Context, intentID string, opts ...CallOption) (*PaymentIntent, error) {
	id, err := parseID("intent id", intentID)
	if err != nil {
		return nil, err
	}
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewGetPaymentIntentsIntentidRequest(c.baseURL, id)
	return call[PaymentIntent](ctx, c, req, err, cc)
}

// ListIntents is a page of the key's payment intents, newest first (GET /v1/payment-intents);
// params may be nil. Page on with params.Cursor = NextCursor until it is nil.
func (c *Client) ListIntents(ctx context.Context, params *GetPaymentIntentsParams, opts ...CallOption) (*PaymentIntentList, error) {
	if params == nil {
		params = &GetPaymentIntentsParams{}
	}
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewGetPaymentIntentsRequest(c.baseURL, params)
	return call[PaymentIntentList](ctx, c, req, err, cc)
}

// AllIntents yields every intent the list holds, newest first, requesting page after page
// (params.Cursor set to each page's NextCursor) until the last: a filtered page may be empty
// and still not the last. params may be nil and is not modified. On an error it yields
// (nil, err) once and stops; breaking out of the loop stops the paging.
//
//	for in, err := range c.AllIntents(ctx, &takapay.GetPaymentIntentsParams{Status: &completed}) {
//		if err != nil { return err }
//		…
//	}
func (c *Client) AllIntents(ctx context.Context, params *GetPaymentIntentsParams, opts ...CallOption) iter.Seq2[*PaymentIntent, error] {
	p := GetPaymentIntentsParams{}
	if params != nil {
		p = *params
	}
	return paginate(func(cursor *Cursor) ([]PaymentIntent, *Cursor, error) {
		if cursor != nil {
			p.Cursor = cursor
		}
		page, err := c.ListIntents(ctx, &p, opts...)
		if err != nil {
			return nil, nil, err
		}
		return page.Items, page.NextCursor, nil
	})
}

// paginate yields every item of a cursor-paged list: page fetches the page after cursor (nil
// for the first, or the caller's own) and returns its items and next cursor (nil on the last).
// An error is yielded once and ends it; a consumer's break stops the fetching.
func paginate[T any](page func(cursor *Cursor) ([]T, *Cursor, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		var cursor *Cursor
		for {
			items, next, err := page(cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range items {
				if !yield(&items[i], nil) {
					return
				}
			}
			if next == nil {
				return
			}
			cursor = next
		}
	}
}

// CancelIntent cancels a PENDING payment intent (POST /v1/payment-intents/{id}/cancel).
func (c *Client) CancelIntent(ctx context.Context, intentID string, opts ...CallOption) (*PaymentIntent, error) {
	id, err := parseID("intent id", intentID)
	if err != nil {
		return nil, err
	}
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewPostPaymentIntentsIntentidCancelRequest(c.baseURL, id)
	return call[PaymentIntent](ctx, c, req, err, cc)
}

// VerifyIntent verifies a payment intent's payment (POST
// /v1/payment-intents/{id}/verify-transaction), compared with expected when it is not nil.
func (c *Client) VerifyIntent(ctx context.Context, intentID string, expected *Expected, opts ...CallOption) (*PaymentIntentVerification, error) {
	id, err := parseID("intent id", intentID)
	if err != nil {
		return nil, err
	}
	cc, err := c.callConfig(opts, false)
	if err != nil {
		return nil, err
	}
	req, err := NewPostPaymentIntentsIntentidVerifyTransactionRequest(c.baseURL, id, PaymentIntentVerifyRequest{Expected: expected.wire()})
	return call[PaymentIntentVerification](ctx, c, req, err, cc)
}
