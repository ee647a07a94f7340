package page

import "testing"

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		query, locale, accept string
		want                  Choice
	}{
		// Nothing asked: English.
		{"", "", "", Choice{EN, false}},
		// An explicit ?lang wins over everything, and is remembered as explicit.
		{"bn", "en", "en", Choice{BN, true}},
		{"en", "bn", "bn-BD", Choice{EN, true}},
		{"BN", "", "", Choice{BN, true}},
		// Then the merchant's locale, over the browser.
		{"", "bn", "en-US,en;q=0.9", Choice{BN, false}},
		{"", "en", "bn", Choice{EN, false}},
		// "auto" (and anything unknown) passes to the browser.
		{"", "auto", "bn-BD,bn;q=0.9,en;q=0.8", Choice{BN, false}},
		{"", "auto", "", Choice{EN, false}},
		// A ?lang that is no page language is ignored, never an error.
		{"fr", "", "bn", Choice{BN, false}},
		{"bn-BD", "bn", "", Choice{BN, false}}, // ?lang takes exact codes only
		{"<script>", "xx", "de", Choice{EN, false}},
	} {
		if got := Choose(c.query, c.locale, c.accept); got != c.want {
			t.Errorf("Choose(%q, %q, %q) = %+v, want %+v", c.query, c.locale, c.accept, got, c.want)
		}
	}
}

func TestFromAcceptLanguage(t *testing.T) {
	for h, want := range map[string]Lang{
		"bn":                         BN,
		"bn-BD,bn;q=0.9,en-US;q=0.8": BN,
		"en-US,en;q=0.9,bn;q=0.8":    EN,
		"de-DE,bn;q=0.5,en;q=0.4":    BN, // the first page language by weight, past others
		"en;q=0.2, BN-in;q=0.7":      BN,
		"en;q=0.5,bn;q=0.5":          EN, // equal weights: the first
		"bn;q=0,en;q=0.1":            EN, // q=0 refuses bn
		"*;q=0.9,bn;q=0.3":           BN,
		"bn;q=abc,en;q=0.2":          EN, // a malformed weight is no preference
		"bn; Q=0.8 ,en ;q=0.9":       EN,
		"bengali,english":            "",
		"":                           "",
		"de,fr;q=0.9":                "",
		"bn;q=2":                     "", // out of range
		",,,;q=1,bn-;q=0.5":          BN,
		"\x00bn":                     "",
	} {
		got, ok := FromAcceptLanguage(h)
		if got != want || ok != (want != "") {
			t.Errorf("FromAcceptLanguage(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

func TestWithLang(t *testing.T) {
	for _, c := range []struct {
		u    string
		l    Lang
		want string
	}{
		{"/v1/public/checkout/t", BN, "/v1/public/checkout/t?lang=bn"},
		{"/v1/public/checkout/t?lang=en", BN, "/v1/public/checkout/t?lang=bn"},
		{"https://x.example/p?a=1&lang=bn&b=2#f", EN, "https://x.example/p?a=1&b=2&lang=en#f"},
		{"/p?l%61ng=en&a=%zz", BN, "/p?a=%zz&lang=bn"}, // an escaped name is the same parameter
		{"/p?", EN, "/p?lang=en"},
	} {
		if got := WithLang(c.u, c.l); got != c.want {
			t.Errorf("WithLang(%q, %s) = %q, want %q", c.u, c.l, got, c.want)
		}
	}
	if got := (Choice{BN, false}).URL("/p"); got != "/p" {
		t.Errorf("an implicit choice changed the URL: %q", got)
	}
	if got := (Choice{BN, true}).URL("/p"); got != "/p?lang=bn" {
		t.Errorf("an explicit choice is not carried: %q", got)
	}
}

func TestParseLangAndNames(t *testing.T) {
	for s, want := range map[string]Lang{"bn": BN, "EN": EN, "bn-BD": BN, " en-gb ": EN, "ben": "", "": ""} {
		if got, ok := ParseLang(s); got != want || ok != (want != "") {
			t.Errorf("ParseLang(%q) = %q, %v", s, got, ok)
		}
	}
	if BN.Other() != EN || EN.Other() != BN || BN.Name() != "বাংলা" || EN.Name() != "English" {
		t.Errorf("Other/Name wrong")
	}
}
