// Package jsonbody parses JSON request bodies strictly at the edge: malformed JSON is a 400,
// and every shape or rule violation is a 422 that names the field path and the rule. It keeps
// the exact text of each value, so numbers (money) are never routed through float64.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/email"
)

// Object is one parsed JSON object: its members' raw texts by name, at a field path.
type Object struct {
	Path   string
	fields map[string]json.RawMessage
	order  []string
}

// ParseObject parses a request body that must be exactly one JSON object. Syntax errors,
// invalid UTF-8 and trailing data are MALFORMED_REQUEST (400); a non-object or a duplicated
// member name is VALIDATION_FAILED (422).
func ParseObject(body []byte) (*Object, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apierr.New(apierr.MalformedRequest, "request body is empty; send a JSON object")
	}
	if !utf8.Valid(body) {
		return nil, apierr.New(apierr.MalformedRequest, "request body is not valid UTF-8")
	}
	if !json.Valid(body) {
		return nil, apierr.New(apierr.MalformedRequest, "request body is not valid JSON%s", syntaxHint(body))
	}
	return parseObject(body, "body")
}

func syntaxHint(body []byte) string {
	var v any
	err := json.Unmarshal(body, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf(" (syntax error at byte %d)", se.Offset)
	}
	return ""
}

// parseObject parses valid JSON text that should be an object, detecting duplicate names.
func parseObject(text []byte, path string) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, apierr.New(apierr.MalformedRequest, "request body is not valid JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, apierr.Invalid(apierr.Violation{Path: path, Rule: "must be a JSON object"})
	}
	obj := &Object{Path: path, fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, apierr.New(apierr.MalformedRequest, "request body is not valid JSON")
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, apierr.New(apierr.MalformedRequest, "request body is not valid JSON")
		}
		if _, dup := obj.fields[name]; dup {
			return nil, apierr.Invalid(apierr.Violation{Path: join(path, name), Rule: "appears more than once"})
		}
		obj.fields[name] = raw
		obj.order = append(obj.order, name)
	}
	if _, err := dec.Token(); err != nil { // closing brace
		return nil, apierr.New(apierr.MalformedRequest, "request body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apierr.New(apierr.MalformedRequest, "request body has data after the JSON object")
	}
	return obj, nil
}

func join(path, name string) string {
	if isIdent(name) {
		return path + "." + name
	}
	b, _ := json.Marshal(name)
	return path + "[" + string(b) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) || r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// Names returns the member names in document order.
func (o *Object) Names() []string { return append([]string(nil), o.order...) }

// Raw returns a member's raw JSON text.
func (o *Object) Raw(name string) (json.RawMessage, bool) {
	r, ok := o.fields[name]
	return r, ok
}

// FieldPath returns the path of a member, e.g. body.amount.
func (o *Object) FieldPath(name string) string { return join(o.Path, name) }

// Reader reads typed members from an Object, collecting every violation.
type Reader struct {
	Obj        *Object
	Violations []apierr.Violation
}

// NewReader returns a Reader over obj.
func NewReader(obj *Object) *Reader { return &Reader{Obj: obj} }

// Fail records a violation at a member of the object.
func (r *Reader) Fail(name, rule string) {
	r.Violations = append(r.Violations, apierr.Violation{Path: r.Obj.FieldPath(name), Rule: rule})
}

// Err returns a VALIDATION_FAILED error listing the violations, or nil.
func (r *Reader) Err() error {
	if len(r.Violations) == 0 {
		return nil
	}
	return apierr.Invalid(r.Violations...)
}

// OnlyKnown records an "unknown field" violation for every member not in allowed.
func (r *Reader) OnlyKnown(allowed ...string) {
	known := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		known[a] = true
	}
	var unknown []string
	for _, n := range r.Obj.order {
		if !known[n] {
			unknown = append(unknown, n)
		}
	}
	sorted := append([]string(nil), allowed...) // never reorder the caller's (shared) slice
	sort.Strings(sorted)
	for _, n := range unknown {
		r.Fail(n, "is not a known field (allowed: "+strings.Join(sorted, ", ")+")")
	}
}

// present returns the member's raw text when it is present and not JSON null.
func (r *Reader) present(name string) (json.RawMessage, bool) {
	raw, ok := r.Obj.fields[name]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false
	}
	return raw, true
}

