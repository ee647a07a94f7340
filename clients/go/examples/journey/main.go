// The journey: what a merchant's integration does with the Go client, step by step, against
// the stack shared/local/clienttest starts (TAKAPAY_* in the environment; the control server
// plays the payer and the platform's workers). It prints "ok <step> …" per step and exits 1 on
// the first failure.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	takapay "github.com/takapay/payments/clients/go"
	"github.com/takapay/payments/clients/go/webhook"
)

func main() {
	if err := run(); err != nil {
		fmt.Println("FAIL", err)
		os.Exit(1)
	}
}

func env(name string) string {
	v := os.Getenv(name)
	if v == "" {
		fmt.Println("FAIL", name, "is not set")
		os.Exit(1)
	}
	return v
}

// control calls the harness's control server with plain HTTP.
func control(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, env("TAKAPAY_CONTROL_URL")+path, body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("control %s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type delivery struct {
	ID, Timestamp, Signature, Body string
}

func ptr[T any](v T) *T { return &v }

var correlationID = regexp.MustCompile(`^[a-f0-9]{24}$`)

func run() error {
	ctx := context.Background()
	key, base := env("TAKAPAY_API_KEY"), env("TAKAPAY_BASE_URL")
	secret, hookURL := env("TAKAPAY_WEBHOOK_SECRET"), env("TAKAPAY_WEBHOOK_URL")
	c, err := takapay.New(key, takapay.Options{BaseURL: base})
	if err != nil {
		return err
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)

	// 1. Create a payment of 150.50 taka.
	ref := "order-" + run
	amount, err := takapay.ParseAmount("150.50")
	if err != nil {
		return err
	}
	p, err := c.CreatePayment(ctx, takapay.CreatePaymentInput{Amount: amount, PaymentCreateRequest: takapay.PaymentCreateRequest{
		Reference: &ref, WebhookUrl: &hookURL,
	}})
	if err != nil {
		return fmt.Errorf("1 create: %w", err)
	}
	invoiceID := p.InvoiceId.String()
	fmt.Println("ok 1 create", invoiceID)

	// 2. The payer pays.
	if err := control("POST", "/approve", map[string]string{"payment_url": p.PaymentUrl}, nil); err != nil {
		return fmt.Errorf("2 approve: %w", err)
	}
	fmt.Println("ok 2 approve", p.PaymentUrl)

	// 3. Verify against the order; then against a wrong amount (a mismatch, not an error).
	v, err := c.VerifyPayment(ctx, invoiceID, &takapay.Expected{Amount: amount, Currency: "BDT", Reference: ref})
	if err != nil {
		return fmt.Errorf("3 verify: %w", err)
	}
	if v.Status != "COMPLETED" || !v.Match || len(v.Mismatches) != 0 || v.AmountMinor != 15050 {
		return fmt.Errorf("3 verify: status %s match %v mismatches %v amount_minor %d", v.Status, v.Match, v.Mismatches, v.AmountMinor)
	}
	wrong := takapay.MustParseAmount("150.00")
	vw, err := c.VerifyPayment(ctx, invoiceID, &takapay.Expected{Amount: wrong, Currency: "BDT", Reference: ref})
	if err != nil {
		return fmt.Errorf("3 verify (wrong amount): %w", err)
	}
	if vw.Match || len(vw.Mismatches) == 0 {
		return fmt.Errorf("3 verify (wrong amount): match %v mismatches %v", vw.Match, vw.Mismatches)
	}
	fmt.Printf("ok 3 verify %s match=%v; wrong amount match=%v mismatches=%v\n", v.Status, v.Match, vw.Match, vw.Mismatches)

	// 4. The webhook: delivered, verified in one call; tampered and stale copies rejected.
	if err := control("POST", "/drain", nil, nil); err != nil {
		return fmt.Errorf("4 drain: %w", err)
	}
	var ds []delivery
	if err := control("GET", "/deliveries", nil, &ds); err != nil {
		return fmt.Errorf("4 deliveries: %w", err)
	}
	var d *delivery
	for i := range ds {
		if strings.Contains(ds[i].Body, invoiceID) {
			d = &ds[i]
		}
	}
	if d == nil {
		return fmt.Errorf("4: no delivery for %s among %d", invoiceID, len(ds))
	}
	h := http.Header{}
	h.Set("webhook-id", d.ID)
	h.Set("webhook-timestamp", d.Timestamp)
	h.Set("webhook-signature", d.Signature)
	ev, err := webhook.Verify(secret, h, []byte(d.Body))
	if err != nil {
		return fmt.Errorf("4 verify delivery: %w", err)
	}
	if ev.Data.InvoiceId.String() != invoiceID || ev.Data.Status != "COMPLETED" || ev.Data.AmountMinor != 15050 {
		return fmt.Errorf("4 event: %+v", ev)
	}
	tampered := strings.Replace(d.Body, "15050", "15051", 1)
	if tampered == d.Body {
		tampered = d.Body + " "
	}
	var werr *webhook.Error
	if _, err := webhook.Verify(secret, h, []byte(tampered)); !errors.As(err, &werr) || werr.Code != webhook.NoMatchingSig {
		return fmt.Errorf("4 tampered body: want a *webhook.Error %s, got %v", webhook.NoMatchingSig, err)
	}
	badSig := http.Header{}
	badSig.Set("webhook-id", d.ID)
	badSig.Set("webhook-timestamp", d.Timestamp)
	badSig.Set("webhook-signature", "v1,"+strings.Repeat("A", 43)+"=")
	if _, err := webhook.Verify(secret, badSig, []byte(d.Body)); !errors.As(err, &werr) || werr.Code != webhook.NoMatchingSig {
		return fmt.Errorf("4 tampered signature: want a *webhook.Error %s, got %v", webhook.NoMatchingSig, err)
	}
	// Signed correctly, ten minutes ago: rejected for its age alone.
	k, _ := webhook.DecodeSecret(secret)
	oldTS := strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)
	old := http.Header{}
	old.Set("webhook-id", d.ID)
	old.Set("webhook-timestamp", oldTS)
	old.Set("webhook-signature", "v1,"+webhook.Sign(k, d.ID, oldTS, []byte(d.Body)))
	if _, err := webhook.Verify(secret, old, []byte(d.Body)); !errors.As(err, &werr) || werr.Code != webhook.TimestampTooOld {
		return fmt.Errorf("4 old timestamp: want a *webhook.Error %s, got %v", webhook.TimestampTooOld, err)
	}
	fmt.Printf("ok 4 webhook %s %s verified; tampered body, tampered signature and old timestamp rejected\n", ev.Type, ev.Id)

	// 5. Retries: DynamoDB stops for 2.5 s; 1 s per attempt, up to 6 attempts, one key.
	rc, err := takapay.New(key, takapay.Options{BaseURL: base, MaxAttempts: 6, AttemptTimeout: time.Second})
	if err != nil {
		return err
	}
	retryRef := "retry-" + run
	if err := control("POST", "/pause-dynamodb", map[string]int{"ms": 2500}, nil); err != nil {
		return fmt.Errorf("5 pause: %w", err)
	}
	var attempts int
	start := time.Now()
	rp, err := rc.CreatePayment(ctx, takapay.CreatePaymentInput{Amount: takapay.MustParseAmount("75.25"),
		PaymentCreateRequest: takapay.PaymentCreateRequest{Reference: &retryRef}}, takapay.WithAttempts(&attempts))
	if err != nil {
		return fmt.Errorf("5 create while DynamoDB is paused (%d attempts): %w", attempts, err)
	}
	took := time.Since(start)
	if attempts < 2 {
		return fmt.Errorf("5: %d attempt(s) in %s: DynamoDB's pause did not make the client retry", attempts, took)
	}
	// Every page of the filtered list (a filtered page may be empty and still not the last).
	var found []string
	for in, err := range c.AllIntents(ctx, &takapay.GetPaymentIntentsParams{Reference: &retryRef}) {
		if err != nil {
			return fmt.Errorf("5 list: %w", err)
		}
		found = append(found, in.Id.String())
	}
	if len(found) != 1 || found[0] != rp.InvoiceId.String() {
		return fmt.Errorf("5 list by reference %s: intents %v (want exactly %s)", retryRef, found, rp.InvoiceId)
	}
	fmt.Printf("ok 5 retry %s after %d attempts in %s; exactly 1 intent with reference %s\n", rp.InvoiceId, attempts, took.Round(10*time.Millisecond), retryRef)

	// 6. A 4xx: a typed error, not retried. (A malformed amount never leaves the client.)
	if _, err := takapay.ParseAmount("150.505"); err == nil {
		return fmt.Errorf("6: ParseAmount took 150.505")
	}
	attempts = 0
	_, err = c.VerifyPayment(ctx, uuid.NewString(), nil, takapay.WithAttempts(&attempts))
	apiErr := takapay.AsAPIError(err)
	if apiErr == nil {
		return fmt.Errorf("6 verify unknown id: want an *APIError, got %v", err)
	}
	if apiErr.Status != 404 || apiErr.Code != "NOT_FOUND" || apiErr.Retryable || !correlationID.MatchString(apiErr.CorrelationID) || attempts != 1 || apiErr.Attempts != 1 {
		return fmt.Errorf("6 verify unknown id: %+v after %d attempts", apiErr, attempts)
	}
	fmt.Printf("ok 6 error status=%d code=%s retryable=%v correlation_id=%s attempts=%d\n", apiErr.Status, apiErr.Code, apiErr.Retryable, apiErr.CorrelationID, attempts)

	// 7. An intent (create, get, cancel) and documents (a customer; an invoice issued, read back).
	in, err := c.CreateIntent(ctx, takapay.CreatePaymentInput{Amount: takapay.MustParseAmount("99"),
		PaymentCreateRequest: takapay.PaymentCreateRequest{Reference: ptr("intent-" + run)}})
	if err != nil {
		return fmt.Errorf("7 create intent: %w", err)
	}
	got, err := c.GetIntent(ctx, in.Id.String())
	if err != nil || got.Status != "PENDING" || got.AmountMinor != 9900 {
		return fmt.Errorf("7 get intent: %v %+v", err, got)
	}
	cancelled, err := c.CancelIntent(ctx, in.Id.String())
	if err != nil || cancelled.Status != "CANCELLED" {
		return fmt.Errorf("7 cancel intent: %v %+v", err, cancelled)
	}
	cust, err := c.Customers().Create(ctx, takapay.DocumentBody{Reference: "CUST-" + run, Name: ptr("Rahima Akter"), Phone: ptr("+8801712345678")})
	if err != nil {
		return fmt.Errorf("7 create customer: %w", err)
	}
	inv, err := c.Invoices().Create(ctx, takapay.DocumentBody{Reference: "INV-" + run, CustomerId: &cust.Id,
		Items: &[]takapay.LineItem{{Title: "Saree", Quantity: 2, UnitAmountMinor: 50000}, {Title: "Blouse", Quantity: 1, UnitAmountMinor: 25050}}})
	if err != nil {
		return fmt.Errorf("7 create invoice: %w", err)
	}
	if _, err := c.Invoices().Issue(ctx, inv.Id.String(), &inv.Version); err != nil {
		return fmt.Errorf("7 issue invoice: %w", err)
	}
	inv2, err := c.Invoices().Get(ctx, inv.Id.String())
	if err != nil || inv2.Status != "issued" || inv2.AmountMinor == nil || *inv2.AmountMinor != 125050 {
		return fmt.Errorf("7 get invoice: %v %+v", err, inv2)
	}
	// Every page of the search, two records a page: the customer is found by its reference.
	var matches int
	for rec, err := range c.Customers().All(ctx, takapay.ListOptions{Q: "CUST-" + run, Limit: 2}) {
		if err != nil {
			return fmt.Errorf("7 all customers: %w", err)
		}
		if rec.Id == cust.Id {
			matches++
		}
	}
	if matches != 1 {
		return fmt.Errorf("7 all customers matching CUST-%s: the customer %d times, want once", run, matches)
	}
	fmt.Printf("ok 7 intent %s %s; customer %s; invoice %s %s %d\n", in.Id, cancelled.Status, cust.Id, inv2.Id, inv2.Status, *inv2.AmountMinor)

	return refundJourney(ctx, c, secret, p.InvoiceId, run)
}

