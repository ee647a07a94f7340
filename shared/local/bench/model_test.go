package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
)

// List prices, us-east-1 (engineering notes): DynamoDB on demand, HTTP API, Lambda arm64, SQS.
const (
	priceWRU        = 0.625 / 1e6
	priceRRU        = 0.125 / 1e6
	priceHTTPAPI    = 1.00 / 1e6
	priceLambdaReq  = 0.20 / 1e6
	priceLambdaGBs  = 0.0000133334
	lambdaMemoryGB  = 0.25
	priceSQSRequest = 0.40 / 1e6
	// sqsBatch is the sender's batch size (template: BatchSize 10 with a batching window): the
	// event source mapping's ReceiveMessage and DeleteMessageBatch and the sender's invocation
	// are shared by the batch's messages.
	sqsBatch = 10
)

// step is one step of a paid checkout and what it cost.
type step struct {
	name     string
	api      int     // API Gateway requests
	lambda   float64 // Lambda invocations
	sqs      float64 // SQS requests (sent by handlers, plus the event source's share)
	duration time.Duration
	usage
}

// paidCheckout runs one paid checkout — create, one page view, lock, approve, one webhook
// delivery, one verify — through the real handlers and returns each step's cost.
func (e *env) paidCheckout(tb testing.TB, i int) []step {
	tb.Helper()
	ctx := context.Background()
	var steps []step
	do := func(name string, h func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error), ev events.APIGatewayV2HTTPRequest, want int) string {
		e.meter.take()
		t0 := time.Now()
		resp, _ := h(ctx, ev)
		d := time.Since(t0)
		if resp.StatusCode != want {
			tb.Fatalf("%s: %d %s", name, resp.StatusCode, resp.Body)
		}
		u := e.meter.take()
		steps = append(steps, step{name: name, api: 1, lambda: 1, sqs: float64(u.SQS), duration: d, usage: u})
		return resp.Body
	}
	body := do("create", e.create, e.event("POST /v1/payment/create", e.createBody(i), "Idempotency-Key", fmt.Sprintf("paid-%012d", i)), http.StatusCreated)
	id := body[strings.Index(body, `"invoice_id":"`)+14:][:36]
	u := body[strings.Index(body, `"payment_url":"`)+15:]
	token := u[strings.LastIndex(u, "/")+1:][:43]
	do("page view", e.checkout, e.page(token, "", ""), http.StatusOK)
	do("lock", e.checkout, e.page(token, "/lock", `{"route":"bkash","payer":"01712345678"}`), http.StatusOK)
	do("approve", e.checkout, e.page(token, "/notices/{noticeAction}", ""), http.StatusOK)

	// The delivery: the event source's receive and delete are the batch's, shared.
	e.meter.take()
	t0 := time.Now()
	n, err := e.poller.RunOnce(ctx)
	d := time.Since(t0)
	if err != nil || n != 1 {
		tb.Fatalf("delivery: %d messages, %v", n, err)
	}
	du := e.meter.take()
	steps = append(steps, step{name: "webhook delivery", lambda: 1.0 / sqsBatch, sqs: float64(du.SQS) + 2.0/sqsBatch, duration: d, usage: du})

	do("verify", e.verify, e.event("POST /v1/payment/verify", `{"invoice_id":"`+id+`"}`), http.StatusOK)
	return steps
}

