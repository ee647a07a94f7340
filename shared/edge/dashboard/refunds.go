package dashboard

import (
	"context"
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/web"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
	"github.com/takapay/payments/shared/refund"
)

// The refund pages (DashboardPaymentsFunction): a payment's refunds and its Refund form on
// the payment's page, the Refunds page (the queue, the filters, the two-person setting) and a
// refund's page with its actions. They call the refund rules directly (refund.Service), with
// the signed-in person as the rule's Scope.By (their user id), and ask refund.Allowed — the one
// rule of who may do what — both before showing a form and before acting on one.

// refundScope is the signed-in viewer's refund scope in the page's environment.
func refundScope(r *req) (refund.Scope, error) {
	if r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return refund.Scope{}, apierr.New(apierr.NotFound, "this page is not served here")
	}
	return refund.Scope{WorkspaceID: r.viewer.ws.WorkspaceID, Environment: r.env(), By: r.viewer.user.UserID}, nil
}

// mayRefund reports whether the viewer may do op to refunds in the page's environment.
func (r *req) mayRefund(op refund.Op) bool {
	return r.viewer != nil && refund.Allowed(r.identity(), r.env(), op) == nil
}

// needRefund refuses what refund.Allowed refuses (403).
func (r *req) needRefund(op refund.Op) error {
	if r.viewer == nil || r.viewer.ws.WorkspaceID == "" {
		return apierr.New(apierr.ScopeOrEnvironmentDenied, "your role does not allow this")
	}
	return refund.Allowed(r.identity(), r.env(), op)
}

// record writes a refund action in the workspace's activity log; a failed record does not
// undo the action (it is logged by the recorder's caller only through its error).
func (s *Payments) record(ctx context.Context, r *req, action activity.Action, target string) {
	if s.Log == nil {
		return
	}
	c := r.client()
	_ = s.Log.Record(context.WithoutCancel(ctx), activity.Event{WorkspaceID: r.viewer.ws.WorkspaceID,
		ActorUserID: r.viewer.user.UserID, ActorEmail: r.viewer.user.Email, Action: action,
		Target: target, IP: c.IP, UserAgent: c.UserAgent})
}

// refundTarget names a refund in the activity log: its environment, amount, id and payment.
func refundTarget(rf *refund.Refund) string {
	return string(rf.Environment) + " refund " + rf.ID + " of " + rf.AmountMinor.Display() + " on payment " + rf.PaymentID
}

// --- the payment's page ----------------------------------------------------------------------

// refundView is what the payment's page shows of its refunds: the ledger, the refunds, and
// the Refund form's state (the values typed, its problems, its form token).
type refundView struct {
	ledger  refund.Ledger
	refunds []*refund.Refund
	f       *form
	// idem is the form's one-use token: a uuid v7 made at rendering; the refund's id is
	// derived from it (refundIDFrom), so one submission makes one refund.
	idem string
	// problem is a message of the whole form (the token already used for other values).
	problem string
	now     time.Time
}

// refundsOf is a COMPLETED payment's refund view: its ledger's figures as the intent already
// carries them (the store computes them with refund.Ledger where it reads the payment: no
// second read here) and its refunds (nil for any other payment, or where the function has no
// refund rules).
func (s *Payments) refundsOf(ctx context.Context, r *req, it *intent.Intent) (*refundView, error) {
	if s.Refunds == nil || it.Status != payment.Completed {
		return nil, nil
	}
	sc, err := refundScope(r)
	if err != nil {
		return nil, err
	}
	l := refund.Ledger{PaymentID: it.ID, Status: it.Status, Paid: it.AmountMinor,
		Promised: it.AmountMinor - it.RefundableMinor, Returned: it.RefundedMinor}
	pg, err := s.Refunds.List(ctx, sc, refund.ListQuery{PaymentID: it.ID, Limit: refund.MaxLimit})
	if err != nil {
		return nil, err
	}
	v := &refundView{ledger: l, refunds: pg.Refunds, idem: newRefundToken(s.now()), now: s.now(),
		f: &form{values: map[string]string{"amount": l.Refundable().TakaString(), "reason": string(refund.ReasonRequestedByCustomer)}}}
	return v, nil
}

