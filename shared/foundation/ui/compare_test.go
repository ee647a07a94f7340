package ui_test

import (
	"bytes"
	"testing"

	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/ui"
)

func TestErrorPageMatchesTheKits(t *testing.T) {
	style := page.NewStyle("")
	for _, e := range []page.Error{{Lang: page.BN, Title: "T<", Message: "m&", Self: "/x?a=1"}, {Lang: page.EN}} {
		var a, b bytes.Buffer
		if err := page.WriteError(&a, style, e); err != nil {
			t.Fatal(err)
		}
		if err := ui.ErrorPage(&b, style, e); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("the component writes\n%s\nthe kit wrote\n%s", b.String(), a.String())
		}
	}
}
