package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/refund"
)

// The refunds CSV: one row per refund created in a range of Dhaka days, under the payments
// export's rules (BOM, CRLF, RFC 4180 quoting, text cells neutralised against formulas, Dhaka
// and UTC times, paisa and taka). Machine columns keep the API's words (status, reason,
// requested_by); the reason is also given in words, in English and in Bangla (reason_en,
// reason_bn), from the dashboard's catalogue (the Words the caller passes).

// RefundHeader is the first record of a refunds export, in column order.
var RefundHeader = []string{
	"refund_id",
	"payment_id",
	"status",
	"reason",
	"reason_en",
	"reason_bn",
	"requested_by",
	"amount_paisa",
	"amount_taka",
	"currency",
	"created_at_dhaka",
	"created_at_utc",
	"due_by_dhaka",
	"returned_at_dhaka",
	"provider_reference",
	"rejection_reason",
	"note",
	"reference",
}

// RefundWords names a reason in English and in Bangla.
type RefundWords func(refund.Reason) (en, bn string)

// RefundWriter streams refunds as CSV. It is not safe for concurrent use.
type RefundWriter struct {
	buf     *bufio.Writer
	csv     *csv.Writer
	words   RefundWords
	started bool
	record  []string
}

// NewRefundWriter returns a RefundWriter writing to w, naming reasons with words.
func NewRefundWriter(w io.Writer, words RefundWords) *RefundWriter {
	b := bufio.NewWriterSize(w, 32<<10)
	c := csv.NewWriter(b)
	c.UseCRLF = true
	return &RefundWriter{buf: b, csv: c, words: words, record: make([]string, len(RefundHeader))}
}

func (w *RefundWriter) start() error {
	if w.started {
		return nil
	}
	w.started = true
	if _, err := w.buf.WriteString(BOM); err != nil {
		return err
	}
	return w.csv.Write(RefundHeader)
}

// Write writes one refund's record.
func (w *RefundWriter) Write(r *refund.Refund) error {
	if err := w.start(); err != nil {
		return err
	}
	en, bn := string(r.Reason), string(r.Reason)
	if w.words != nil {
		en, bn = w.words(r.Reason)
	}
	at := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.In(Dhaka).Format(DhakaLayout)
	}
	currency := r.Currency
	if currency == "" {
		currency = refund.Currency
	}
	rec := w.record[:0]
	rec = append(rec, Neutralise(r.ID), Neutralise(r.PaymentID), string(r.Status), string(r.Reason), Neutralise(en), Neutralise(bn),
		string(r.RequestedBy), strconv.FormatInt(int64(r.AmountMinor), 10), r.AmountMinor.TakaString(), Neutralise(currency),
		r.CreatedAt.In(Dhaka).Format(DhakaLayout), r.CreatedAt.UTC().Format(UTCLayout), at(r.DueBy), at(r.ReturnedAt),
		Neutralise(r.ProviderReference), Neutralise(r.RejectionReason), Neutralise(r.Note), Neutralise(r.Reference))
	return w.csv.Write(rec)
}

// Flush writes what is buffered (and the header, if no row was written) and reports the first
// error any write met.
func (w *RefundWriter) Flush() error {
	if err := w.start(); err != nil {
		return err
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return err
	}
	return w.buf.Flush()
}

// RefundPages reads one page of refunds, newest first, from cursor ("" from the newest):
// refund.Service.List with the workspace's scope.
type RefundPages func(ctx context.Context, cursor string) (refund.Page, error)

// BuildRefunds writes the export of the refunds created in rng into one response body,
// gzipped when gz, paging newest first through list until a refund older than rng.From (or
// the last page): the same limits as Build (ErrTooLarge past limit or near ctx's deadline).
func BuildRefunds(ctx context.Context, list RefundPages, rng Range, words RefundWords, gz bool, limit int) (*Body, error) {
	sk := newSink(gz, limit)
	w := NewRefundWriter(sk.out, words)
	rows := 0
	deadline, hasDeadline := ctx.Deadline()
	err := func() error {
		cursor := ""
		for {
			if hasDeadline && time.Until(deadline) < deadlineMargin {
				return ErrTooLarge
			}
			pg, err := list(ctx, cursor)
			if err != nil {
				return err
			}
			for _, r := range pg.Refunds {
				if r.CreatedAt.Before(rng.From) {
					return nil // newest first: the rest are older still
				}
				if !r.CreatedAt.Before(rng.To) {
					continue
				}
				rows++
				if err := w.Write(r); err != nil {
					return err
				}
			}
			if pg.NextCursor == "" {
				return nil
			}
			cursor = pg.NextCursor
		}
	}()
	if err == nil {
		err = w.Flush()
	}
	return sk.body(rows, err)
}

// RefundsFilename names a refunds export like Filename names a payments export:
// "takapay-refunds-sandbox-2026-11-01-to-2026-11-27.csv".
func RefundsFilename(env string, from, to time.Time) string {
	return "takapay-refunds-" + Filename(env, from, to)[len("takapay-payments-"):]
}
