package intent

import (
	"testing"
	"time"

	"github.com/takapay/payments/shared/document"
)

// planHold's rules at the edges: an expired hold is no use and is dropped (but never the
// order's own id, which the new hold overwrites: one write cannot both set and remove a path);
// a live hold under the order's id is the order's retry; a client's live holds are capped.
func TestPlanHold(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	live, gone := now.Add(time.Minute), now.Add(-HoldGrace)
	doc := &document.Record{UsesCounted: 1, Holds: map[string]document.UseHold{
		"a": {Until: live, Client: "c1"}, "b": {Until: gone, Client: "c1"}, "me": {Until: gone, Client: "c2"},
	}}
	drop, held, err := planHold(doc, "me", "c2", 3, now)
	if err != nil || held || len(drop) != 1 || drop[0] != "b" {
		t.Fatalf("drop %v held %v err %v, want [b] (not the order's own id)", drop, held, err)
	}
	if _, _, err := planHold(doc, "new", "c3", 2, now); err != ErrNoUsesLeft {
		t.Fatalf("1 counted + 1 live of 2: %v, want ErrNoUsesLeft", err)
	}
	if _, held, err := planHold(doc, "a", "c1", 3, now); err != nil || !held {
		t.Fatalf("a live hold under the order's id: held %v err %v", held, err)
	}
	doc.Holds["x"] = document.UseHold{Until: live, Client: "c1"}
	doc.Holds["y"] = document.UseHold{Until: live, Client: "c1"}
	if _, _, err := planHold(doc, "new", "c1", 100, now); err == nil {
		t.Fatal("a client holding 3 got a 4th")
	}
	if _, _, err := planHold(doc, "new", "c9", 100, now); err != nil {
		t.Fatalf("another client: %v", err)
	}
	if _, _, err := planHold(doc, "new", "", 100, now); err != nil {
		t.Fatalf("the API (no client): %v", err)
	}
}