// refundJourney is step 8: refunds of step 1's COMPLETED payment (15050 paisa) through every
// transition, the money rule, paging, and their webhooks verified with VerifyEvent.
func refundJourney(ctx context.Context, c *takapay.Client, secret string, payment takapay.RefundPaymentID, run string) error {
	rs := c.Refunds()
	key := takapay.WithIdempotencyKey("journey-refund-" + run)
	in := takapay.RefundCreate{PaymentId: payment, AmountMinor: ptr(5000), Reason: takapay.GoodsReturned, Note: ptr("One item came back"), Reference: ptr("RMA-" + run)}
	rf, err := rs.Create(ctx, in, key)
	if err != nil || rf.Status != takapay.RefundStatusValueREQUESTED || rf.AmountMinor != 5000 || rf.RequestedBy != takapay.Merchant {
		return fmt.Errorf("8 create refund: %v %+v", err, rf)
	}
	again, err := rs.Create(ctx, in, key)
	if err != nil || again.Id != rf.Id {
		return fmt.Errorf("8 create refund again under its key: %v %+v, want %s", err, again, rf.Id)
	}
	_, err = rs.Create(ctx, takapay.RefundCreate{PaymentId: payment, AmountMinor: ptr(15000), Reason: takapay.Other})
	if e := takapay.AsAPIError(err); e == nil || e.Status != 409 || e.Code != "STATE_CONFLICT" {
		return fmt.Errorf("8 a refund over what is refundable: want 409 STATE_CONFLICT, got %v", err)
	}
	id := rf.Id.String()
	if rf, err = rs.Review(ctx, id, takapay.RefundTransition{Note: ptr("Parcel checked")}); err != nil || rf.Status != takapay.RefundStatusValueINREVIEW {
		return fmt.Errorf("8 review: %v %+v", err, rf)
	}
	if _, err := rs.Approve(ctx, id, takapay.RefundTransition{ExpectedVersion: ptr(rf.Version - 1)}); takapay.AsAPIError(err) == nil || takapay.AsAPIError(err).Code != "VERSION_CONFLICT" {
		return fmt.Errorf("8 approve with a stale version: want 409 VERSION_CONFLICT, got %v", err)
	}
	if rf, err = rs.Approve(ctx, id, takapay.RefundTransition{ExpectedVersion: &rf.Version}); err != nil || rf.Status != takapay.RefundStatusValueAPPROVED || rf.DueBy == nil {
		return fmt.Errorf("8 approve: %v %+v", err, rf)
	}
	trx := takapay.RefundReportReturned{ProviderReference: "TRX" + strings.ToUpper(run)}
	if rf, err = rs.ReportReturned(ctx, id, trx); err != nil || rf.Status != takapay.RefundStatusValueRETURNED || rf.ReturnedAt == nil {
		return fmt.Errorf("8 report returned: %v %+v", err, rf)
	}
	if again, err = rs.ReportReturned(ctx, id, trx); err != nil || again.Version != rf.Version {
		return fmt.Errorf("8 report returned again: %v %+v (a repeat answers the refund as it is)", err, again)
	}
	if _, err := rs.Cancel(ctx, id, takapay.RefundTransition{}); takapay.AsAPIError(err) == nil || takapay.AsAPIError(err).Code != "STATE_CONFLICT" {
		return fmt.Errorf("8 cancel a returned refund: want 409 STATE_CONFLICT, got %v", err)
	}
	rest, err := rs.Create(ctx, takapay.RefundCreate{PaymentId: payment, Reason: takapay.RequestedByCustomer})
	if err != nil || rest.AmountMinor != 10050 {
		return fmt.Errorf("8 refund the rest: %v %+v", err, rest)
	}
	if rest, err = rs.Reject(ctx, rest.Id.String(), takapay.RefundReject{Reason: "Delivered and signed for"}); err != nil ||
		rest.Status != takapay.RefundStatusValueREJECTED || rest.RejectionReason == nil {
		return fmt.Errorf("8 reject: %v %+v", err, rest)
	}
	got, err := rs.Get(ctx, id)
	if err != nil || got.Status != takapay.RefundStatusValueRETURNED || len(got.History) != 4 {
		return fmt.Errorf("8 get: %v %+v", err, got)
	}
	// The payment: 5000 returned; the rejected rest is refundable again at once.
	v, err := c.VerifyPayment(ctx, payment.String(), nil)
	if err != nil || v.RefundedMinor != 5000 || v.RefundableMinor != 10050 {
		return fmt.Errorf("8 the payment's figures: %v refunded_minor %d refundable_minor %d, want 5000 and 10050", err, v.RefundedMinor, v.RefundableMinor)
	}
	var listed []string
	for r, err := range rs.All(ctx, takapay.RefundListOptions{PaymentID: payment.String(), Limit: 1}) {
		if err != nil {
			return fmt.Errorf("8 all: %w", err)
		}
		listed = append(listed, string(r.Status))
	}
	if strings.Join(listed, ",") != "REJECTED,RETURNED" {
		return fmt.Errorf("8 all of the payment's refunds, one a page: %v, want REJECTED,RETURNED (newest first)", listed)
	}
	types, err := refundEvents(secret, id)
	if err != nil {
		return err
	}
	fmt.Printf("ok 8 refund %s REQUESTED IN_REVIEW APPROVED RETURNED; over-refund 409; rest %s REJECTED; refunded_minor=%d refundable_minor=%d; listed %v; webhooks %v\n",
		id, rest.Id, v.RefundedMinor, v.RefundableMinor, listed, types)
	return nil
}