// Has reports whether the member is present and not null.
func (r *Reader) Has(name string) bool {
	_, ok := r.present(name)
	return ok
}

// StringRule bounds a string member.
type StringRule struct {
	Required bool
	Min, Max int // in characters (Unicode code points); Max 0 means unbounded
	// AllowControl permits control characters such as newlines (for free text).
	AllowControl bool
	// Check, when set, returns a rule phrase for an invalid value, or "".
	Check func(string) string
}

// String reads a string member; null or absent yields ("", false) unless Required.
func (r *Reader) String(name string, rule StringRule) (string, bool) {
	raw, ok := r.present(name)
	if !ok {
		if rule.Required {
			r.Fail(name, "is required")
		}
		return "", false
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		r.Fail(name, "must be a string")
		return "", false
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n < rule.Min && rule.Min == 1:
		r.Fail(name, "must not be empty")
		return "", false
	case n < rule.Min:
		r.Fail(name, fmt.Sprintf("must be at least %d characters", rule.Min))
		return "", false
	case rule.Max > 0 && n > rule.Max:
		r.Fail(name, fmt.Sprintf("must be at most %d characters", rule.Max))
		return "", false
	}
	if !rule.AllowControl && strings.IndexFunc(s, unicode.IsControl) >= 0 {
		r.Fail(name, "must not contain control characters")
		return "", false
	}
	if rule.Check != nil {
		if msg := rule.Check(s); msg != "" {
			r.Fail(name, msg)
			return "", false
		}
	}
	return s, true
}

// Object reads a nested object member; null or absent yields (nil, false) unless required.
func (r *Reader) Object(name string, required bool) (*Object, bool) {
	raw, ok := r.present(name)
	if !ok {
		if required {
			r.Fail(name, "is required")
		}
		return nil, false
	}
	obj, err := parseObject(raw, r.Obj.FieldPath(name))
	if err != nil {
		var ae *apierr.Error
		switch {
		case raw[0] != '{':
			r.Fail(name, "must be a JSON object")
		case errors.As(err, &ae) && len(ae.Violations) > 0:
			r.Violations = append(r.Violations, ae.Violations...)
		default:
			r.Fail(name, "must be a valid JSON object")
		}
		return nil, false
	}
	return obj, true
}

// Int reads an integer member within [min, max]. Integers must be written as integers: a
// decimal point or an exponent (1.0, 1e2), a string, or a value out of range is a violation.
func (r *Reader) Int(name string, required bool, min, max int64) (int64, bool) {
	raw, ok := r.present(name)
	if !ok {
		if required {
			r.Fail(name, "is required")
		}
		return 0, false
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if raw[0] == '"' || dec.Decode(&n) != nil {
		r.Fail(name, "must be an integer")
		return 0, false
	}
	v, err := n.Int64()
	if err != nil {
		if strings.ContainsAny(n.String(), ".eE") {
			r.Fail(name, "must be an integer")
		} else {
			r.Fail(name, fmt.Sprintf("must be between %d and %d", min, max))
		}
		return 0, false
	}
	if v < min || v > max {
		r.Fail(name, fmt.Sprintf("must be between %d and %d", min, max))
		return 0, false
	}
	return v, true
}

// FirstDuplicate returns the path of the first object member name that repeats anywhere inside
// the JSON value raw (which must be valid JSON), or "" when there is none.
func FirstDuplicate(raw []byte, path string) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dup, _ := firstDuplicate(dec, path)
	return dup
}

func firstDuplicate(dec *json.Decoder, path string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			nt, err := dec.Token()
			if err != nil {
				return "", err
			}
			name, _ := nt.(string)
			if seen[name] {
				return join(path, name), nil
			}
			seen[name] = true
			if dup, err := firstDuplicate(dec, join(path, name)); dup != "" || err != nil {
				return dup, err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if dup, err := firstDuplicate(dec, fmt.Sprintf("%s[%d]", path, i)); dup != "" || err != nil {
				return dup, err
			}
		}
		_, err = dec.Token()
	}
	return "", err
}

// CheckEmail is a StringRule check for an email address (the "email" format): "" when valid,
// else the rule (package email holds it).
func CheckEmail(s string) string { return email.Check(s) }

// Canonical returns valid JSON text in a canonical form — compact, object members sorted by
// name, numbers as written, no HTML escaping — so equal requests hash alike however they are
// formatted. Invalid JSON is returned unchanged.
func Canonical(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
