package jsonbody_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
)

// apiErr asserts err is an *apierr.Error with code and returns it.
func apiErr(t *testing.T, err error, code apierr.Code) *apierr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want %s", code)
	}
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%q), want %s", e.Code, e.Message, code)
	}
	return e
}

func mustParse(t *testing.T, body string) *jsonbody.Object {
	t.Helper()
	obj, err := jsonbody.ParseObject([]byte(body))
	if err != nil {
		t.Fatalf("ParseObject(%q): %v", body, err)
	}
	return obj
}

func TestParseObjectErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		code    apierr.Code
		message string // substring of the message
	}{
		{"nil", "", apierr.MalformedRequest, "empty"},
		{"whitespace", " \t\r\n ", apierr.MalformedRequest, "empty"},
		{"invalid utf-8", "{\"a\":\"\xff\xfe\"}", apierr.MalformedRequest, "UTF-8"},
		{"truncated utf-8", "{\"a\":\"\xe0\xa6\"}", apierr.MalformedRequest, "UTF-8"},
		{"syntax error", `{"a":1,}`, apierr.MalformedRequest, "syntax error at byte"},
		{"unterminated", `{"a":`, apierr.MalformedRequest, "not valid JSON"},
		{"bare word", `hello`, apierr.MalformedRequest, "syntax error at byte 1"},
		{"single quotes", `{'a':1}`, apierr.MalformedRequest, "syntax error at byte"},
		{"trailing object", `{} {}`, apierr.MalformedRequest, ""},
		{"trailing garbage", `{"a":1}x`, apierr.MalformedRequest, ""},
		{"array", `[1,2]`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"empty array", `[]`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"number", `42`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"string", `"x"`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"null", `null`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"bool", `true`, apierr.ValidationFailed, "body: must be a JSON object"},
		{"duplicate", `{"a":1,"a":2}`, apierr.ValidationFailed, "body.a: appears more than once"},
		{"duplicate after other", `{"a":1,"b":2,"a":1}`, apierr.ValidationFailed, "body.a: appears more than once"},
		{"duplicate via escape", `{"a":1,"\u0061":2}`, apierr.ValidationFailed, "body.a: appears more than once"},
		{"duplicate odd name", `{"a b":1,"a b":2}`, apierr.ValidationFailed, `body["a b"]: appears more than once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := jsonbody.ParseObject([]byte(tt.body))
			if obj != nil {
				t.Errorf("got object %v with an error", obj)
			}
			e := apiErr(t, err, tt.code)
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message %q does not contain %q", e.Message, tt.message)
			}
		})
	}
	// Whatever the error, the message never echoes the body.
	e := apiErr(t, func() error { _, err := jsonbody.ParseObject([]byte(`{"password":"hunter2",}`)); return err }(), apierr.MalformedRequest)
	if strings.Contains(e.Message, "hunter2") {
		t.Errorf("message echoes the body: %q", e.Message)
	}
}

func TestParseObjectOK(t *testing.T) {
	obj := mustParse(t, " {\"b\": 1, \"a\" : \"x\", \"c\": {\"d\": [1, 2]}, \"n\": null}\n")
	if got, want := obj.Names(), []string{"b", "a", "c", "n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v (document order)", got, want)
	}
	if obj.Path != "body" {
		t.Errorf("Path = %q, want body", obj.Path)
	}
	raw, ok := obj.Raw("c")
	if !ok || string(raw) != `{"d": [1, 2]}` {
		t.Errorf("Raw(c) = %q, %v; want the exact text", raw, ok)
	}
	if _, ok := obj.Raw("zzz"); ok {
		t.Error("Raw of an absent member reported ok")
	}
	// Names returns a copy.
	names := obj.Names()
	names[0] = "mutated"
	if obj.Names()[0] != "b" {
		t.Error("Names() exposes internal state")
	}
	// Numbers keep their exact text.
	obj = mustParse(t, `{"amount": 150.50, "big": 12345678901234567890123}`)
	if raw, _ := obj.Raw("amount"); string(raw) != "150.50" {
		t.Errorf("amount raw = %q, want 150.50", raw)
	}
	if raw, _ := obj.Raw("big"); string(raw) != "12345678901234567890123" {
		t.Errorf("big raw = %q", raw)
	}
	if len(mustParse(t, `{}`).Names()) != 0 {
		t.Error("{} has names")
	}
}

func TestFieldPath(t *testing.T) {
	obj := mustParse(t, `{}`)
	tests := []struct{ name, want string }{
		{"amount", "body.amount"},
		{"amount_minor", "body.amount_minor"},
		{"x-y", "body.x-y"},
		{"a b", `body["a b"]`},
		{"a.b", `body["a.b"]`},
		{"", `body[""]`},
		{"টাকা", `body["টাকা"]`},
		{`q"`, `body["q\""]`},
	}
	for _, tt := range tests {
		if got := obj.FieldPath(tt.name); got != tt.want {
			t.Errorf("FieldPath(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestOnlyKnown(t *testing.T) {
	r := jsonbody.NewReader(mustParse(t, `{"amount":1,"ammount":2,"reference":"x","redirect_uri":"y","a b":3}`))
	r.OnlyKnown("reference", "amount")
	want := []apierr.Violation{
		{Path: "body.ammount", Rule: "is not a known field (allowed: amount, reference)"},
		{Path: "body.redirect_uri", Rule: "is not a known field (allowed: amount, reference)"},
		{Path: `body["a b"]`, Rule: "is not a known field (allowed: amount, reference)"},
	}
	if !reflect.DeepEqual(r.Violations, want) {
		t.Errorf("violations = %v\nwant %v", r.Violations, want)
	}
	e := apiErr(t, r.Err(), apierr.ValidationFailed)
	for _, v := range want {
		if !strings.Contains(e.Message, v.Path+": ") {
			t.Errorf("message %q does not name %s", e.Message, v.Path)
		}
	}

	r = jsonbody.NewReader(mustParse(t, `{"amount":1}`))
	r.OnlyKnown("amount", "reference")
	if r.Err() != nil {
		t.Errorf("known fields only: %v", r.Err())
	}
}

func TestString(t *testing.T) {
	bengali128 := strings.Repeat("ব", 128) // 3 bytes each: 384 bytes, 128 code points
	bengali129 := strings.Repeat("ব", 129)
	tests := []struct {
		name  string
		value string // raw JSON text of member "s"; "" means absent
		rule  jsonbody.StringRule
		want  string
		ok    bool
		fail  string // expected rule phrase; "" means no violation
	}{
		{"plain", `"hello"`, jsonbody.StringRule{}, "hello", true, ""},
		{"escapes decoded", `"a\u00e9\"b"`, jsonbody.StringRule{}, "aé\"b", true, ""},
		{"absent optional", ``, jsonbody.StringRule{}, "", false, ""},
		{"absent required", ``, jsonbody.StringRule{Required: true}, "", false, "is required"},
		{"null optional", `null`, jsonbody.StringRule{}, "", false, ""},
		{"null required", `null`, jsonbody.StringRule{Required: true}, "", false, "is required"},
		{"number", `5`, jsonbody.StringRule{}, "", false, "must be a string"},
		{"bool", `true`, jsonbody.StringRule{Required: true}, "", false, "must be a string"},
		{"object", `{"a":"b"}`, jsonbody.StringRule{}, "", false, "must be a string"},
		{"array", `["a"]`, jsonbody.StringRule{}, "", false, "must be a string"},
		{"empty with min 1", `""`, jsonbody.StringRule{Min: 1}, "", false, "must not be empty"},
		{"empty without min", `""`, jsonbody.StringRule{}, "", true, ""},
		{"below min 3", `"ab"`, jsonbody.StringRule{Min: 3}, "", false, "must be at least 3 characters"},
		{"at min 3", `"abc"`, jsonbody.StringRule{Min: 3}, "abc", true, ""},
		{"at max", `"` + strings.Repeat("x", 128) + `"`, jsonbody.StringRule{Max: 128}, strings.Repeat("x", 128), true, ""},
		{"over max", `"` + strings.Repeat("x", 129) + `"`, jsonbody.StringRule{Max: 128}, "", false, "must be at most 128 characters"},
		{"max counts code points (128 bengali)", `"` + bengali128 + `"`, jsonbody.StringRule{Max: 128}, bengali128, true, ""},
		{"max counts code points (129 bengali)", `"` + bengali129 + `"`, jsonbody.StringRule{Max: 128}, "", false, "must be at most 128 characters"},
		{"max 0 unbounded", `"` + strings.Repeat("x", 10000) + `"`, jsonbody.StringRule{}, strings.Repeat("x", 10000), true, ""},
		{"newline rejected", `"a\nb"`, jsonbody.StringRule{}, "", false, "must not contain control characters"},
		{"tab rejected", `"a\tb"`, jsonbody.StringRule{}, "", false, "must not contain control characters"},
		{"NUL rejected", `"a\u0000b"`, jsonbody.StringRule{}, "", false, "must not contain control characters"},
		{"DEL rejected", `"a\u007fb"`, jsonbody.StringRule{}, "", false, "must not contain control characters"},
		{"C1 NEL rejected", `"a\u0085b"`, jsonbody.StringRule{}, "", false, "must not contain control characters"},
		{"newline allowed", `"a\nb"`, jsonbody.StringRule{AllowControl: true}, "a\nb", true, ""},
		{"check passes", `"ok"`, jsonbody.StringRule{Check: func(string) string { return "" }}, "ok", true, ""},
		{"check fails", `"bad"`, jsonbody.StringRule{Check: func(s string) string { return "must not be " + s }}, "", false, "must not be bad"},
		{"check not run on too long", `"abcd"`, jsonbody.StringRule{Max: 3, Check: func(string) string { return "check ran" }}, "", false, "must be at most 3 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{}`
			if tt.value != "" {
				body = `{"s":` + tt.value + `}`
			}
			r := jsonbody.NewReader(mustParse(t, body))
			got, ok := r.String("s", tt.rule)
			if got != tt.want || ok != tt.ok {
				t.Errorf("String = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			checkOneViolation(t, r, "body.s", tt.fail)
		})
	}
}

