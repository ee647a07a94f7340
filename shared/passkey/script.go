package passkey

import (
	_ "embed"

	"github.com/takapay/payments/shared/foundation/page"
)

//go:embed assets/passkey.js
var scriptSource string

// Script is the passkey script as a page kit inline script: a page with a passkey form writes
// <script>Script.Source()</script> at the end of its <body> and allows it with
// page.Policy{Script: Script} (script-src by its hash). The page's own other script, if it
// ever needs one, would be concatenated into one page.NewScript with ScriptSource.
var Script = page.NewScript(scriptSource)

// ScriptSource is the script's text (for a page that combines it with its own).
func ScriptSource() string { return scriptSource }
