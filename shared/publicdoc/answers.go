package publicdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/jsonbody"
	"github.com/takapay/payments/shared/payment"
)

// Bounds of the answers a payer posts. Lengths count Unicode code points, after the value is
// trimmed of surrounding white space (and a textarea's line breaks are made "\n").
const (
	// MaxText is the longest answer to a text field.
	MaxText = 1000
	// MaxTextarea is the longest answer to a textarea field.
	MaxTextarea = 4000
	// MaxPayerName is the longest payer name (payment create's customer_name).
	MaxPayerName = payment.MaxNameLen
	// MaxPayerEmail is the longest payer email (payment create's customer_email).
	MaxPayerEmail = payment.MaxEmailLen
	// MaxPayerPhone is the longest payer phone (payment create's customer_phone).
	MaxPayerPhone = payment.MaxPhoneLen
)

// Form field names of the page's form (application/x-www-form-urlencoded). A custom field's
// answer is posted as FormFieldPrefix + its id.
const (
	FormQuantity    = "quantity"
	FormFieldPrefix = "field."
	FormPayerName   = "payer_name"
	FormPayerEmail  = "payer_email"
	FormPayerPhone  = "payer_phone"
)

// RuleFileUnavailable is the rule an answer to a file field breaks.
const RuleFileUnavailable = "file fields are not available yet"

// Answers are a payer's validated answers to a document.
type Answers struct {
	// Quantity is how many units of a payment link the payer buys (always 1 for an invoice).
	// ParseAnswers always sets it (to 1 when the request has none); nil means 1.
	Quantity *int64
	// Fields are the answers by custom field id: every checkbox field (false when unchecked)
	// and every other field that was answered; an unanswered optional field is absent.
	Fields map[string]Answer
	// Payer is the payer's optional contact details.
	Payer Payer
	// Problems are the violations of a refused request worded for the payer, in the order
	// of the 422's violations (none when the answers are valid).
	Problems []Problem
}

// Problem is one refused answer as the page tells the payer: whose answer (Label, a custom
// field's label as the merchant wrote it, or LabelKey, the catalogue key of one of the page's
// own inputs) and what is wrong (Key, a key of package page's catalogue, filled with Args:
// name and value pairs whose values are ASCII numbers, written in the page's digits).
type Problem struct {
	Label    string
	LabelKey string
	Key      string
	Args     []string
}

// Answer is the answer to one custom field: Bool for a checkbox, Text for a text, textarea,
// select or radio field (never empty in validated answers: an empty answer is no answer).
type Answer struct {
	Text string
	Bool *bool
}

// Payer is a payer's optional contact details ("" when not given): at most MaxPayerName
// characters of name, an email as payment create's customer_email, a phone as its
// customer_phone (payment.CheckPhone).
type Payer struct {
	Name, Email, Phone string
}

// ParseAnswers validates what a payer posted for the document v shows: a JSON object, or when
// form is true an application/x-www-form-urlencoded body of the page's form.
//
// JSON: {"quantity"?: integer, "fields"?: {"<field id>": value}, "payer"?: {"name"?, "email"?,
// "phone"?}}; members are strict (an unknown member is refused) and null counts as absent.
// Form: the names FormQuantity, FormFieldPrefix+id, FormPayerName, FormPayerEmail and
// FormPayerPhone, each at most once; an empty value counts as absent. Violations name the same
// paths in both forms: body.quantity, body.fields.<id> (body.fields["<id>"] for an id with
// '.' or ':'), body.payer.name, body.payer.email, body.payer.phone.
//
// Rules: quantity is an integer from 1 to v.MaxQuantity (1 when absent; only 1 for an
// invoice). Text answers are trimmed of surrounding white space, and an empty one is no
// answer; a text answer is at most MaxText characters without control characters, a textarea
// answer at most MaxTextarea characters without control characters other than tab and
// newline (CR LF and CR count as one newline); a select or radio answer is one of the field's
// options, exactly. A checkbox answer is a JSON boolean, or in a form "true" or "on" (checked;
// an absent checkbox is false). Every required field is answered: non-empty text, a chosen
// option, a checked checkbox. An answer to a field the document does not have, or to a file
// field (file upload is not available yet), is refused. The payer's details are trimmed like
// text and checked as payment create checks customer_name, customer_email and customer_phone.
//
// Errors are apierr errors: MALFORMED_REQUEST (400) for a body that is not JSON (or not
// form-encoded, or not UTF-8), VALIDATION_FAILED (422) naming every violation. With a 422
// ParseAnswers also returns the answers as posted (not validated: only to refill the form).
func ParseAnswers(body []byte, form bool, v *View) (*Answers, error) {
	if v == nil {
		return nil, errors.New("publicdoc: ParseAnswers without a view")
	}
	c := newCollector(v)
	if form {
		if err := c.readForm(body); err != nil {
			return nil, err
		}
	} else {
		if err := c.readJSON(body); err != nil {
			return nil, err
		}
	}
	c.finish()
	if len(c.vs) > 0 {
		return c.ans, apierr.Invalid(c.vs...)
	}
	return c.ans, nil
}

