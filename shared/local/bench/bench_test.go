package bench

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/aws/kmsseal"
	"github.com/takapay/payments/shared/aws/sqsqueue"
	"github.com/takapay/payments/shared/edge/httpapi"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/sqspoll"
)

type env struct {
	stack    *devstack.Stack
	raw      *dynamodb.Client
	meter    *meter
	deps     *app.Deps
	create   httpapi.LambdaHandler
	verify   httpapi.LambdaHandler
	checkout httpapi.LambdaHandler
	consumer *sqsqueue.Consumer
	poller   *sqspoll.Poller
	hook     string
	key      string
	ws       string // the seeded workspace (the key's)
	table    string
}

// setup starts a stack and builds the real handlers the way the functions do (configuration
// from the template's variables, production bounds and the per-instance key cache), with a
// meter on their DynamoDB and SQS clients.
func setup(tb testing.TB) *env {
	tb.Helper()
	stack := devstack.StartTestStack(tb)
	table := stack.TableName("Table")
	raw := devstack.DynamoClient(stack.Config, stack.Dynamo.Endpoint)
	m := &meter{raw: raw, table: table, keys: map[string]int{}}
	cfg := stack.Config.Copy()
	awsx.Configure(&cfg, 0)
	cfg.APIOptions = append(cfg.APIOptions, m.option)
	envVars := map[string]string{
		"TABLE_NAME": table, "WEBHOOK_QUEUE_URL": stack.QueueURL("WebhookQueue"), "PUBLIC_BASE_URL": "https://pay.example.com.bd",
		"CHECKOUT_TOKEN_KEY": strings.Repeat("bench-key-", 4), "ALLOW_LOCALHOST_URLS": "true",
		"CHECKOUT_RATE_PER_TOKEN": "1000000000", "CHECKOUT_RATE_PER_CLIENT": "1000000000",
		// The workspace limit leases tokens as in production (its writes are in the figures),
		// high enough that the benchmarks' bursts are never refused.
		"WORKSPACE_RATE_LIMIT": "1000000", "WORKSPACE_RATE_BURST": "1000000",
		"LOCAL_SEALING_KEY": base64.StdEncoding.EncodeToString(make([]byte, 32)), // the local stand-in for KMS
	}
	conf, err := app.ConfigFromEnv(func(k string) (string, bool) { v, ok := envVars[k]; return v, ok })
	if err != nil {
		tb.Fatal(err)
	}
	d := app.New(conf, devstack.DynamoClient(cfg, stack.Dynamo.Endpoint), devstack.SQSClient(cfg, stack.SQS.Endpoint),
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	handler := func(id string) httpapi.LambdaHandler {
		h, err := registry.Lambda(id, d)
		if err != nil {
			tb.Fatal(err)
		}
		return h
	}
	creds, _, err := localapi.Seed(context.Background(), d.Store, nil)
	if err != nil {
		tb.Fatal(err)
	}
	d.AWS = cfg
	sealer, err := kmsseal.New(cfg, "", conf.LocalSealingKey)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := (&operator.Operator{Store: d.Store, Sealer: sealer}).IssueWebhookSecret(context.Background(), creds.WorkspaceID, auth.Sandbox); err != nil {
		tb.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	tb.Cleanup(receiver.Close)
	consumer := registry.WebhookConsumer(d)
	e := &env{stack: stack, raw: raw, meter: m, deps: d, create: handler("PaymentCreateFunction"), verify: handler("PaymentVerifyFunction"),
		checkout: handler("CheckoutFunction"), consumer: consumer, hook: receiver.URL + "/webhooks/takapay",
		poller: &sqspoll.Poller{SQS: stack.Queue, QueueURL: conf.WebhookQueueURL, Handler: consumer.Handle},
		key:    creds.SandboxKey, ws: creds.WorkspaceID, table: table}
	m.take()
	return e
}

func (e *env) event(route, body string, headers ...string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"authorization": "Bearer " + e.key, "content-type": "application/json", "accept": "application/json"}
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

// createBody is the README walk-through's payment with a webhook_url.
func (e *env) createBody(i int) string {
	return fmt.Sprintf(`{"amount": 150.50, "reference": "order-%d", "redirect_url": "https://shop.com.bd/thanks", "webhook_url": %q}`, 1000+i, e.hook)
}

// newPayment creates a payment and returns its invoice id and checkout token.
func (e *env) newPayment(tb testing.TB, i int) (string, string) {
	tb.Helper()
	resp, _ := e.create(context.Background(), e.event("POST /v1/payment/create", e.createBody(i), "Idempotency-Key", fmt.Sprintf("bench-%012d", i)))
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("create: %d %s", resp.StatusCode, resp.Body)
	}
	id := resp.Body[strings.Index(resp.Body, `"invoice_id":"`)+14:][:36]
	u := resp.Body[strings.Index(resp.Body, `"payment_url":"`)+15:]
	return id, u[strings.LastIndex(u, "/")+1:][:43]
}

func (e *env) page(token, suffix, body string) events.APIGatewayV2HTTPRequest {
	route := "GET /v1/public/checkout/{token}"
	if suffix != "" {
		route = "POST /v1/public/checkout/{token}" + suffix
	}
	ev := e.event(route, body)
	ev.RawPath = "/v1/public/checkout/" + token + strings.ReplaceAll(suffix, "{noticeAction}", "approve")
	ev.PathParameters = map[string]string{"token": token, "noticeAction": "approve"}
	delete(ev.Headers, "authorization")
	return ev
}

func (e *env) paymentItem(tb testing.TB, id string) map[string]types.AttributeValue {
	tb.Helper()
	out, err := e.raw.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(e.table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}}})
	if err != nil || out.Item == nil {
		tb.Fatalf("payment %s: %v", id, err)
	}
	return out.Item
}

