package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/refund"
)

// pagesOf serves refunds (newest first) two a page, counting the pages read.
func pagesOf(rs []*refund.Refund, reads *int) RefundPages {
	return func(_ context.Context, cursor string) (refund.Page, error) {
		*reads++
		start := 0
		if cursor != "" {
			fmt.Sscan(cursor, &start)
		}
		end := min(start+2, len(rs))
		pg := refund.Page{Refunds: rs[start:end]}
		if end < len(rs) {
			pg.NextCursor = fmt.Sprint(end)
		}
		return pg, nil
	}
}

func words(r refund.Reason) (string, string) {
	return map[refund.Reason]string{refund.ReasonDuplicate: "Paid twice"}[r], map[refund.Reason]string{refund.ReasonDuplicate: "দুবার পরিশোধ"}[r]
}

// The refunds CSV: the header, the refunds created in the range only (newest first, paging
// stops at the first one older than the range), the reason in both languages, amounts in
// paisa and taka, times in Dhaka and UTC, and every text cell formula-safe.
func TestRefundsCSV(t *testing.T) {
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, Dhaka)
	rng := Range{From: day, To: day.AddDate(0, 0, 2)}
	mk := func(id string, at time.Time, note string) *refund.Refund {
		return &refund.Refund{ID: id, PaymentID: "=HYPERLINK(\"x\")", AmountMinor: 150050, Status: refund.Approved,
			Reason: refund.ReasonDuplicate, RequestedBy: refund.ByPayer, CreatedAt: at, Note: note, DueBy: &at, ProviderReference: "@TRX"}
	}
	rs := []*refund.Refund{
		mk("after", rng.To, "too new"),
		mk("in-2", rng.To.Add(-time.Second), "+1 line\nwith \"quotes\", commas"),
		mk("in-1", rng.From, "-2"),
		mk("before", rng.From.Add(-time.Second), "too old"),
		mk("older", rng.From.Add(-time.Hour), "never read"),
		mk("oldest", rng.From.Add(-2*time.Hour), "never read"),
	}
	reads := 0
	body, err := BuildRefunds(context.Background(), pagesOf(rs, &reads), rng, words, false, MaxResponseBody)
	if err != nil {
		t.Fatal(err)
	}
	if body.Rows != 2 || reads != 2 {
		t.Errorf("rows %d, pages read %d; want 2 and 2 (no page past the range)", body.Rows, reads)
	}
	if !bytes.HasPrefix(body.Bytes, []byte(BOM)) || !bytes.Contains(body.Bytes, []byte("\r\n")) {
		t.Error("no BOM or no CRLF")
	}
	recs, err := csv.NewReader(bytes.NewReader(TrimBOM(body.Bytes))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(RefundHeader, ",") || len(recs) != 3 {
		t.Fatalf("records: %q", recs)
	}
	row := map[string]string{}
	for i, h := range RefundHeader {
		row[h] = recs[1][i]
	}
	want := map[string]string{"refund_id": "in-2", "payment_id": "'=HYPERLINK(\"x\")", "reason": "duplicate", "reason_en": "Paid twice",
		"reason_bn": "দুবার পরিশোধ", "requested_by": "payer", "amount_paisa": "150050", "amount_taka": "1500.50", "currency": "BDT",
		"created_at_dhaka": "2026-11-21 23:59:59", "created_at_utc": "2026-11-21T17:59:59Z", "provider_reference": "'@TRX",
		"note": "'+1 line\nwith \"quotes\", commas", "status": "APPROVED"}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %q, want %q", k, row[k], v)
		}
	}
	if recs[2][0] != "in-1" || recs[2][len(RefundHeader)-2] != "'-2" {
		t.Errorf("second row: %q", recs[2])
	}
	if !strings.HasPrefix(RefundsFilename("sandbox", rng.From, rng.To.AddDate(0, 0, -1)), "takapay-refunds-sandbox-2026-11-20-to-2026-11-21") {
		t.Error(RefundsFilename("sandbox", rng.From, rng.To))
	}
	// Past the limit: ErrTooLarge, as the payments export.
	if _, err := BuildRefunds(context.Background(), pagesOf(rs, &reads), rng, words, false, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}