// collector gathers the answers and the violations of one request.
type collector struct {
	v      *View
	fields map[string]*Field
	ans    *Answers
	vs     []apierr.Violation
	// bad holds the ids of fields whose answer broke a rule (not also reported as missing).
	bad map[string]bool
	// quantityBad is set when the posted quantity broke a rule.
	quantityBad bool
	// fieldsBad is set when the JSON fields member is not an object with distinct names: the
	// answers in it are unknown, so none is reported missing.
	fieldsBad bool
	// byPath finds a custom field by its violation path.
	byPath map[string]*Field
}

func newCollector(v *View) *collector {
	c := &collector{v: v, fields: map[string]*Field{}, ans: &Answers{Fields: map[string]Answer{}}, bad: map[string]bool{},
		byPath: map[string]*Field{}}
	for i := range v.Fields {
		if _, dup := c.fields[v.Fields[i].ID]; !dup {
			c.fields[v.Fields[i].ID] = &v.Fields[i]
			c.byPath[memberPath(pathFields, v.Fields[i].ID)] = &v.Fields[i]
		}
	}
	return c
}

// fail records a violation: rule for the 422 (developers), key and args for the page (the
// payer).
func (c *collector) fail(path, rule, key string, args ...string) {
	c.vs = append(c.vs, apierr.Violation{Path: path, Rule: rule})
	p := Problem{Key: key, Args: args}
	switch path {
	case pathQuantity:
		p.LabelKey = "doc.quantity"
	case pathPayerName:
		p.LabelKey = "doc.name"
	case pathPayerEmail:
		p.LabelKey = "doc.email"
	case pathPayerPhone:
		p.LabelKey = "doc.phone"
	default:
		if f := c.byPath[path]; f != nil {
			p.Label = f.Label
		} else {
			p.Label = strings.Trim(strings.TrimPrefix(strings.TrimPrefix(path, pathFields+"."), pathFields), `[]"`)
		}
	}
	c.ans.Problems = append(c.ans.Problems, p)
}

// Paths of the violations.
const (
	pathQuantity   = "body.quantity"
	pathFields     = "body.fields"
	pathPayerName  = "body.payer.name"
	pathPayerEmail = "body.payer.email"
	pathPayerPhone = "body.payer.phone"
)

// memberPath is path.name, or path["name"] when name is not made only of ASCII letters,
// digits, '_' and '-' (as package jsonbody names members).
func memberPath(path, name string) string {
	plain := name != ""
	for i := 0; i < len(name) && plain; i++ {
		ch := name[i]
		plain = 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '_' || ch == '-'
	}
	if plain {
		return path + "." + name
	}
	b, _ := json.Marshal(name)
	return path + "[" + string(b) + "]"
}

