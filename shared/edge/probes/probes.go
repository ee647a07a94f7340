// Package probes serves GET /healthz, GET /readyz and the $default route, which answers every
// path this release does not deploy with a 404 envelope instead of a bare gateway message.
package probes

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/openapi"
)

// Pinger proves the table is reachable.
type Pinger interface {
	Ping(ctx context.Context) error
}

// QueueAttributes is the part of the SQS client readiness uses.
type QueueAttributes interface {
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Handler serves the probe routes and the fallback.
type Handler struct {
	Table    Pinger
	Queue    QueueAttributes
	QueueURL string
	// CacheFor bounds how often readiness touches the dependencies (the probe is public).
	CacheFor time.Duration
	// Timeout bounds each dependency check.
	Timeout time.Duration

	mu      sync.Mutex
	cached  *readiness
	checked time.Time
}

// Check is one dependency's result.
type Check struct {
	OK                  bool   `json:"ok"`
	Error               string `json:"error,omitempty"`
	ApproximateMessages *int   `json:"approximate_messages,omitempty"`
}

// EnvironmentReadiness says whether an environment can take payments.
type EnvironmentReadiness struct {
	FinanciallyReady bool   `json:"financially_ready"`
	MoneyMovement    string `json:"money_movement"`
	Reason           string `json:"reason,omitempty"`
}

type readiness struct {
	Status       string                          `json:"status"`
	Checks       map[string]Check                `json:"checks"`
	Environments map[string]EnvironmentReadiness `json:"environments"`
	CheckedAt    time.Time                       `json:"checked_at"`
}

// Healthz serves GET /healthz: the process is alive (nothing else is checked).
func (h *Handler) Healthz(context.Context, *web.Request) (*web.Response, error) {
	return web.JSON(http.StatusOK, map[string]string{"status": "ok"}), nil
}

// Ready serves GET /readyz: the table and the webhook queue answer (cached for CacheFor).
func (h *Handler) Ready(ctx context.Context, _ *web.Request) (*web.Response, error) {
	rd := h.readiness(ctx)
	if rd.Status != "ready" {
		var failed []string
		for name, c := range rd.Checks {
			if !c.OK {
				failed = append(failed, name+" unreachable")
			}
		}
		return nil, apierr.New(apierr.ServiceUnavailable, "not ready: %s; sandbox cannot take payments until this clears", strings.Join(sorted(failed), ", "))
	}
	return web.JSON(http.StatusOK, rd), nil
}

func (h *Handler) readiness(ctx context.Context) *readiness {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cached != nil && time.Since(h.checked) < h.CacheFor {
		return h.cached
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var wg sync.WaitGroup
	var table, queue Check
	wg.Add(2)
	go func() {
		defer wg.Done()
		table = result(h.Table.Ping(ctx))
	}()
	go func() {
		defer wg.Done()
		queue = h.checkQueue(ctx)
	}()
	wg.Wait()
	rd := &readiness{
		Status:    "ready",
		Checks:    map[string]Check{"table": table, "webhook_queue": queue},
		CheckedAt: time.Now().UTC(),
		Environments: map[string]EnvironmentReadiness{
			"sandbox": {FinanciallyReady: table.OK && queue.OK, MoneyMovement: "simulated"},
			"live":    {FinanciallyReady: false, MoneyMovement: "none", Reason: "live payments are not released"},
		},
	}
	if !table.OK || !queue.OK {
		rd.Status = "not_ready"
		sb := rd.Environments["sandbox"]
		sb.Reason = "a dependency is unreachable"
		rd.Environments["sandbox"] = sb
	}
	h.cached, h.checked = rd, time.Now()
	return rd
}

func (h *Handler) checkQueue(ctx context.Context) Check {
	if h.QueueURL == "" {
		return Check{OK: false, Error: "WEBHOOK_QUEUE_URL is not configured"}
	}
	out, err := h.Queue.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(h.QueueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		return result(err)
	}
	c := Check{OK: true}
	if v, ok := out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)]; ok {
		n := 0
		for _, ch := range v {
			if ch < '0' || ch > '9' {
				n = -1
				break
			}
			n = n*10 + int(ch-'0')
		}
		if n >= 0 {
			c.ApproximateMessages = &n
		}
	}
	return c
}

func result(err error) Check {
	if err == nil {
		return Check{OK: true}
	}
	msg := "unreachable"
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "timed out"
	}
	return Check{OK: false, Error: msg}
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// dashboardSlash is the dashboard's overview with a trailing slash. An HTTP API route cannot
// end in "/", so GET /dashboard cannot also be declared as /dashboard/, and a request for it
// that the gateway does not fold onto GET /dashboard reaches this fallback (the local gateway
// never folds). It is sent to /dashboard with its query (308: permanent, and the method kept),
// where the dashboard answers (decision 76).
const dashboardSlash = "/dashboard/"

func dashboardRedirect(r *web.Request) *web.Response {
	loc := strings.TrimSuffix(dashboardSlash, "/")
	if len(r.Query) > 0 {
		q := url.Values{}
		for k, v := range r.Query {
			q.Set(k, v)
		}
		loc += "?" + q.Encode()
	}
	return &web.Response{Status: http.StatusPermanentRedirect, Raw: []byte{},
		Headers: map[string]string{"Location": loc, "Cache-Control": "no-store"}}
}

// Fallback answers a request no deployed route took (GET /dashboard/ excepted, above): 404 NOT_DEPLOYED for a published
// operation of a later release, 405 for a published path with another method, 404 NOT_FOUND
// for anything else.
func Fallback(_ context.Context, r *web.Request) (*web.Response, error) {
	if r.Method == http.MethodGet && r.Path == dashboardSlash {
		return dashboardRedirect(r), nil
	}
	op, allowed, err := openapi.Lookup(r.Method, r.Path)
	if err != nil {
		return nil, apierr.Wrap(apierr.Internal, err, "internal error")
	}
	switch {
	case op != nil && !op.Deployed:
		return nil, apierr.New(apierr.NotDeployed, "%s %s is published but not deployed in this release", op.Method, op.Path)
	case op != nil:
		// A deployed operation reached the fallback: the gateway and the contract disagree.
		return nil, apierr.New(apierr.NotFound, "%s %s is not available here", op.Method, op.Path)
	case len(allowed) > 0:
		return nil, &apierr.Error{Code: apierr.MethodNotAllowed,
			Message: "method " + r.Method + " is not allowed here; allowed: " + strings.Join(allowed, ", "),
			Headers: map[string]string{"Allow": strings.Join(allowed, ", ")}}
	}
	return nil, apierr.New(apierr.NotFound, "no such endpoint: %s %s", r.Method, r.Path)
}
