package page

// Counted phrases. English has two forms, one thing and any other number ("1 minute",
// "0 minutes", "2 minutes"); Bangla has one, the number in Bangla digits before the word
// ("১ মিনিট", "২ মিনিট"): a Bangla noun after a number does not change (CLDR's bn plural
// rules select "one" for 0 and 1 only to pick an ending the words here never take).

// Count writes n things: n in the language's digits, a space, then one when English n is 1
// and other otherwise. In Bangla one and other are the same word; Count uses other.
// EN.Count(1, "minute", "minutes") is "1 minute", BN.Count(30, "মিনিট", "মিনিট") "৩০ মিনিট".
func (l Lang) Count(n int64, one, other string) string {
	return l.Number(n) + " " + l.pick(n, one, other)
}

// pick returns one when l is English and n is 1, else other.
func (l Lang) pick(n int64, one, other string) string {
	if l != BN && n == 1 {
		return one
	}
	return other
}

// Plural is T for a counted message: the catalogue's key+".one" when l is English and n is 1
// and the catalogue has that form, else key; args fill its placeholders as T's do (the
// count among them, written by the caller in the language's digits, l.Number). A message
// with a count has its ".one" key in every language (TestCatalogues keeps the keys equal),
// the Bangla one the same words as the other.
func (l Lang) Plural(key string, n int64, args ...string) string {
	if l != BN && n == 1 {
		if _, ok := catalogues[l][key+".one"]; ok {
			return l.T(key+".one", args...)
		}
	}
	return l.T(key, args...)
}