// checkOneViolation asserts the reader holds exactly one violation at path with rule, or
// none when rule is "".
func checkOneViolation(t *testing.T, r *jsonbody.Reader, path, rule string) {
	t.Helper()
	if rule == "" {
		if len(r.Violations) != 0 || r.Err() != nil {
			t.Errorf("unexpected violations %v", r.Violations)
		}
		return
	}
	want := []apierr.Violation{{Path: path, Rule: rule}}
	if !reflect.DeepEqual(r.Violations, want) {
		t.Errorf("violations = %v, want %v", r.Violations, want)
	}
	e := apiErr(t, r.Err(), apierr.ValidationFailed)
	if e.Message != path+": "+rule {
		t.Errorf("message = %q, want %q", e.Message, path+": "+rule)
	}
}

func TestInt(t *testing.T) {
	const intRule = "must be an integer"
	tests := []struct {
		name     string
		value    string // raw JSON of member "n"; "" means absent
		required bool
		min, max int64
		want     int64
		ok       bool
		fail     string
	}{
		{"plain", `42`, true, 1, 100, 42, true, ""},
		{"min inclusive", `1`, true, 1, 100, 1, true, ""},
		{"max inclusive", `100`, true, 1, 100, 100, true, ""},
		{"below min", `0`, true, 1, 100, 0, false, "must be between 1 and 100"},
		{"above max", `101`, true, 1, 100, 0, false, "must be between 1 and 100"},
		{"negative", `-5`, true, 1, 100, 0, false, "must be between 1 and 100"},
		{"negative allowed", `-5`, true, -10, 10, -5, true, ""},
		{"minus zero", `-0`, true, 0, 10, 0, true, ""},
		{"int64 max", `9223372036854775807`, true, 0, 9223372036854775807, 9223372036854775807, true, ""},
		{"int64 overflow", `9223372036854775808`, true, 1, 100000000000, 0, false, "must be between 1 and 100000000000"},
		{"int64 underflow", `-9223372036854775809`, true, 1, 100, 0, false, "must be between 1 and 100"},
		{"huge", `123456789012345678901234567890`, true, 1, 100, 0, false, "must be between 1 and 100"},
		{"fraction", `1.5`, true, 1, 100, 0, false, intRule},
		{"negative exponent", `1e-1`, true, 0, 100, 0, false, intRule},
		// The code rejects every fraction or exponent form, even one with an integral value;
		// integers are sent as plain digits.
		{"exponent 1e0", `1e0`, true, 1, 100, 0, false, intRule},
		{"exponent 1E2", `1E2`, true, 1, 1000, 0, false, intRule},
		{"trailing zero fraction", `1.0`, true, 1, 100, 0, false, intRule},
		{"string digits", `"5"`, true, 1, 100, 0, false, intRule},
		{"string", `"abc"`, true, 1, 100, 0, false, intRule},
		{"bool", `true`, true, 1, 100, 0, false, intRule},
		{"object", `{}`, true, 1, 100, 0, false, intRule},
		{"array", `[5]`, true, 1, 100, 0, false, intRule},
		{"absent required", ``, true, 1, 100, 0, false, "is required"},
		{"null required", `null`, true, 1, 100, 0, false, "is required"},
		{"absent optional", ``, false, 1, 100, 0, false, ""},
		{"null optional", `null`, false, 1, 100, 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{}`
			if tt.value != "" {
				body = `{"n":` + tt.value + `}`
			}
			r := jsonbody.NewReader(mustParse(t, body))
			got, ok := r.Int("n", tt.required, tt.min, tt.max)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Int = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
			checkOneViolation(t, r, "body.n", tt.fail)
		})
	}
}

func TestHas(t *testing.T) {
	r := jsonbody.NewReader(mustParse(t, `{"a":1,"b":null,"c":""}`))
	for name, want := range map[string]bool{"a": true, "b": false, "c": true, "d": false} {
		if got := r.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestObject(t *testing.T) {
	tests := []struct {
		name     string
		value    string // raw JSON of member "expected"; "" means absent
		required bool
		ok       bool
		path     string // violation path
		fail     string // substring of the violation rule; "" means none
	}{
		{"object", `{"amount_minor": 100}`, true, true, "", ""},
		{"empty object", `{}`, true, true, "", ""},
		{"absent optional", ``, false, false, "", ""},
		{"null optional", `null`, false, false, "", ""},
		{"absent required", ``, true, false, "body.expected", "is required"},
		{"null required", `null`, true, false, "body.expected", "is required"},
		{"array", `[1]`, false, false, "body.expected", "must be a JSON object"},
		{"string", `"{}"`, false, false, "body.expected", "must be a JSON object"},
		{"number", `1`, false, false, "body.expected", "must be a JSON object"},
		{"bool", `false`, false, false, "body.expected", "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{}`
			if tt.value != "" {
				body = `{"expected":` + tt.value + `}`
			}
			r := jsonbody.NewReader(mustParse(t, body))
			obj, ok := r.Object("expected", tt.required)
			if ok != tt.ok || (obj != nil) != tt.ok {
				t.Fatalf("Object = %v, %v; want ok %v", obj, ok, tt.ok)
			}
			if tt.fail == "" {
				if len(r.Violations) != 0 {
					t.Errorf("unexpected violations %v", r.Violations)
				}
			} else {
				if len(r.Violations) != 1 || r.Violations[0].Path != tt.path || !strings.Contains(r.Violations[0].Rule, tt.fail) {
					t.Errorf("violations = %v, want one at %s containing %q", r.Violations, tt.path, tt.fail)
				}
				apiErr(t, r.Err(), apierr.ValidationFailed)
			}
			if obj != nil && obj.Path != "body.expected" {
				t.Errorf("nested Path = %q, want body.expected", obj.Path)
			}
		})
	}
}

