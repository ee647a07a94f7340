//go:build !race

// Excluded from -race builds like the other browser tests (chromedp races on its own).

package integration_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/checkout"
	"github.com/takapay/payments/shared/local/browsertest"
)

// Issue 32's "done when", for the checkout: every state of the checkout page and every error
// page (each golden file but the hostile-* ones, which prove escaping), in both languages, at
// 360×740, 390×844 and 1366×900, with its stylesheet and security headers and without its
// script: no sideways scroll (document.documentElement.scrollWidth <= innerWidth; a failure
// names the page, language, size and the widest element past the right edge) and 0 axe-core
// violations. Screenshots: .artifacts/widths/checkout/<state>-<lang>-<width>.png. A new state
// is a new golden file, checked here without a line more.
func TestBrowserWidthsEveryState(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.CheckGoldenWidths(t, filepath.Join("..", "testdata", "golden"), "widths/checkout/",
		checkout.SecurityHeaders(false), func(name string) bool { return strings.HasPrefix(name, "hostile-") })
}
