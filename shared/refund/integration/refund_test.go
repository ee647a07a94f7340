package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/obs"
	"github.com/takapay/payments/shared/foundation/urlcheck"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
	"github.com/takapay/payments/shared/webhook"
)

// stack is one dynalite for the package's tests (each test uses its own workspace and payments).
var (
	stackOnce  sync.Once
	stackStore *dynamo.Store
	stackNew   func(opt func(*middleware.Stack) error) *dynamo.Store
)

func store(t *testing.T) *dynamo.Store {
	t.Helper()
	devstack.RequireServers(t)
	stackOnce.Do(func() {
		st := devstack.StartTestStack(&onceTB{T: t})
		stackNew = func(opt func(*middleware.Stack) error) *dynamo.Store {
			cfg := st.Config.Copy()
			awsx.Instrument(&cfg) // counts each request in the context's obs.Stats
			if opt != nil {
				cfg.APIOptions = append(cfg.APIOptions, opt)
			}
			return &dynamo.Store{DB: devstack.DynamoClient(cfg, st.Dynamo.Endpoint), Table: st.TableName("Table")}
		}
		stackStore = stackNew(nil)
	})
	if stackStore == nil {
		t.Fatal("the local stack did not start")
	}
	return stackStore
}

// onceTB keeps the stack running past the test that started it (stopped with the process).
type onceTB struct{ *testing.T }

func (o *onceTB) Cleanup(func()) {}

func scopeOf(ws string) refund.Scope {
	return refund.Scope{WorkspaceID: ws, Environment: auth.Sandbox, By: "key_test"}
}

// completedPayment creates a payment of amount paisa in workspace ws and finishes it
// COMPLETED, with the store methods the payment flow uses (CreatePayment, FinishPayment).
func completedPayment(t *testing.T, s *dynamo.Store, ws string, amount money.Paisa, to payment.Status, webhookURL ...string) string {
	t.Helper()
	id, err := payment.NewInvoiceID()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	p := &payment.Payment{InvoiceID: id, WorkspaceID: ws, Environment: auth.Sandbox, Status: payment.Pending,
		AmountMinor: amount, Currency: "BDT", Reference: "refund-test", CheckoutHash: []byte("h"),
		RequestHash: "00112233445566778899aabbccddeeff", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if len(webhookURL) > 0 {
		p.WebhookURL = webhookURL[0]
	}
	if _, err := s.CreatePayment(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if to != payment.Pending {
		if _, err := s.FinishPayment(t.Context(), id, to, false, nil, now); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func newService(s refund.Store) *refund.Service { return &refund.Service{Store: s} }

func create(ws, paymentID string, amount money.Paisa) refund.CreateInput {
	return refund.CreateInput{ID: uuid.NewString(), PaymentID: paymentID, AmountMinor: amount,
		Reason: refund.ReasonRequestedByCustomer, RequestedBy: refund.ByMerchant}
}

func wantCode(t *testing.T, err error, code apierr.Code, contains ...string) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	for _, c := range contains {
		if !strings.Contains(e.Message, c) {
			t.Fatalf("message %q does not say %q", e.Message, c)
		}
	}
}

// check reads the payment and the given refunds back from DynamoDB and states the money rule.
func check(t *testing.T, s *dynamo.Store, ws, paymentID string, ids []string) *refund.Payment {
	t.Helper()
	p, err := s.RefundPayment(t.Context(), paymentID)
	if err != nil || p == nil {
		t.Fatalf("read payment: %v", err)
	}
	seen := map[string]bool{}
	var rs []*refund.Refund
	for _, id := range append(ids, keys(p.Claims)...) {
		if seen[id] {
			continue
		}
		seen[id] = true
		r, err := s.GetRefund(t.Context(), ws, auth.Sandbox, id)
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			rs = append(rs, r)
		}
	}
	if err := refund.Check(p, rs); err != nil {
		t.Fatalf("money rule broken:\n%v", err)
	}
	return p
}

func keys(m map[string]money.Paisa) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRefundRace: 50 racing 1-taka refunds on a 10-taka payment: exactly 10 are created, the
// others are refused with what is still refundable (0).
func TestRefundRace(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	pay := completedPayment(t, s, ws, 1000, payment.Completed)
	svc := newService(s)
	var (
		mu      sync.Mutex
		created []string
		refused int
		wg      sync.WaitGroup
	)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := svc.Create(context.Background(), scopeOf(ws), create(ws, pay, 100))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Code != apierr.StateConflict || !strings.Contains(e.Message, "0 paisa (refundable_minor) are still refundable") {
					t.Errorf("refused with %v", err)
				}
				refused++
				return
			}
			created = append(created, r.ID)
		}()
	}
	wg.Wait()
	if len(created) != 10 || refused != 40 {
		t.Fatalf("%d created, %d refused; want 10 and 40", len(created), refused)
	}
	p := check(t, s, ws, pay, created)
	if p.Promised != 1000 || p.Ledger().Refundable() != 0 {
		t.Fatalf("ledger %+v", p.Ledger())
	}
}

