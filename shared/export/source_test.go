package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
)

func TestParseRange(t *testing.T) {
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC) // 28 November in Dhaka
	r, errs := ParseRange("2026-11-01", "2026-11-28", now)
	if errs != nil {
		t.Fatalf("errors: %v", errs)
	}
	if want := time.Date(2026, 10, 31, 18, 0, 0, 0, time.UTC); !r.From.Equal(want) {
		t.Errorf("From = %s, want %s", r.From.UTC(), want)
	}
	if want := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC); !r.To.Equal(want) {
		t.Errorf("To = %s, want %s", r.To.UTC(), want)
	}
	for _, tc := range []struct{ from, to, field, rule string }{
		{"2026-11-1", "2026-11-28", "from", "date"},
		{"", "2026-11-28", "from", "date"},
		{"2026-11-01", "28/11/2026", "to", "date"},
		{"2026-11-01", "2026-11-29", "to", "future"},
		{"2026-11-20", "2026-11-19", "to", "order"},
		{"2025-11-27", "2026-11-28", "from", "span"},
		{"২০২৬-১১-০১", "2026-11-28", "from", "date"},
	} {
		_, errs := ParseRange(tc.from, tc.to, now)
		if len(errs) == 0 || errs[0].Field != tc.field || errs[0].Rule != tc.rule {
			t.Errorf("ParseRange(%q, %q) = %v, want %s %s", tc.from, tc.to, errs, tc.field, tc.rule)
		}
	}
	if _, errs := ParseRange("2025-11-28", "2026-11-28", now); errs != nil {
		t.Errorf("366 days refused: %v", errs)
	}
}

// fakeStore streams n generated payments (a domain fake: the store itself is tested on
// dynalite in package dynamo).
type fakeStore struct {
	n    int
	make func(int) *payment.Payment
}

func (f fakeStore) EachPayment(ctx context.Context, q Query, fn func(*payment.Payment) error) error {
	for i := 0; i < f.n; i++ {
		if err := fn(f.make(i)); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
	}
	return nil
}

func realisticPayment(i int) *payment.Payment {
	r := realisticRow(i)
	return &payment.Payment{InvoiceID: r.InvoiceID, Environment: auth.Sandbox, Status: payment.Completed, AmountMinor: r.Amount,
		Currency: "BDT", Reference: r.Reference, CreatedAt: r.CreatedAt, FinishedAt: r.CompletedAt, LockRoute: r.Route,
		Source: payment.Source{Kind: payment.SourcePaymentLinks, DocumentID: r.DocumentID}}
}

func TestBuildPlainAndGzipAreTheSameCSV(t *testing.T) {
	st := fakeStore{n: 50, make: realisticPayment}
	plain, err := Build(context.Background(), st, Query{}, created, false, MaxResponseBody)
	if err != nil || plain.Rows != 50 || plain.Gzip {
		t.Fatalf("plain: %+v %v", plain, err)
	}
	gz, err := Build(context.Background(), st, Query{}, created, true, MaxResponseBody)
	if err != nil || gz.Rows != 50 || !gz.Gzip {
		t.Fatalf("gzip: %+v %v", gz, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.Bytes))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unzipped, plain.Bytes) {
		t.Fatal("gunzipped export differs from the plain one")
	}
	if recs := readBack(t, plain.Bytes); len(recs) != 50 || recs[0][col("reference")] != "অর্ডার #10000 - শাড়ি, ২টি" {
		t.Fatalf("read back: %d rows, %q", len(recs), recs[0])
	}
	empty, err := Build(context.Background(), fakeStore{}, Query{}, created, false, MaxResponseBody)
	if err != nil || empty.Rows != 0 || string(empty.Bytes) != string(export(t)) {
		t.Fatalf("empty export: %q %v", empty.Bytes, err)
	}
}

// The limit counts what the body costs in the gateway's JSON: a plain body as a JSON string
// (quotes and CRLF escaped), a gzip body as base64.
func TestBuildRefusesWhatPassesTheLimit(t *testing.T) {
	st := fakeStore{n: 200, make: realisticPayment}
	plain, err := Build(context.Background(), st, Query{}, created, false, MaxResponseBody)
	if err != nil {
		t.Fatal(err)
	}
	asJSON, _ := json.Marshal(string(plain.Bytes))
	cost := len(asJSON) - 2
	if _, err := Build(context.Background(), st, Query{}, created, false, cost); err != nil {
		t.Errorf("plain export at exactly its JSON cost %d: %v", cost, err)
	}
	if _, err := Build(context.Background(), st, Query{}, created, false, cost-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("plain export one byte over: %v", err)
	}
	gz, err := Build(context.Background(), st, Query{}, created, true, MaxResponseBody)
	if err != nil {
		t.Fatal(err)
	}
	b64 := (len(gz.Bytes) + 2) / 3 * 4
	if _, err := Build(context.Background(), st, Query{}, created, true, b64); err != nil {
		t.Errorf("gzip export at exactly its base64 size %d: %v", b64, err)
	}
	if _, err := Build(context.Background(), st, Query{}, created, true, b64-4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("gzip export over: %v", err)
	}
	// Near the deadline: refused as too large rather than timing out.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := Build(ctx, st, Query{}, created, true, MaxResponseBody); !errors.Is(err, ErrTooLarge) {
		t.Errorf("export with 1 s left: %v", err)
	}
}

// The export of 10,000 realistic payments as the function builds it: time, allocation and
// the heap's peak, and the response's size. Run with -v to read the figures.
func TestBuildTenThousandPayments(t *testing.T) {
	st := fakeStore{n: 10_000, make: realisticPayment}
	for _, gz := range []bool{true, false} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		b, err := Build(context.Background(), st, Query{}, created, gz, MaxResponseBody)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("gzip %v: %v", gz, err)
		}
		runtime.ReadMemStats(&after)
		size := len(b.Bytes)
		if gz {
			size = (size + 2) / 3 * 4
		}
		t.Logf("10,000 payments, gzip %v: %d rows, body %d B (%d B in the response), %s, %d MB allocated, heap now %d MB",
			gz, b.Rows, len(b.Bytes), size, took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, after.HeapAlloc>>20)
		if b.Rows != 10_000 {
			t.Fatalf("rows = %d", b.Rows)
		}
	}
}

func BenchmarkBuildTenThousandGzip(b *testing.B) {
	st := fakeStore{n: 10_000, make: realisticPayment}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(context.Background(), st, Query{}, created, true, MaxResponseBody); err != nil {
			b.Fatal(err)
		}
	}
}
