package publicdoc

import (
	"testing"

	"github.com/takapay/payments/shared/foundation/page/pagetest"
)

// The family's words keep every catalogue's rules (the provider names and pure punctuation
// read the same in both languages).
func TestCatalogues(t *testing.T) {
	pagetest.CheckCatalogue(t, messagesEN, messagesBN, "doc.problem")
}
