package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// Refund events (decision 116): refund.requested, refund.in_review, refund.approved,
// refund.rejected, refund.returned and refund.cancelled. Each is recorded in the refund's own
// Events by the write that changes its status (package refund), enqueued as a refund Message,
// and sent here exactly as a payment's event: signed with the workspace environment's secrets,
// posted to the webhook_url the refund copied from its payment, each attempt recorded on the
// refund, retried by the queue on DefaultSchedule, re-enqueued by the re-drive when a message
// was lost. A refund keeps one delivery state per event, so a refund that changes status again
// before its previous event is delivered has both events in flight, each sent once.

// RefundStore is what the sender, the re-drive and resend read and write of refunds (package
// dynamo). UpdateRefund is conditional on the refund as read (its write count included), so an
// attempt's record and a transition never overwrite each other.
type RefundStore interface {
	GetRefund(ctx context.Context, workspaceID string, env auth.Environment, id string) (*refund.Refund, error)
	UpdateRefund(ctx context.Context, prev, next *refund.Refund) error
}

// RefundPendingStore is what the re-drive reads of refunds: the sweep index (refunds whose
// follow-up or earliest pending event was due before dueBefore), and the refunds.
type RefundPendingStore interface {
	RefundStore
	RefundFollowUps(ctx context.Context, dueBefore time.Time, limit int) ([]refund.Ref, error)
}

// RefundPayload is the JSON body of a refund event: data is the refund as the API shows it
// (refund.Resource) when the attempt is made.
type RefundPayload struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      refund.Resource `json:"data"`
}

// RefundMessage is the queue message of a refund's event.
func RefundMessage(workspaceID string, env auth.Environment, refundID, eventID string) Message {
	return Message{RefundID: refundID, WorkspaceID: workspaceID, Environment: env, EventID: eventID}
}

// refundBody is the payload of r's event e.
func refundBody(r *refund.Refund, e *payment.Delivery) []byte {
	body, _ := json.Marshal(RefundPayload{ID: e.EventID, Type: e.Kind, Timestamp: e.CreatedAt, Data: r.Resource(e.CreatedAt)})
	return body
}

// deliverRefund makes one attempt of a refund's event (as Deliver does a payment's).
func (s *Sender) deliverRefund(ctx context.Context, m Message) (bool, time.Duration) {
	if s.Refunds == nil {
		s.log(ctx, slog.LevelError, "refund webhook message: the sender has no refund store", slog.String("event_id", m.EventID))
		return true, 5 * time.Second
	}
	r, err := s.Refunds.GetRefund(ctx, m.WorkspaceID, m.Environment, m.RefundID)
	if err != nil {
		return true, 5 * time.Second // the store is unreachable: try again soon
	}
	var e *payment.Delivery
	if r != nil {
		e = r.Event(m.EventID)
	}
	if e == nil || r.WebhookURL == "" { // only an event the refund recorded is ever sent
		s.log(ctx, slog.LevelWarn, "webhook message dropped: no such refund event", slog.String("refund_id", m.RefundID), slog.String("event_id", m.EventID))
		return false, 0
	}
	switch e.Status {
	case payment.DeliveryDelivered:
		return false, 0 // a duplicate message
	case payment.DeliveryFailed:
		return true, 0 // to the dead-letter queue
	}
	attempt := e.Attempts + 1
	start := time.Now()
	code, detail := s.postRefund(ctx, r, e)
	took := time.Since(start)
	now := s.now()
	status, detail, delay := s.outcome(attempt, code, detail)
	entry := payment.Attempt{At: now, HTTPStatus: code, DurationMS: took.Milliseconds()}
	if code == 0 {
		entry.Error = strings.TrimPrefix(detail, notDelivered)
	}
	rec := func(d *payment.Delivery) {
		d.AttemptLog = d.LogAttempt(entry)
		d.Attempts, d.Status, d.LastHTTPStatus, d.Detail = attempt, status, code, detail
		d.LastAttemptAt = &now
		if status == payment.DeliveryPending {
			d.NextAttemptAt = now.Add(delay)
		}
	}
	if err := s.recordRefund(ctx, r, m.EventID, attempt-1, rec); err != nil {
		s.log(ctx, slog.LevelError, "refund webhook attempt not recorded", slog.String("error", err.Error()))
	}
	s.log(ctx, slog.LevelInfo, "webhook attempt", slog.String("event_id", m.EventID), slog.String("refund_id", r.ID),
		slog.Int("attempt", attempt), slog.Int("http_status", code), slog.String("delivery", status), slog.String("detail", detail))
	switch status {
	case payment.DeliveryDelivered:
		return false, 0
	case payment.DeliveryFailed:
		return code != http.StatusGone, 0
	}
	return true, delay
}