func p50(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// run times b.N calls of op, each followed by one raw DynamoDB call of the same item, and
// reports both p50s, their ratio and the DynamoDB requests op made per call.
func (e *env) run(b *testing.B, name string, op func(i int) (int, string), want int, rawOp func(i int) error) {
	b.Helper()
	ops := make([]time.Duration, 0, b.N)
	raw := make([]time.Duration, 0, b.N)
	requests := 0
	e.meter.take()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		status, body := op(i)
		ops = append(ops, time.Since(t0))
		requests += e.meter.take().DDBRequests
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
	po, pr := p50(ops), p50(raw)
	b.ReportMetric(float64(requests)/float64(b.N), "ddb-req/op")
	b.ReportMetric(float64(po.Microseconds()), "p50-µs")
	b.ReportMetric(float64(pr.Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64(po)/float64(pr), "x-raw")
	fmt.Fprintf(os.Stdout, "latency: %-28s p50 %7.3f ms  raw p50 %7.3f ms  %.2fx raw  (%.2f DynamoDB requests/call)\n",
		name, float64(po.Microseconds())/1000, float64(pr.Microseconds())/1000, float64(po)/float64(pr), float64(requests)/float64(b.N))
}

// BenchmarkCreate: POST /v1/payment/create on a warm instance (one conditional PutItem), next
// to a raw PutItem of a copy of a real payment item with the same index keys.
func BenchmarkCreate(b *testing.B) {
	e := setup(b)
	id, _ := e.newPayment(b, -1)
	item := e.paymentItem(b, id)
	e.run(b, "create (warm)", func(i int) (int, string) {
		resp, _ := e.create(context.Background(), e.event("POST /v1/payment/create", e.createBody(i), "Idempotency-Key", fmt.Sprintf("bench-create-%012d", i)))
		return resp.StatusCode, resp.Body
	}, http.StatusCreated, func(i int) error {
		copyItem := map[string]types.AttributeValue{}
		for k, v := range item {
			copyItem[k] = v
		}
		copyItem["pk"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("RAW#%d", i)}
		_, err := e.raw.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: copyItem,
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		return err
	})
}

// rawGet is a strongly consistent GetItem of a payment item.
func (e *env) rawGet(id string) func(int) error {
	return func(int) error {
		_, err := e.raw.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(e.table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}}})
		return err
	}
}

// BenchmarkVerify: POST /v1/payment/verify on a warm instance (one GetItem), next to a raw
// strongly consistent GetItem of the same payment item.
func BenchmarkVerify(b *testing.B) {
	e := setup(b)
	id, _ := e.newPayment(b, 0)
	ev := e.event("POST /v1/payment/verify", `{"invoice_id":"`+id+`"}`)
	e.run(b, "verify (warm)", func(int) (int, string) {
		resp, _ := e.verify(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusOK, e.rawGet(id))
}

// BenchmarkCreateReplay: an idempotent retry of a create (same key, same body).
func BenchmarkCreateReplay(b *testing.B) {
	e := setup(b)
	id, _ := e.newPayment(b, 1)
	ev := e.event("POST /v1/payment/create", e.createBody(1), "Idempotency-Key", fmt.Sprintf("bench-%012d", 1))
	e.run(b, "create replay (warm)", func(int) (int, string) {
		resp, _ := e.create(context.Background(), ev)
		if resp.Headers["Idempotent-Replayed"] != "true" {
			return 0, "not a replay: " + resp.Body
		}
		return resp.StatusCode, resp.Body
	}, http.StatusCreated, e.rawGet(id))
}

// BenchmarkCheckoutView: GET /v1/public/checkout/{token} as JSON (one GetItem of the payment
// the token names), next to a raw strongly consistent GetItem of the same item.
func BenchmarkCheckoutView(b *testing.B) {
	e := setup(b)
	id, token := e.newPayment(b, 0)
	ev := e.page(token, "", "")
	e.run(b, "checkout page view (JSON)", func(int) (int, string) {
		resp, _ := e.checkout(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusOK, e.rawGet(id))
}

// BenchmarkCheckoutViewNotModified: the page's poll of an unchanged payment, the same GET with
// If-None-Match naming the view's ETag: the same GetItem, a 304 with no body.
func BenchmarkCheckoutViewNotModified(b *testing.B) {
	e := setup(b)
	id, token := e.newPayment(b, 0)
	ev := e.page(token, "", "")
	first, _ := e.checkout(context.Background(), ev)
	ev.Headers["if-none-match"] = first.Headers["ETag"]
	e.run(b, "checkout poll, unchanged (304)", func(int) (int, string) {
		resp, _ := e.checkout(context.Background(), ev)
		return resp.StatusCode, resp.Body
	}, http.StatusNotModified, e.rawGet(id))
}
