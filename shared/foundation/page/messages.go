package page

import (
	"sort"
	"strings"
)

// A catalogue holds the human text of the payer pages in one language, by key. The keys are
// namespaced by page family ("page." the kit, "checkout." the hosted checkout, "doc." the
// public document pages); a message names its values as {name} placeholders, filled by T.
// Every language has exactly the same keys and placeholders (TestCatalogues, and each
// family's own test through pagetest.CheckCatalogue). The kit's words are here; a family's
// are in its own package, which joins them at initialisation (Register), so a binary carries
// only the words of the families it links: the dashboard's functions carry none of the
// checkout's (DashboardPasskeysFunction's size bound depends on it, decision 75).
type catalogue map[string]string

var catalogues = map[Lang]catalogue{EN: messagesEN, BN: messagesBN}

// Register joins a page family's words (English, Bangla) to the catalogue. The family's
// package calls it from its init, before any page is written; a key the catalogue has already
// panics (two families must not claim one word).
func Register(en, bn map[string]string) {
	for l, words := range map[Lang]map[string]string{EN: en, BN: bn} {
		for k, v := range words {
			if _, dup := catalogues[l][k]; dup {
				panic("page: message " + k + " registered twice")
			}
			catalogues[l][k] = v
		}
	}
}

// T returns the message key in l with its placeholders filled: args are pairs of a name and
// its value (T("checkout.pay_title", "amount", "৳10.00", "merchant", "Shop")). Values are
// put in as they are, in one pass: a value that looks like a placeholder stays text. A key
// missing in l falls back to English, and one missing there too is returned as the key
// itself (TestCatalogues keeps both from happening).
func (l Lang) T(key string, args ...string) string {
	return Fill(l.raw(key), args)
}

// raw is the message key in l as the catalogue has it.
func (l Lang) raw(key string) string {
	if msg, ok := catalogues[l][key]; ok {
		return msg
	}
	if msg, ok := messagesEN[key]; ok {
		return msg
	}
	return key
}

// Fill puts args (pairs of a name and its value) into msg's {name} placeholders in one pass:
// a value that looks like a placeholder stays text, and a placeholder without a value stays as
// it is. The one message filler of every catalogue (the kit's, the families', the dashboard's).
func Fill(msg string, args []string) string {
	if len(args) == 0 || !strings.Contains(msg, "{") {
		return msg
	}
	var b strings.Builder
	b.Grow(len(msg) + 32)
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
		value, found := lookup(args, name)
		b.WriteString(msg[:open])
		if found {
			b.WriteString(value)
		} else {
			b.WriteString(msg[open : open+end+1])
		}
		msg = msg[open+end+1:]
	}
	b.WriteString(msg)
	return b.String()
}

func lookup(args []string, name string) (string, bool) {
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == name {
			return args[i+1], true
		}
	}
	return "", false
}

// Split returns the message key in l cut around one placeholder (the other placeholders
// filled from args): the markup writes before, then the placeholder's value in an element of
// its own (a <time>, say), then after.
func (l Lang) Split(key, placeholder string, args ...string) (before, after string) {
	before, after, _ = strings.Cut(l.raw(key), "{"+placeholder+"}")
	return Fill(before, args), Fill(after, args)
}

// Keys lists the catalogue's keys that start with prefix, sorted: a page family's tests hold
// it to wording every case it has (a rule without words fails there, not on a payer's page).
func Keys(prefix string) []string {
	var out []string
	for k := range messagesEN {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