// newRefundToken is a Refund form's one-use token: a uuid v7 of now.
func newRefundToken(now time.Time) string {
	u, err := uuid.NewV7()
	if err != nil {
		panic(err)
	}
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ { // the page's clock, so that tests with a fixed clock see it too
		u[i] = byte(ms >> (40 - 8*i))
	}
	return u.String()
}

// refundTokenLifetime is how old a Refund form's token may be when it is sent.
const refundTokenLifetime = 24 * time.Hour

// refundIDFrom derives the refund's id from the form's token: a uuid v7 whose time is the
// token's (so the refund sorts where a new one would) and whose other bits hash the workspace,
// environment, payment and token. The same submission (a double click, a refresh) names the
// same refund, which refund.Service.Create then finds instead of making another; a token that
// is not one this page makes, or is older than refundTokenLifetime, is refused (ok false).
func refundIDFrom(sc refund.Scope, paymentID, token string, now time.Time) (string, bool) {
	u, err := uuid.Parse(token)
	if err != nil || u.Version() != 7 || len(token) != 36 {
		return "", false
	}
	var ms uint64
	for i := 0; i < 6; i++ {
		ms = ms<<8 | uint64(u[i])
	}
	at := time.UnixMilli(int64(ms))
	if at.After(now.Add(time.Minute)) || at.Before(now.Add(-refundTokenLifetime)) {
		return "", false
	}
	sum := sha256.Sum256([]byte("takapay dashboard refund\x00" + sc.WorkspaceID + "\x00" + string(sc.Environment) +
		"\x00" + paymentID + "\x00" + strings.ToLower(token)))
	var id uuid.UUID
	copy(id[:6], u[:6])
	copy(id[6:], sum[:10])
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // RFC 9562 variant
	return id.String(), true
}

// CreateRefund is POST /dashboard/payments/{paymentID}/refunds: the Refund form (amount typed
// in taka, reason, note, its token). Developers and above (refund.Allowed); the form's values
// are parsed exactly (money.ParseTakaText) and refund.Service.Create runs with the id derived
// from the token. A refusal shows the payment's page again (422 or 409) with the problem named
// at its field; success is a 303 to the payment's page.
func (s *Payments) CreateRefund(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.needRefund(refund.OpCreate); err != nil {
			return nil, err
		}
		it, err := s.intent(ctx, r)
		if err != nil {
			return nil, err
		}
		sc, err := refundScope(r)
		if err != nil {
			return nil, err
		}
		in, f := refundCreateInput(r, it.ID)
		view := func(status int, problem string, over bool) (*web.Response, error) {
			if it, err = s.intent(ctx, r); err != nil { // the figures as the refusal left them
				return nil, err
			}
			v, err := s.refundsOf(ctx, r, it)
			if err != nil || v == nil {
				if err == nil {
					err = apierr.New(apierr.StateConflict, "this payment is %s; only a COMPLETED payment can be refunded", it.Status)
				}
				return nil, err
			}
			if over && v.ledger.Refundable() > 0 {
				f.fail("amount", t(r.l(), "dash.refund.err.amount_over", "amount", r.l().Amount(v.ledger.Refundable())))
			} else if over {
				problem = t(r.l(), "dash.refund.form.nothing")
			}
			v.f, v.problem = f, problem
			return s.detailPage(r, status, it, v), nil
		}
		now := s.now()
		id, ok := refundIDFrom(sc, it.ID, r.field("idem"), now)
		if !ok {
			return view(422, t(r.l(), "dash.refund.err.stale"), false)
		}
		if f.failed() {
			return view(422, "", false)
		}
		in.ID = id
		if prior, err := s.Refunds.Get(ctx, sc, id); err == nil && prior.PaymentID == it.ID {
			return s.redirect(r, "/dashboard/payments/"+it.ID+"?notice=refund_created#refunds"), nil // sent again
		}
		rf, err := s.Refunds.Create(ctx, sc, in)
		if err != nil {
			return s.refundCreateRefused(r, err, f, view)
		}
		s.record(ctx, r, activity.RefundCreated, refundTarget(rf))
		return s.redirect(r, "/dashboard/payments/"+it.ID+"?notice=refund_created#refunds"), nil
	})(ctx, wr)
}

