// Command initbench measures the cold start of Lambda function binaries the way the Lambda
// service sees it: it serves a fake Lambda Runtime API on loopback, starts each binary with
// AWS_LAMBDA_RUNTIME_API pointing at it, and times from exec until the function's first
// GET /2018-06-01/runtime/invocation/next — package init, configuration, AWS clients and
// handler wiring, everything a function does before it can take its first event.
//
//	initbench [-n 30] bin/lambda-floor bin/payment-create ...
//
// The first binary is the baseline: each line also shows the ratio of its median to the
// first's. Build the binaries for the host with the Lambda flags (make coldstart does).
// Local tool: never deployed.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	n := flag.Int("n", 30, "starts per binary")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: initbench [-n N] BINARY...")
		os.Exit(2)
	}
	var base time.Duration
	for i, bin := range flag.Args() {
		var runs []time.Duration
		for range *n {
			d, err := once(bin)
			if err != nil {
				fmt.Fprintf(os.Stderr, "initbench: %s: %v\n", bin, err)
				os.Exit(1)
			}
			runs = append(runs, d)
		}
		slices.Sort(runs)
		med, p90 := runs[len(runs)/2], runs[len(runs)*9/10]
		if i == 0 {
			base = med
		}
		fmt.Printf("  %-18s init p50 %6.2f ms  p90 %6.2f ms  %.2fx\n", filepath.Base(bin),
			ms(med), ms(p90), float64(med)/float64(base))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// once starts bin against a fresh fake Runtime API and returns the time to its first poll.
func once(bin string) (time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	polled := make(chan time.Time, 1)
	release := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/2018-06-01/runtime/invocation/next" {
			select {
			case polled <- time.Now():
			default:
			}
			<-release // hold the poll: no event is ever handed out
		}
		w.WriteHeader(http.StatusAccepted)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	defer close(release)

	cmd := exec.Command(bin)
	cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + ln.Addr().String(),
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=initbench", "AWS_SECRET_ACCESS_KEY=initbench",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_LAMBDA_FUNCTION_NAME=initbench",
		"TABLE_NAME=initbench", "WEBHOOK_QUEUE_URL=http://127.0.0.1:1/000000000000/initbench",
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	select {
	case t := <-polled:
		return t.Sub(start), nil
	case <-time.After(10 * time.Second):
		return 0, fmt.Errorf("no poll of the Runtime API within 10 s")
	}
}
