package dashboard

import (
	"sync"
	"sync/atomic"

	"github.com/takapay/payments/shared/foundation/page"
)

// The dashboard's words live in its own catalogue (messages_en.go, messages_bn.go), not in the
// page kit's: the payer pages' binaries do not carry them. The same rules hold
// (TestCatalogues here): the same keys and placeholders in both languages, Bangla in Bangla
// script without Western digits. A page group's words (documents, payments, …) are a
// MessageGroup that the functions serving its pages register with UseMessages when they are
// built: a binary links only the groups it registers (DashboardPasskeysFunction, which links
// go-webauthn, stays within the size bound that way).
var baseCatalogue = &catalogueSet{
	byLang: map[page.Lang]map[string]string{page.EN: messagesEN, page.BN: messagesBN},
	groups: map[string]bool{},
}

// current is the catalogue in use: the base one and the groups registered so far. It is
// replaced whole (copy on write), never changed in place, so readers need no lock.
var (
	current   atomic.Pointer[catalogueSet]
	currentMu sync.Mutex // serialises UseMessages
)

// catalogueSet is one immutable catalogue: each language's words, and the groups in it.
type catalogueSet struct {
	byLang map[page.Lang]map[string]string
	groups map[string]bool
}

// MessageGroup is a page group's words in both languages (its own file pair).
type MessageGroup struct {
	name   string
	en, bn map[string]string
}

// catalogue returns the words in l of the base catalogue and every group registered so far.
func catalogue(l page.Lang) map[string]string {
	c := current.Load()
	if c == nil {
		c = baseCatalogue
	}
	return c.byLang[l]
}

// UseMessages adds page groups' words to the catalogue (once each; safe to call from every
// cold start and from tests running side by side). A key defined twice is a programming
// error: TestCatalogues checks the catalogue with every group added.
func UseMessages(groups ...MessageGroup) {
	currentMu.Lock()
	defer currentMu.Unlock()
	cur := current.Load()
	if cur == nil {
		cur = baseCatalogue
	}
	var add []MessageGroup
	for _, g := range groups {
		if !cur.groups[g.name] {
			add = append(add, g)
		}
	}
	if len(add) == 0 {
		return
	}
	next := &catalogueSet{byLang: map[page.Lang]map[string]string{}, groups: map[string]bool{}}
	for name := range cur.groups {
		next.groups[name] = true
	}
	for _, l := range []page.Lang{page.EN, page.BN} {
		m := make(map[string]string, len(cur.byLang[l]))
		for k, v := range cur.byLang[l] {
			m[k] = v
		}
		next.byLang[l] = m
	}
	for _, g := range add {
		next.groups[g.name] = true
		for l, from := range map[page.Lang]map[string]string{page.EN: g.en, page.BN: g.bn} {
			for k, v := range from {
				if _, dup := next.byLang[l][k]; dup {
					panic("dashboard: message " + k + " defined twice")
				}
				next.byLang[l][k] = v
			}
		}
	}
	current.Store(next)
}

// t returns the message key in l with its {name} placeholders filled from args (pairs of a
// name and its value), in one pass: a value that looks like a placeholder stays text.
func t(l page.Lang, key string, args ...string) string {
	msg, ok := catalogue(l)[key]
	if !ok {
		if msg, ok = catalogue(page.EN)[key]; !ok {
			return key
		}
	}
	return page.Fill(msg, args)
}

// has reports whether the catalogue has a key.
func has(key string) bool { _, ok := catalogue(page.EN)[key]; return ok }
