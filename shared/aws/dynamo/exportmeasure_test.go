package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// TestMeasureExportOfTenThousand measures what DashboardExportFunction does for a month of
// 10,000 realistic payments (TAKAPAY_MEASURE=1; seeding takes a while on dynalite): the
// store's requests, the time, the allocation and the heap's peak while the export is built,
// and the response's size, gzipped and not. Nothing is asserted on time or memory.
func TestMeasureExportOfTenThousand(t *testing.T) {
	if os.Getenv("TAKAPAY_MEASURE") == "" {
		t.Skip("TAKAPAY_MEASURE=1 to measure")
	}
	s, _ := newStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ws := "0195f3a4-0000-7000-8000-0000000000m1"
	start := time.Date(2026, 10, 28, 0, 0, 0, 0, time.UTC)
	const n = 10_000
	var wg sync.WaitGroup
	ids := make(chan int)
	var seedErr atomic.Value
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				if _, err := s.CreatePayment(ctx, realisticPayment(ws, start, i)); err != nil {
					seedErr.Store(err)
				}
			}
		}()
	}
	for i := range n {
		ids <- i
	}
	close(ids)
	wg.Wait()
	if err, _ := seedErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	raw, err := s.get(ctx, paymentPK(realisticPayment(ws, start, 0).InvoiceID), "PAY")
	if err != nil {
		t.Fatal(err)
	}
	size := itemSize(raw)

	var requests atomic.Int64
	counted := &Store{Table: s.Table, DB: dynamodb.New(s.DB.Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("count", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				requests.Add(1)
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
		})
	})}
	q := export.Query{WorkspaceID: ws, Environment: auth.Sandbox, From: start, To: start.AddDate(0, 0, 31)}
	for _, gz := range []bool{true, false} {
		requests.Store(0)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		began := time.Now()
		body, err := export.Build(ctx, counted, q, start.AddDate(0, 0, 31), gz, export.MaxResponseBody)
		took := time.Since(began)
		close(stop)
		<-sampled
		if err != nil {
			t.Fatal(err)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		wire := (len(body.Bytes) + 2) / 3 * 4
		if !gz {
			asJSON, _ := json.Marshal(string(body.Bytes))
			wire = len(asJSON)
		}
		t.Logf("export of %d payments (stored item about %d B), gzip %v: %d DynamoDB requests, %s, body %d B (%d B in the gateway's response), %d MB allocated, heap in use before %d MB, peak %d MB",
			body.Rows, size, gz, requests.Load(), took.Round(time.Millisecond), len(body.Bytes), wire,
			(after.TotalAlloc-before.TotalAlloc)>>20, before.HeapInuse>>20, peak.Load()>>20)
		if body.Rows != n {
			t.Fatalf("rows = %d", body.Rows)
		}
	}
}

// realisticPayment is a completed payment-link payment as the checkout leaves it: customer,
// webhook (delivered), lock, metadata, a Bangla reference.
func realisticPayment(ws string, start time.Time, i int) *payment.Payment {
	at := start.Add(time.Duration(i) * 4 * time.Minute)
	done := at.Add(90 * time.Second)
	return &payment.Payment{InvoiceID: fmt.Sprintf("0195f3a4-7777-7%03d-8000-%012d", i%1000, i), WorkspaceID: ws, Environment: auth.Sandbox,
		Status: payment.Completed, AmountMinor: money.Paisa(150050 + 37*i), Currency: "BDT", Reference: fmt.Sprintf("অর্ডার #%d - শাড়ি, ২টি", 10000+i),
		RedirectURL: "https://shop.example.com.bd/orders/thanks", CancelURL: "https://shop.example.com.bd/cart",
		WebhookURL: "https://shop.example.com.bd/hooks/takapay", CustomerName: "রহিম উদ্দিন", CustomerEmail: "rahim@example.com.bd",
		CustomerPhone: "+8801712345678", Metadata: `{"order_id":"ORD-` + fmt.Sprint(10000+i) + `"}`, CheckoutHash: make([]byte, 32),
		RequestHash: "0123456789abcdef0123456789abcdef", CreatedAt: at, UpdatedAt: done, ExpiresAt: at.Add(time.Hour),
		MerchantName: "Shop BD", LockRoute: "bkash", LockPayer: "01712345678", LockedAt: &at, FinishedAt: &done,
		Outbox: &payment.Delivery{EventID: fmt.Sprintf("evt_%d", i), Kind: "payment.completed", Status: payment.DeliveryDelivered,
			CreatedAt: done, Attempts: 1, LastAttemptAt: &done, LastHTTPStatus: 200, NextAttemptAt: done},
		Source: payment.Source{Kind: payment.SourcePaymentLinks, DocumentID: "0195f3a4-8888-7000-8000-000000000001", DocumentVersion: 3, Quantity: 1}}
}

// itemSize is an item's size as DynamoDB counts it (names and values; numbers by their text,
// an upper bound).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberM:
		return 3 + itemSize(v.Value) + len(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	}
	return 0
}