// readJSON reads a JSON body.
func (c *collector) readJSON(body []byte) error {
	obj, err := jsonbody.ParseObject(body)
	if err != nil {
		return err
	}
	r := jsonbody.NewReader(obj)
	r.OnlyKnown("quantity", "fields", "payer")
	take := func() {
		for _, v := range r.Violations {
			c.fail(v.Path, v.Rule, "doc.problem.invalid")
		}
		r.Violations = nil
	}
	take()
	if raw, ok := present(obj, "quantity"); ok {
		c.quantity(string(raw)) // a JSON string, with its quotes, is not an integer
	}
	fo, ok := r.Object("fields", false)
	c.fieldsBad = !ok && r.Has("fields")
	if ok {
		for _, id := range fo.Names() {
			raw, _ := present(fo, id)
			path := memberPath(pathFields, id)
			f := c.field(id, path)
			if f == nil || raw == nil {
				continue
			}
			switch f.Type {
			case "file":
				c.fileAnswered(f, path)
			case "checkbox":
				switch string(raw) {
				case "true", "false":
					c.checkbox(f, string(raw) == "true")
				default:
					c.fail(path, "must be a boolean (true when checked)", "doc.problem.invalid")
					c.bad[f.ID] = true
				}
			default:
				s, ok := jsonString(raw)
				if !ok {
					c.fail(path, "must be a string", "doc.problem.invalid")
					c.bad[f.ID] = true
					continue
				}
				c.text(f, path, s)
			}
		}
	}
	take()
	if po, ok := r.Object("payer", false); ok {
		pr := jsonbody.NewReader(po)
		pr.OnlyKnown("name", "email", "phone")
		for _, v := range pr.Violations {
			c.fail(v.Path, v.Rule, "doc.problem.invalid")
		}
		for _, m := range []struct{ name, path string }{{"name", pathPayerName}, {"email", pathPayerEmail}, {"phone", pathPayerPhone}} {
			raw, ok := present(po, m.name)
			if !ok {
				continue
			}
			s, ok := jsonString(raw)
			if !ok {
				c.fail(m.path, "must be a string", "doc.problem.invalid")
				continue
			}
			c.payer(m.path, s)
		}
	}
	take()
	return nil
}