// BenchmarkPaidCheckout prints the cost model of one paid checkout, per step, averaged over
// b.N journeys on a warm instance, and the closing line with the price per million.
func BenchmarkPaidCheckout(b *testing.B) {
	e := setup(b)
	e.meter.sizes = true
	e.paidCheckout(b, -1) // warm the instance (key cache) as a steady stream would
	var total []step
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		steps := e.paidCheckout(b, i)
		if total == nil {
			total = make([]step, len(steps))
			for j := range steps {
				total[j].name = steps[j].name
			}
		}
		for j, s := range steps {
			total[j].api += s.api
			total[j].lambda += s.lambda
			total[j].sqs += s.sqs
			total[j].duration += s.duration
			total[j].usage.add(s.usage)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	w := os.Stdout
	fmt.Fprintf(w, "\npaid checkout, per step (mean of %d journeys; README walk-through fields + webhook_url):\n", b.N)
	fmt.Fprintf(w, "  %-17s %5s %6s %6s %8s %6s %7s %6s %9s %10s\n", "step", "ddb", "WRU", "(idx)", "RRU", "SQS", "lambda", "API", "item B", "$ per 1M")
	var wru, rru, dollars float64
	for _, s := range total {
		sw, si, sr := s.WRU/n, s.IndexWRU/n, s.RRU/n
		sq, lam, api := s.sqs/n, s.lambda/n, float64(s.api)/n
		dur := s.duration.Seconds() / n
		cost := sw*priceWRU + sr*priceRRU + sq*priceSQSRequest + lam*priceLambdaReq +
			lam*dur*lambdaMemoryGB*priceLambdaGBs + api*priceHTTPAPI
		wru, rru, dollars = wru+sw, rru+sr, dollars+cost
		fmt.Fprintf(w, "  %-17s %5.2f %6.2f %6.2f %8.2f %6.2f %7.2f %6.0f %9d %10.4f\n", s.name, float64(s.DDBRequests)/n, sw, si, sr, sq, lam, api, s.MaxItem, cost*1e6)
	}
	b.ReportMetric(wru, "WRU/checkout")
	b.ReportMetric(rru, "RRU/checkout")
	b.ReportMetric(dollars*1e6, "$/1M")
	fmt.Fprintf(w, "paid checkout: %.2f WRU, %.2f RRU, $%.2f per 1M (list prices)\n\n", wru, rru, dollars*1e6)
}

// TestHotPartition (make bench only: TAKAPAY_BENCH=1) creates 10,000 paid checkouts across
// 1,000 workspaces' worth of invoice ids through the store and reports, for the table and each
// index, the share of writes that the hottest partition key value took.
func TestHotPartition(t *testing.T) {
	if os.Getenv("TAKAPAY_BENCH") == "" {
		t.Skip("make bench only (TAKAPAY_BENCH=1)")
	}
	e := setup(t)
	e.meter.mu.Lock()
	e.meter.keepKey, e.meter.sizes = true, true
	e.meter.mu.Unlock()
	const checkouts, workspaces, workers = 10000, 1000, 8
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				e.storeCheckout(t, i, i%workspaces)
			}
		}()
	}
	for i := range checkouts {
		next <- i
	}
	close(next)
	wg.Wait()
	byIndex := map[string][]int{}
	for k, c := range e.meter.keys {
		idx, _, _ := strings.Cut(k, " ")
		byIndex[idx] = append(byIndex[idx], c)
	}
	for _, idx := range slices.Sorted(func(yield func(string) bool) {
		for k := range byIndex {
			if !yield(k) {
				return
			}
		}
	}) {
		counts := byIndex[idx]
		total, hottest := 0, 0
		for _, c := range counts {
			total += c
			hottest = max(hottest, c)
		}
		share := 100 * float64(hottest) / float64(total)
		fmt.Printf("hot partition: %-6s %6d writes over %5d key values; hottest %4d = %.2f %%\n", idx, total, len(counts), hottest, share)
		if share > 1 {
			t.Errorf("%s: the hottest partition key value takes %.2f %% of the writes (limit 1 %%)", idx, share)
		}
	}
}

// storeCheckout is one paid checkout's writes, made through the store as the handlers make
// them: create, lock, approve (with its event), the delivered attempt.
func (e *env) storeCheckout(t *testing.T, i, workspace int) {
	ctx := context.Background()
	now := time.Now().UTC()
	id, err := payment.NewInvoiceID()
	if err != nil {
		t.Fatal(err)
	}
	_, hash, err := payment.TokenKey(e.deps.Config.CheckoutTokenKey).CheckoutToken(id)
	if err != nil {
		t.Fatal(err)
	}
	p := &payment.Payment{InvoiceID: id, WorkspaceID: fmt.Sprintf("00000000-0000-7000-8000-%012d", workspace),
		Environment: auth.Sandbox, Status: payment.Pending, AmountMinor: 15050, Currency: payment.Currency,
		Reference: fmt.Sprintf("order-%d", i), RedirectURL: "https://shop.com.bd/thanks", WebhookURL: e.hook,
		CheckoutHash: hash, RequestHash: "h", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(30 * time.Minute),
		MerchantName: "Demo merchant (local)"}
	if _, err := e.deps.Store.CreatePayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.deps.Store.LockPayment(ctx, p, "bkash", "01712345678", now); err != nil {
		t.Fatal(err)
	}
	d, err := p.NewDelivery(payment.Completed, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.deps.Store.FinishPayment(ctx, id, payment.Completed, true, d, now); err != nil {
		t.Fatal(err)
	}
	if err := e.deps.Store.RecordAttempt(ctx, id, d.EventID, 1, payment.DeliveryDelivered, 204, "HTTP 204", nil, false, now, now); err != nil {
		t.Fatal(err)
	}
}
