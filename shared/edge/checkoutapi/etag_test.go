package checkoutapi

import "testing"

func TestETagMatches(t *testing.T) {
	tag := ViewETag([]byte(`{"status":"PENDING"}`))
	if tag != ViewETag([]byte(`{"status":"PENDING"}`)) || tag == ViewETag([]byte(`{"status":"COMPLETED"}`)) || len(tag) != 24 {
		t.Fatalf("ViewETag %q: not a stable 22-character hash of the body", tag)
	}
	for header, want := range map[string]bool{
		tag:                       true,
		"W/" + tag:                true,
		`"x", ` + tag:             true,
		`"x",` + tag + `,"y"`:     true,
		"*":                       true,
		"":                        false,
		`"x"`:                     false,
		tag[1 : len(tag)-1]:       false, // unquoted
		`W/"` + tag[1:len(tag)-1]: false, // unterminated
		tag + "x":                 false,
	} {
		if got := etagMatches(header, tag); got != want {
			t.Errorf("etagMatches(%q, %s) = %v, want %v", header, tag, got, want)
		}
	}
}
