package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/awsx"
	"github.com/takapay/payments/shared/httpapi"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
)

// countingTransport counts DynamoDB HTTP requests as they leave the client (retries included).
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

type env struct {
	stack    *devstack.Stack
	db       *dynamodb.Client
	count    *countingTransport
	create   httpapi.LambdaHandler
	verify   httpapi.LambdaHandler
	checkout httpapi.LambdaHandler
	key      string
	table    string
}

func setup(b *testing.B) *env {
	b.Helper()
	stack := devstack.StartTestStack(b)
	ct := &countingTransport{next: http.DefaultTransport}
	cfg := stack.Config.Copy()
	cfg.HTTPClient = &http.Client{Transport: ct}
	cfg.Retryer = awsx.NewRetryer
	db := devstack.DynamoClient(cfg, stack.Dynamo.Endpoint)
	conf := app.Config{TableName: stack.TableName("Table"), WebhookQueueURL: stack.QueueURL("WebhookQueue"), PublicBaseURL: "https://pay.example.com.bd"}
	conf.CheckoutRatePerToken, conf.CheckoutRatePerClient = 1<<30, 1<<30
	conf.CheckoutTokenKey = []byte("bench-checkout-token-key-0123456789abcdef") // create derives payment_url with it
	d := app.New(conf, db, devstack.SQSClient(stack.Config, stack.SQS.Endpoint), slog.New(slog.NewTextHandler(io.Discard, nil)))
	create, err := registry.Lambda("PaymentCreateFunction", d)
	if err != nil {
		b.Fatal(err)
	}
	verify, err := registry.Lambda("PaymentVerifyFunction", d)
	if err != nil {
		b.Fatal(err)
	}
	checkout, err := registry.Lambda("CheckoutFunction", d)
	if err != nil {
		b.Fatal(err)
	}
	creds, _, err := localapi.Seed(context.Background(), d.Store, nil)
	if err != nil {
		b.Fatal(err)
	}
	return &env{stack: stack, db: db, count: ct, create: create, verify: verify, checkout: checkout, key: creds.SandboxKey, table: conf.TableName}
}

func (e *env) event(route, body string, headers ...string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"authorization": "Bearer " + e.key, "content-type": "application/json"}
	for i := 0; i+1 < len(headers); i += 2 {
		h[strings.ToLower(headers[i])] = headers[i+1]
	}
	method, path, _ := strings.Cut(route, " ")
	return events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: route, RawPath: path, Headers: h, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: "api.example.com.bd", HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path},
		},
	}
}

const createBody = `{"amount": 1500.50, "reference": "order-%d", "redirect_url": "https://shop.com.bd/thanks",
 "customer_name": "Rahim Uddin", "customer_email": "rahim@shop.com.bd", "metadata": {"sku": "TSHIRT-XL"}}`

func p50(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func report(b *testing.B, ops, raw []time.Duration, requests int64) {
	b.ReportMetric(float64(requests)/float64(b.N), "ddb-req/op")
	po, pr := p50(ops), p50(raw)
	b.ReportMetric(float64(po.Microseconds()), "p50-µs")
	b.ReportMetric(float64(pr.Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64(po)/float64(pr), "x-raw")
}

func (e *env) rawItem(i int) map[string]types.AttributeValue {
	// About the size of a payment item, under its own key prefix.
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("RAW#%d", i)}, "sk": &types.AttributeValueMemberS{Value: "RAW"},
		"payload": &types.AttributeValueMemberS{Value: strings.Repeat("x", 700)},
	}
}

// run times b.N calls of op, each followed by one raw DynamoDB call, and reports both p50s
// and the DynamoDB requests op made per call.
func (e *env) run(b *testing.B, op func(i int) (int, string), want int, rawOp func(i int) error) {
	b.Helper()
	ops := make([]time.Duration, 0, b.N)
	raw := make([]time.Duration, 0, b.N)
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := e.count.n.Load()
		t0 := time.Now()
		status, body := op(i)
		ops = append(ops, time.Since(t0))
		requests += e.count.n.Load() - before
		if status != want {
			b.Fatalf("status %d, want %d: %s", status, want, body)
		}
		t0 = time.Now()
		if err := rawOp(i); err != nil {
			b.Fatal(err)
		}
		raw = append(raw, time.Since(t0))
	}
	b.StopTimer()
	report(b, ops, raw, requests)
}

