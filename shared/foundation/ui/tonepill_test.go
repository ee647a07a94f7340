package ui_test

import (
	"testing"

	"github.com/takapay/payments/shared/foundation/h"
	"github.com/takapay/payments/shared/foundation/ui"
)

// A pill of a status ToneOf does not know takes its tone from the caller: the colour's class,
// the status for tests and styles, the words escaped.
func TestTonePill(t *testing.T) {
	got := h.String(ui.TonePill(ui.Waiting, "expiring", "Expiring <soon>"))
	if want := `<span class="pill pill-waiting" data-status="expiring">Expiring &lt;soon&gt;</span>`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := h.String(ui.TonePill(ui.Good, "ACTIVE", "Active")), h.String(ui.Pill("ACTIVE", "Active")); got != want {
		t.Errorf("a known status: TonePill %s, Pill %s", got, want)
	}
}