// refundCreateInput reads the Refund form: the amount in taka (empty: everything refundable),
// the reason, the note; f holds the values and the problems found before the rule is asked.
func refundCreateInput(r *req, paymentID string) (refund.CreateInput, *form) {
	f := &form{values: map[string]string{"amount": r.field("amount"), "reason": r.field("reason"), "note": r.field("note")}}
	in := refund.CreateInput{PaymentID: paymentID, Reason: refund.Reason(f.values["reason"]), Note: f.values["note"],
		RequestedBy: refund.ByMerchant}
	if a := f.values["amount"]; a != "" {
		p, err := money.ParseTakaText(a)
		switch {
		case err != nil:
			f.fail("amount", t(r.l(), "dash.refund.err.amount"))
		case p == 0:
			f.fail("amount", t(r.l(), "dash.refund.err.amount_zero"))
		default:
			in.AmountMinor = p
		}
	}
	if !slices.Contains(refund.Reasons, in.Reason) {
		f.fail("reason", t(r.l(), "dash.refund.err.reason"))
	}
	if !utf8.ValidString(in.Note) || utf8.RuneCountInString(in.Note) > refund.MaxNote {
		f.fail("note", t(r.l(), "dash.refund.err.note"))
	}
	return in, f
}

// refundCreateRefused shows the rule's refusal of a create at its field: the amount over what
// is refundable (409), a field the rule names (422), the token used for other values (409,
// with a new token); anything else is the error page.
func (s *Payments) refundCreateRefused(r *req, err error, f *form, view func(int, string, bool) (*web.Response, error)) (*web.Response, error) {
	ae := apierr.As(err)
	if ae == nil {
		return nil, err
	}
	switch ae.Code {
	case apierr.ValidationFailed:
		if failFields(r, f, ae, createFields) {
			return view(422, "", false)
		}
	case apierr.IdempotencyKeyReused:
		return view(409, t(r.l(), "dash.refund.err.resubmitted"), false)
	case apierr.StateConflict: // more than is refundable (a payment no longer COMPLETED: the view's 409)
		return view(409, "", true)
	}
	return nil, err
}

// --- the Refunds page ------------------------------------------------------------------------

// refundsPageSize is the Refunds page's page size.
const refundsPageSize = 25

// refundQueue is what the Refunds page shows: the overdue refunds (the queue's first page),
// a page of refunds (open ones first), the next page's cursor and the two-person policy.
type refundQueue struct {
	overdue     []*refund.Refund
	moreOverdue bool
	page        []*refund.Refund
	next        string
	policy      refund.Policy
	filter      *form
	pf          *form
	now         time.Time
}

// RefundsPage is GET /dashboard/refunds: the queue (status "" — approved refunds past their
// due date first, marked overdue, then a page of refunds with requested, in-review and
// approved ones before the rest, newest first within each), or one status, or the overdue
// ones only (status=overdue); cursor paged; and the two-person setting.
func (s *Payments) RefundsPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.needRefund(refund.OpRead); err != nil {
			return nil, err
		}
		q, err := s.refundQueue(ctx, r, nil)
		if err != nil {
			return nil, err
		}
		return s.refundsPage(r, 200, q, ""), nil
	})(ctx, wr)
}

// refundQueue reads the Refunds page's lists and policy (pf: the setting's form when it was
// sent and refused).
func (s *Payments) refundQueue(ctx context.Context, r *req, pf *form) (*refundQueue, error) {
	sc, err := refundScope(r)
	if err != nil {
		return nil, err
	}
	st := strings.TrimSpace(r.Query["status"])
	q := &refundQueue{filter: &form{values: map[string]string{"status": st}}, pf: pf, now: s.now()}
	lq := refund.ListQuery{Limit: refundsPageSize}
	switch {
	case st == "overdue":
		lq.Overdue = true
	case st != "":
		lq.Status = refund.Status(st)
	}
	if c := r.Query["cursor"]; c != "" {
		lq.Cursor = c
	}
	if err := lq.Validate(); err != nil {
		return nil, apierr.New(apierr.MalformedRequest, "this page's link is not valid")
	}
	if st == "" && lq.Cursor == "" {
		od, err := s.Refunds.List(ctx, sc, refund.ListQuery{Overdue: true, Limit: refundsPageSize})
		if err != nil {
			return nil, err
		}
		q.overdue, q.moreOverdue = od.Refunds, od.NextCursor != ""
	}
	pg, err := s.Refunds.List(ctx, sc, lq)
	if err != nil {
		return nil, err
	}
	q.page, q.next = pg.Refunds, pg.NextCursor
	if st == "" {
		q.page = queueOrder(q.page, q.overdue)
	}
	if q.policy, err = s.Refunds.Policy(ctx, sc.WorkspaceID); err != nil {
		return nil, err
	}
	if q.pf == nil {
		q.pf = &form{values: map[string]string{"two_person": policyText(q.policy)}}
	}
	return q, nil
}