// TestRefundReleaseAndReturn: reject and cancel give their amount back at once; a returned
// refund is counted once; repeats are idempotent.
func TestRefundReleaseAndReturn(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	pay := completedPayment(t, s, ws, 1000, payment.Completed)
	svc := newService(s)
	ctx, sc := t.Context(), scopeOf(ws)
	a, err := svc.Create(ctx, sc, create(ws, pay, 600))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Create(ctx, sc, create(ws, pay, 500))
	wantCode(t, err, apierr.StateConflict, "400 paisa (refundable_minor) are still refundable")
	if _, err := svc.Transition(ctx, sc, a.ID, refund.Reject, refund.TransitionInput{Reason: "not ours"}); err != nil {
		t.Fatal(err)
	}
	if l, _ := svc.Ledger(ctx, sc, pay); l.Refundable() != 1000 {
		t.Fatalf("after reject: refundable %d, want 1000", l.Refundable())
	}
	b, err := svc.Create(ctx, sc, create(ws, pay, 0)) // everything refundable
	if err != nil || b.AmountMinor != 1000 {
		t.Fatalf("create all: %v %+v", err, b)
	}
	if _, err := svc.Transition(ctx, sc, b.ID, refund.Cancel, refund.TransitionInput{}); err != nil {
		t.Fatal(err)
	}
	c, err := svc.Create(ctx, sc, create(ws, pay, 1000))
	if err != nil {
		t.Fatalf("cancel did not give the amount back: %v", err)
	}
	for _, step := range []refund.Action{refund.Approve, refund.ReportReturned, refund.ReportReturned} {
		if c, err = svc.Transition(ctx, sc, c.ID, step, refund.TransitionInput{ProviderReference: "TRX8A7B6C5D"}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	_, err = svc.Transition(ctx, sc, c.ID, refund.Cancel, refund.TransitionInput{})
	wantCode(t, err, apierr.StateConflict, "RETURNED")
	p := check(t, s, ws, pay, []string{a.ID, b.ID, c.ID})
	if p.Returned != 1000 || p.Promised != 1000 || c.DueBy == nil || c.Status != refund.Returned {
		t.Fatalf("ledger %+v, refund %+v", p.Ledger(), c)
	}
}

// TestRefundRefusals: a payment not COMPLETED is refused (409); another workspace's payment
// is not found (404).
func TestRefundRefusals(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	svc := newService(s)
	pending := completedPayment(t, s, ws, 1000, payment.Pending)
	_, err := svc.Create(t.Context(), scopeOf(ws), create(ws, pending, 100))
	wantCode(t, err, apierr.StateConflict, "PENDING", "only a COMPLETED payment")
	failed := completedPayment(t, s, ws, 1000, payment.Failed)
	_, err = svc.Create(t.Context(), scopeOf(ws), create(ws, failed, 100))
	wantCode(t, err, apierr.StateConflict, "FAILED")
	theirs := completedPayment(t, s, uuid.NewString(), 1000, payment.Completed)
	_, err = svc.Create(t.Context(), scopeOf(ws), create(ws, theirs, 100))
	wantCode(t, err, apierr.NotFound)
	live := scopeOf(ws)
	live.Environment = auth.Live
	ok := completedPayment(t, s, ws, 1000, payment.Completed)
	_, err = svc.Create(t.Context(), live, create(ws, ok, 100))
	wantCode(t, err, apierr.ScopeOrEnvironmentDenied, "sandbox-only")
	for _, id := range []string{pending, failed, theirs, ok} {
		if p, _ := s.RefundPayment(t.Context(), id); p.Claims != nil || p.Promised != 0 {
			t.Fatalf("a refused create wrote the ledger of %s: %+v", id, p)
		}
	}
}

// crashing is the real store that stops after its n-th write: the write lands, then the
// caller sees an error, as a Lambda killed right after it would leave things.
type crashing struct {
	refund.Store
	mu     sync.Mutex
	writes int
	at     int
	// stale makes the first read of the payment answer no refund promised: the create read
	// it before a racing refund's claim.
	stale bool
}

func (c *crashing) RefundPayment(ctx context.Context, id string) (*refund.Payment, error) {
	p, err := c.Store.RefundPayment(ctx, id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stale && p != nil {
		c.stale, p.Promised = false, 0
	}
	return p, err
}

var errCrash = errors.New("crashed after the write")

func (c *crashing) after(err error) error {
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	if c.writes == c.at {
		return errCrash
	}
	return nil
}

func (c *crashing) PutRefund(ctx context.Context, r *refund.Refund) (*refund.Refund, error) {
	out, err := c.Store.PutRefund(ctx, r)
	return out, c.after(err)
}

func (c *crashing) ClaimRefund(ctx context.Context, p, r string, a, m money.Paisa) (refund.Claim, error) {
	out, err := c.Store.ClaimRefund(ctx, p, r, a, m)
	return out, c.after(err)
}

func (c *crashing) VoidClaim(ctx context.Context, p, r string) (refund.Claim, error) {
	out, err := c.Store.VoidClaim(ctx, p, r)
	return out, c.after(err)
}

func (c *crashing) ReleaseClaim(ctx context.Context, p, r string, a money.Paisa) error {
	return c.after(c.Store.ReleaseClaim(ctx, p, r, a))
}

func (c *crashing) CountReturned(ctx context.Context, p, r string, a money.Paisa) error {
	return c.after(c.Store.CountReturned(ctx, p, r, a))
}

func (c *crashing) UpdateRefund(ctx context.Context, prev, next *refund.Refund) error {
	return c.after(c.Store.UpdateRefund(ctx, prev, next))
}

// repair runs the repair pass as it runs once every writer's grace has passed.
func repair(t *testing.T, s refund.Store) {
	t.Helper()
	if _, err := newService(s).Repair(t.Context(), time.Now().Add(refund.DefaultGrace+time.Minute)); err != nil {
		t.Fatalf("repair: %v", err)
	}
}

// TestRefundCrashPoints stops create and each transition after each of its writes, runs the
// repair pass, and reads the money rule back from DynamoDB.
func TestRefundCrashPoints(t *testing.T) {
	s := store(t)
	type journey struct {
		name  string
		setup []refund.Action // done without crashing first
		act   refund.Action   // "" for the create itself
		over  bool            // the create asks more than is refundable (a refused claim)
	}
	journeys := []journey{{name: "create"}, {name: "create-refused", over: true},
		{name: "review", act: refund.Review}, {name: "approve", act: refund.Approve},
		{name: "reject", act: refund.Reject}, {name: "cancel", act: refund.Cancel},
		{name: "cancel-approved", setup: []refund.Action{refund.Approve}, act: refund.Cancel},
		{name: "report-returned", setup: []refund.Action{refund.Approve}, act: refund.ReportReturned}}
	in := refund.TransitionInput{Reason: "duplicate order", ProviderReference: "TRX9Z8Y7X6"}
	for _, j := range journeys {
		for at := 1; at <= 5; at++ {
			t.Run(fmt.Sprintf("%s/after-write-%d", j.name, at), func(t *testing.T) {
				ws := uuid.NewString()
				pay := completedPayment(t, s, ws, 1000, payment.Completed)
				ctx, sc := t.Context(), scopeOf(ws)
				var ids []string
				cr := &crashing{Store: s}
				in0 := create(ws, pay, 400)
				if j.over { // another refund holds 700; the crashing create read the ledger before it
					other, err := newService(s).Create(ctx, sc, create(ws, pay, 700))
					if err != nil {
						t.Fatal(err)
					}
					ids, cr.stale = append(ids, other.ID), true
				}
				if j.act == "" {
					cr.at = at
				}
				ids = append(ids, in0.ID)
				r, err := newService(cr).Create(ctx, sc, in0)
				if j.over && at > 4 {
					wantCode(t, err, apierr.StateConflict, "300 paisa (refundable_minor)")
				}
				if j.act != "" {
					if err != nil {
						t.Fatal(err)
					}
					for _, a := range j.setup {
						if r, err = newService(s).Transition(ctx, sc, r.ID, a, in); err != nil {
							t.Fatal(err)
						}
					}
					cr.at = cr.writes + at
					_, _ = newService(cr).Transition(ctx, sc, r.ID, j.act, in)
				}
				repair(t, s)
				p := check(t, s, ws, pay, ids)
				if j.act == refund.Reject || j.act == refund.Cancel {
					if got, _ := s.GetRefund(ctx, ws, auth.Sandbox, r.ID); got.Status.Live() || p.Promised != 0 {
						t.Fatalf("%s did not give the amount back: %s, promised %d", j.act, got.Status, p.Promised)
					}
				}
			})
		}
	}
}

// wru meters the write units of each PutItem and UpdateItem: DynamoDB's rule, 1 per KB of
// the larger of the item before and after (a write that fails its condition costs the item's
// size too), plus GSI2's (keys only): 1 to add or remove an entry, 2 to move it.
type wru struct {
	raw   *dynamo.Store
	mu    sync.Mutex
	units float64
}

func (w *wru) option(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("refundWRU",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			var k map[string]types.AttributeValue
			switch p := in.Parameters.(type) {
			case *dynamodb.PutItemInput:
				k = map[string]types.AttributeValue{"pk": p.Item["pk"], "sk": p.Item["sk"]}
			case *dynamodb.UpdateItemInput:
				k = p.Key
			default:
				return next.HandleInitialize(ctx, in)
			}
			before := w.get(ctx, k)
			out, md, err := next.HandleInitialize(ctx, in)
			after := w.get(ctx, k)
			units := math.Max(1, math.Ceil(float64(max(apitest.ItemSize(before), apitest.ItemSize(after)))/1024))
			g := func(it map[string]types.AttributeValue) string {
				pk, _ := it["gsi2pk"].(*types.AttributeValueMemberS)
				sk, _ := it["gsi2sk"].(*types.AttributeValueMemberS)
				if pk == nil || sk == nil {
					return ""
				}
				return pk.Value + "\x00" + sk.Value
			}
			if gb, ga := g(before), g(after); gb != ga {
				units += map[bool]float64{true: 1}[gb != ""] + map[bool]float64{true: 1}[ga != ""]
			}
			w.mu.Lock()
			w.units += units
			w.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

func (w *wru) get(ctx context.Context, k map[string]types.AttributeValue) map[string]types.AttributeValue {
	// Without the request's obs.Stats: the meter's reads are not the operation's.
	out, err := w.raw.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.raw.Table), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

func (w *wru) take() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	u := w.units
	w.units = 0
	return u
}

// TestRefundRequests measures the DynamoDB requests and write units of create and of each
// transition (logged with -v; decision 101 states them).
func TestRefundRequests(t *testing.T) {
	raw := store(t)
	meter := &wru{raw: raw}
	s := stackNew(meter.option)
	ws := uuid.NewString()
	pay := completedPayment(t, raw, ws, 1000, payment.Completed)
	svc := newService(s)
	sc := scopeOf(ws)
	// The measured figures, held: requests (GetItem, PutItem, UpdateItem, Query) and WRU.
	want := map[string]string{
		"create (first of a payment)": "3 2 2 0 WRU 6", "create (id from a key)": "2 2 1 0 WRU 5",
		"create (new id)": "1 2 1 0 WRU 5", "review": "1 1 0 0 WRU 1", "approve": "1 1 0 0 WRU 1",
		"report-returned (first of a payment)": "2 2 2 0 WRU 6", "reject": "1 2 1 0 WRU 5",
		"cancel": "1 2 1 0 WRU 5", "report-returned": "1 2 1 0 WRU 5", "repeat (idempotent)": "1 0 0 0 WRU 0",
		"create refused by the read": "2 0 0 0 WRU 0", "repair (nothing due)": "0 0 0 8 WRU 0",
	}
	count := func(name string, f func(ctx context.Context) error) {
		ctx, st := obs.WithStats(t.Context())
		meter.take()
		if err := f(ctx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := st.Calls()
		got := fmt.Sprintf("%d %d %d %d WRU %.0f", c["dynamodb.GetItem"], c["dynamodb.PutItem"], c["dynamodb.UpdateItem"], c["dynamodb.Query"], meter.take())
		t.Logf("%-38s GetItem PutItem UpdateItem Query: %s", name, got)
		if got != want[name] {
			t.Errorf("%s: %s, want %s", name, got, want[name])
		}
	}
	var r *refund.Refund
	count("create (first of a payment)", func(ctx context.Context) (err error) {
		r, err = svc.Create(ctx, sc, create(ws, pay, 100))
		return err
	})
	count("create (id from a key)", func(ctx context.Context) (err error) {
		_, err = svc.Create(ctx, sc, create(ws, pay, 100))
		return err
	})
	count("create (new id)", func(ctx context.Context) (err error) {
		in := create(ws, pay, 100)
		in.ID = ""
		_, err = svc.Create(ctx, sc, in)
		return err
	})
	for _, a := range []refund.Action{refund.Review, refund.Approve, refund.ReportReturned} {
		count(string(a)+map[bool]string{true: " (first of a payment)"}[a == refund.ReportReturned], func(ctx context.Context) (err error) {
			r, err = svc.Transition(ctx, sc, r.ID, a, refund.TransitionInput{ProviderReference: "TRX1"})
			return err
		})
	}
	for _, a := range []refund.Action{refund.Reject, refund.Cancel} {
		r2, _ := svc.Create(t.Context(), sc, create(ws, pay, 100))
		count(string(a), func(ctx context.Context) (err error) {
			_, err = svc.Transition(ctx, sc, r2.ID, a, refund.TransitionInput{Reason: "no"})
			return err
		})
	}
	r3, _ := svc.Create(t.Context(), sc, create(ws, pay, 100))
	_, _ = svc.Transition(t.Context(), sc, r3.ID, refund.Approve, refund.TransitionInput{})
	count("report-returned", func(ctx context.Context) (err error) {
		_, err = svc.Transition(ctx, sc, r3.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX2"})
		return err
	})
	count("repeat (idempotent)", func(ctx context.Context) (err error) {
		_, err = svc.Transition(ctx, sc, r3.ID, refund.ReportReturned, refund.TransitionInput{ProviderReference: "TRX2"})
		return err
	})
	count("create refused by the read", func(ctx context.Context) error {
		_, err := svc.Create(ctx, sc, create(ws, pay, 1000))
		if err == nil {
			return errors.New("not refused")
		}
		return nil
	})
	count("repair (nothing due)", func(ctx context.Context) error {
		_, err := svc.Repair(ctx, time.Now())
		return err
	})
}

// TestRefundClosedIDNeverCounts: an id closed on the payment (voided before its claim, or
// released) can never be claimed again, so a claim arriving late (a repair pass that read the
// refund before it was voided) cannot promise an amount without its refund.
func TestRefundClosedIDNeverCounts(t *testing.T) {
	s := store(t)
	ws := uuid.NewString()
	pay := completedPayment(t, s, ws, 1000, payment.Completed)
	ctx := t.Context()
	voided, released := uuid.NewString(), uuid.NewString()
	if c, err := s.VoidClaim(ctx, pay, voided); err != nil || c != refund.Closed {
		t.Fatalf("void: %v %v", c, err)
	}
	if c, err := s.ClaimRefund(ctx, pay, voided, 100, 900); err != nil || c != refund.Closed {
		t.Fatalf("claim after void: %v %v", c, err)
	}
	if c, err := s.ClaimRefund(ctx, pay, released, 100, 900); err != nil || c != refund.Claimed {
		t.Fatalf("claim: %v %v", c, err)
	}
	if c, err := s.VoidClaim(ctx, pay, released); err != nil || c != refund.Claimed {
		t.Fatalf("void after claim: %v %v", c, err)
	}
	for range 2 { // a release is idempotent
		if err := s.ReleaseClaim(ctx, pay, released, 100); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.ClaimRefund(ctx, pay, released, 100, 900); err != nil || c != refund.Closed {
		t.Fatalf("claim after release: %v %v", c, err)
	}
	for range 2 { // a count is idempotent
		if err := s.CountReturned(ctx, pay, released, 100); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.RefundPayment(ctx, pay)
	if err != nil || p.Promised != 0 || p.Returned != 100 || p.Claims[voided] != 0 || p.Claims[released] != 0 || len(p.Claims) != 2 {
		t.Fatalf("ledger %+v %v", p, err)
	}
}

// TestRefundEventRequests measures what refund webhooks add (decision 116): the same
// operations on a payment with a webhook_url (each status's event recorded in the refund's own
// write), one delivery attempt of an event (the sender's GetItem and its conditional PutItem),
// and the re-drive's refund sweep. The event makes the refund item larger and keeps it in the
// GSI2 sweep entry until delivered: review and approve move that entry (2 more WRU), and a
// delivery that empties it removes it (1 more).
func TestRefundEventRequests(t *testing.T) {
	raw := store(t)
	meter := &wru{raw: raw}
	s := stackNew(meter.option)
	ws := uuid.NewString()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	pay := completedPayment(t, raw, ws, 1000, payment.Completed, hook.URL+"/hook")
	// Each step a minute after the last, as in life: every event has its own time, so the
	// sweep entry (the earliest pending event) moves as they are delivered.
	var mu sync.Mutex
	clock := time.Now().UTC()
	step := func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Minute); return clock }
	svc := &refund.Service{Store: s, Now: step}
	sc := scopeOf(ws)
	key, _ := webhook.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	sender := &webhook.Sender{Refunds: s, Now: step, Client: webhook.NewClient(webhook.ClientOptions{AllowLocalhost: true}),
		URLs: urlcheck.Policy{AllowLocalhost: true},
		Secrets: func(context.Context, string, auth.Environment, time.Time) ([][]byte, error) {
			return [][]byte{key}, nil
		}}
	want := map[string]string{
		// every event pending: the entry stays at the earliest; each delivery but the last moves it
		"create (first of a payment)": "3 2 2 0 WRU 7", "review": "1 1 0 0 WRU 1", "approve": "1 1 0 0 WRU 1",
		"report-returned (first of a payment)": "2 2 2 0 WRU 6", "delivery attempt (more pending)": "1 1 0 0 WRU 4",
		"delivery attempt (the last pending)": "1 1 0 0 WRU 3",
		// each event delivered before the next step
		"create (delivered at once)": "2 2 1 0 WRU 6", "delivery (nothing else pending)": "1 1 0 0 WRU 2",
		"approve (delivered at once)": "1 1 0 0 WRU 2", "report-returned (delivered at once)": "1 2 1 0 WRU 6",
		"re-drive sweep (nothing overdue)": "0 0 0 8 WRU 0",
	}
	last := map[string]string{"delivery (nothing else pending)": "1 1 0 0 WRU 3"} // the RETURNED refund's item is over 1 KB
	seen := map[string]int{}
	count := func(name string, f func(ctx context.Context) error) {
		ctx, st := obs.WithStats(t.Context())
		meter.take()
		if err := f(ctx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := st.Calls()
		got := fmt.Sprintf("%d %d %d %d WRU %.0f", c["dynamodb.GetItem"], c["dynamodb.PutItem"], c["dynamodb.UpdateItem"], c["dynamodb.Query"], meter.take())
		t.Logf("%-38s GetItem PutItem UpdateItem Query: %s", name, got)
		seen[name]++
		w := want[name]
		if name == "delivery (nothing else pending)" && seen[name] == 3 {
			w = last[name]
		}
		if got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
	var r *refund.Refund
	count("create (first of a payment)", func(ctx context.Context) (err error) {
		r, err = svc.Create(ctx, sc, create(ws, pay, 100))
		return err
	})
	for _, a := range []refund.Action{refund.Review, refund.Approve, refund.ReportReturned} {
		count(string(a)+map[bool]string{true: " (first of a payment)"}[a == refund.ReportReturned], func(ctx context.Context) (err error) {
			r, err = svc.Transition(ctx, sc, r.ID, a, refund.TransitionInput{ProviderReference: "TRX1"})
			return err
		})
	}
	stored, err := raw.GetRefund(t.Context(), ws, auth.Sandbox, r.ID)
	if err != nil || len(stored.Events) != 4 {
		t.Fatalf("events %+v %v", stored, err)
	}
	for i, e := range stored.Events {
		name := "delivery attempt (more pending)"
		if i == len(stored.Events)-1 {
			name = "delivery attempt (the last pending)"
		}
		count(name, func(ctx context.Context) error {
			if retry, _ := sender.Deliver(ctx, webhook.RefundMessage(ws, auth.Sandbox, r.ID, e.EventID)); retry {
				return errors.New("not delivered")
			}
			return nil
		})
	}
	stored, _ = raw.GetRefund(t.Context(), ws, auth.Sandbox, r.ID)
	for _, e := range stored.Events {
		if e.Status != payment.DeliveryDelivered || e.Attempts != 1 {
			t.Fatalf("event %+v", e)
		}
	}
	// The usual life: each event delivered before the next step. Each step then adds the
	// sweep entry (1 WRU) and each delivery removes it (1 WRU).
	deliverLast := func(name string, r *refund.Refund) {
		count(name, func(ctx context.Context) error {
			if retry, _ := sender.Deliver(ctx, webhook.RefundMessage(ws, auth.Sandbox, r.ID, r.Events[len(r.Events)-1].EventID)); retry {
				return errors.New("not delivered")
			}
			return nil
		})
	}
	count("create (delivered at once)", func(ctx context.Context) (err error) {
		r, err = svc.Create(ctx, sc, create(ws, pay, 100))
		return err
	})
	deliverLast("delivery (nothing else pending)", r)
	for _, a := range []refund.Action{refund.Approve, refund.ReportReturned} {
		count(string(a)+" (delivered at once)", func(ctx context.Context) (err error) {
			r, err = svc.Transition(ctx, sc, r.ID, a, refund.TransitionInput{ProviderReference: "TRX2"})
			return err
		})
		deliverLast("delivery (nothing else pending)", r)
	}
	count("re-drive sweep (nothing overdue)", func(ctx context.Context) error {
		_, err := s.RefundFollowUps(ctx, time.Now().Add(-webhook.DefaultOverdue), 200)
		return err
	})
}
