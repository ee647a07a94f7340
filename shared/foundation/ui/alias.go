package ui

import "github.com/takapay/payments/shared/foundation/htmlw"

type htmlwBuilder = htmlw.Builder