// postRefund signs and posts r's event e to the refund's webhook_url.
func (s *Sender) postRefund(ctx context.Context, r *refund.Refund, e *payment.Delivery) (int, string) {
	secrets, detail := s.secrets(ctx, r.WorkspaceID, r.Environment)
	if detail != "" {
		return 0, detail
	}
	if len(secrets) == 0 {
		return 0, "no webhook secret issued for this workspace and environment (paymentsctl webhook secret issue)"
	}
	return s.postSigned(ctx, secrets, r.WebhookURL, e.EventID, refundBody(r, e))
}

// errRefundEventMoved means the event is no longer as the writer saw it: another sender (or a
// resend) recorded it meanwhile.
var errRefundEventMoved = errors.New("the refund event changed meanwhile")

// updateRefundEvent applies change to event eventID of r and writes the refund, conditional on
// it as read; when another write came first (a transition, another event's attempt), it reads
// the refund again and applies the change there, as long as ok still holds for the event.
func updateRefundEvent(ctx context.Context, store RefundStore, r *refund.Refund, eventID string, ok func(*payment.Delivery) bool, change func(*payment.Delivery)) (*refund.Refund, error) {
	cur := r
	for range 5 {
		e := cur.Event(eventID)
		if e == nil || !ok(e) {
			return cur, errRefundEventMoved
		}
		next := *cur
		next.Events = append([]payment.Delivery(nil), cur.Events...)
		change(next.Event(eventID))
		err := store.UpdateRefund(ctx, cur, &next)
		if err == nil {
			return &next, nil
		}
		if !errors.Is(err, refund.ErrStateChanged) {
			return nil, err
		}
		if cur, err = store.GetRefund(ctx, r.WorkspaceID, r.Environment, r.ID); err != nil {
			return nil, err
		}
		if cur == nil {
			return nil, fmt.Errorf("refund %s vanished", r.ID)
		}
	}
	return nil, fmt.Errorf("refund %s keeps changing: event %s not recorded", r.ID, eventID)
}

// recordRefund records an attempt of event eventID made on the attempts before it: once (a
// second sender of the same event finds it moved on and records nothing).
func (s *Sender) recordRefund(ctx context.Context, r *refund.Refund, eventID string, before int, rec func(*payment.Delivery)) error {
	_, err := updateRefundEvent(ctx, s.Refunds, r, eventID, func(d *payment.Delivery) bool {
		return d.Status == payment.DeliveryPending && d.Attempts == before
	}, rec)
	if errors.Is(err, errRefundEventMoved) {
		return nil
	}
	return err
}

// RefundEnqueuer sends refund events' messages (package sqsqueue).
type RefundEnqueuer = refund.EventQueue

