package intentapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/edge/paymentapi"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// linkedFields are the members a linked create may carry.
var linkedFields = []string{"document_id", "quantity", "redirect_url", "cancel_url", "webhook_url",
	"metadata", "expires_in_minutes", "locale"}

// ParseCreate validates a create body: linked when it has document_id, standalone (the
// payment create rules) otherwise. Exactly one of the results is non-nil.
func ParseCreate(body []byte, urls urlcheck.Policy) (*payment.CreateRequest, *intent.LinkedRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, nil, err
	}
	if _, linked := obj.Raw("document_id"); !linked {
		req, err := paymentapi.ParseCreateRequest(body, urls)
		return req, nil, err
	}
	r := jsonbody.NewReader(obj)
	if _, ok := obj.Raw("amount"); ok {
		r.Fail("amount", "must not be sent with document_id: the server prices a linked intent from the document")
	}
	for _, n := range obj.Names() {
		if n != "amount" && !slices.Contains(linkedFields, n) {
			r.Fail(n, "is not a member of a linked intent request (allowed: "+strings.Join(linkedFields, ", ")+")")
		}
	}
	var req intent.LinkedRequest
	req.DocumentID, _ = r.String("document_id", jsonbody.StringRule{Required: true, Check: func(s string) string {
		if _, ok := payment.ParseInvoiceID(s); !ok {
			return "must be a UUID (the id of an invoice or a payment link)"
		}
		return ""
	}})
	req.DocumentID, _ = payment.ParseInvoiceID(req.DocumentID)
	if q, ok := r.Int("quantity", false, 1, document.MaxQuantity); ok {
		req.Quantity = &q
	}
	req.Options = paymentapi.ReadOptions(r, obj, urls)
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	return nil, &req, nil
}

// statuses are the values of the list's status filter.
var statuses = []payment.Status{payment.Pending, payment.Completed, payment.Failed, payment.Cancelled, payment.Expired}

// sourceKinds are the values of the list's source filter.
var sourceKinds = []payment.SourceKind{payment.SourceStandalone, payment.SourceInvoice, payment.SourcePaymentLinks}

// listParser reads the list's query parameters, collecting every violation (query.<name>).
type listParser struct {
	q  map[string]string
	in intent.ListInput
	vs []apierr.Violation
}

func (p *listParser) fail(name, rule string) {
	p.vs = append(p.vs, apierr.Violation{Path: "query." + name, Rule: rule})
}

// ParseList reads limit, cursor, status, document_id, created_gte, created_lt, source and
// reference (422 naming query.<name>): the filters besides status and document_id are
// created_gte and created_lt (RFC 3339 date-times), source and reference (the intent's exact
// reference).
func ParseList(q map[string]string) (intent.ListInput, error) {
	p := &listParser{q: q, in: intent.ListInput{Limit: intent.DefaultPageSize}}
	p.page()
	p.status()
	p.created()
	p.source()
	p.reference()
	p.document()
	if len(p.vs) > 0 {
		return p.in, apierr.Invalid(p.vs...)
	}
	return p.in, nil
}

func (p *listParser) page() {
	if c, ok := p.q["cursor"]; ok && c != "" {
		if id, ok := payment.ParseInvoiceID(c); ok {
			p.in.Cursor = id
		} else {
			p.fail("cursor", "must be the next_cursor of a previous page (a UUID)")
		}
	}
	if l, ok := p.q["limit"]; ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > intent.MaxPageSize {
			p.fail("limit", fmt.Sprintf("must be an integer between 1 and %d", intent.MaxPageSize))
		} else {
			p.in.Limit = n
		}
	}
}

func (p *listParser) status() {
	v, ok := p.q["status"]
	if !ok {
		return
	}
	want := payment.Status(strings.ToUpper(v))
	if !slices.Contains(statuses, want) {
		p.fail("status", "must be one of PENDING, COMPLETED, FAILED, CANCELLED, EXPIRED")
		return
	}
	p.in.Status = want
}

func (p *listParser) created() {
	for _, name := range []string{"created_gte", "created_lt"} {
		v, ok := p.q[name]
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil || t.Year() < 2000 || t.Year() > 9999 {
			p.fail(name, "must be an RFC 3339 date-time, e.g. 2026-05-01T00:00:00+06:00")
			continue
		}
		if name == "created_gte" {
			p.in.CreatedFrom = t.UTC()
		} else {
			p.in.CreatedBefore = t.UTC()
		}
	}
	if !p.in.CreatedFrom.IsZero() && !p.in.CreatedBefore.IsZero() && !p.in.CreatedFrom.Before(p.in.CreatedBefore) {
		p.fail("created_lt", "must be after created_gte")
	}
}

func (p *listParser) source() {
	v, ok := p.q["source"]
	if !ok {
		return
	}
	k := payment.SourceKind(v)
	if !slices.Contains(sourceKinds, k) {
		p.fail("source", "must be one of standalone, invoices, payment-links")
		return
	}
	p.in.Source = k
}

func (p *listParser) reference() {
	v, ok := p.q["reference"]
	if !ok {
		return
	}
	if v == "" || len(v) > 128 {
		p.fail("reference", "must be 1 to 128 characters (an intent's exact reference)")
		return
	}
	p.in.Reference = v
}

func (p *listParser) document() {
	v, ok := p.q["document_id"]
	if !ok {
		return
	}
	if id, ok := payment.ParseInvoiceID(v); ok {
		p.in.DocumentID = id
	} else {
		p.fail("document_id", "must be a UUID (the id of an invoice or a payment link)")
	}
}

// noBody accepts an empty body or an empty JSON object: cancel takes no parameters, and a
// member (say an amount) must not look as if it were applied.
func noBody(body []byte) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return err
	}
	r := jsonbody.NewReader(obj)
	for _, n := range obj.Names() {
		r.Fail(n, "is not accepted: cancel takes no parameters")
	}
	return r.Err()
}

// ParseVerifyTransaction validates the optional body {"expected": {...}}: empty is allowed.
func ParseVerifyTransaction(body []byte) (*payment.Expected, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil, nil
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("expected")
	if err := r.Err(); err != nil {
		return nil, err
	}
	raw, ok := obj.Raw("expected")
	if !ok {
		return nil, nil
	}
	// The verify rules for expected, with a placeholder invoice_id (the path names the intent).
	v, err := paymentapi.ParseVerifyRequest([]byte(`{"invoice_id":"00000000-0000-4000-8000-000000000000","expected":` + string(raw) + `}`))
	if err != nil {
		return nil, err
	}
	return v.Expected, nil
}