// present returns a member's trimmed raw text when it is present and not null.
func present(obj *jsonbody.Object, name string) (json.RawMessage, bool) {
	raw, ok := obj.Raw(name)
	if !ok {
		return nil, false
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// jsonString decodes a JSON string value.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// readForm reads an application/x-www-form-urlencoded body, in order.
func (c *collector) readForm(body []byte) error {
	seen := map[string]bool{}
	for _, pair := range strings.Split(string(body), "&") {
		if pair == "" {
			continue
		}
		key, value, err := formPair(pair)
		if err != nil {
			return err
		}
		path := formPath(key)
		if seen[key] {
			c.repeated(key, path)
			continue
		}
		seen[key] = true
		c.formValue(key, value, path)
	}
	return nil
}

// formPair decodes one key=value pair of a form body (400 when it is not valid
// application/x-www-form-urlencoded UTF-8).
func formPair(pair string) (key, value string, err error) {
	malformed := apierr.New(apierr.MalformedRequest, "request body is not valid application/x-www-form-urlencoded data")
	rawKey, rawValue, _ := strings.Cut(pair, "=")
	if key, err = url.QueryUnescape(rawKey); err != nil {
		return "", "", malformed
	}
	if value, err = url.QueryUnescape(rawValue); err != nil {
		return "", "", malformed
	}
	if !utf8.ValidString(key) || !utf8.ValidString(value) {
		return "", "", apierr.New(apierr.MalformedRequest, "request body is not valid UTF-8")
	}
	return key, value, nil
}

// repeated refuses a form name posted more than once (its answer is then unknown).
func (c *collector) repeated(key, path string) {
	c.fail(path, "appears more than once", "doc.problem.repeated")
	if id, ok := strings.CutPrefix(key, FormFieldPrefix); ok {
		c.bad[id] = true
	}
	if key == FormQuantity {
		c.quantityBad = true
	}
}

// formValue takes one form value: the quantity, a payer detail, or a custom field's answer.
func (c *collector) formValue(key, value, path string) {
	switch key {
	case FormQuantity:
		if value != "" {
			c.quantity(value)
		}
		return
	case FormPayerName, FormPayerEmail, FormPayerPhone:
		c.payer(path, value)
		return
	}
	id, ok := strings.CutPrefix(key, FormFieldPrefix)
	if !ok {
		c.fail(path, "is not a known field (allowed: "+FormFieldPrefix+"<field id>, "+
			FormPayerEmail+", "+FormPayerName+", "+FormPayerPhone+", "+FormQuantity+")", "doc.problem.unknown")
		return
	}
	f := c.field(id, path)
	if f == nil || value == "" && f.Type != "checkbox" {
		return
	}
	switch f.Type {
	case "file":
		c.fileAnswered(f, path)
	case "checkbox":
		if value == "true" || value == "on" {
			c.checkbox(f, true)
		} else {
			c.fail(path, `must be "true" or "on" (checked), or left out (unchecked)`, "doc.problem.invalid")
			c.bad[f.ID] = true
		}
	default:
		c.text(f, path, value)
	}
}

// formPath is the violation path of a form name: the JSON body's path of the same answer.
func formPath(key string) string {
	switch key {
	case FormQuantity:
		return pathQuantity
	case FormPayerName:
		return pathPayerName
	case FormPayerEmail:
		return pathPayerEmail
	case FormPayerPhone:
		return pathPayerPhone
	}
	if id, ok := strings.CutPrefix(key, FormFieldPrefix); ok {
		return memberPath(pathFields, id)
	}
	return memberPath("body", key)
}

// field returns the document's field with id, or records that it has none.
func (c *collector) field(id, path string) *Field {
	f := c.fields[id]
	if f == nil {
		c.fail(path, "is not a custom field of this document", "doc.problem.unknown")
	}
	return f
}

// quantity checks a posted quantity's text (a JSON number's text or a form value).
func (c *collector) quantity(s string) {
	maxQ := max(c.v.MaxQuantity, 1)
	rule := fmt.Sprintf("must be an integer from 1 to %d (this payment link's max_quantity)", maxQ)
	key, args := "doc.problem.quantity", []string{"min", "1", "max", strconv.FormatInt(maxQ, 10)}
	if c.v.Kind == "invoices" {
		maxQ, rule, key, args = 1, "must be 1: an invoice is paid as a whole", "doc.problem.invoice_whole", nil
	}
	if !isInteger(s) {
		c.fail(pathQuantity, "must be an integer", "doc.problem.integer")
		c.quantityBad = true
		return
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > maxQ {
		c.fail(pathQuantity, rule, key, args...)
		c.quantityBad = true
		return
	}
	c.ans.Quantity = &n
}

// isInteger reports whether s is an optional '-' followed by ASCII digits.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (c *collector) fileAnswered(f *Field, path string) {
	c.fail(path, RuleFileUnavailable, "doc.problem.file")
	c.bad[f.ID] = true
}

func (c *collector) checkbox(f *Field, checked bool) {
	c.ans.Fields[f.ID] = Answer{Bool: &checked}
}

// text checks the answer s to a text, textarea, select or radio field.
func (c *collector) text(f *Field, path, s string) {
	var b broken
	switch f.Type {
	case "text":
		s = strings.TrimSpace(s)
		b = checkText(s, MaxText, false)
	case "textarea":
		s = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
		b = checkText(s, MaxTextarea, true)
	default: // select, radio: an option, exactly
		if s != "" && !contains(f.Options, s) {
			opts, _ := json.Marshal(f.Options)
			if len(f.Options) == 0 {
				opts = []byte("[] (the field has none)")
			}
			b = broken{rule: "must be one of the field's options " + string(opts), key: "doc.problem.not_option"}
		}
	}
	if s == "" {
		return
	}
	c.ans.Fields[f.ID] = Answer{Text: s}
	if b.rule != "" {
		c.fail(path, b.rule, b.key, b.args...)
		c.bad[f.ID] = true
	}
}

// broken is a rule an answer breaks: rule for the 422, key and args for the page.
type broken struct {
	rule, key string
	args      []string
}

// checkText returns the rule s breaks (a zero broken when none): at most max code points, no
// control characters (multiline: except tab and newline).
func checkText(s string, max int, multiline bool) broken {
	if n := utf8.RuneCountInString(s); n > max {
		return broken{fmt.Sprintf("must be at most %d characters", max), "doc.problem.too_long", []string{"max", strconv.Itoa(max)}}
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) }) >= 0 {
		if multiline {
			return broken{rule: "must not contain control characters other than tab and newline", key: "doc.problem.control"}
		}
		return broken{rule: "must not contain control characters", key: "doc.problem.control"}
	}
	return broken{}
}

