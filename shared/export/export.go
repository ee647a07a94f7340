// Package export is the one home of the payments CSV: the columns, their formats, the quoting
// and the formula-injection guard. It streams: a Writer holds one row's worth of scratch
// space and a buffered writer, never the rows, so an export of any size runs in constant
// memory (the caller pages through the store and writes each payment as it arrives).
//
// The file is what an accountant opens in Excel or LibreOffice:
//
//   - RFC 4180: comma separated, fields quoted by encoding/csv when they hold a comma, a
//     double quote, CR or LF (quotes doubled), every record ends with CRLF, header first.
//     encoding/csv (UseCRLF) writes a line break inside a field as CRLF too and drops a lone
//     CR, so a multi-line reference stays multi-line in every spreadsheet.
//   - UTF-8, starting with a byte order mark (EF BB BF). Excel reads a CSV without a BOM in
//     the Windows code page and turns Bangla into mojibake; with it, Excel, LibreOffice and
//     Google Sheets all read UTF-8. Programs that read the file with encoding/csv or similar
//     must drop the BOM first (see TrimBOM); machine clients have the JSON API instead.
//   - No cell a spreadsheet would evaluate: a text cell whose first character (after any
//     leading spaces) is = + - @ TAB CR LF or their full-width forms ＝ ＋ － ＠ gets a leading
//     apostrophe (OWASP "CSV injection"). The numeric columns are produced here and never
//     start with one of these (amounts are never negative), so they stay plain numbers.
//   - Times in Dhaka time (UTC+06:00, a fixed zone: Bangladesh has had no daylight saving
//     since 2009, and the Lambda need not ship the tz database) as "2006-01-02 15:04:05",
//     which spreadsheets parse as a date-time, and in UTC as RFC 3339 ("...Z"), both to the
//     second.
//   - Amounts in paisa (integer) and in taka with exactly two decimals ("1500.00"), formatted
//     from the integer by package money, never through a float.
package export

import (
	"bufio"
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/payment"
)

// Dhaka is Bangladesh Standard Time, UTC+06:00, without daylight saving.
var Dhaka = time.FixedZone("Asia/Dhaka", 6*60*60)

// BOM is the UTF-8 byte order mark every export starts with.
const BOM = "\uFEFF"

// Time layouts of the two time columns of each instant.
const (
	DhakaLayout = "2006-01-02 15:04:05"
	UTCLayout   = time.RFC3339
)

// Header is the first record of every export, in column order.
var Header = []string{
	"invoice_id",
	"source",
	"document_id",
	"status",
	"created_at_dhaka",
	"created_at_utc",
	"completed_at_dhaka",
	"completed_at_utc",
	"amount_paisa",
	"amount_taka",
	"currency",
	"reference",
	"route",
}

// Row is one payment (a standalone payment or a payment intent: both are stored as a
// payment.Payment) as the export shows it.
type Row struct {
	// InvoiceID is the payment's id (a payment intent's id).
	InvoiceID string
	// Source is the API's source kind: "standalone", "invoices" or "payment-links".
	Source payment.SourceKind
	// DocumentID is the invoice or payment link the amount was priced from ("" if standalone).
	DocumentID string
	Status     payment.Status
	CreatedAt  time.Time
	// CompletedAt is when the payment completed; nil unless its status is COMPLETED (a failed,
	// cancelled or expired payment never completed, whatever its finishing time).
	CompletedAt *time.Time
	Amount      money.Paisa
	Currency    string
	Reference   string
	// Route is the payment route the payer locked (e.g. "bkash"), "" when none was.
	Route string
}

// RowOf returns the export row of a stored payment as of now: its status is the effective
// one (a PENDING payment past its expiry reads EXPIRED, as in the API).
func RowOf(p *payment.Payment, now time.Time) Row {
	src := p.SourceOf()
	r := Row{
		InvoiceID:  p.InvoiceID,
		Source:     src.Kind,
		DocumentID: src.DocumentID,
		Status:     p.EffectiveStatus(now),
		CreatedAt:  p.CreatedAt,
		Amount:     p.AmountMinor,
		Currency:   p.Currency,
		Reference:  p.Reference,
		Route:      p.LockRoute,
	}
	if r.Status == payment.Completed && p.FinishedAt != nil {
		t := *p.FinishedAt
		r.CompletedAt = &t
	}
	if r.Currency == "" {
		r.Currency = payment.Currency
	}
	return r
}

// Writer streams payments as CSV. It is not safe for concurrent use.
type Writer struct {
	buf     *bufio.Writer
	csv     *csv.Writer
	started bool
	scratch []byte
	ends    [numColumns]int
	record  [numColumns]string
}

