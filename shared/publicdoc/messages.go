package publicdoc

import "github.com/takapay/payments/shared/foundation/page"

func init() { page.Register(messagesEN, messagesBN) }