// queueOrder orders a page of the queue: the open refunds (requested, in review, approved)
// before the final ones, newest first within each; those already shown as overdue are left out.
func queueOrder(page, overdue []*refund.Refund) []*refund.Refund {
	shown := map[string]bool{}
	for _, o := range overdue {
		shown[o.ID] = true
	}
	var open, rest []*refund.Refund
	for _, rf := range page {
		switch {
		case shown[rf.ID]:
		case rf.Status.Final():
			rest = append(rest, rf)
		default:
			open = append(open, rf)
		}
	}
	return append(open, rest...)
}

// policyText is the setting as its field shows it: "" when off, else taka.
func policyText(p refund.Policy) string {
	if p.TwoPersonMinor == 0 {
		return ""
	}
	return p.TwoPersonMinor.TakaString()
}

// SetRefundPolicy is POST /dashboard/refunds (the Refunds page posts to itself: any path under
// /dashboard/refunds/ is a refund id's page) (field two_person, taka; empty or 0 turns
// it off): owners and admins (auth.ApproveRefunds), through refund.Service.SetPolicy.
func (s *Payments) SetRefundPolicy(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.need(auth.ApproveRefunds); err != nil {
			return nil, err
		}
		raw := r.field("two_person")
		pf := &form{values: map[string]string{"two_person": raw}}
		var p refund.Policy
		if raw != "" {
			v, err := money.ParseTakaText(raw)
			if err != nil || v > refund.MaxTwoPersonMinor {
				pf.fail("two_person", t(r.l(), "dash.refund.policy.err"))
			}
			p.TwoPersonMinor = v
		}
		if !pf.failed() {
			err := s.Refunds.SetPolicy(ctx, r.viewer.ws.WorkspaceID, p)
			if ae := apierr.As(err); ae != nil && ae.Code == apierr.ValidationFailed {
				pf.fail("two_person", t(r.l(), "dash.refund.policy.err"))
			} else if err != nil {
				return nil, err
			}
		}
		if pf.failed() {
			q, err := s.refundQueue(ctx, r, pf)
			if err != nil {
				return nil, err
			}
			return s.refundsPage(r, 422, q, ""), nil
		}
		target := "two-person refund amount off"
		if p.TwoPersonMinor > 0 {
			target = "two-person refund amount " + p.TwoPersonMinor.Display()
		}
		s.record(ctx, r, activity.RefundPolicySet, target)
		return s.redirect(r, "/dashboard/refunds?notice=policy"), nil
	})(ctx, wr)
}

// --- a refund's page and its actions ---------------------------------------------------------

// RefundPage is GET /dashboard/refunds/{refundID}: the refund (another workspace's or
// environment's is 404), its history, and the forms of the actions the viewer may take from
// its status.
func (s *Payments) RefundPage(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.get(func(ctx context.Context, r *req) (*web.Response, error) {
		if err := r.needRefund(refund.OpRead); err != nil {
			return nil, err
		}
		rv, err := s.refundDetail(ctx, r)
		if err != nil {
			return nil, err
		}
		return s.refundPage(r, 200, rv), nil
	})(ctx, wr)
}

// refundDetail is what a refund's page shows: the refund, the policy (is this viewer refused
// as its approver?), the team's emails for its history, and the form that was refused.
type refundDetail struct {
	rf      *refund.Refund
	policy  refund.Policy
	emails  map[string]string
	action  refund.Action
	f       *form
	problem string
	now     time.Time
}

