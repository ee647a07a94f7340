package dashboard

import (
	"strings"

	"github.com/takapay/payments/shared/foundation/page"
)

// refusalRules word, in the page's language, the rules the credential service (a key's name,
// its scopes) and the URL check (the document webhook) state in English: the first rule phrase
// a refusal's rule contains names its message; a refusal none names is the field's own
// generic message. The service's English stays its API's (and the activity log's) words.
var refusalRules = []struct{ field, phrase, key string }{
	{"name", "is required", "dash.rule.required"},
	{"name", "at most", "dash.rule.key_name.max_length"},
	{"name", "control", "dash.rule.control"},
	{"scopes", "", "dash.rule.scopes"},
	{"environment", "", "dash.rule.environment"},
	{"url", "at most", "dash.rule.url.max_length"},
	{"url", "https", "dash.rule.url.https"},
	{"url", "IP address", "dash.rule.url.public"},
	{"url", "localhost", "dash.rule.url.public"},
	{"url", "reserved", "dash.rule.url.public"},
	{"url", "public host", "dash.rule.url.public"},
	{"url", "host", "dash.rule.url.host"},
	{"url", "fragment", "dash.rule.url.fragment"},
	{"url", "credentials", "dash.rule.url.credentials"},
	{"url", "", "dash.rule.url.invalid"},
}

// refusalMessage is a credential refusal's message in l (fields named url-<environment> are
// the webhook URL fields: their refusal names "url").
func refusalMessage(l page.Lang, fe *refusal) string {
	field := fe.field
	if strings.HasPrefix(field, "url") {
		field = "url"
	}
	for _, r := range refusalRules {
		if r.field == field && strings.Contains(fe.rule, r.phrase) {
			return t(l, r.key)
		}
	}
	return t(l, "dash.rule.format")
}