// Regression (fixed): Reader.Object (original jsonbody.go, the `else if ae != nil` branch) re-wrapped the
// nested parse error's whole message as the rule of a violation at the parent path, so a
// duplicate member inside a nested object was reported as
// "body.expected: body.expected.a: appears more than once" (the path twice) instead of
// "body.expected.a: appears more than once". (Fails on the original code.)
func TestObjectNestedDuplicateNamesMemberPath(t *testing.T) {
	r := jsonbody.NewReader(mustParse(t, `{"expected":{"a":1,"a":2}}`))
	if obj, ok := r.Object("expected", true); ok || obj != nil {
		t.Fatalf("Object accepted a duplicate member: %v", obj)
	}
	want := []apierr.Violation{{Path: "body.expected.a", Rule: "appears more than once"}}
	if !reflect.DeepEqual(r.Violations, want) {
		t.Errorf("violations = %#v, want %#v", r.Violations, want)
	}
	e := apiErr(t, r.Err(), apierr.ValidationFailed)
	if e.Message != "body.expected.a: appears more than once" {
		t.Errorf("message = %q, want %q", e.Message, "body.expected.a: appears more than once")
	}
}

func TestNestedPaths(t *testing.T) {
	r := jsonbody.NewReader(mustParse(t, `{"expected":{"amount_minor":1.5,"currency":7,"x":1,"inner":{"deep":"s"}}}`))
	eo, ok := r.Object("expected", true)
	if !ok {
		t.Fatalf("Object failed: %v", r.Violations)
	}
	er := jsonbody.NewReader(eo)
	er.OnlyKnown("amount_minor", "currency", "reference", "inner")
	er.Int("amount_minor", true, 1, 100)
	er.String("currency", jsonbody.StringRule{Required: true})
	er.String("reference", jsonbody.StringRule{Required: true})
	inner, ok := er.Object("inner", true)
	if !ok {
		t.Fatalf("inner: %v", er.Violations)
	}
	ir := jsonbody.NewReader(inner)
	ir.Int("deep", true, 0, 1)
	want := []apierr.Violation{
		{Path: "body.expected.x", Rule: "is not a known field (allowed: amount_minor, currency, inner, reference)"},
		{Path: "body.expected.amount_minor", Rule: "must be an integer"},
		{Path: "body.expected.currency", Rule: "must be a string"},
		{Path: "body.expected.reference", Rule: "is required"},
	}
	if !reflect.DeepEqual(er.Violations, want) {
		t.Errorf("violations = %v\nwant %v", er.Violations, want)
	}
	if want := []apierr.Violation{{Path: "body.expected.inner.deep", Rule: "must be an integer"}}; !reflect.DeepEqual(ir.Violations, want) {
		t.Errorf("inner violations = %v, want %v", ir.Violations, want)
	}
}

