package payerrefund

import "github.com/takapay/payments/shared/foundation/page"

// The words are registered only in the binaries that link this package (the checkout's and
// the public documents' functions).
func init() { page.Register(messagesEN, messagesBN) }