// numColumns is len(Header).
const numColumns = 13

// NewWriter returns a Writer that writes the export to w: the BOM and header with the first
// Write (or Flush, for an export without rows), then one record per Write. Call Flush at the
// end and check its error.
func NewWriter(w io.Writer) *Writer {
	b := bufio.NewWriterSize(w, 32<<10)
	c := csv.NewWriter(b)
	c.UseCRLF = true
	return &Writer{buf: b, csv: c, scratch: make([]byte, 0, 512)}
}

func (w *Writer) start() error {
	if w.started {
		return nil
	}
	w.started = true
	if _, err := w.buf.WriteString(BOM); err != nil {
		return err
	}
	return w.csv.Write(Header)
}

// Write writes one payment's record.
func (w *Writer) Write(r Row) error {
	if err := w.start(); err != nil {
		return err
	}
	// Every field is appended to one scratch buffer and the record's strings are slices of
	// one string made from it: one allocation per row, whatever the row.
	s := w.scratch[:0]
	i := 0
	end := func() { w.ends[i] = len(s); i++ }
	s = appendText(s, r.InvoiceID)
	end()
	s = appendText(s, string(r.Source))
	end()
	s = appendText(s, r.DocumentID)
	end()
	s = appendText(s, string(r.Status))
	end()
	s = r.CreatedAt.In(Dhaka).AppendFormat(s, DhakaLayout)
	end()
	s = r.CreatedAt.UTC().AppendFormat(s, UTCLayout)
	end()
	if r.CompletedAt != nil {
		s = r.CompletedAt.In(Dhaka).AppendFormat(s, DhakaLayout)
	}
	end()
	if r.CompletedAt != nil {
		s = r.CompletedAt.UTC().AppendFormat(s, UTCLayout)
	}
	end()
	s = strconv.AppendInt(s, int64(r.Amount), 10)
	end()
	s = r.Amount.AppendTaka(s)
	end()
	s = appendText(s, r.Currency)
	end()
	s = appendText(s, r.Reference)
	end()
	s = appendText(s, r.Route)
	end()
	w.scratch = s
	all := string(s)
	prev := 0
	for k := range w.record {
		w.record[k] = all[prev:w.ends[k]]
		prev = w.ends[k]
	}
	return w.csv.Write(w.record[:])
}

// Flush writes any buffered data (and the header, if no row was written) to the underlying
// writer and reports the first error any write met.
func (w *Writer) Flush() error {
	if err := w.start(); err != nil {
		return err
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return err
	}
	return w.buf.Flush()
}

// TrimBOM returns b without a leading UTF-8 byte order mark, for programs that read an
// export back.
func TrimBOM(b []byte) []byte {
	if len(b) >= len(BOM) && string(b[:len(BOM)]) == BOM {
		return b[len(BOM):]
	}
	return b
}

// appendText appends a text cell, neutralised with a leading apostrophe when a spreadsheet
// would read it as a formula (see Neutralise).
func appendText(dst []byte, v string) []byte {
	if formulaLike(v) {
		dst = append(dst, '\'')
	}
	return append(dst, v...)
}

// Neutralise returns v as the export writes it in a text cell: with a leading apostrophe when
// its first character after leading spaces is one a spreadsheet starts a formula (or a DDE
// payload) with.
func Neutralise(v string) string {
	if formulaLike(v) {
		return "'" + v
	}
	return v
}

func formulaLike(v string) bool {
	for _, c := range v {
		switch c {
		case ' ', '\u00A0', '\u3000':
			continue // spreadsheets may skip leading spaces before a formula
		case '=', '+', '-', '@', '\t', '\r', '\n', '＝', '＋', '－', '＠':
			return true
		}
		return false
	}
	return false
}

// ContentType is the media type of an export (RFC 4180 with its charset parameter).
const ContentType = "text/csv; charset=utf-8"

// Filename names the export of env's payments created from one Dhaka day to another
// (inclusive), e.g. "takapay-payments-live-2026-11-01-to-2026-11-27.csv": ASCII only, safe
// in a Content-Disposition attachment filename without encoding.
func Filename(env string, from, to time.Time) string {
	clean := make([]byte, 0, len(env))
	for i := 0; i < len(env); i++ {
		if c := env[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			clean = append(clean, c)
		}
	}
	name := "takapay-payments-"
	if len(clean) > 0 {
		name += string(clean) + "-"
	}
	return name + from.In(Dhaka).Format("2006-01-02") + "-to-" + to.In(Dhaka).Format("2006-01-02") + ".csv"
}
