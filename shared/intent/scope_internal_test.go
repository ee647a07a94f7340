package intent

import (
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/payment"
)

// Allow is the one permission rule of every door: a key's scope in its environment, and live
// refused for the operations that move money (reads answer in live too).
func TestAllow(t *testing.T) {
	read := &auth.Identity{Kind: auth.KindAPIKey, Environments: []auth.Environment{auth.Sandbox, auth.Live}, Scopes: []auth.Scope{auth.PaymentsRead}}
	write := &auth.Identity{Kind: auth.KindAPIKey, Environments: []auth.Environment{auth.Sandbox, auth.Live}, Scopes: []auth.Scope{auth.PaymentsRead, auth.PaymentsWrite}}
	sandboxOnly := &auth.Identity{Kind: auth.KindAPIKey, Environments: []auth.Environment{auth.Sandbox}, Scopes: []auth.Scope{auth.PaymentsRead, auth.PaymentsWrite}}
	for _, tt := range []struct {
		id   *auth.Identity
		env  auth.Environment
		op   Op
		want apierr.Code // "" for allowed
	}{
		{read, auth.Sandbox, OpList, ""},
		{read, auth.Sandbox, OpGet, ""},
		{read, auth.Sandbox, OpVerifyTransaction, ""},
		{read, auth.Sandbox, OpCreate, apierr.ScopeOrEnvironmentDenied},
		{read, auth.Sandbox, OpCancel, apierr.ScopeOrEnvironmentDenied},
		{write, auth.Sandbox, OpCreate, ""},
		{write, auth.Sandbox, OpCancel, ""},
		{write, auth.Live, OpList, ""},
		{write, auth.Live, OpGet, ""},
		{write, auth.Live, OpCreate, apierr.ScopeOrEnvironmentDenied},
		{write, auth.Live, OpCancel, apierr.ScopeOrEnvironmentDenied},
		{write, auth.Live, OpVerifyTransaction, apierr.ScopeOrEnvironmentDenied},
		{sandboxOnly, auth.Live, OpList, apierr.ScopeOrEnvironmentDenied},
	} {
		err := Allow(Scope{Environment: tt.env, Identity: tt.id}, tt.op)
		got := apierr.Code("")
		if e, ok := err.(*apierr.Error); ok {
			got = e.Code
		} else if err != nil {
			t.Fatalf("%v", err)
		}
		if got != tt.want {
			t.Errorf("Allow(%v, %s, op %d) = %q, want %q", tt.id.Scopes, tt.env, tt.op, got, tt.want)
		}
	}
}

// A list's input becomes the store's query: the index's bounds as given, and the filters the
// index cannot decide (effective status, a linked source, the exact reference) in Keep.
func TestListInputQuery(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	sc := Scope{WorkspaceID: "ws", Environment: auth.Sandbox}
	q := ListInput{}.query(sc, now)
	if q.Limit != DefaultPageSize || q.Keep != nil || q.WorkspaceID != "ws" || q.Environment != auth.Sandbox {
		t.Fatalf("the unfiltered query = %+v", q)
	}
	q = ListInput{Limit: 5, Status: payment.Expired, Source: payment.SourceInvoice, Reference: "INV-1"}.query(sc, now)
	overdue := &payment.Payment{Status: payment.Pending, ExpiresAt: now.Add(-time.Minute), Reference: "INV-1",
		Source: payment.Source{Kind: payment.SourceInvoice}}
	if q.Limit != 5 || q.Source != payment.SourceInvoice || q.Keep == nil || !q.Keep(overdue) {
		t.Fatalf("an overdue PENDING invoice intent is not kept by %+v", q)
	}
	for _, p := range []payment.Payment{
		{Status: payment.Pending, ExpiresAt: now.Add(time.Minute), Reference: "INV-1", Source: payment.Source{Kind: payment.SourceInvoice}},
		{Status: payment.Expired, Reference: "INV-2", Source: payment.Source{Kind: payment.SourceInvoice}},
		{Status: payment.Expired, Reference: "INV-1", Source: payment.Source{Kind: payment.SourcePaymentLinks}},
	} {
		if q.Keep(&p) {
			t.Errorf("kept %+v", p)
		}
	}
	if q := (ListInput{Source: payment.SourceStandalone}).query(sc, now); q.Keep != nil || q.Source != payment.SourceStandalone {
		t.Errorf("standalone is the index's to decide: %+v", q)
	}
}
