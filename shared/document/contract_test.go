package document

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/openapi"
)

type schemaProp struct {
	Type      any    `yaml:"type"`
	MinLength *int   `yaml:"minLength"`
	MaxLength *int   `yaml:"maxLength"`
	Minimum   *int64 `yaml:"minimum"`
	Maximum   *int64 `yaml:"maximum"`
	MaxItems  *int   `yaml:"maxItems"`
	Format    string `yaml:"format"`
	Ref       string `yaml:"$ref"`
	Items     *struct {
		MaxLength *int `yaml:"maxLength"`
	} `yaml:"items"`
}

// The OpenAPI contract's DocumentBody bounds and ParseBody agree at every edge the schema
// states: change one without the other and this fails.
func TestContractBoundsMatchValidator(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]schemaProp `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Components.Schemas["DocumentBody"].Properties
	if len(props) < 20 {
		t.Fatalf("DocumentBody has %d properties in the contract", len(props))
	}
	accepts := func(body string) bool { _, vs := ParseBody([]byte(body), "body"); return len(vs) == 0 }
	with := func(name, value string) string {
		if name == "reference" {
			return `{"reference":` + value + `}`
		}
		return `{"reference":"r",` + fmt.Sprintf("%q", name) + `:` + value + `}`
	}
	checked := 0
	for name, p := range props {
		typ := fmt.Sprint(p.Type)
		switch {
		case strings.Contains(typ, "string") && p.MaxLength != nil && p.Format == "" && name != "email":
			n := *p.MaxLength
			if !accepts(with(name, `"`+strings.Repeat("a", n)+`"`)) || accepts(with(name, `"`+strings.Repeat("a", n+1)+`"`)) {
				t.Errorf("%s: contract maxLength %d is not the validator's", name, n)
			}
			if p.MinLength != nil && *p.MinLength == 1 && accepts(with(name, `""`)) {
				t.Errorf("%s: contract minLength 1, validator accepts empty", name)
			}
			checked++
		case strings.Contains(typ, "integer") && p.Minimum != nil && p.Maximum != nil:
			lo, hi := *p.Minimum, *p.Maximum
			if !accepts(with(name, fmt.Sprint(lo))) || !accepts(with(name, fmt.Sprint(hi))) ||
				accepts(with(name, fmt.Sprint(lo-1))) || accepts(with(name, fmt.Sprint(hi+1))) {
				t.Errorf("%s: contract range %d..%d is not the validator's", name, lo, hi)
			}
			checked++
		case name == "tags" && p.MaxItems != nil && p.Items != nil && p.Items.MaxLength != nil:
			tags := func(count, length int) string {
				el := make([]string, count)
				for i := range el {
					el[i] = `"` + strings.Repeat("t", length) + `"`
				}
				return "[" + strings.Join(el, ",") + "]"
			}
			n, l := *p.MaxItems, *p.Items.MaxLength
			if !accepts(with(name, tags(n, l))) || accepts(with(name, tags(n+1, 1))) || accepts(with(name, tags(1, l+1))) {
				t.Errorf("tags: contract maxItems %d / maxLength %d are not the validator's", n, l)
			}
			checked++
		}
	}
	if checked < 15 {
		t.Fatalf("only %d bounds compared", checked)
	}
}
