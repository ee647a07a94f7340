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
		if sizeExceptions[f.Name] == "" {
			t.Errorf("%s: over %d lines or complexity %d; split it by meaning, or name it in sizeExceptions with its reason (and in docs/decisions.md)",
				f, funcsize.MaxLines, funcsize.MaxComplexity)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sizeExceptions)) {
		if !over[name] {
			t.Errorf("sizeExceptions names %s, which is no longer over a bound (or no longer exists): remove it", name)
		}
	}
}