func contains(options []string, s string) bool {
	for _, o := range options {
		if o == s {
			return true
		}
	}
	return false
}

// payer checks one of the payer's details, at path.
func (c *collector) payer(path, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	var b broken
	switch path {
	case pathPayerName:
		c.ans.Payer.Name = s
		b = checkText(s, MaxPayerName, false)
	case pathPayerEmail:
		c.ans.Payer.Email = s
		b = broken{rule: jsonbody.CheckEmail(s), key: "doc.problem.email"}
	case pathPayerPhone:
		c.ans.Payer.Phone = s
		if utf8.RuneCountInString(s) > MaxPayerPhone {
			b = broken{fmt.Sprintf("must be at most %d characters", MaxPayerPhone), "doc.problem.too_long", []string{"max", strconv.Itoa(MaxPayerPhone)}}
		} else {
			b = broken{rule: payment.CheckPhone(s), key: "doc.problem.phone"}
		}
	}
	if b.rule != "" {
		c.fail(path, b.rule, b.key, b.args...)
	}
}

// finish sets the defaults (quantity 1, unchecked checkboxes false) and checks that every
// required field is answered.
func (c *collector) finish() {
	if c.ans.Quantity == nil && !c.quantityBad {
		one := int64(1)
		c.ans.Quantity = &one
	}
	for i := range c.v.Fields {
		f := &c.v.Fields[i]
		if c.fields[f.ID] != f {
			continue // a repeated id (never in a stored document): the first one counts
		}
		a, answered := c.ans.Fields[f.ID]
		if f.Type == "checkbox" && !answered && !c.bad[f.ID] {
			c.checkbox(f, false)
			a = c.ans.Fields[f.ID]
		}
		if !f.Required || f.Type == "file" || c.bad[f.ID] || c.fieldsBad {
			continue
		}
		path := memberPath(pathFields, f.ID)
		switch {
		case f.Type == "checkbox" && (a.Bool == nil || !*a.Bool):
			c.fail(path, "is required: it must be checked (true)", "doc.problem.check")
		case f.Type != "checkbox" && a.Text == "":
			if f.Type == "select" || f.Type == "radio" {
				c.fail(path, "is required: choose one of the field's options", "doc.problem.choose")
			} else {
				c.fail(path, "is required", "doc.problem.required")
			}
		}
	}
}

// Canonical returns the answers as compact JSON with sorted member names, no HTML escaping and
// no insignificant white space: {"fields":{…},"payer":{…},"quantity":n}. fields holds every
// answer in Fields (a checkbox's as a boolean, the others' as a string; an Answer with neither
// is left out), payer only the details given (and is left out when none is), quantity is 1
// when Quantity is nil. Equal answers give equal texts, so the text can be stored with a
// payment intent and hashed; ParseAnswers accepts it (as JSON) and yields equal answers.
func (a *Answers) Canonical() string {
	type payer struct {
		Email string `json:"email,omitempty"`
		Name  string `json:"name,omitempty"`
		Phone string `json:"phone,omitempty"`
	}
	c := struct {
		Fields   map[string]any `json:"fields"`
		Payer    *payer         `json:"payer,omitempty"`
		Quantity int64          `json:"quantity"`
	}{Fields: map[string]any{}, Quantity: 1}
	if a != nil {
		for id, ans := range a.Fields {
			switch {
			case ans.Bool != nil:
				c.Fields[id] = *ans.Bool
			case ans.Text != "":
				c.Fields[id] = ans.Text
			}
		}
		if a.Payer != (Payer{}) {
			c.Payer = &payer{Email: a.Payer.Email, Name: a.Payer.Name, Phone: a.Payer.Phone}
		}
		if a.Quantity != nil {
			c.Quantity = *a.Quantity
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		// Only strings, booleans and an integer: encoding cannot fail.
		panic("publicdoc: encoding answers: " + err.Error())
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
