// Package paymentapi is the HTTP edge of the hosted payment (payment create and verify):
// it parses and checks the shape of a request (package jsonbody), calls the rules of package
// payment with typed values, and encodes the answer. The rules speak no HTTP.
package paymentapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// createFields are the members a create request may carry; anything else is refused so a
// typo (say "ammount" or "redirect_uri") is never silently ignored.
var createFields = []string{"amount", "redirect_url", "cancel_url", "webhook_url", "reference",
	"customer_name", "customer_email", "customer_phone", "metadata", "expires_in_minutes", "locale"}

// ParseCreateRequest validates a create body: 400 for malformed JSON, 422 naming every
// broken field rule.
func ParseCreateRequest(body []byte, urls urlcheck.Policy) (*payment.CreateRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown(createFields...)
	var req payment.CreateRequest
	if raw, ok := obj.Raw("amount"); !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		r.Fail("amount", "is required (a JSON number of taka, e.g. 150.50)")
	} else if p, err := money.ParseTaka(raw); err != nil {
		r.Fail("amount", err.Error())
	} else {
		req.Amount = p
	}
	var o payment.Options
	readURLs(&o, r, urls)
	req.Reference, _ = r.String("reference", jsonbody.StringRule{Min: 1, Max: payment.MaxReferenceLen, Check: trimmed})
	req.CustomerName, _ = r.String("customer_name", jsonbody.StringRule{Min: 1, Max: payment.MaxNameLen, Check: trimmed})
	req.CustomerEmail, _ = r.String("customer_email", jsonbody.StringRule{Min: 3, Max: payment.MaxEmailLen, Check: jsonbody.CheckEmail})
	req.CustomerPhone, _ = r.String("customer_phone", jsonbody.StringRule{Min: 1, Max: payment.MaxPhoneLen, Check: payment.CheckPhone})
	readRest(&o, r, obj)
	req.RedirectURL, req.CancelURL, req.WebhookURL, req.Metadata, req.ExpiresIn, req.Locale =
		o.RedirectURL, o.CancelURL, o.WebhookURL, o.Metadata, o.ExpiresIn, o.Locale
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &req, nil
}

// ReadOptions reads redirect_url, cancel_url, webhook_url, metadata, expires_in_minutes and
// locale from a create body with the create rules, recording violations in r.
func ReadOptions(r *jsonbody.Reader, obj *jsonbody.Object, urls urlcheck.Policy) payment.Options {
	var o payment.Options
	readURLs(&o, r, urls)
	readRest(&o, r, obj)
	return o
}

func readURLs(o *payment.Options, r *jsonbody.Reader, urls urlcheck.Policy) {
	urlRule := func(check func(string) error) jsonbody.StringRule {
		return jsonbody.StringRule{Check: func(s string) string {
			if err := check(s); err != nil {
				return err.Error()
			}
			return ""
		}}
	}
	o.RedirectURL, _ = r.String("redirect_url", urlRule(urls.Check))
	o.CancelURL, _ = r.String("cancel_url", urlRule(urls.Check))
	o.WebhookURL, _ = r.String("webhook_url", urlRule(urls.CheckWebhook))
}

func readRest(o *payment.Options, r *jsonbody.Reader, obj *jsonbody.Object) {
	o.ExpiresIn = payment.DefaultExpiry
	if m, ok := r.Int("expires_in_minutes", false, int64(payment.MinExpiry/time.Minute), int64(payment.MaxExpiry/time.Minute)); ok {
		o.ExpiresIn = time.Duration(m) * time.Minute
	}
	if l, ok := r.String("locale", jsonbody.StringRule{Check: func(s string) string {
		if !slices.Contains(payment.Locales, s) {
			return `must be one of "bn", "en", "auto"`
		}
		return ""
	}}); ok && l != "auto" {
		o.Locale = l
	}
	if md, ok := r.Object("metadata", false); ok {
		raw, _ := obj.Raw("metadata")
		canon, rule := canonicalMetadata(md)
		if dup := jsonbody.FirstDuplicate(raw, md.Path); dup != "" {
			r.Violations = append(r.Violations, apierr.Violation{Path: dup, Rule: "appears more than once"})
		} else if rule != "" {
			r.Fail("metadata", rule)
		} else {
			o.Metadata = canon
		}
	}
}

func trimmed(s string) string {
	if strings.TrimSpace(s) != s {
		return "must not start or end with white space"
	}
	return ""
}

// canonicalMetadata bounds metadata and returns its canonical compact form (keys sorted,
// numbers kept as written), which is what is stored and what the request hash covers.
func canonicalMetadata(md *jsonbody.Object) (string, string) {
	names := md.Names()
	if len(names) > payment.MaxMetadataKeys {
		return "", fmt.Sprintf("must have at most %d keys", payment.MaxMetadataKeys)
	}
	m := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if n == "" || utf8.RuneCountInString(n) > payment.MaxMetadataKeyLen {
			return "", fmt.Sprintf("keys must be 1 to %d characters", payment.MaxMetadataKeyLen)
		}
		raw, _ := md.Raw(n)
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", "must be a JSON object"
		}
		compact, _ := web.Marshal(v)
		m[n] = compact
	}
	out, _ := web.Marshal(m) // map keys are sorted by encoding/json; no HTML escaping
	if len(out) > payment.MaxMetadataBytes {
		return "", fmt.Sprintf("must be at most %d bytes as compact JSON", payment.MaxMetadataBytes)
	}
	return string(out), ""
}

// ParseVerifyRequest validates a verify body.
func ParseVerifyRequest(body []byte) (*payment.VerifyRequest, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return nil, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("invoice_id", "expected")
	var req payment.VerifyRequest
	req.InvoiceID, _ = r.String("invoice_id", jsonbody.StringRule{Required: true, Check: func(s string) string {
		if _, ok := payment.ParseInvoiceID(s); !ok {
			return "must be a UUID (the invoice_id returned by payment create)"
		}
		return ""
	}})
	req.InvoiceID, _ = payment.ParseInvoiceID(req.InvoiceID)
	if eo, ok := r.Object("expected", false); ok {
		er := jsonbody.NewReader(eo)
		er.OnlyKnown("amount_minor", "currency", "reference")
		amount, _ := er.Int("amount_minor", true, 1, int64(money.MaxPaisa))
		currency, _ := er.String("currency", jsonbody.StringRule{Required: true, Min: 1, Max: 3})
		ref, _ := er.String("reference", jsonbody.StringRule{Required: true, Min: 1, Max: payment.MaxReferenceLen})
		r.Violations = append(r.Violations, er.Violations...)
		req.Expected = &payment.Expected{AmountMinor: money.Paisa(amount), Currency: currency, Reference: ref}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return &req, nil
}
