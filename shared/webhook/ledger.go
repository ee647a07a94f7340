package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// Settle runs the document follow-up (intent.Settle) of every linked intent's event in the
// settle index, draining it: rounds of up to SweepBatch events, Workers at a time, until a
// round finds fewer than it asked for, makes no progress, or the run's time is nearly up
// (Reserve before the context's deadline). The sender settles each event as soon as its first
// message arrives; this is the bound when that did not happen (no message, a failure, a crash
// mid-way): every run settles what is waiting. It returns how many it settled. One event's
// failure does not stop the others.
func (r *Redrive) Settle(ctx context.Context) (int, error) {
	if r.Documents == nil {
		return 0, nil
	}
	total := 0
	var errs []error
	for r.timeLeft(ctx) {
		refs, err := r.Documents.SettlePending(ctx, r.batch())
		if err != nil {
			return total, errors.Join(append(errs, err)...)
		}
		n, roundErrs := r.each(ctx, refs, func(ctx context.Context, ref payment.EventRef) (bool, error) {
			done, err := intent.SettleRef(ctx, r.Documents, ref, r.now())
			if err != nil {
				err = fmt.Errorf("settle %s: %w", ref.EventID, err)
			}
			return done, err
		})
		total += n
		errs = append(errs, roundErrs...)
		if len(refs) < r.batch() || n == 0 {
			break
		}
	}
	return total, errors.Join(errs...)
}

// Tuning of a re-drive run's draining loops.
const (
	// DefaultSweepBatch is how many keys one round of a drain reads from the index.
	DefaultSweepBatch = 1000
	// DefaultWorkers is how many items of a round are handled at once.
	DefaultWorkers = 16
	// DefaultReserve is how much of the run's time is kept back: no round starts within it of
	// the deadline.
	DefaultReserve = 10 * time.Second
)

func (r *Redrive) batch() int {
	if r.Limit > 0 {
		return r.Limit
	}
	return DefaultSweepBatch
}

// timeLeft reports whether another round may start: the context is live and, when it has a
// deadline, more than Reserve remains.
func (r *Redrive) timeLeft(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		return true
	}
	reserve := r.Reserve
	if reserve <= 0 {
		reserve = DefaultReserve
	}
	return time.Until(deadline) > reserve
}

// each runs do on every item, Workers at a time, and returns how many reported done and the
// errors.
func (r *Redrive) each(ctx context.Context, refs []payment.EventRef, do func(context.Context, payment.EventRef) (bool, error)) (int, []error) {
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	var (
		mu   sync.Mutex
		n    int
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan payment.EventRef)
	for range min(workers, max(1, len(refs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ref := range next {
				done, err := do(ctx, ref)
				mu.Lock()
				if done {
					n++
				}
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, ref := range refs {
		next <- ref
	}
	close(next)
	wg.Wait()
	return n, errs
}
