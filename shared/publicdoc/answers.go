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

	"github.com/takapay/payments/shared/apierr"
	"github.com/takapay/payments/shared/jsonbody"
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
}

func newCollector(v *View) *collector {
	c := &collector{v: v, fields: map[string]*Field{}, ans: &Answers{Fields: map[string]Answer{}}, bad: map[string]bool{}}
	for i := range v.Fields {
		if _, dup := c.fields[v.Fields[i].ID]; !dup {
			c.fields[v.Fields[i].ID] = &v.Fields[i]
		}
	}
	return c
}

func (c *collector) fail(path, rule string) {
	c.vs = append(c.vs, apierr.Violation{Path: path, Rule: rule})
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
		c.vs = append(c.vs, r.Violations...)
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
					c.fail(path, "must be a boolean (true when checked)")
					c.bad[f.ID] = true
				}
			default:
				s, ok := jsonString(raw)
				if !ok {
					c.fail(path, "must be a string")
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
		c.vs = append(c.vs, pr.Violations...)
		for _, m := range []struct{ name, path string }{{"name", pathPayerName}, {"email", pathPayerEmail}, {"phone", pathPayerPhone}} {
			raw, ok := present(po, m.name)
			if !ok {
				continue
			}
			s, ok := jsonString(raw)
			if !ok {
				c.fail(m.path, "must be a string")
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
	malformed := apierr.New(apierr.MalformedRequest, "request body is not valid application/x-www-form-urlencoded data")
	seen := map[string]bool{}
	for _, pair := range strings.Split(string(body), "&") {
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			return malformed
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return malformed
		}
		if !utf8.ValidString(key) || !utf8.ValidString(value) {
			return apierr.New(apierr.MalformedRequest, "request body is not valid UTF-8")
		}
		path := formPath(key)
		if seen[key] {
			c.fail(path, "appears more than once")
			if id, ok := strings.CutPrefix(key, FormFieldPrefix); ok {
				c.bad[id] = true
			}
			if key == FormQuantity {
				c.quantityBad = true
			}
			continue
		}
		seen[key] = true
		switch key {
		case FormQuantity:
			if value != "" {
				c.quantity(value)
			}
			continue
		case FormPayerName, FormPayerEmail, FormPayerPhone:
			c.payer(path, value)
			continue
		}
		id, ok := strings.CutPrefix(key, FormFieldPrefix)
		if !ok {
			c.fail(path, "is not a known field (allowed: "+FormFieldPrefix+"<field id>, "+
				FormPayerEmail+", "+FormPayerName+", "+FormPayerPhone+", "+FormQuantity+")")
			continue
		}
		f := c.field(id, path)
		if f == nil || value == "" && f.Type != "checkbox" {
			continue
		}
		switch f.Type {
		case "file":
			c.fileAnswered(f, path)
		case "checkbox":
			if value == "true" || value == "on" {
				c.checkbox(f, true)
			} else {
				c.fail(path, `must be "true" or "on" (checked), or left out (unchecked)`)
				c.bad[f.ID] = true
			}
		default:
			c.text(f, path, value)
		}
	}
	return nil
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
		c.fail(path, "is not a custom field of this document")
	}
	return f
}

// quantity checks a posted quantity's text (a JSON number's text or a form value).
func (c *collector) quantity(s string) {
	maxQ := max(c.v.MaxQuantity, 1)
	rule := fmt.Sprintf("must be an integer from 1 to %d (this payment link's max_quantity)", maxQ)
	if c.v.Kind == "invoices" {
		maxQ, rule = 1, "must be 1: an invoice is paid as a whole"
	}
	if !isInteger(s) {
		c.fail(pathQuantity, "must be an integer")
		c.quantityBad = true
		return
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > maxQ {
		c.fail(pathQuantity, rule)
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
	c.fail(path, RuleFileUnavailable)
	c.bad[f.ID] = true
}

func (c *collector) checkbox(f *Field, checked bool) {
	c.ans.Fields[f.ID] = Answer{Bool: &checked}
}

// text checks the answer s to a text, textarea, select or radio field.
func (c *collector) text(f *Field, path, s string) {
	var rule string
	switch f.Type {
	case "text":
		s = strings.TrimSpace(s)
		rule = checkText(s, MaxText, false)
	case "textarea":
		s = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
		rule = checkText(s, MaxTextarea, true)
	default: // select, radio: an option, exactly
		if s != "" && !contains(f.Options, s) {
			opts, _ := json.Marshal(f.Options)
			if len(f.Options) == 0 {
				opts = []byte("[] (the field has none)")
			}
			rule = "must be one of the field's options " + string(opts)
		}
	}
	if s == "" {
		return
	}
	c.ans.Fields[f.ID] = Answer{Text: s}
	if rule != "" {
		c.fail(path, rule)
		c.bad[f.ID] = true
	}
}

// checkText returns the rule s breaks ("" when none): at most max code points, no control
// characters (multiline: except tab and newline).
func checkText(s string, max int, multiline bool) string {
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("must be at most %d characters", max)
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) }) >= 0 {
		if multiline {
			return "must not contain control characters other than tab and newline"
		}
		return "must not contain control characters"
	}
	return ""
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
	var rule string
	switch path {
	case pathPayerName:
		c.ans.Payer.Name = s
		rule = checkText(s, MaxPayerName, false)
	case pathPayerEmail:
		c.ans.Payer.Email = s
		rule = jsonbody.CheckEmail(s)
	case pathPayerPhone:
		c.ans.Payer.Phone = s
		if utf8.RuneCountInString(s) > MaxPayerPhone {
			rule = fmt.Sprintf("must be at most %d characters", MaxPayerPhone)
		} else {
			rule = payment.CheckPhone(s)
		}
	}
	if rule != "" {
		c.fail(path, rule)
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
			c.fail(path, "is required: it must be checked (true)")
		case f.Type != "checkbox" && a.Text == "":
			if f.Type == "select" || f.Type == "radio" {
				c.fail(path, "is required: choose one of the field's options")
			} else {
				c.fail(path, "is required")
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
