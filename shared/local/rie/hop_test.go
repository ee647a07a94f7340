package rie_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/samtemplate"
)

var reportLine = regexp.MustCompile(`REPORT RequestId: (\S+)\s+(?:Init Duration: [0-9.]+ ms\s+)?Duration: ([0-9.]+) ms`)

// cpuTicks is a process's user+system CPU time in clock ticks (/proc/<pid>/stat).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// TestMeasureHop prints docs/measured.md's breakdown of the emulator hop at 16 clients
// (TAKAPAY_RIE_MEASURE=1): 16 clients each send creates one after another, first to the
// in-process handler, then through the real bootstrap under the emulator, then as raw
// PutItems of a copy of a payment item; for the emulated creates it splits each request's time
// into the event's JSON (marshal the event, unmarshal the answer), the function's own time as
// the emulator reports it (REPORT Duration: from handing the event to the runtime to its
// answer) and the rest (the loopback POST to the emulator, the emulator handing the event
// over the Runtime API and taking the answer back), and the CPU each kind of process spent.
// Figures only: it asserts nothing timed.
func TestMeasureHop(t *testing.T) {
	if os.Getenv("TAKAPAY_RIE_MEASURE") == "" {
		t.Skip("set TAKAPAY_RIE_MEASURE=1 to measure")
	}
	const clients, each = 16, 25
	a, set, out := startPools(t, clients)
	root, _ := samtemplate.FindRepoRoot()
	raw, _ := os.ReadFile(filepath.Join(root, "events", "payment-create.json"))
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
	inproc, err := registry.Lambda("PaymentCreateFunction", a.Deps["PaymentCreateFunction"])
	if err != nil {
		t.Fatal(err)
	}
	pool := set.Pools["PaymentCreateFunction"]
	ctx := context.Background()
	event := func(phase string, c, i int) events.APIGatewayV2HTTPRequest {
		e := ev
		e.Headers = map[string]string{}
		for k, v := range ev.Headers {
			e.Headers[k] = v
		}
		e.Headers["idempotency-key"] = fmt.Sprintf("hop-%s-%02d-%04d-%d", phase, c, i, time.Now().UnixNano())
		e.RequestContext.RequestID = fmt.Sprintf("hop-%s-%02d-%04d", phase, c, i)
		return e
	}
	type sample struct {
		id                     string
		total, marshal, invoke time.Duration
	}
	runAll := func(name string, op func(c, i int) sample) []sample {
		var mu sync.Mutex
		var all []sample
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					s := op(c, i)
					mu.Lock()
					all = append(all, s)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return all
	}
	// Warm: every instance of the pool started once (16 at once), so the runs below are warm.
	runAll("warm", func(c, i int) sample {
		if i > 0 {
			return sample{}
		}
		if _, err := pool.HTTPHandler()(ctx, event("warm", c, i)); err != nil {
			t.Error(err)
		}
		return sample{}
	})
	self0 := cpuTicks(os.Getpid())
	inT0 := time.Now()
	in := runAll("in-process", func(c, i int) sample {
		e := event("in", c, i)
		t0 := time.Now()
		r, err := inproc(ctx, e)
		if err != nil || r.StatusCode != 201 {
			t.Errorf("in-process: %d %v", r.StatusCode, err)
		}
		return sample{total: time.Since(t0)}
	})
	inCPU, inWall := cpuTicks(os.Getpid())-self0, time.Since(inT0)
	pids := map[string][]int{}
	for _, pr := range pool.Processes() {
		pids["emulator"] = append(pids["emulator"], pr.PID)
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pr.PID, pr.PID))
		files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pr.PID))
		for _, f := range files {
			b, _ = os.ReadFile(f)
			for _, fl := range strings.Fields(string(b)) {
				n, _ := strconv.Atoi(fl)
				pids["bootstrap"] = append(pids["bootstrap"], n)
			}
		}
	}
	pids["test process (gateway side)"] = []int{os.Getpid()}
	pids["dynalite"] = []int{a.Stack.Dynamo.PID()}
	cpu := func() map[string]int64 {
		m := map[string]int64{}
		for k, ps := range pids {
			for _, p := range ps {
				m[k] += cpuTicks(p)
			}
		}
		return m
	}
	mark := len(out.String())
	cpu0, t0 := cpu(), time.Now()
	em := runAll("emulated", func(c, i int) sample {
		e := event("em", c, i)
		start := time.Now()
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		m1 := time.Since(start)
		i0 := time.Now()
		res, err := pool.Invoke(ctx, e.RequestContext.RequestID, b)
		inv := time.Since(i0)
		if err != nil {
			t.Errorf("emulated: %v", err)
			return sample{}
		}
		u0 := time.Now()
		var resp events.APIGatewayV2HTTPResponse
		if err := json.Unmarshal(res.Payload, &resp); err != nil || resp.StatusCode != 201 {
			t.Errorf("emulated: %d %v", resp.StatusCode, err)
		}
		return sample{id: e.RequestContext.RequestID, total: time.Since(start), marshal: m1 + time.Since(u0), invoke: inv}
	})
	wall := time.Since(t0)
	cpu1 := cpu()
	// The same through 2 instances, make dev's old POOL_SIZE default: the other 14 clients
	// wait for one (as the old pool queued them), here at a semaphore before the pool.
	two := make(chan struct{}, 2)
	queued := runAll("emulated-2", func(c, i int) sample {
		e := event("q2", c, i)
		b, _ := json.Marshal(e)
		start := time.Now()
		two <- struct{}{}
		_, err := pool.Invoke(ctx, e.RequestContext.RequestID, b)
		<-two
		if err != nil {
			t.Errorf("emulated through 2: %v", err)
		}
		return sample{total: time.Since(start)}
	})
	// The emulator's REPORT Duration of each emulated request.
	durs := map[string]time.Duration{}
	sc := bufio.NewScanner(strings.NewReader(out.String()[mark:]))
	for sc.Scan() {
		if m := reportLine.FindStringSubmatch(sc.Text()); m != nil {
			f, _ := strconv.ParseFloat(m[2], 64)
			durs[m[1]] = time.Duration(f * float64(time.Millisecond))
		}
	}
	// Raw PutItems of a copy of a payment item, 16 clients.
	item := paymentItem(t, a.Stack.DDB, a.Stack.TableName("Table"))
	rawS := runAll("raw", func(c, i int) sample {
		cp := map[string]types.AttributeValue{}
		for k, v := range item {
			cp[k] = v
		}
		cp["pk"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("RAW#%02d-%04d", c, i)}
		t0 := time.Now()
		_, err := a.Stack.DDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a.Stack.TableName("Table")), Item: cp,
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		if err != nil {
			t.Error(err)
		}
		return sample{total: time.Since(t0)}
	})
	pick := func(s []sample, f func(sample) time.Duration) time.Duration {
		d := make([]time.Duration, 0, len(s))
		for _, x := range s {
			d = append(d, f(x))
		}
		return p50(d)
	}
	tot := func(s sample) time.Duration { return s.total }
	pi, pe, pr := pick(in, tot), pick(em, tot), pick(rawS, tot)
	var fnDur, hop []time.Duration
	for _, x := range em {
		if d, ok := durs[x.id]; ok {
			fnDur = append(fnDur, d)
			hop = append(hop, x.invoke-d)
		}
	}
	fmt.Printf("16 clients × %d creates: in-process p50 %.2f ms (%.2f× PutItem), emulated p50 %.2f ms (%.2f× PutItem), raw PutItem p50 %.2f ms\n",
		each, ms(pi), float64(pi)/float64(pr), ms(pe), float64(pe)/float64(pr), ms(pr))
	pq := pick(queued, tot)
	hop50 := p50(hop) // sorts hop
	hop90 := hop[len(hop)*9/10]
	fmt.Printf("through 2 instances (the old POOL_SIZE default, 14 clients waiting): p50 %.2f ms (%.2f× PutItem)\n", ms(pq), float64(pq)/float64(pr))
	fmt.Printf("emulated, per request (p50): event JSON %.3f ms, pool.Invoke %.2f ms, the function (REPORT Duration, %d matched) %.2f ms, the hop (pool.Invoke − REPORT Duration) p50 %.2f ms p90 %.2f ms\n",
		ms(pick(em, func(s sample) time.Duration { return s.marshal })), ms(pick(em, func(s sample) time.Duration { return s.invoke })), len(fnDur), ms(p50(fnDur)), ms(hop50), ms(hop90))
	fmt.Printf("in-process phase: %.2f s wall, CPU ms per request in the test process %.2f\n", inWall.Seconds(), float64(inCPU)/100*1000/float64(len(in)))
	n := float64(len(em))
	ticks := 100.0 // USER_HZ
	fmt.Printf("emulated phase: %.2f s wall, %d requests; CPU ms per request:", wall.Seconds(), len(em))
	for _, k := range []string{"bootstrap", "emulator", "test process (gateway side)", "dynalite"} {
		fmt.Printf(" %s %.2f;", k, float64(cpu1[k]-cpu0[k])/ticks*1000/n)
	}
	fmt.Println()
}

func paymentItem(t *testing.T, db *dynamodb.Client, table string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(50),
		FilterExpression: aws.String("sk = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: "PAY"}}})
	if err != nil || len(out.Items) == 0 {
		t.Fatalf("a payment item: %v", err)
	}
	return out.Items[0]
}