func TestErrCollectsAllAndCaps(t *testing.T) {
	r := jsonbody.NewReader(mustParse(t, `{}`))
	if r.Err() != nil {
		t.Fatal("Err() with no violations must be nil")
	}
	for i := range 13 {
		r.Fail(fmt.Sprintf("f%02d", i), "is required")
	}
	e := apiErr(t, r.Err(), apierr.ValidationFailed)
	if e.Status() != 422 {
		t.Errorf("status = %d, want 422", e.Status())
	}
	parts := strings.Split(e.Message, "; ")
	if len(parts) != 11 {
		t.Fatalf("message has %d parts, want 10 violations + a tail: %q", len(parts), e.Message)
	}
	for i := range 10 {
		if want := fmt.Sprintf("body.f%02d: is required", i); parts[i] != want {
			t.Errorf("part %d = %q, want %q", i, parts[i], want)
		}
	}
	if parts[10] != "and 3 more" {
		t.Errorf("tail = %q, want %q", parts[10], "and 3 more")
	}
	if len(r.Violations) != 13 {
		t.Errorf("Violations has %d entries, want all 13", len(r.Violations))
	}

	// Different kinds of violation are all reported together.
	r = jsonbody.NewReader(mustParse(t, `{"a":"x","b":"y","zz":1}`))
	r.OnlyKnown("a", "b", "c")
	r.Int("a", true, 0, 1)
	r.String("b", jsonbody.StringRule{Min: 5})
	r.String("c", jsonbody.StringRule{Required: true})
	e = apiErr(t, r.Err(), apierr.ValidationFailed)
	want := "body.zz: is not a known field (allowed: a, b, c); body.a: must be an integer; " +
		"body.b: must be at least 5 characters; body.c: is required"
	if e.Message != want {
		t.Errorf("message =\n %q\nwant\n %q", e.Message, want)
	}
}

// OnlyKnown must not reorder the caller's slice: the allowed lists are shared package
// variables read by concurrent requests.
func TestOnlyKnownLeavesAllowedUntouched(t *testing.T) {
	allowed := []string{"zeta", "alpha", "mid"}
	r := jsonbody.NewReader(mustParse(t, `{"x":1}`))
	r.OnlyKnown(allowed...)
	if strings.Join(allowed, ",") != "zeta,alpha,mid" {
		t.Fatalf("allowed reordered to %v", allowed)
	}
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Rule, "alpha, mid, zeta") {
		t.Fatalf("violations %v", r.Violations)
	}
}
