package refund

import (
	"context"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
)

// Policy is a workspace's refund setting (decision 103): refunds of at least
// TwoPersonMinor paisa need an approver other than the person or key that asked for them
// (0: no such rule). Owners and admins set it in the dashboard; it holds on every door.
type Policy struct {
	TwoPersonMinor money.Paisa
}

// MaxTwoPersonMinor bounds the setting (one crore taka, far above any sandbox payment).
const MaxTwoPersonMinor = money.Paisa(1_000_000_000)

// Policies keeps workspaces' refund policies (shared/aws/dynamo implements it).
type Policies interface {
	// RefundPolicy reads a workspace's policy (the zero Policy when none was set).
	RefundPolicy(ctx context.Context, workspaceID string) (Policy, error)
	// PutRefundPolicy writes it.
	PutRefundPolicy(ctx context.Context, workspaceID string, p Policy) error
}

// Validate checks a policy: a threshold of 0 (off) up to MaxTwoPersonMinor.
func (p Policy) Validate() error {
	if p.TwoPersonMinor < 0 || p.TwoPersonMinor > MaxTwoPersonMinor {
		return apierr.Invalid(apierr.Violation{Path: "two_person_minor", Rule: "must be between 0 (off) and 1000000000 paisa"})
	}
	return nil
}

// NeedsSecondApprover reports whether p refuses by as r's approver: r is at or above the
// threshold and by asked for it.
func (p Policy) NeedsSecondApprover(r *Refund, by string) bool {
	return p.TwoPersonMinor > 0 && r.AmountMinor >= p.TwoPersonMinor && r.AskedBy() == by
}

// AskedBy is who asked for the refund: its first history entry's key id, user id or "payer".
func (r *Refund) AskedBy() string {
	if len(r.History) == 0 {
		return ""
	}
	return r.History[0].By
}

// Policy reads the workspace's policy (the zero Policy without a Policies store).
func (s *Service) Policy(ctx context.Context, workspaceID string) (Policy, error) {
	if s.Policies == nil {
		return Policy{}, nil
	}
	return s.Policies.RefundPolicy(ctx, workspaceID)
}

// SetPolicy validates and writes the workspace's policy. Who may is the caller's to check
// (auth.ApproveRefunds: owners and admins).
func (s *Service) SetPolicy(ctx context.Context, workspaceID string, p Policy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if s.Policies == nil {
		return apierr.New(apierr.NotDeployed, "refund policies are not kept here")
	}
	return s.Policies.PutRefundPolicy(ctx, workspaceID, p)
}

// Op is what a caller does to refunds, for Allowed.
type Op string

// The operations beyond the actions: reading and creating.
const (
	OpRead   Op = "read"
	OpCreate Op = "create"
)

// OpOf is the operation of an action.
func OpOf(a Action) Op { return Op(a) }

// Allowed is the one rule of who may do what to refunds (decision 104), for every door:
//
//	                    read  create  review  approve  reject  report-returned  cancel
//	key payments:read    yes
//	key refunds:write    yes    yes     yes                        yes           yes
//	key refunds:approve  yes                    yes      yes
//	viewer               yes
//	developer            yes    yes                                              yes
//	admin, owner         yes    yes     yes     yes      yes       yes           yes
//
// A key must also hold env; a session member's environments are the workspace's. The answer is
// nil or 403 SCOPE_OR_ENVIRONMENT_DENIED naming what is missing.
func Allowed(id *auth.Identity, env auth.Environment, op Op) error {
	if id == nil {
		return apierr.New(apierr.ScopeOrEnvironmentDenied, "no credential")
	}
	if id.Kind == auth.KindSession {
		perm := auth.ApproveRefunds
		switch op {
		case OpRead:
			perm = auth.ViewWorkspace
		case OpCreate, OpOf(Cancel):
			perm = auth.CreateRefunds
		}
		if !id.Role.Can(perm) {
			return apierr.New(apierr.ScopeOrEnvironmentDenied, "your role (%s) cannot %s refunds", id.Role, op)
		}
		return nil
	}
	if op == OpRead {
		if id.Authorize(auth.RefundsWrite, env) == nil || id.Authorize(auth.RefundsApprove, env) == nil {
			return nil
		}
		return id.Authorize(auth.PaymentsRead, env)
	}
	scope := auth.RefundsWrite
	if op == OpOf(Approve) || op == OpOf(Reject) {
		scope = auth.RefundsApprove
	}
	return id.Authorize(scope, env)
}