func (s *Payments) refundDetail(ctx context.Context, r *req) (*refundDetail, error) {
	sc, err := refundScope(r)
	if err != nil {
		return nil, err
	}
	rf, err := s.Refunds.Get(ctx, sc, r.PathParams["refundID"])
	if err != nil {
		return nil, err
	}
	p, err := s.Refunds.Policy(ctx, sc.WorkspaceID)
	if err != nil {
		return nil, err
	}
	rv := &refundDetail{rf: rf, policy: p, emails: map[string]string{}, now: s.now()}
	if s.Team != nil {
		if ms, err := s.Team.ListMembers(ctx, r.viewer.actor(r)); err == nil {
			for _, m := range ms {
				rv.emails[m.UserID] = m.Email
			}
		}
	}
	return rv, nil
}

// refundActions are the actions a refund's page offers, in the order it shows them.
var refundActions = []refund.Action{refund.Review, refund.Approve, refund.ReportReturned, refund.Reject, refund.Cancel}

// RefundAction is POST /dashboard/refunds/{refundID}/{action} (review, approve, reject,
// report-returned, cancel) with the page's expected_version: refund.Allowed first, then
// refund.Service.Transition (which checks the table, the version and the two-person rule
// again). Refusals show the refund's page again with the problem: a field's (422), a stale page
// (409, the refund as it is now), a wrong status or the two-person rule (409).
func (s *Payments) RefundAction(ctx context.Context, wr *web.Request) (*web.Response, error) {
	return s.post(func(ctx context.Context, r *req) (*web.Response, error) {
		action := refund.Action(r.PathParams["action"])
		if !slices.Contains(refund.Actions, action) {
			return nil, apierr.New(apierr.NotFound, "no such refund action")
		}
		if err := r.needRefund(refund.OpOf(action)); err != nil {
			return nil, err
		}
		sc, err := refundScope(r)
		if err != nil {
			return nil, err
		}
		id := r.PathParams["refundID"]
		in, f := transitionInput(r, action, s.now())
		if f.failed() {
			return s.refundRefused(ctx, r, action, f, 422, "")
		}
		rf, err := s.Refunds.Transition(ctx, sc, id, action, in)
		if err != nil {
			return s.transitionRefused(ctx, r, action, f, err)
		}
		if moved(rf, action, in, sc.By) {
			s.record(ctx, r, refundActivity[action], refundTarget(rf))
		}
		return s.redirect(r, "/dashboard/refunds/"+rf.ID+"?notice="+string(action)), nil
	})(ctx, wr)
}

// moved reports whether this request moved the refund (a repeat of an action that already
// happened answers the refund as it is, and records nothing): its last step is the action's,
// by this person, at the version after the page's.
func moved(rf *refund.Refund, action refund.Action, in refund.TransitionInput, by string) bool {
	to, _ := action.Target()
	if len(rf.History) == 0 || rf.Status != to {
		return false
	}
	last := rf.History[len(rf.History)-1]
	return last.Status == to && last.By == by && (in.ExpectedVersion == 0 || rf.Version == in.ExpectedVersion+1)
}

// refundActivity is each action's activity.
var refundActivity = map[refund.Action]activity.Action{
	refund.Review: activity.RefundReviewed, refund.Approve: activity.RefundApproved, refund.Reject: activity.RefundRejected,
	refund.ReportReturned: activity.RefundReturned, refund.Cancel: activity.RefundCancelled,
}

// transitionInput reads an action's form: expected_version, note, the rejection's reason,
// the provider's transaction id and the Dhaka day the money went back. f holds the values and
// the problems found before the rule is asked.
func transitionInput(r *req, action refund.Action, now time.Time) (refund.TransitionInput, *form) {
	f := &form{values: map[string]string{}}
	for _, k := range []string{"note", "reason", "provider_reference", "returned_on"} {
		f.values[k] = r.field(k)
	}
	in := refund.TransitionInput{Note: f.values["note"], Reason: f.values["reason"], ProviderReference: f.values["provider_reference"]}
	if v, err := strconv.ParseInt(r.field("expected_version"), 10, 64); err == nil && v > 0 {
		in.ExpectedVersion = v
	}
	tooLong := func(s string, n int) bool { return !utf8.ValidString(s) || utf8.RuneCountInString(s) > n }
	if tooLong(in.Note, refund.MaxNote) {
		f.fail("note", t(r.l(), "dash.refund.err.note"))
	}
	switch action {
	case refund.Reject:
		if in.Reason == "" || tooLong(in.Reason, refund.MaxRejectionReason) {
			f.fail("reason", t(r.l(), "dash.refund.err.rejection"))
		}
	case refund.ReportReturned:
		if in.ProviderReference == "" || tooLong(in.ProviderReference, refund.MaxProviderReference) {
			f.fail("provider_reference", t(r.l(), "dash.refund.err.provider_reference"))
		}
		if day := f.values["returned_on"]; day != "" {
			d, err := time.ParseInLocation("2006-01-02", day, page.Dhaka)
			today := now.In(page.Dhaka).Format("2006-01-02")
			switch {
			case err != nil || day > today || d.Year() < 2000:
				f.fail("returned_on", t(r.l(), "dash.refund.err.returned_on"))
			case day < today:
				at := d.UTC()
				in.ReturnedAt = &at
			}
		}
	}
	return in, f
}

