package document

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/document/boundcases"
)

// BoundCase, BoundCases and BoundsCustomerID are package boundcases' cases at this package's
// limits (shared with document/integration's HTTP test).
type BoundCase = boundcases.BoundCase

const BoundsCustomerID = boundcases.BoundsCustomerID

var BoundCases = boundcases.Cases(boundcases.Limits{
	MaxDescription:   MaxDescription,
	MaxFieldID:       MaxFieldID,
	MaxFields:        MaxFields,
	MaxItems:         MaxItems,
	MaxLabel:         MaxLabel,
	MaxMinor:         MaxMinor,
	MaxName:          MaxName,
	MaxNotes:         MaxNotes,
	MaxOption:        MaxOption,
	MaxOptions:       MaxOptions,
	MaxPhone:         MaxPhone,
	MaxQuantity:      MaxQuantity,
	MaxReference:     MaxReference,
	MaxTag:           MaxTag,
	MaxTags:          MaxTags,
	MaxTitle:         MaxTitle,
	MaxURL:           MaxURL,
	MaxUses:          MaxUses,
	MaxVersion:       MaxVersion,
	MinAmountMinor:   MinAmountMinor,
	MinItems:         MinItems,
	MinQuantity:      MinQuantity,
	RuleFileRequired: RuleFileRequired,
})

// TestBoundCases runs every BoundCase through ParseBody: Valid has no violation, Invalid has
// exactly one, at Path, whose rule contains Rule.
func TestBoundCases(t *testing.T) {
	names := map[string]bool{}
	for _, c := range BoundCases {
		t.Run(c.Name, func(t *testing.T) {
			if names[c.Name] {
				t.Fatalf("case name %q repeats", c.Name)
			}
			names[c.Name] = true
			if c.Valid == c.Invalid || !json.Valid([]byte(c.Valid)) || !json.Valid([]byte(c.Invalid)) {
				t.Fatalf("Valid and Invalid must be different JSON texts")
			}
			if !strings.HasPrefix(c.Path, "body") || c.Rule == "" {
				t.Fatalf("Path %q must start with body and Rule must be set", c.Path)
			}
			b, vs := ParseBody([]byte(c.Valid), "body")
			if len(vs) != 0 || b == nil {
				t.Errorf("Valid %.200s: violations %v", c.Valid, vs)
			}
			b, vs = ParseBody([]byte(c.Invalid), "body")
			if b != nil || len(vs) != 1 || vs[0].Path != c.Path || !strings.Contains(vs[0].Rule, c.Rule) {
				t.Errorf("Invalid %.200s: violations %v, want exactly one at %s containing %q", c.Invalid, vs, c.Path, c.Rule)
			}
		})
	}
}

// TestBoundCasesCoverEveryMember checks that every body, line item and custom field member
// appears in at least one case path.
func TestBoundCasesCoverEveryMember(t *testing.T) {
	var all strings.Builder
	for _, c := range BoundCases {
		all.WriteString(c.Path + "\n")
	}
	paths := all.String()
	for _, m := range bodyMembers {
		if !strings.Contains(paths, "body."+m+"\n") {
			t.Errorf("no case for body.%s", m)
		}
	}
	for _, m := range lineItemMembers {
		if !strings.Contains(paths, "]."+m+"\n") {
			t.Errorf("no case for line item %s", m)
		}
	}
	for _, m := range customFieldMembers {
		if !strings.Contains(paths, "body.fields[0]."+m) {
			t.Errorf("no case for custom field %s", m)
		}
	}
}

// TestBoundCasesValidForInvoices checks the invoice rule on every Valid body: with items the
// computed total is within bounds and amount_minor is omitted.
func TestBoundCasesValidForInvoices(t *testing.T) {
	for _, c := range BoundCases {
		b, vs := ParseBody([]byte(c.Valid), "body")
		if len(vs) != 0 {
			continue // reported by TestBoundCases
		}
		if len(b.Items) > 0 {
			if _, rule := b.ComputeInvoiceAmount(); rule != "" {
				t.Errorf("%s: Valid body's invoice total: %s", c.Name, rule)
			}
			if b.AmountMinor != nil {
				t.Errorf("%s: Valid body has both items and amount_minor", c.Name)
			}
		}
		if b.CustomerID != nil && *b.CustomerID != BoundsCustomerID && (len(c.Kinds) != 1 || c.Kinds[0] != "customers") {
			t.Errorf("%s: a Valid body whose customer_id is not BoundsCustomerID must be limited to customers", c.Name)
		}
	}
}
