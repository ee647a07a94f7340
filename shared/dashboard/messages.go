package dashboard

import (
	"strings"

	"github.com/takapay/payments/shared/page"
)

// The dashboard's words live in its own catalogue (messages_en.go, messages_bn.go), not in the
// page kit's: the payer pages' binaries do not carry them. The same rules hold
// (TestCatalogues here): the same keys and placeholders in both languages, Bangla in Bangla
// script without Western digits.
var catalogues = map[page.Lang]map[string]string{page.EN: messagesEN, page.BN: messagesBN}

// t returns the message key in l with its {name} placeholders filled from args (pairs of a
// name and its value), in one pass: a value that looks like a placeholder stays text.
func t(l page.Lang, key string, args ...string) string {
	msg, ok := catalogues[l][key]
	if !ok {
		if msg, ok = messagesEN[key]; !ok {
			return key
		}
	}
	if len(args) == 0 || !strings.Contains(msg, "{") {
		return msg
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(msg, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(msg[open:], '}')
		if end < 0 {
			break
		}
		name := msg[open+1 : open+end]
		b.WriteString(msg[:open])
		found := false
		for i := 0; i+1 < len(args); i += 2 {
			if args[i] == name {
				b.WriteString(args[i+1])
				found = true
				break
			}
		}
		if !found {
			b.WriteString(msg[open : open+end+1])
		}
		msg = msg[open+end+1:]
	}
	b.WriteString(msg)
	return b.String()
}

// has reports whether the catalogue has a key.
func has(key string) bool { _, ok := messagesEN[key]; return ok }

// addMessages adds a page group's catalogue (its own file pair, so the groups' words do not
// all live in one literal) to the dashboard's; a key defined twice is a programming error.
// Call it from the group's init; TestCatalogues checks the merged catalogues.
func addMessages(en, bn map[string]string) {
	for _, c := range []struct {
		to, from map[string]string
	}{{messagesEN, en}, {messagesBN, bn}} {
		for k, v := range c.from {
			if _, dup := c.to[k]; dup {
				panic("dashboard: message " + k + " defined twice")
			}
			c.to[k] = v
		}
	}
}
