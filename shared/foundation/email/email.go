// Package email holds the one rule for an email address the API accepts (the request format
// "email"): the request reader (jsonbody) checks bodies with it, and the rules that take an
// address as a Go value (a card payer's receipt address) check it with the same function.
package email

import "regexp"

var pattern = regexp.MustCompile(`^[A-Za-z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$`)

// Check is "" when s is an email address, else the rule it breaks.
func Check(s string) string {
	if len(s) > 254 || !pattern.MatchString(s) {
		return "must be an email address such as name@example.com"
	}
	return ""
}