func (e *env) rawPut(i int) error {
	_, err := e.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: e.rawItem(i)})
	return err
}

func (e *env) rawGet(int) error {
	_, err := e.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "RAW#0"}, "sk": &types.AttributeValueMemberS{Value: "RAW"}}, ConsistentRead: aws.Bool(true)})
	return err
}

// BenchmarkCreate: POST /v1/payment/create (auth GetItem + conditional PutItem), next to a raw
// PutItem of a similar item.
func BenchmarkCreate(b *testing.B) {
	e := setup(b)
	e.run(b, func(i int) (int, string) {
		ev := e.event("POST /v1/payment/create", fmt.Sprintf(createBody, i), "Idempotency-Key", fmt.Sprintf("bench-create-%012d", i))
		resp, _ := e.create(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusCreated, e.rawPut)
}

// BenchmarkVerify: POST /v1/payment/verify (auth GetItem + payment GetItem), next to a raw
// strongly consistent GetItem.
func BenchmarkVerify(b *testing.B) {
	e := setup(b)
	resp, _ := e.create(context.Background(), e.event("POST /v1/payment/create", fmt.Sprintf(createBody, 0)))
	id := resp.Body[strings.Index(resp.Body, `"invoice_id":"`)+14:][:36]
	if err := e.rawPut(0); err != nil {
		b.Fatal(err)
	}
	ev := e.event("POST /v1/payment/verify", `{"invoice_id":"`+id+`"}`)
	e.run(b, func(int) (int, string) {
		resp, _ := e.verify(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusOK, e.rawGet)
}

// BenchmarkCreateReplay: an idempotent retry of a create (same key, same body).
func BenchmarkCreateReplay(b *testing.B) {
	e := setup(b)
	ev := e.event("POST /v1/payment/create", fmt.Sprintf(createBody, 1), "Idempotency-Key", "bench-replay-000000000001")
	if resp, _ := e.create(context.Background(), ev); resp.StatusCode != http.StatusCreated {
		b.Fatalf("create: %d", resp.StatusCode)
	}
	e.run(b, func(int) (int, string) {
		resp, _ := e.create(context.Background(), ev)
		if resp.Headers["Idempotent-Replayed"] != "true" {
			return 0, "not a replay: " + resp.Body
		}
		return resp.StatusCode, resp.Body
	}, http.StatusCreated, e.rawPut)
}

// BenchmarkCheckoutView: GET /v1/public/checkout/{token} as JSON (one strongly consistent
// GetItem of the payment the token names), next to a raw strongly consistent GetItem.
func BenchmarkCheckoutView(b *testing.B) {
	e, ev := checkoutViewEvent(b)
	e.run(b, func(int) (int, string) {
		resp, _ := e.checkout(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusOK, e.rawGet)
}

// BenchmarkCheckoutViewNotModified: the page's poll of an unchanged payment, the same GET with
// If-None-Match naming the view's ETag: the same GetItem, a 304 with no body.
func BenchmarkCheckoutViewNotModified(b *testing.B) {
	e, ev := checkoutViewEvent(b)
	first, _ := e.checkout(context.Background(), ev)
	ev.Headers["if-none-match"] = first.Headers["ETag"]
	e.run(b, func(int) (int, string) {
		resp, _ := e.checkout(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusNotModified, e.rawGet)
}

// checkoutViewEvent creates a payment and returns the event of its JSON view.
func checkoutViewEvent(b *testing.B) (*env, events.APIGatewayV2HTTPRequest) {
	e := setup(b)
	resp, _ := e.create(context.Background(), e.event("POST /v1/payment/create", fmt.Sprintf(createBody, 0)))
	url := resp.Body[strings.Index(resp.Body, `"payment_url":"`)+15:]
	token := url[strings.LastIndex(url, "/")+1:][:43]
	if err := e.rawPut(0); err != nil {
		b.Fatal(err)
	}
	ev := e.event("GET /v1/public/checkout/{token}", "")
	ev.PathParameters = map[string]string{"token": token}
	ev.Headers["accept"] = "application/json"
	return e, ev
}
