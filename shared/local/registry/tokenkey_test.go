package registry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/openapi"
)

// CHECKOUT_TOKEN_KEY reaches exactly the functions that mint checkout tokens, which are the
// functions that answer with a payment_url: every other function has no use for the key, so
// it must not hold it. Three sources must agree with template.yaml's environments:
//   - the contract: a function answers with a payment_url when one of its routes is an
//     operation of openapi.yaml with a response whose schema (following $ref, items, allOf,
//     oneOf, anyOf) has a payment_url property;
//   - the code: the function's handler wires d.Config.CheckoutTokenKey;
//   - docs/operations.md's Configuration row for CHECKOUT_TOKEN_KEY names exactly those functions.
func TestCheckoutTokenKeyOnlyWhereTokensAreMinted(t *testing.T) {
	tpl, root := loadTemplate(t)
	var held []string
	for _, f := range tpl.Functions {
		if _, ok := f.Environment["CHECKOUT_TOKEN_KEY"]; ok {
			held = append(held, f.LogicalID)
		}
	}
	slices.Sort(held)

	// The contract.
	var doc map[string]any
	if err := yaml.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	paths, _ := doc["paths"].(map[string]any)
	answers := map[string]bool{}
	for r, fn := range tpl.Routes() {
		item, _ := paths[r.Path].(map[string]any)
		op, _ := item[strings.ToLower(r.Method)].(map[string]any)
		if op != nil && hasProperty(doc, op["responses"], "payment_url", map[string]bool{}) {
			answers[fn] = true
		}
	}
	fromContract := slices.Sorted(func(yield func(string) bool) {
		for fn := range answers {
			if !yield(fn) {
				return
			}
		}
	})
	if len(fromContract) == 0 {
		t.Fatal("no operation of openapi.yaml answers with a payment_url: the walk is broken")
	}
	if !slices.Equal(held, fromContract) {
		t.Errorf("CHECKOUT_TOKEN_KEY is given to %v; the functions that answer with a payment_url (openapi.yaml) are %v",
			held, fromContract)
	}

	// The code.
	var wired []string
	for _, f := range tpl.Functions {
		files, _ := filepath.Glob(filepath.Join(root, f.Dir, "handler", "*.go"))
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "Config.CheckoutTokenKey") {
				wired = append(wired, f.LogicalID)
				break
			}
		}
	}
	slices.Sort(wired)
	if !slices.Equal(held, wired) {
		t.Errorf("CHECKOUT_TOKEN_KEY is given to %v; the handlers that use Config.CheckoutTokenKey are %v", held, wired)
	}

	// docs/operations.md's Configuration row.
	readme, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "| `CHECKOUT_TOKEN_KEY` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/operations.md has no Configuration row for CHECKOUT_TOKEN_KEY")
	}
	words := strings.FieldsFunc(row, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, f := range tpl.Functions {
		if named := slices.Contains(words, f.LogicalID); named != slices.Contains(held, f.LogicalID) {
			t.Errorf("docs/operations.md's CHECKOUT_TOKEN_KEY row names %s: %v; the template gives it the key: %v",
				f.LogicalID, named, !named)
		}
	}
}

// hasProperty reports whether the schema tree n (a response, content, schema or a list of
// them, as decoded from openapi.yaml) declares a property called name, following local $refs
// of doc.
func hasProperty(doc map[string]any, n any, name string, seen map[string]bool) bool {
	switch v := n.(type) {
	case []any:
		for _, e := range v {
			if hasProperty(doc, e, name, seen) {
				return true
			}
		}
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			if seen[ref] {
				return false
			}
			seen[ref] = true
			var target any = doc
			for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
				m, _ := target.(map[string]any)
				target = m[part]
			}
			if hasProperty(doc, target, name, seen) {
				return true
			}
		}
		if props, ok := v["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return true
			}
		}
		for key, child := range v {
			switch key {
			case "$ref", "example", "examples", "description":
				continue
			}
			if hasProperty(doc, child, name, seen) {
				return true
			}
		}
	}
	return false
}
