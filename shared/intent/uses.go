package intent

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
)

// A payment link's uses cannot be hoarded. A payment link with max_uses sells at most that
// many completed payments; a PENDING intent of it holds one use, as a hold on the link's item
// keyed by the intent's id, until a time: the intent's own end (payment.UseLife after create
// at the latest; payment.UseHold while nobody starts paying it). A hold past its time plus
// HoldGrace is no use at all, whatever else happened — the intent ended, its writer died
// after the hold and before the intent, or nobody settled it yet — and the next hold drops
// it. So a use is never lost (a dead writer's hold gives it back within minutes) and never
// sold twice (an intent cannot complete after its expiry, and its hold outlives that expiry
// by HoldGrace, more than the clocks of two instances differ). A completed payment's use is
// counted for good by the settlement, which drops its hold in the same write.
//
// One client cannot lock real payers out: the public page's holds carry the payer's client
// key, and one client holds at most MaxHoldsPerClient uses of one link at once (429 until its
// oldest hold ends); every hold is one conditional write on the version of the holds it read,
// so the counts it checked still hold when it lands.

const (
	// HoldGrace is how long a hold outlives its intent's end before its use is free again:
	// more than any clock skew between instances (an approve on a clock behind can still land
	// until the intent's expiry by that clock).
	HoldGrace = time.Minute
	// MaxHoldsPerClient is how many uses of one payment link one client (the public page's
	// payer address) may hold at once.
	MaxHoldsPerClient = 3
	// MaxLiveHolds bounds a link's holds at once, and so its item's size (a hold is ~60 bytes).
	MaxLiveHolds = 500
	// holdAttempts bounds the re-reads of one hold while other holds land first.
	holdAttempts = 16
)

// ErrHoldsChanged is returned by LinkedStore.HoldUse when the link's holds are no longer the
// version the caller read (another hold landed first), or the link is no longer at the
// version the order was priced at: read again and decide again.
var ErrHoldsChanged = errors.New("intent: the payment link's holds changed")

// UseHoldWrite is one hold's write: take the use for ID until Until by Client, drop the expired
// holds Drop, on the condition that the holds are still at Version (0: none yet).
type UseHoldWrite struct {
	ID      string
	Hold    document.UseHold
	Drop    []string
	Version int64
}

// planHold decides whether client may hold one more use of doc (max_uses maxUses) for id at
// now: the expired holds to drop, or the refusal. A live hold already under id is the same
// order's (a retry): nothing more to take (held false).
func planHold(doc *document.Record, id, client string, maxUses int64, now time.Time) (drop []string, held bool, err error) {
	live, mine := 0, []time.Time{}
	var ends []time.Time
	for hid, h := range doc.Holds {
		free := h.Until.Add(HoldGrace)
		if !now.Before(free) {
			if hid != id { // the new hold replaces this id's own expired one in the same write
				drop = append(drop, hid)
			}
			continue
		}
		if hid == id {
			return nil, true, nil
		}
		live++
		ends = append(ends, free)
		if client != "" && h.Client == client {
			mine = append(mine, free)
		}
	}
	sort.Strings(drop)
	if client != "" && len(mine) >= MaxHoldsPerClient {
		return nil, false, tooManyHolds("you are already paying this payment link in other windows; finish or cancel one of those payments, or retry when one ends", now, mine)
	}
	if doc.UsesCounted+int64(live) >= maxUses {
		return nil, false, ErrNoUsesLeft
	}
	if live >= MaxLiveHolds {
		return nil, false, tooManyHolds("too many payments of this payment link are in progress; retry shortly", now, ends)
	}
	return drop, false, nil
}

// tooManyHolds is the 429 of a refused hold: Retry-After is when the earliest of ends frees one.
func tooManyHolds(msg string, now time.Time, ends []time.Time) error {
	first := ends[0]
	for _, e := range ends {
		if e.Before(first) {
			first = e
		}
	}
	e := apierr.New(apierr.RateLimited, "%s", msg)
	e.Headers = map[string]string{"Retry-After": strconv.Itoa(max(1, int((first.Sub(now)+time.Second-1)/time.Second)))}
	return e
}

// holdUse takes one use of the order's payment link for its intent until until: it returns
// whether this call wrote the hold (false: the order's id already held one, a retry), or the
// refusal (ErrNoUsesLeft, a 429 for the client or a busy link).
func (l *Linker) holdUse(ctx context.Context, o Order, maxUses int64, until time.Time) (bool, error) {
	doc := o.Doc
	for attempt := 0; attempt < holdAttempts; attempt++ {
		if attempt > 0 {
			cur, err := l.Store.GetDocument(ctx, doc.WorkspaceID, doc.Environment, doc.Kind, doc.ID)
			if errors.Is(err, document.ErrNotFound) {
				return false, ErrNoUsesLeft
			}
			if err != nil {
				return false, err
			}
			if cur.Version != o.Doc.Version {
				// Edited or closed since the order was priced: Place reads it and prices anew.
				return false, ErrDocumentChanged
			}
			doc = cur
		}
		drop, held, err := planHold(doc, o.ID, o.Client, maxUses, o.Now)
		if err != nil || held {
			return false, err
		}
		err = l.Store.HoldUse(ctx, doc, UseHoldWrite{ID: o.ID, Hold: document.UseHold{Until: until, Client: o.Client},
			Drop: drop, Version: doc.HoldsVersion})
		if errors.Is(err, ErrHoldsChanged) {
			continue
		}
		return err == nil, err
	}
	return false, apierr.New(apierr.ServiceUnavailable, "the payment link is busy; retry shortly")
}
