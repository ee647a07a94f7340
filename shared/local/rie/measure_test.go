package rie_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/rie"
	"github.com/takapay/payments/shared/local/samtemplate"
)

func p50(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// TestMeasure prints docs/measured.md's figures for the emulator (TAKAPAY_RIE_MEASURE=1):
// each function's cold invocation (a new instance: exec, the runtime's init, one request)
// next to the floor binary's, and the p50 of create and verify through the runtime hop
// against the same handler called in-process. Figures only: it asserts nothing timed.
func TestMeasure(t *testing.T) {
	if os.Getenv("TAKAPAY_RIE_MEASURE") == "" {
		t.Skip("set TAKAPAY_RIE_MEASURE=1 to measure")
	}
	a, set, _ := startPools(t, 1)
	root, _ := samtemplate.FindRepoRoot()
	ctx := context.Background()
	const starts = 15
	// Cold: a new pool per start; the probes' healthz event for the HTTP functions (every
	// function answers it, 404 or 200), an empty SQS batch and the schedule for the workers.
	cold := func(fn rie.Function, payload []byte) (time.Duration, time.Duration) {
		emu, _ := rie.Emulator(ctx, root)
		var c, w []time.Duration
		for range starts {
			p := rie.NewPool(fn, rie.Options{Emulator: emu, PoolSize: 1})
			t0 := time.Now()
			if _, err := p.Invoke(ctx, "", payload); err != nil {
				t.Fatal(err)
			}
			c = append(c, time.Since(t0))
			t1 := time.Now()
			if _, err := p.Invoke(ctx, "", payload); err != nil {
				t.Fatal(err)
			}
			w = append(w, time.Since(t1))
			p.Close()
		}
		return p50(c), p50(w)
	}
	healthz, _ := os.ReadFile(filepath.Join(root, "events", "probes-healthz.json"))
	boots, err := rie.Bootstraps(ctx, root, []string{"cmd/lambda-floor"})
	if err != nil {
		t.Fatal(err)
	}
	floorFn := set.Pools["ProbesFunction"].Function()
	floorFn.LogicalID, floorFn.Bootstrap = "lambda-floor", boots["cmd/lambda-floor"]
	fc, fw := cold(floorFn, []byte("{}"))
	fmt.Printf("floor: cold %.1f ms, warm %.2f ms, cold-warm %.1f ms\n", ms(fc), ms(fw), ms(fc-fw))
	ids := make([]string, 0, len(set.Pools))
	for id := range set.Pools {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		payload := healthz
		switch id {
		case "WebhookSenderFunction":
			payload = []byte(`{"Records":[]}`)
		case "WebhookRedriveFunction":
			payload = rie.ScheduledEvent(time.Now(), "arn:local")
		}
		c, w := cold(set.Pools[id].Function(), payload)
		fmt.Printf("%s: cold %.1f ms, warm %.2f ms, cold-warm %.1f ms (%.2f× floor)\n", id, ms(c), ms(w), ms(c-w), float64(c-w)/float64(fc-fw))
	}

	// The runtime hop: the same event, the same handler, in-process and through the emulator.
	readEvent := func(name string) events.APIGatewayV2HTTPRequest {
		raw, _ := os.ReadFile(filepath.Join(root, "events", name))
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		ev.Headers["authorization"] = "Bearer " + a.Creds.SandboxKey
		return ev
	}
	const n = 100
	for _, c := range []struct{ id, event string }{{"PaymentCreateFunction", "payment-create.json"}, {"PaymentVerifyFunction", "payment-verify.json"}} {
		ev := readEvent(c.event)
		inproc, err := registry.Lambda(c.id, a.Deps[c.id])
		if err != nil {
			t.Fatal(err)
		}
		emulated := set.Pools[c.id].HTTPHandler()
		var di, de []time.Duration
		for i := range n {
			if c.id == "PaymentCreateFunction" {
				ev.Headers["idempotency-key"] = fmt.Sprintf("rie-measure-%08d-in", i)
			}
			t0 := time.Now()
			r1, err := inproc(ctx, ev)
			di = append(di, time.Since(t0))
			if c.id == "PaymentCreateFunction" {
				ev.Headers["idempotency-key"] = fmt.Sprintf("rie-measure-%08d-em", i)
			}
			t1 := time.Now()
			r2, err2 := emulated(ctx, ev)
			de = append(de, time.Since(t1))
			if err != nil || err2 != nil || r1.StatusCode != r2.StatusCode {
				t.Fatalf("%s: %d %v / %d %v", c.id, r1.StatusCode, err, r2.StatusCode, err2)
			}
		}
		pi, pe := p50(di), p50(de)
		fmt.Printf("%s (%d each, status %s): in-process p50 %.2f ms, emulator p50 %.2f ms, hop %.2f ms (%.2f×)\n",
			c.id, n, c.event, ms(pi), ms(pe), ms(pe-pi), float64(pe)/float64(pi))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
