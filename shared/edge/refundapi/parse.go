package refundapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// createFields are the members a create body may have.
var createFields = []string{"payment_id", "amount_minor", "reason", "note", "reference", "metadata"}

// ParseCreate reads a create body into a merchant's refund.CreateInput: malformed JSON is 400,
// a member of the wrong type or an unknown member is 422 naming it; the bounds (reason, note,
// reference) are the rule's (refund.CreateInput.Validate). RequestHash covers the parsed
// content, so the same request in another formatting or member order replays.
func ParseCreate(body []byte) (refund.CreateInput, error) {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return refund.CreateInput{}, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown(createFields...)
	in := refund.CreateInput{RequestedBy: refund.ByMerchant}
	in.PaymentID, _ = r.String("payment_id", jsonbody.StringRule{Required: true, Check: func(s string) string {
		if _, ok := payment.ParseInvoiceID(s); !ok {
			return "must be a UUID (the payment's invoice_id)"
		}
		return ""
	}})
	in.PaymentID, _ = payment.ParseInvoiceID(in.PaymentID)
	amount, _ := r.Int("amount_minor", false, 1, int64(money.MaxPaisa))
	in.AmountMinor = money.Paisa(amount)
	reason, _ := r.String("reason", jsonbody.StringRule{Required: true})
	in.Reason = refund.Reason(reason)
	in.Note, _ = r.String("note", jsonbody.StringRule{AllowControl: true})
	in.Reference, _ = r.String("reference", jsonbody.StringRule{})
	in.Metadata = readMetadata(r, obj)
	if err := r.Err(); err != nil {
		return refund.CreateInput{}, err
	}
	if err := in.Validate(); err != nil {
		return refund.CreateInput{}, err
	}
	in.RequestHash = requestHash(in)
	return in, nil
}

// readMetadata reads metadata with payments' bounds: at most 50 keys of 1 to 40 characters,
// string values, 4096 bytes as compact JSON.
func readMetadata(r *jsonbody.Reader, obj *jsonbody.Object) map[string]string {
	md, ok := r.Object("metadata", false)
	if !ok {
		return nil
	}
	raw, _ := obj.Raw("metadata")
	if dup := jsonbody.FirstDuplicate(raw, md.Path); dup != "" {
		r.Violations = append(r.Violations, apierr.Violation{Path: dup, Rule: "appears more than once"})
		return nil
	}
	names := md.Names()
	if len(names) > payment.MaxMetadataKeys {
		r.Fail("metadata", fmt.Sprintf("must have at most %d keys", payment.MaxMetadataKeys))
		return nil
	}
	mr := jsonbody.NewReader(md)
	out := make(map[string]string, len(names))
	for _, n := range names {
		if n == "" || utf8.RuneCountInString(n) > payment.MaxMetadataKeyLen {
			r.Fail("metadata", fmt.Sprintf("keys must be 1 to %d characters", payment.MaxMetadataKeyLen))
			return nil
		}
		if v, ok := mr.String(n, jsonbody.StringRule{Required: true, AllowControl: true}); ok {
			out[n] = v
		}
	}
	r.Violations = append(r.Violations, mr.Violations...)
	if compact, _ := web.Marshal(out); len(compact) > payment.MaxMetadataBytes {
		r.Fail("metadata", fmt.Sprintf("must be at most %d bytes as compact JSON", payment.MaxMetadataBytes))
	}
	return out
}

// requestHash identifies a create's content (SHA-256 of its canonical JSON).
func requestHash(in refund.CreateInput) string {
	canon, _ := web.Marshal(struct {
		P string            `json:"p"`
		A int64             `json:"a"`
		R string            `json:"r"`
		N string            `json:"n"`
		F string            `json:"f"`
		M map[string]string `json:"m"`
	}{in.PaymentID, int64(in.AmountMinor), string(in.Reason), in.Note, in.Reference, in.Metadata})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// transitionFields are the members each action's body may have.
var transitionFields = map[refund.Action][]string{
	refund.Review:         {"note", "expected_version"},
	refund.Approve:        {"note", "expected_version"},
	refund.Cancel:         {"note", "expected_version"},
	refund.Reject:         {"reason", "note", "expected_version"},
	refund.ReportReturned: {"provider_reference", "returned_at", "note", "expected_version"},
}

// ParseTransition reads an action's body (empty is {}): the members transitionFields allows,
// typed; the bounds are the rule's (refund.TransitionInput.Validate).
func ParseTransition(action refund.Action, body []byte) (refund.TransitionInput, error) {
	var in refund.TransitionInput
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return in, err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown(transitionFields[action]...)
	in.Note, _ = r.String("note", jsonbody.StringRule{AllowControl: true})
	in.Reason, _ = r.String("reason", jsonbody.StringRule{Required: action == refund.Reject, AllowControl: true})
	in.ProviderReference, _ = r.String("provider_reference", jsonbody.StringRule{Required: action == refund.ReportReturned})
	if s, ok := r.String("returned_at", jsonbody.StringRule{Check: func(s string) string {
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return "must be an RFC 3339 date-time such as 2026-11-29T10:00:00+06:00"
		}
		return ""
	}}); ok {
		t, _ := time.Parse(time.RFC3339Nano, s)
		in.ReturnedAt = &t
	}
	in.ExpectedVersion, _ = r.Int("expected_version", false, 1, 100_000_000_000)
	return in, r.Err()
}

// ParseListQuery reads status, payment_id, overdue, cursor and limit (422 naming
// query.<name>); the rule checks status, cursor and limit again (refund.ListQuery.Validate).
func ParseListQuery(q map[string]string) (refund.ListQuery, error) {
	var out refund.ListQuery
	var vs []apierr.Violation
	out.Status = refund.Status(strings.ToUpper(q["status"]))
	out.Cursor = strings.ToLower(q["cursor"])
	if v, ok := q["payment_id"]; ok {
		id, valid := payment.ParseInvoiceID(v)
		if !valid {
			vs = append(vs, apierr.Violation{Path: "query.payment_id", Rule: "must be a UUID (a payment's invoice_id)"})
		}
		out.PaymentID = id
	}
	switch q["overdue"] {
	case "", "false":
	case "true":
		out.Overdue = true
	default:
		vs = append(vs, apierr.Violation{Path: "query.overdue", Rule: "must be true or false"})
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > refund.MaxLimit {
			vs = append(vs, apierr.Violation{Path: "query.limit", Rule: fmt.Sprintf("must be an integer between 1 and %d", refund.MaxLimit)})
		} else {
			out.Limit = n
		}
	}
	if len(vs) > 0 {
		return out, apierr.Invalid(vs...)
	}
	return out, out.Validate()
}