// redriveRefunds runs the refunds' crash-repair pass (decision 100) and then re-enqueues the
// refund events whose next attempt is overdue by more than overdue, moving that attempt
// overdue ahead (as Run does for payments). It returns how many events it re-enqueued.
func (r *Redrive) redriveRefunds(ctx context.Context, overdue time.Duration) (int, error) {
	if r.Refunds == nil {
		return 0, nil
	}
	var errs []error
	if r.Repair != nil {
		if _, err := r.Repair(ctx, r.now()); err != nil {
			errs = append(errs, fmt.Errorf("refund repair: %w", err))
		}
	}
	q, ok := r.Queue.(RefundEnqueuer)
	if !ok {
		return 0, errors.Join(append(errs, errors.New("the webhook queue cannot send refund events"))...)
	}
	now := r.now()
	dueBefore := now.Add(-overdue)
	refs, err := r.Refunds.RefundFollowUps(ctx, dueBefore, r.batch())
	if err != nil {
		return 0, errors.Join(append(errs, err)...)
	}
	n := 0
	for _, ref := range refs {
		sent, err := r.redriveRefund(ctx, q, ref, now, dueBefore, overdue)
		n += sent
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// redriveRefund re-enqueues one refund's overdue events and moves their next attempts ahead.
func (r *Redrive) redriveRefund(ctx context.Context, q RefundEnqueuer, ref refund.Ref, now, dueBefore time.Time, overdue time.Duration) (int, error) {
	rf, err := r.Refunds.GetRefund(ctx, ref.WorkspaceID, ref.Environment, ref.ID)
	if err != nil || rf == nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, e := range rf.Events {
		if e.Status != payment.DeliveryPending || !e.NextAttemptAt.Before(dueBefore) {
			continue
		}
		if err := q.EnqueueRefund(ctx, rf.WorkspaceID, rf.Environment, rf.ID, e.EventID); err != nil {
			errs = append(errs, fmt.Errorf("enqueue %s: %w", e.EventID, err))
			continue
		}
		n++
		next := now.Add(overdue)
		_, err := updateRefundEvent(ctx, r.Refunds, rf, e.EventID, func(d *payment.Delivery) bool {
			return d.Status == payment.DeliveryPending && d.NextAttemptAt.Before(next)
		}, func(d *payment.Delivery) { d.NextAttemptAt = next })
		if err != nil && !errors.Is(err, errRefundEventMoved) {
			errs = append(errs, fmt.Errorf("reschedule %s: %w", e.EventID, err))
		}
		if rf, err = r.Refunds.GetRefund(ctx, ref.WorkspaceID, ref.Environment, ref.ID); err != nil || rf == nil {
			break
		}
	}
	return n, errors.Join(errs...)
}

// ResendRefund sends a refund's recorded event again (the dashboard's Resend): the same event
// id and payload, signed with a fresh timestamp. One conditional write makes the event pending
// and due now (a delivered or failed one starts a new attempt series; detail says who resent
// it after how many attempts), then its message goes to the queue; a lost message is re-enqueued
// by the re-drive once overdue. ErrNotResendable for a refund without that event;
// ErrResendConflict when the event changed meanwhile.
func ResendRefund(ctx context.Context, store RefundStore, queue RefundEnqueuer, ws string, env auth.Environment, refundID, eventID, by string, now time.Time) (*payment.Delivery, error) {
	if queue == nil {
		return nil, errors.New("no webhook queue to send the event to")
	}
	r, err := store.GetRefund(ctx, ws, env, refundID)
	if err != nil {
		return nil, err
	}
	var seen *payment.Delivery
	if r != nil {
		seen = r.Event(eventID)
	}
	if seen == nil || r.WebhookURL == "" {
		return nil, fmt.Errorf("%w: refund %s has no event %s", ErrNotResendable, refundID, eventID)
	}
	was := *seen
	detail := fmt.Sprintf("resent by %s after %d attempts (was %s)", by, was.Attempts, was.Status)
	after, err := updateRefundEvent(ctx, store, r, eventID, func(d *payment.Delivery) bool {
		return d.Status == was.Status && d.Attempts == was.Attempts
	}, func(d *payment.Delivery) {
		if d.Status != payment.DeliveryPending {
			d.Status, d.Attempts, d.Detail = payment.DeliveryPending, 0, detail
		}
		d.NextAttemptAt = now
	})
	if errors.Is(err, errRefundEventMoved) {
		return nil, fmt.Errorf("%w: event %s changed: look again and retry", ErrResendConflict, eventID)
	}
	if err != nil {
		return nil, err
	}
	if err := queue.EnqueueRefund(ctx, ws, env, refundID, eventID); err != nil {
		return nil, fmt.Errorf("event %s is pending and due now, but the enqueue failed (the re-drive re-enqueues it once it is %s overdue): %w",
			eventID, DefaultOverdue, err)
	}
	return after.Event(eventID), nil
}
