package payerrefund

import (
	"testing"

	"github.com/takapay/payments/shared/foundation/page/pagetest"
)

// The payer's refund words are complete in both languages and keep the catalogues' rules.
func TestCatalogues(t *testing.T) {
	pagetest.CheckCatalogue(t, messagesEN, messagesBN)
}
