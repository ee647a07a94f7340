package integration_test

import (
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/document/boundcases"
)

// boundCases are the body's bound cases at package document's limits (the unit test of the
// validator runs the same ones).
var boundCases = boundcases.Cases(boundcases.Limits{
	MaxDescription:   document.MaxDescription,
	MaxFieldID:       document.MaxFieldID,
	MaxFields:        document.MaxFields,
	MaxItems:         document.MaxItems,
	MaxLabel:         document.MaxLabel,
	MaxMinor:         document.MaxMinor,
	MaxName:          document.MaxName,
	MaxNotes:         document.MaxNotes,
	MaxOption:        document.MaxOption,
	MaxOptions:       document.MaxOptions,
	MaxPhone:         document.MaxPhone,
	MaxQuantity:      document.MaxQuantity,
	MaxReference:     document.MaxReference,
	MaxTag:           document.MaxTag,
	MaxTags:          document.MaxTags,
	MaxTitle:         document.MaxTitle,
	MaxURL:           document.MaxURL,
	MaxUses:          document.MaxUses,
	MaxVersion:       document.MaxVersion,
	MinAmountMinor:   document.MinAmountMinor,
	MinItems:         document.MinItems,
	MinQuantity:      document.MinQuantity,
	RuleFileRequired: document.RuleFileRequired,
})
