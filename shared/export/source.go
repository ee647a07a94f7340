package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
)

// Query names a workspace's payments in one environment created in [From, To) (a zero From or
// To leaves that end open), in creation order (newest first with NewestFirst).
type Query struct {
	WorkspaceID string
	Environment auth.Environment
	From, To    time.Time
	NewestFirst bool
	// PageSize is how many payments one index page names (the store's default when 0).
	PageSize int
}

// Store streams payments page by page (package dynamo: GSI3, then BatchGetItem), holding at
// most one page of them. fn is called with each payment in order; when it returns ErrStop the
// stream ends without error (and without reading another page), any other error ends it with
// that error.
type Store interface {
	EachPayment(ctx context.Context, q Query, fn func(*payment.Payment) error) error
}

// ErrStop ends an EachPayment early without error.
var ErrStop = errors.New("export: stop")

// ErrTooLarge is an export whose response would pass MaxResponseBody (or that could not be
// read before the function's deadline): a smaller date range is needed.
var ErrTooLarge = errors.New("export: the export is too large for one download")

// MaxResponseBody bounds an export's body as the gateway carries it: a Lambda response
// through API Gateway's HTTP API is at most 6 MB (6,291,456 bytes) of JSON, which holds the
// body as a JSON string (text) or base64 (gzip); this leaves room for the headers.
const MaxResponseBody = 6_000_000

// MaxDays is the longest range one export may ask for.
const MaxDays = 366

// deadlineMargin is the time kept before the function's deadline to answer "too large"
// instead of timing out.
const deadlineMargin = 3 * time.Second

// Range is an export's range of Dhaka days: From is the first day's midnight, To the midnight
// after the last day (exclusive).
type Range struct{ From, To time.Time }

// RangeError is a range field (from or to) that breaks a rule: "date" (not YYYY-MM-DD),
// "future" (after today), "order" (to before from) or "span" (more than MaxDays days).
type RangeError struct{ Field, Rule string }

func (e *RangeError) Error() string { return "export: " + e.Field + ": " + e.Rule }

// DayLayout is how the form and the query write a day.
const DayLayout = "2006-01-02"

// ParseRange reads the from and to days (YYYY-MM-DD, Dhaka days, both inclusive) as of now.
// The errors are *RangeError, one per field at most (from first).
func ParseRange(from, to string, now time.Time) (Range, []*RangeError) {
	var errs []*RangeError
	today := DayStart(now)
	day := func(field, v string) time.Time {
		d, err := time.ParseInLocation(DayLayout, v, Dhaka)
		if err != nil {
			errs = append(errs, &RangeError{Field: field, Rule: "date"})
			return time.Time{}
		}
		if d.After(today) {
			errs = append(errs, &RangeError{Field: field, Rule: "future"})
		}
		return d
	}
	f, t := day("from", from), day("to", to)
	if len(errs) > 0 {
		return Range{}, errs
	}
	if t.Before(f) {
		return Range{}, []*RangeError{{Field: "to", Rule: "order"}}
	}
	end := t.AddDate(0, 0, 1)
	if end.Sub(f) > MaxDays*24*time.Hour {
		return Range{}, []*RangeError{{Field: "from", Rule: "span"}}
	}
	return Range{From: f, To: end}, nil
}

// DayStart is the midnight (Dhaka time) that starts t's Dhaka day.
func DayStart(t time.Time) time.Time {
	y, m, d := t.In(Dhaka).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, Dhaka)
}

// Body is an export made for one response.
type Body struct {
	// Bytes is the body: the CSV, or the CSV gzipped when Gzip.
	Bytes []byte
	Gzip  bool
	// Rows is how many payments it holds.
	Rows int
}

// Build writes the export of q's payments as of now into one response body, gzipped when
// gz, reading page by page from store. It holds the body (the response is buffered) and one
// page of payments, never the rows: ErrTooLarge as soon as the body as the gateway carries it
// (base64 for gzip, a JSON string for text) would pass limit, or when ctx's deadline is
// near.
func Build(ctx context.Context, store Store, q Query, now time.Time, gz bool, limit int) (*Body, error) {
	sk := newSink(gz, limit)
	w := NewWriter(sk.out)
	rows := 0
	deadline, hasDeadline := ctx.Deadline()
	err := store.EachPayment(ctx, q, func(p *payment.Payment) error {
		if hasDeadline && rows%100 == 0 && time.Until(deadline) < deadlineMargin {
			return ErrTooLarge
		}
		rows++
		return w.Write(RowOf(p, now))
	})
	if err == nil {
		err = w.Flush()
	}
	return sk.body(rows, err)
}

// sink is one response body being written: limited to what the gateway carries, gzipped
// when asked (Build and BuildRefunds).
type sink struct {
	buf bytes.Buffer
	zw  *gzip.Writer
	out io.Writer
	gz  bool
}

func newSink(gz bool, limit int) *sink {
	s := &sink{gz: gz}
	lw := &limitWriter{w: &s.buf, limit: limit, base64: gz}
	s.out = lw
	if gz {
		s.zw, _ = gzip.NewWriterLevel(lw, gzip.BestSpeed)
		s.out = s.zw
	}
	return s
}

// body ends the body after its rows were written with err: ErrTooLarge when it passed the
// limit.
func (s *sink) body(rows int, err error) (*Body, error) {
	if err == nil && s.zw != nil {
		err = s.zw.Close()
	}
	if err != nil {
		if errors.Is(err, errOverLimit) {
			return nil, ErrTooLarge
		}
		return nil, err
	}
	return &Body{Bytes: s.buf.Bytes(), Gzip: s.gz, Rows: rows}, nil
}

var errOverLimit = errors.New("export: over the response limit")

// limitWriter counts what its bytes cost in the gateway's JSON response and refuses a write
// that would pass limit: base64 (4 bytes per 3) or a JSON string, where '"' and '\' take
// two bytes, the other control characters and < > & (escaped by the Lambda runtime's JSON
// encoder) six, and CR, LF and TAB two.
type limitWriter struct {
	w      io.Writer
	limit  int
	base64 bool
	n      int // bytes written
	cost   int // their cost (JSON text only)
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.base64 {
		if (l.n+len(p)+2)/3*4 > l.limit {
			return 0, errOverLimit
		}
	} else {
		c := 0
		for _, b := range p {
			switch {
			case b == '"' || b == '\\' || b == '\r' || b == '\n' || b == '\t':
				c += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				c += 6
			default:
				c++
			}
		}
		if l.cost+c > l.limit {
			return 0, errOverLimit
		}
		l.cost += c
	}
	n, err := l.w.Write(p)
	l.n += n
	return n, err
}
