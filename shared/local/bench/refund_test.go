package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/registry"
)

// refundOps are the refund operations BenchmarkRefunds measures, in journey order.
var refundOps = []string{"create", "create (replay)", "review", "approve", "approve (repeat)", "report-returned",
	"create (to reject)", "reject", "create (to cancel)", "cancel", "get", "list (25)", "list payment_id"}

// refundJourney runs, on one paid payment, a refund through create, review, approve and
// report-returned (with a replayed create and a repeated approve), a second refund rejected
// and a third cancelled, then a get and the two lists, through RefundsFunction's real handler;
// it returns each operation's usage.
func (e *env) refundJourney(tb testing.TB, h func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error), ws string, i int) map[string]usage {
	tb.Helper()
	ctx := context.Background()
	pay, token := e.newPayment(tb, 500_000+i)
	for _, s := range []string{"/lock", "/notices/{noticeAction}"} {
		body := ""
		if s == "/lock" {
			body = `{"route":"bkash","payer":"01712345678"}`
		}
		if resp, _ := e.checkout(ctx, e.page(token, s, body)); resp.StatusCode != http.StatusOK {
			tb.Fatalf("%s: %d %s", s, resp.StatusCode, resp.Body)
		}
	}
	out := map[string]usage{}
	do := func(name, method, suffix, id, body string, want int, headers ...string) string {
		route := method + " /v1/workspaces/{workspaceID}/refunds" + suffix
		ev := e.event(route, body, headers...)
		ev.RawPath = "/v1/workspaces/" + ws + "/refunds" + strings.ReplaceAll(suffix, "/{refundID}", "/"+id)
		ev.PathParameters = map[string]string{"workspaceID": ws, "refundID": id}
		ev.QueryStringParameters = map[string]string{"environment": "sandbox"}
		if name == "list payment_id" {
			ev.QueryStringParameters["payment_id"] = pay
		}
		e.meter.take()
		resp, _ := h(ctx, ev)
		if resp.StatusCode != want {
			tb.Fatalf("%s: %d %s", name, resp.StatusCode, resp.Body)
		}
		u := out[name]
		u.add(e.meter.take())
		out[name] = u
		return resp.Body
	}
	create := func(name string, amount int, key string) string {
		body := do(name, "POST", "", "", fmt.Sprintf(`{"payment_id":%q,"amount_minor":%d,"reason":"goods_returned","note":"bench"}`, pay, amount),
			http.StatusCreated, "Idempotency-Key", key)
		return body[strings.Index(body, `"id":"`)+6:][:36]
	}
	key := fmt.Sprintf("bench-refund-%012d", i)
	id := create("create", 5000, key)
	create("create (replay)", 5000, key)
	do("review", "POST", "/{refundID}/review", id, "", http.StatusOK)
	do("approve", "POST", "/{refundID}/approve", id, "", http.StatusOK)
	do("approve (repeat)", "POST", "/{refundID}/approve", id, "", http.StatusOK)
	do("report-returned", "POST", "/{refundID}/report-returned", id, `{"provider_reference":"BKA9XK2Q1Z"}`, http.StatusOK)
	rej := create("create (to reject)", 1000, key+"-r")
	do("reject", "POST", "/{refundID}/reject", rej, `{"reason":"not returned"}`, http.StatusOK)
	can := create("create (to cancel)", 1000, key+"-c")
	do("cancel", "POST", "/{refundID}/cancel", can, "", http.StatusOK)
	do("get", "GET", "/{refundID}", id, "", http.StatusOK)
	do("list (25)", "GET", "", "", "", http.StatusOK)
	do("list payment_id", "GET", "", "", "", http.StatusOK)
	return out
}

// BenchmarkRefunds prints each refund operation's DynamoDB requests, write units (and the
// index's part) and read units through RefundsFunction's handler on a warm instance, the mean
// of b.N journeys, each on its own payment. The figures include the authentication's reads
// and the workspace limit's lease writes, as the other benchmarks' do.
func BenchmarkRefunds(b *testing.B) {
	e := setup(b)
	e.meter.sizes = true
	h, err := registry.Lambda("RefundsFunction", e.deps)
	if err != nil {
		b.Fatal(err)
	}
	ws := e.ws
	e.refundJourney(b, h, ws, -1) // warm the instance (key cache)
	total := map[string]usage{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for name, u := range e.refundJourney(b, h, ws, i) {
			t := total[name]
			t.add(u)
			total[name] = t
		}
	}
	b.StopTimer()
	n := float64(b.N)
	w := os.Stdout
	fmt.Fprintf(w, "\nrefunds, per operation (mean of %d journeys, warm instance):\n", b.N)
	fmt.Fprintf(w, "  %-20s %5s %6s %6s %6s\n", "operation", "ddb", "WRU", "(idx)", "RRU")
	for _, name := range refundOps {
		u := total[name]
		fmt.Fprintf(w, "  %-20s %5.2f %6.2f %6.2f %6.2f\n", name, float64(u.DDBRequests)/n, u.WRU/n, u.IndexWRU/n, u.RRU/n)
	}
	fmt.Fprintln(w)
}
