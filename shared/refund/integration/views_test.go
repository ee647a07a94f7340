package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// CountDocumentRefund counts as one write of the crashing store when it writes (a refund of
// a linked payment), so a crash can stop report-returned right after the document's count.
func (c *crashing) CountDocumentRefund(ctx context.Context, r *refund.Refund) error {
	err := c.Store.CountDocumentRefund(ctx, r)
	if r.Document.ID == "" {
		return err
	}
	return c.after(err)
}

// reader is a payments:read key of workspace ws in the sandbox.
func reader(ws string) *auth.Identity {
	return &auth.Identity{Kind: auth.KindAPIKey, WorkspaceID: ws, Environments: []auth.Environment{auth.Sandbox},
		Scopes: []auth.Scope{auth.PaymentsRead}, CredentialID: "key_read"}
}

// figures reads a payment's refund figures as verify and GET intent answer them, checks the
// two agree, and returns verify's (refunded_minor, refundable_minor) with the requests made.
func figures(t *testing.T, s *dynamo.Store, ws, id string) (refunded, refundable money.Paisa, reads int) {
	t.Helper()
	ctx, st := obs.WithStats(t.Context())
	v, err := (&payment.Verifier{Store: s}).Verify(ctx, reader(ws), &payment.VerifyRequest{InvoiceID: id})
	if err != nil {
		t.Fatal(err)
	}
	reads = st.Calls()["dynamodb.GetItem"] + st.Calls()["dynamodb.Query"]
	svc := &intent.Service{Store: s, NoPaymentURL: true}
	it, err := svc.Get(t.Context(), intent.Scope{WorkspaceID: ws, Environment: auth.Sandbox, Identity: reader(ws)}, id)
	if err != nil {
		t.Fatal(err)
	}
	if it.RefundedMinor != v.RefundedMinor || it.RefundableMinor != v.RefundableMinor {
		t.Fatalf("intent says %d/%d, verify %d/%d", it.RefundedMinor, it.RefundableMinor, v.RefundedMinor, v.RefundableMinor)
	}
	for _, body := range []any{v, it} { // both answer the members
		raw, _ := json.Marshal(body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if m["refunded_minor"] != float64(v.RefundedMinor) || m["refundable_minor"] != float64(v.RefundableMinor) {
			t.Fatalf("answer %s", raw)
		}
	}
	return v.RefundedMinor, v.RefundableMinor, reads
}

func wantFigures(t *testing.T, s *dynamo.Store, ws, id string, refunded, refundable money.Paisa) {
	t.Helper()
	if gotR, gotA, _ := figures(t, s, ws, id); gotR != refunded || gotA != refundable {
		t.Fatalf("refunded_minor %d, refundable_minor %d; want %d, %d", gotR, gotA, refunded, refundable)
	}
}

// transition runs actions on refund id in order.
func transition(t *testing.T, svc *refund.Service, sc refund.Scope, id string, actions ...refund.Action) {
	t.Helper()
	in := refund.TransitionInput{Reason: "not ours", ProviderReference: "TRX9Z8Y7X6"}
	for _, a := range actions {
		if _, err := svc.Transition(t.Context(), sc, id, a, in); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
}

// TestRefundFiguresOnVerifyAndIntent: created → approved → returned shows on verify and GET
// intent at no extra read; a rejected refund gives its amount back at once; a payment not
// COMPLETED has nothing refundable.
func TestRefundFiguresOnVerifyAndIntent(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	pay := completedPayment(t, s, ws, 1000, payment.Completed)
	svc, sc := newService(s), scopeOf(ws)
	_, _, before := figures(t, s, ws, pay)
	wantFigures(t, s, ws, pay, 0, 1000)
	r, err := svc.Create(t.Context(), sc, create(ws, pay, 400))
	if err != nil {
		t.Fatal(err)
	}
	wantFigures(t, s, ws, pay, 0, 600)
	transition(t, svc, sc, r.ID, refund.Approve)
	wantFigures(t, s, ws, pay, 0, 600)
	transition(t, svc, sc, r.ID, refund.ReportReturned)
	wantFigures(t, s, ws, pay, 400, 600)
	rejected, err := svc.Create(t.Context(), sc, create(ws, pay, 0)) // everything refundable
	if err != nil || rejected.AmountMinor != 600 {
		t.Fatalf("%v %+v", err, rejected)
	}
	wantFigures(t, s, ws, pay, 400, 0)
	transition(t, svc, sc, rejected.ID, refund.Reject)
	wantFigures(t, s, ws, pay, 400, 600)
	if _, _, after := figures(t, s, ws, pay); after != before {
		t.Fatalf("verify read %d times with refunds, %d without", after, before)
	}
	failed := completedPayment(t, s, ws, 1000, payment.Failed)
	wantFigures(t, s, ws, failed, 0, 0)
	pending := completedPayment(t, s, ws, 1000, payment.Pending)
	wantFigures(t, s, ws, pending, 0, 0)
}

// newDocument creates an invoice (issued) or payment link (active) of ws.
func newDocument(t *testing.T, s *dynamo.Store, ws string, kind document.Kind) string {
	t.Helper()
	id, _ := uuid.NewV7()
	now := time.Now().UTC()
	status := map[document.Kind]string{document.Invoices: document.StatusIssued, document.PaymentLinks: document.StatusActive}[kind]
	amount := int64(1000)
	rec := &document.Record{ID: id.String(), WorkspaceID: ws, Environment: auth.Sandbox, Kind: kind, Reference: "doc-" + id.String()[:8],
		Status: status, Version: 1, Body: json.RawMessage(`{}`), AmountMinor: &amount, CreatedAt: now, UpdatedAt: now,
		History: []document.HistoryEntry{{Version: 1, Status: status, OccurredAt: now, Action: "create"}}}
	if _, _, err := s.CreateDocument(t.Context(), uuid.NewString(), "h", rec); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// linkedPayment is a COMPLETED payment of amount priced from the document docID of kind.
func linkedPayment(t *testing.T, s *dynamo.Store, ws string, kind document.Kind, docID string, amount money.Paisa) string {
	t.Helper()
	id, _ := payment.NewInvoiceID()
	now := time.Now().UTC()
	p := &payment.Payment{InvoiceID: id, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Pending,
		AmountMinor: amount, Currency: "BDT", Reference: "linked", CheckoutHash: []byte("h"),
		RequestHash: "00112233445566778899aabbccddeeff", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		Source: payment.Source{Kind: payment.SourceKind(kind), DocumentID: docID, DocumentVersion: 1, Quantity: 1}}
	if _, err := s.CreatePayment(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishPayment(t.Context(), id, payment.Completed, false, nil, now); err != nil {
		t.Fatal(err)
	}
	return id
}

// wantDocument reads the document by GET and in its list (and as JSON): refunded_minor.
func wantDocument(t *testing.T, s *dynamo.Store, ws string, kind document.Kind, id string, want int64) {
	t.Helper()
	rec, err := s.GetDocument(t.Context(), ws, auth.Sandbox, kind, id)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(rec)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if rec.RefundedMinor != want || m["refunded_minor"] != float64(want) {
		t.Fatalf("GET %s: refunded_minor %d (%v), want %d", kind, rec.RefundedMinor, m["refunded_minor"], want)
	}
	list, _, err := s.ListDocuments(t.Context(), document.ListQuery{WorkspaceID: ws, Environment: auth.Sandbox, Kind: kind, Limit: 25})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.ID == id && r.RefundedMinor == want {
			return
		}
	}
	t.Fatalf("the %s list does not show %s with refunded_minor %d", kind, id, want)
}

// TestRefundShownOnItsDocument: an invoice paid by a refunded payment shows refunded_minor on
// GET and in its list; a payment link with two paid payments, each partly refunded, shows the
// sum; a repeat or a second repair pass counts nothing again; a rejected refund counts nothing.
func TestRefundShownOnItsDocument(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	svc, sc := newService(s), scopeOf(ws)
	inv := newDocument(t, s, ws, document.Invoices)
	pay := linkedPayment(t, s, ws, document.Invoices, inv, 1000)
	r, err := svc.Create(t.Context(), sc, create(ws, pay, 400))
	if err != nil {
		t.Fatal(err)
	}
	transition(t, svc, sc, r.ID, refund.Approve)
	wantDocument(t, s, ws, document.Invoices, inv, 0)
	transition(t, svc, sc, r.ID, refund.ReportReturned, refund.ReportReturned)
	repair(t, s)
	wantDocument(t, s, ws, document.Invoices, inv, 400)
	wantFigures(t, s, ws, pay, 400, 600)

	link := newDocument(t, s, ws, document.PaymentLinks)
	for i, amount := range []money.Paisa{300, 200} {
		p := linkedPayment(t, s, ws, document.PaymentLinks, link, 1000)
		r, err := svc.Create(t.Context(), sc, create(ws, p, amount))
		if err != nil {
			t.Fatal(err)
		}
		transition(t, svc, sc, r.ID, refund.Approve, refund.ReportReturned)
		no, err := svc.Create(t.Context(), sc, create(ws, p, 100))
		if err != nil {
			t.Fatal(err)
		}
		transition(t, svc, sc, no.ID, refund.Reject)
		wantDocument(t, s, ws, document.PaymentLinks, link, []int64{300, 500}[i])
	}
	wantDocument(t, s, ws, document.Invoices, inv, 400) // the invoice is its own
}

// TestRefundDocumentCrashPoints stops report-returned of an invoice's payment's refund after
// each write (the refund RETURNED, the payment's count, the invoice's count, the follow-up
// cleared) and runs the repair pass: the invoice counts the refund exactly once.
func TestRefundDocumentCrashPoints(t *testing.T) {
	s := store(t)
	for at := 1; at <= 4; at++ {
		t.Run(fmt.Sprintf("after-write-%d", at), func(t *testing.T) {
			ws := uuid.NewString()
			svc, sc := newService(s), scopeOf(ws)
			inv := newDocument(t, s, ws, document.Invoices)
			pay := linkedPayment(t, s, ws, document.Invoices, inv, 1000)
			r, err := svc.Create(t.Context(), sc, create(ws, pay, 400))
			if err != nil {
				t.Fatal(err)
			}
			transition(t, svc, sc, r.ID, refund.Approve)
			cr := &crashing{Store: s, at: at}
			if _, err := newService(cr).Transition(t.Context(), sc, r.ID, refund.ReportReturned,
				refund.TransitionInput{ProviderReference: "TRX1"}); err == nil {
				t.Fatal("no crash")
			}
			wantDocument(t, s, ws, document.Invoices, inv, map[bool]int64{true: 400}[at > 2])
			repair(t, s)
			repair(t, s)
			transition(t, svc, sc, r.ID, refund.ReportReturned)
			check(t, s, ws, pay, []string{r.ID})
			wantDocument(t, s, ws, document.Invoices, inv, 400)
			wantFigures(t, s, ws, pay, 400, 600)
		})
	}
}

// TestRefundDocumentRequests measures report-returned of a linked payment's refund (logged
// with -v; decision 120 states them): the document's count is one more UpdateItem, and the
// document's first refund one more (failed) write that finds its map missing, as the
// payment's first count does (decision 101).
func TestRefundDocumentRequests(t *testing.T) {
	raw := store(t)
	meter := &wru{raw: raw}
	s := stackNew(meter.option)
	ws := uuid.NewString()
	svc, sc := newService(s), scopeOf(ws)
	link := newDocument(t, raw, ws, document.PaymentLinks)
	var p string
	// requests (GetItem, PutItem, UpdateItem, Query) and WRU, held
	for _, c := range []struct{ name, want string }{
		{"first of the payment and the link", "2 2 4 0 WRU 8"},
		{"first of the payment", "2 2 3 0 WRU 7"},
		{"neither's first", "1 2 2 0 WRU 6"},
	} {
		if c.name != "neither's first" {
			p = linkedPayment(t, raw, ws, document.PaymentLinks, link, 1000)
		}
		r, err := svc.Create(t.Context(), sc, create(ws, p, 100))
		if err != nil {
			t.Fatal(err)
		}
		transition(t, svc, sc, r.ID, refund.Approve)
		ctx, st := obs.WithStats(t.Context())
		meter.take()
		if _, err := svc.Transition(ctx, sc, r.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX1"}); err != nil {
			t.Fatal(err)
		}
		n := st.Calls()
		got := fmt.Sprintf("%d %d %d %d WRU %.0f", n["dynamodb.GetItem"], n["dynamodb.PutItem"], n["dynamodb.UpdateItem"], n["dynamodb.Query"], meter.take())
		t.Logf("report-returned, %-34s GetItem PutItem UpdateItem Query: %s", c.name, got)
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	wantDocument(t, raw, ws, document.PaymentLinks, link, 300)
}
