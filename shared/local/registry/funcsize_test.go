package registry

import (
	"maps"
	"slices"
	"testing"

	"github.com/takapay/payments/shared/local/funcsize"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// sizeExceptions are the production functions allowed over funcsize's bounds (100 lines,
// cyclomatic complexity 20) because they are clearer whole, each with its reason; each is
// recorded in docs/decisions.md (record 71). Today there are none: money.ParseTaka, the one
// parser that was over, reads as well split into its grammar's parts.
var sizeExceptions = map[string]string{}

// TEMPORARY (issue 31): the offenders of the packages other branches of issue 31 are shrinking
// in parallel (document, publicdoc, intent, payment, checkout, dashboard, account, team), so
// this branch's test passes before their merge. The lead empties this list after the merge:
// an entry that is no longer over a bound fails the test, naming itself, until it is removed.
var sizeExceptionsPendingIssue31 = map[string]bool{
	"shared/account.(*Service).SignIn":         true,
	"shared/account.parseHash":                 true,
	"shared/dashboard.(*Payments).List":        true,
	"shared/dashboard.(*Payments).detailPage":  true,
	"shared/dashboard.(*Service).CustomerPage": true,
	"shared/dashboard.(*Service).docPage":      true,
	"shared/dashboard.(*Service).documentPage": true,
	"shared/dashboard.(*Service).keysPage":     true,
	"shared/dashboard.(*Service).teamPage":     true,
	"shared/dashboard.(*Service).webhooksPage": true,
	"shared/dashboard.(*doc).overviewPayments": true,
	"shared/dashboard.(*docForm).build":        true,
	"shared/document.(*Service).edit":          true,
	"shared/intent.(*Linker).Place":            true,
	"shared/intent.(*Linker).reserveInvoice":   true,
	"shared/intent.(*request).listQuery":       true,
	"shared/intent.Settle":                     true,
	"shared/publicdoc.(*Checkout).Pay":         true,
	"shared/publicdoc.(*collector).readForm":   true,
	"shared/publicdoc.ViewOf":                  true,
	"shared/publicdoc.writeField":              true,
	"shared/team.(*Service).Invite":            true,
}

// No production function (outside tests, generated code and local tooling) is over 100 lines
// or cyclomatic complexity 20 unless it is a named exception; an exception that is no longer
// over a bound is stale and must go. `go run ./cmd/funcsize` prints the offenders.
func TestFunctionSizes(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fns, err := funcsize.Measure(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) < 500 {
		t.Fatalf("measured only %d functions: the walk missed the tree", len(fns))
	}
	over := map[string]bool{}
	for _, f := range fns {
		if !f.Over() {
			continue
		}
		over[f.Name] = true
		if sizeExceptions[f.Name] == "" && !sizeExceptionsPendingIssue31[f.Name] {
			t.Errorf("%s: over %d lines or complexity %d; split it by meaning, or name it in sizeExceptions with its reason (and in docs/decisions.md)",
				f, funcsize.MaxLines, funcsize.MaxComplexity)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sizeExceptions)) {
		if !over[name] {
			t.Errorf("sizeExceptions names %s, which is no longer over a bound (or no longer exists): remove it", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sizeExceptionsPendingIssue31)) {
		if !over[name] {
			t.Errorf("sizeExceptionsPendingIssue31 names %s, which is no longer over a bound (or no longer exists): remove it", name)
		}
	}
}
