package intentapi

import (
	"errors"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/payment"
)

// The list's query parameters become a typed intent.ListInput; every broken one is named,
// in the order the API has always listed them.
func TestParseList(t *testing.T) {
	in, err := ParseList(map[string]string{"limit": "7", "cursor": "0190A3C4-5B6D-7E8F-9A0B-1C2D3E4F5A6B", "status": "expired",
		"created_gte": "2026-05-01T00:00:00+06:00", "created_lt": "2026-05-02T00:00:00+06:00", "source": "invoices",
		"reference": "INV-1", "document_id": "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6c"})
	want := intent.ListInput{Limit: 7, Cursor: "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b", Status: payment.Expired,
		CreatedFrom: time.Date(2026, 4, 30, 18, 0, 0, 0, time.UTC), CreatedBefore: time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC),
		Source: payment.SourceInvoice, Reference: "INV-1", DocumentID: "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6c"}
	if err != nil || in != want {
		t.Fatalf("ParseList = %+v, %v; want %+v", in, err, want)
	}
	if in, err := ParseList(map[string]string{}); err != nil || in != (intent.ListInput{Limit: intent.DefaultPageSize}) {
		t.Fatalf("no parameters = %+v, %v", in, err)
	}
	_, err = ParseList(map[string]string{"limit": "0", "cursor": "x", "status": "paid", "created_gte": "2026-05-02T00:00:00Z",
		"created_lt": "2026-05-01T00:00:00Z", "source": "x", "reference": "", "document_id": "x"})
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.ValidationFailed {
		t.Fatalf("err = %v", err)
	}
	var paths []string
	for _, v := range e.Violations {
		paths = append(paths, v.Path)
	}
	wantPaths := []string{"query.cursor", "query.limit", "query.status", "query.created_lt", "query.source", "query.reference", "query.document_id"}
	if len(paths) != len(wantPaths) {
		t.Fatalf("paths %v, want %v", paths, wantPaths)
	}
	for i := range paths {
		if paths[i] != wantPaths[i] {
			t.Fatalf("paths %v, want %v", paths, wantPaths)
		}
	}
}
