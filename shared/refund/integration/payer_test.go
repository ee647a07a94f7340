package integration_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// TestPayerRequestRace: 20 racing payer requests (as from 20 instances) on one payment make
// exactly one refund of the whole amount against DynamoDB; each is answered that refund. Once
// the merchant rejects it, the next request makes a new one; with nothing refundable, 409.
func TestPayerRequestRace(t *testing.T) {
	s := store(t)
	ws := "ws-payer-" + uuid.NewString()[:8]
	pid := completedPayment(t, s, ws, 1000, payment.Completed)
	in := refund.PayerInput{Reason: refund.ReasonNotDelivered, Note: "<b>not here</b>", Contact: "01812345678"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids, created := map[string]bool{}, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, c, err := newService(s).RequestByPayer(t.Context(), pid, in)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			ids[r.ID] = true
			if c {
				created++
			}
		}()
	}
	wg.Wait()
	if len(ids) != 1 || created != 1 {
		t.Fatalf("%d refunds, %d created", len(ids), created)
	}
	var id string
	for k := range ids {
		id = k
	}
	p := check(t, s, ws, pid, []string{id})
	if p.PayerRequest != id || p.Promised != 1000 || len(p.Claims) != 1 {
		t.Fatalf("%+v", p)
	}
	r, err := s.GetRefund(t.Context(), ws, p.Environment, id)
	if err != nil || r.PayerContact != "01812345678" || r.RequestedBy != refund.ByPayer || r.Note != in.Note {
		t.Fatalf("%+v %v", r, err)
	}
	svc := newService(s)
	if _, err := svc.Transition(t.Context(), scopeOf(ws), id, refund.Reject, refund.TransitionInput{Reason: "delivered"}); err != nil {
		t.Fatal(err)
	}
	next, c, err := svc.RequestByPayer(t.Context(), pid, in)
	if err != nil || !c || next.ID == id {
		t.Fatal(next, c, err)
	}
	if _, err := svc.Transition(t.Context(), scopeOf(ws), next.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(t.Context(), scopeOf(ws), create(ws, pid, 1000)); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.RequestByPayer(t.Context(), pid, in)
	wantCode(t, err, apierr.StateConflict, "nothing")
	check(t, s, ws, pid, []string{id, next.ID})
}