// transitionRefused shows the rule's refusal of an action on the refund's page.
func (s *Payments) transitionRefused(ctx context.Context, r *req, action refund.Action, f *form, err error) (*web.Response, error) {
	ae := apierr.As(err)
	if ae == nil {
		return nil, err
	}
	switch ae.Code {
	case apierr.ValidationFailed:
		if failFields(r, f, ae, actionFields) {
			return s.refundRefused(ctx, r, action, f, 422, "")
		}
	case apierr.VersionConflict:
		return s.refundRefused(ctx, r, action, f, 409, t(r.l(), "dash.refund.err.version"))
	case apierr.StateConflict:
		return s.refundRefused(ctx, r, action, f, 409, "")
	}
	return nil, err
}

// refundRefused is the refund's page again (as it is now) with the refused form's values and
// problem; a 409 without a problem of its own says why from the refund: the two-person rule,
// else its status.
func (s *Payments) refundRefused(ctx context.Context, r *req, action refund.Action, f *form, status int, problem string) (*web.Response, error) {
	rv, err := s.refundDetail(ctx, r)
	if err != nil {
		return nil, err
	}
	rv.action, rv.f = action, f
	if status == 409 && problem == "" {
		if action == refund.Approve && rv.twoPersonBlocked(r) {
			problem = rv.twoPersonMessage(r.l())
		} else {
			problem = t(r.l(), "dash.refund.err.state", "status", t(r.l(), "dash.refund.status."+string(rv.rf.Status)))
		}
	}
	rv.problem = problem
	return s.refundPage(r, status, rv), nil
}

// twoPersonBlocked reports whether the workspace's policy refuses this viewer as the refund's
// approver (the rule checks it again on approve).
func (rv *refundDetail) twoPersonBlocked(r *req) bool {
	return rv.policy.NeedsSecondApprover(rv.rf, r.viewer.user.UserID)
}

func (rv *refundDetail) twoPersonMessage(l page.Lang) string {
	return t(l, "dash.refund.err.two_person", "amount", l.Amount(rv.rf.AmountMinor), "limit", l.Amount(rv.policy.TwoPersonMinor))
}

// offered reports whether the refund's page offers action: refund.Allowed allows it and the
// transition table moves the refund from its status.
func (rv *refundDetail) offered(r *req, a refund.Action) bool {
	out, err := refund.Decide(a, rv.rf.Status)
	return err == nil && out == refund.Move && r.mayRefund(refund.OpOf(a))
}

// The form field and message key of each body field the refund rule names in a refusal: the
// Refund form's and the actions'.
var (
	createFields = map[string][2]string{
		"body.amount_minor": {"amount", "dash.refund.err.amount_zero"},
		"body.reason":       {"reason", "dash.refund.err.reason"},
		"body.note":         {"note", "dash.refund.err.note"},
	}
	actionFields = map[string][2]string{
		"body.note":               {"note", "dash.refund.err.note"},
		"body.reason":             {"reason", "dash.refund.err.rejection"},
		"body.provider_reference": {"provider_reference", "dash.refund.err.provider_reference"},
		"body.returned_at":        {"returned_on", "dash.refund.err.returned_on"},
	}
)

// failFields marks each violation of ae that fields names on its form field, in the page's
// words, and reports whether any was.
func failFields(r *req, f *form, ae *apierr.Error, fields map[string][2]string) bool {
	for _, v := range ae.Violations {
		if fm, ok := fields[v.Path]; ok {
			f.fail(fm[0], t(r.l(), fm[1]))
		}
	}
	return f.failed()
}
