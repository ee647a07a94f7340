package document

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sameJSON reports whether two JSON texts hold equal values (numbers compared as text).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(text []byte) any {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

func TestMergePatchRFC7396(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		// RFC 7396 section 3.
		{`{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}`,
			`{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}`,
			`{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}`},
		// RFC 7396 appendix A (the examples whose patch is an object).
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// More.
		{`{"a":1}`, `{}`, `{"a":1}`},
		{`{"a":1}`, `{"b":null}`, `{"a":1}`},
		{`"scalar"`, `{"a":null}`, `{}`},
		{`{"a":{"b":{"c":1,"d":2}},"x":[1,{"y":2}]}`, `{"a":{"b":{"c":null,"e":{"f":null,"g":3}}},"x":[{"z":null}]}`, `{"a":{"b":{"d":2,"e":{"g":3}}},"x":[{"z":null}]}`},
		{`{"tags":["a","b","c"]}`, `{"tags":["d"]}`, `{"tags":["d"]}`},
		{`{"tags":["a"]}`, `{"tags":[]}`, `{"tags":[]}`},
		{`{"a":{"b":1}}`, `{"a":5}`, `{"a":5}`},
		{`{"a":5}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
	}
	for _, tt := range tests {
		got, err := MergePatch([]byte(tt.target), []byte(tt.patch))
		if err != nil {
			t.Errorf("MergePatch(%s, %s): %v", tt.target, tt.patch, err)
			continue
		}
		if !sameJSON(t, got, []byte(tt.want)) {
			t.Errorf("MergePatch(%s, %s) = %s, want %s", tt.target, tt.patch, got, tt.want)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, got); err != nil || !bytes.Equal(compact.Bytes(), got) {
			t.Errorf("result is not compact JSON: %s", got)
		}
	}
}

func TestMergePatchKeepsNumbersAndText(t *testing.T) {
	got, err := MergePatch([]byte(`{"big":12345678901234567890123,"f":1.10,"s":"<a & b>"}`), []byte(`{"n":100000000000,"e":1e400,"h":"x<y>&z","u":"\u2028"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"big":12345678901234567890123`, `"f":1.10`, `"s":"<a & b>"`, `"n":100000000000`, `"e":1e400`, `"h":"x<y>&z"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s does not contain %s", got, want)
		}
	}
}

func TestMergePatchErrors(t *testing.T) {
	tests := []struct{ name, target, patch, want string }{
		// RFC 7396 appendix A examples whose patch is not an object: a document body patch
		// must be an object.
		{"array patch", `["a","b"]`, `["c","d"]`, "must be a JSON object"},
		{"array patch on object", `{"a":"b"}`, `["c"]`, "must be a JSON object"},
		{"null patch", `{"a":"foo"}`, `null`, "must be a JSON object"},
		{"string patch", `{"a":"foo"}`, `"bar"`, "must be a JSON object"},
		{"number patch", `{}`, `1`, "must be a JSON object"},
		{"repeated member", `{}`, `{"a":1,"a":2}`, "body.a appears more than once"},
		{"repeated nested member", `{}`, `{"items":[{"title":"x","title":"y"}]}`, "body.items[0].title appears more than once"},
		{"invalid patch", `{}`, `{"a":`, "not valid JSON"},
		{"trailing data", `{}`, `{} {}`, "data after"},
		{"invalid target", `{`, `{}`, "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MergePatch([]byte(tt.target), []byte(tt.patch))
			if err == nil || got != nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MergePatch = %s, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

// TestMergePatchThenParseBody is the PATCH flow: the stored canonical body, a patch, and the
// merged result validated in full.
func TestMergePatchThenParseBody(t *testing.T) {
	stored := mustParseBody(t, `{"reference":"r","name":"Old","tags":["a","b"],"items":[{"title":"t","quantity":1,"unit_amount_minor":5}]}`).Canonical()
	merged, err := MergePatch(stored, []byte(`{"name":null,"tags":["c"],"expected_version":1,"email":"a@b.co"}`))
	if err != nil {
		t.Fatal(err)
	}
	b := mustParseBody(t, string(merged))
	if want := `{"reference":"r","email":"a@b.co","tags":["c"],"items":[{"title":"t","quantity":1,"unit_amount_minor":5}]}`; string(b.Canonical()) != want {
		t.Errorf("Canonical = %s, want %s", b.Canonical(), want)
	}
	// Deleting the required reference is caught by ParseBody.
	merged, err = MergePatch(stored, []byte(`{"reference":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, vs := ParseBody(merged, "body"); len(vs) != 1 || vs[0].Path != "body.reference" {
		t.Errorf("violations = %v", vs)
	}
}