// refundEvents drains the webhook sender and verifies every delivered event of the refund id
// with webhook.VerifyEvent; it returns their types, which must include refund.requested,
// refund.in_review, refund.approved and refund.returned.
func refundEvents(secret, refundID string) ([]string, error) {
	if err := control("POST", "/drain", nil, nil); err != nil {
		return nil, fmt.Errorf("8 drain: %w", err)
	}
	var ds []delivery
	if err := control("GET", "/deliveries", nil, &ds); err != nil {
		return nil, fmt.Errorf("8 deliveries: %w", err)
	}
	seen := map[string]bool{}
	var types []string
	for _, d := range ds {
		if !strings.Contains(d.Body, refundID) {
			continue
		}
		h := http.Header{}
		h.Set("webhook-id", d.ID)
		h.Set("webhook-timestamp", d.Timestamp)
		h.Set("webhook-signature", d.Signature)
		ev, err := webhook.VerifyEvent(secret, h, []byte(d.Body))
		if err != nil {
			return nil, fmt.Errorf("8 verify a refund delivery: %w", err)
		}
		r, err := ev.Refund()
		if err != nil || r.Data.Id.String() != refundID {
			return nil, fmt.Errorf("8 refund event %s: %v %+v", ev.Type, err, r)
		}
		if !seen[ev.Type] {
			seen[ev.Type] = true
			types = append(types, ev.Type)
		}
	}
	for _, want := range []string{"refund.requested", "refund.in_review", "refund.approved", "refund.returned"} {
		if !seen[want] {
			return nil, fmt.Errorf("8 no %s delivered for %s (got %v)", want, refundID, types)
		}
	}
	return types, nil
}
