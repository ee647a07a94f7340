package dashboard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/export"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/payment"
)

// fakePayments is the store's stream over a slice kept newest first (a domain fake: the
// store's EachPayment is tested on dynalite in package dynamo).
type fakePayments struct {
	all   []*payment.Payment
	read  int
	calls int
}

func (f *fakePayments) EachPayment(_ context.Context, q export.Query, fn func(*payment.Payment) error) error {
	f.calls++
	for _, p := range f.all {
		if p.WorkspaceID != q.WorkspaceID || p.Environment != q.Environment ||
			!q.From.IsZero() && p.CreatedAt.Before(q.From) || !q.To.IsZero() && !p.CreatedAt.Before(q.To) {
			continue
		}
		f.read++
		if err := fn(p); err == export.ErrStop {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// A busy workspace: the overview reads at most homeScanBudget payments and says "at least".
func TestOverviewIsBoundedAndSaysAtLeast(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	f := &fakePayments{}
	for i := 0; i < 2000; i++ {
		at := now.Add(-time.Duration(i) * time.Minute)
		f.all = append(f.all, &payment.Payment{InvoiceID: "p" + itoa(i), WorkspaceID: "ws", Environment: auth.Sandbox,
			Status: payment.Completed, AmountMinor: 100, CreatedAt: at, FinishedAt: &at})
	}
	s := &Service{Payments: f, Now: func() time.Time { return now }}
	o, err := s.overview(context.Background(), "ws", auth.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if !o.capped || f.read != homeScanBudget || f.calls != 1 || o.today.count != homeScanBudget || len(o.latest) != homeLatest {
		t.Fatalf("capped %v, read %d in %d calls, today %d, latest %d", o.capped, f.read, f.calls, o.today.count, len(o.latest))
	}
	r := &req{Request: &web.Request{Path: "/dashboard", Query: map[string]string{}}, lang: page.Choice{Lang: page.EN}}
	d := &doc{r: r, l: page.EN}
	d.overviewPayments(o)
	if html := string(d.Bytes()); !strings.Contains(html, "at least 500") || !strings.Contains(html, `id="stats-capped"`) {
		t.Fatalf("capped overview:\n%s", html)
	}

	// A quiet workspace: one payment 10 days ago is still among the latest (a second read).
	old := now.AddDate(0, 0, -10)
	f = &fakePayments{all: []*payment.Payment{{InvoiceID: "old", WorkspaceID: "ws", Environment: auth.Sandbox,
		Status: payment.Completed, AmountMinor: 100, CreatedAt: old, FinishedAt: &old}}}
	s.Payments = f
	if o, err = s.overview(context.Background(), "ws", auth.Sandbox); err != nil || o.capped || o.week.count != 0 ||
		len(o.latest) != 1 || f.calls != 2 {
		t.Fatalf("quiet workspace: %+v %v, %d calls", o, err, f.calls)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "gzip, deflate, br": true, "br;q=1.0, gzip;q=0.8": true, "GZIP": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "gzip;q=0.5": true, "deflate": false, "*": true, "identity, *;q=0": false,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}
