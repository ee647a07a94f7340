package publicdoc

import (
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	kit "github.com/takapay/payments/shared/foundation/page"
)

// answersView is a payable payment link (up to 5) with every field type, and an id that
// needs quoting in a path.
func answersView() *View {
	no := false
	return &View{
		Kind: document.PaymentLinks, Reference: "TSHIRT", MerchantName: "Dhaka Books", Environment: "sandbox",
		Items: []document.LineItem{}, AmountMinor: 85000, TotalMinor: 85000, OutstandingMinor: 85000,
		AmountDisplay: "৳850.00", MaxQuantity: 5, State: StatePayable,
		Fields: []Field{
			{ID: "size", Label: "Size", Type: "select", Required: true, Options: []string{"S", "M", "L", " padded "}},
			{ID: "colour", Label: "Colour", Type: "radio", Options: []string{"Green", "Red"}},
			{ID: "print_name", Label: "Name to print", Type: "text"},
			{ID: "note", Label: "Delivery note", Type: "textarea"},
			{ID: "terms", Label: "I accept", Type: "checkbox", Required: true},
			{ID: "news", Label: "News", Type: "checkbox"},
			{ID: "photo", Label: "Photo", Type: "file", Available: &no},
			{ID: "gift.wrap", Label: "Gift message", Type: "text", Required: true},
			{ID: "roll-no", Label: "Roll number", Type: "radio", Required: true, Options: []string{"1", "2"}},
		},
	}
}

// invoiceView is a payable invoice with one optional field.
func invoiceView() *View {
	return &View{
		Kind: document.Invoices, Reference: "INV-1", MerchantName: "Dhaka Books", Environment: "live",
		Items: []document.LineItem{}, AmountMinor: 1000, TotalMinor: 1000, OutstandingMinor: 1000,
		AmountDisplay: "৳10.00", MaxQuantity: 1, State: StatePayable,
		Fields: []Field{{ID: "student", Label: "Student", Type: "text"}},
	}
}

// validJSON answers every required field of answersView.
const validJSON = `{"fields":{"size":"M","terms":true,"gift.wrap":"Happy birthday","roll-no":"2"}}`

// validForm is validJSON as the page's form posts it.
const validForm = "quantity=1&field.size=M&field.terms=true&field.gift.wrap=Happy+birthday&field.roll-no=2"

func ptr[T any](v T) *T { return &v }

func paths(err error) []string {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		return nil
	}
	out := []string{}
	for _, v := range ae.Violations {
		out = append(out, v.Path)
	}
	return out
}

func TestParseAnswersValidJSON(t *testing.T) {
	a, err := ParseAnswers([]byte(`{
	  "quantity": 5,
	  "fields": {"size": " padded ", "colour": "Red", "print_name": "  Rahim  ", "note": "line 1\r\nline 2\rline 3\n\ttabbed\n",
	             "terms": true, "news": true, "photo": null, "gift.wrap": "শুভ জন্মদিন", "roll-no": "1"},
	  "payer": {"name": " Karim Ahmed ", "email": "karim@example.com.bd", "phone": "+880 1711-000000"}
	}`), false, answersView())
	if err != nil {
		t.Fatal(err)
	}
	want := &Answers{
		Quantity: ptr(int64(5)),
		Fields: map[string]Answer{
			"size": {Text: " padded "}, "colour": {Text: "Red"}, "print_name": {Text: "Rahim"},
			"note": {Text: "line 1\nline 2\nline 3\n\ttabbed"}, "terms": {Bool: ptr(true)}, "news": {Bool: ptr(true)},
			"gift.wrap": {Text: "শুভ জন্মদিন"}, "roll-no": {Text: "1"},
		},
		Payer: Payer{Name: "Karim Ahmed", Email: "karim@example.com.bd", Phone: "+880 1711-000000"},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("ParseAnswers =\n%+v\nwant\n%+v", a, want)
	}

	// The defaults: quantity 1, unchecked checkboxes false, unanswered optional fields absent.
	for _, body := range []string{validJSON, `{"quantity":null,"payer":null,"fields":{"size":"M","terms":true,"gift.wrap":"Happy birthday","roll-no":"2","colour":"","print_name":" ","news":null}}`} {
		a, err = ParseAnswers([]byte(body), false, answersView())
		if err != nil {
			t.Fatal(err)
		}
		want = &Answers{
			Quantity: ptr(int64(1)),
			Fields: map[string]Answer{"size": {Text: "M"}, "terms": {Bool: ptr(true)}, "news": {Bool: ptr(false)},
				"gift.wrap": {Text: "Happy birthday"}, "roll-no": {Text: "2"}},
		}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("ParseAnswers(%s) =\n%+v\nwant\n%+v", body, a, want)
		}
	}

	// An invoice: quantity 1 or none.
	for _, body := range []string{`{}`, `{"quantity":1}`, `{"fields":{"student":"Nadia"}}`} {
		if a, err := ParseAnswers([]byte(body), false, invoiceView()); err != nil || *a.Quantity != 1 {
			t.Errorf("invoice %s: %v %v", body, a, err)
		}
	}
}

func TestParseAnswersValidForm(t *testing.T) {
	a, err := ParseAnswers([]byte(validForm+"&field.news=on&field.colour=&field.print_name=&field.photo=&payer_name=&payer_email=&payer_phone="), true, answersView())
	if err != nil {
		t.Fatal(err)
	}
	want := &Answers{
		Quantity: ptr(int64(1)),
		Fields: map[string]Answer{"size": {Text: "M"}, "terms": {Bool: ptr(true)}, "news": {Bool: ptr(true)},
			"gift.wrap": {Text: "Happy birthday"}, "roll-no": {Text: "2"}},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("ParseAnswers =\n%+v\nwant\n%+v", a, want)
	}
	// Form encoding: + and %20 are spaces, CR LF is one newline, percent escapes are UTF-8.
	a, err = ParseAnswers([]byte("field.size=%20padded%20&field.terms=on&field.gift.wrap=%E0%A6%B6%E0%A7%81%E0%A6%AD&field.roll-no=1"+
		"&field.note=a%0D%0Ab&quantity=3&payer_name=Karim+Ahmed&payer_email=karim%40example.com&payer_phone=%2B8801711000000"), true, answersView())
	if err != nil {
		t.Fatal(err)
	}
	want = &Answers{
		Quantity: ptr(int64(3)),
		Fields: map[string]Answer{"size": {Text: " padded "}, "terms": {Bool: ptr(true)}, "news": {Bool: ptr(false)},
			"gift.wrap": {Text: "শুভ"}, "roll-no": {Text: "1"}, "note": {Text: "a\nb"}},
		Payer: Payer{Name: "Karim Ahmed", Email: "karim@example.com", Phone: "+8801711000000"},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("ParseAnswers =\n%+v\nwant\n%+v", a, want)
	}
	// The same answers as JSON and as a form are the same answers.
	j, err := ParseAnswers([]byte(validJSON), false, answersView())
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseAnswers([]byte(validForm), true, answersView())
	if err != nil {
		t.Fatal(err)
	}
	if j.Canonical() != f.Canonical() {
		t.Errorf("JSON %s, form %s", j.Canonical(), f.Canonical())
	}
}

type violationCase struct {
	name string
	body string
	// want are the violation paths, in order; each rule must contain the matching entry of rules.
	want  []string
	rules []string
}

func checkViolations(t *testing.T, form bool, v *View, cases []violationCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseAnswers([]byte(c.body), form, v)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.ValidationFailed || ae.Status() != 422 {
				t.Fatalf("ParseAnswers(%q) = %v; want a 422", c.body, err)
			}
			if got := paths(err); !reflect.DeepEqual(got, c.want) {
				t.Errorf("paths %q, want %q (%v)", got, c.want, ae.Violations)
			}
			for i, r := range c.rules {
				if i < len(ae.Violations) && !strings.Contains(ae.Violations[i].Rule, r) {
					t.Errorf("violation %d %q, want a rule containing %q", i, ae.Violations[i], r)
				}
			}
			if a == nil {
				t.Errorf("no answers to refill the form with")
			}
		})
	}
}

// withJSON returns validJSON with the answer to field replaced or added (none when field is
// ""), and the extra top-level members top.
func withJSON(field, top string) string {
	members := [][2]string{{"size", `"M"`}, {"terms", "true"}, {"gift.wrap", `"Happy birthday"`}, {"roll-no", `"2"`}}
	if field != "" {
		id, value, _ := strings.Cut(field, ":")
		id = strings.Trim(id, `"`)
		i := slices.IndexFunc(members, func(m [2]string) bool { return m[0] == id })
		if i < 0 {
			members = append(members, [2]string{id, value})
		} else {
			members[i][1] = value
		}
	}
	var f []string
	for _, m := range members {
		f = append(f, strconv.Quote(m[0])+":"+m[1])
	}
	b := `{"fields":{` + strings.Join(f, ",") + `}`
	if top != "" {
		b += "," + top
	}
	return b + "}"
}

func TestParseAnswersJSONRules(t *testing.T) {
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	cases := []violationCase{
		// quantity
		{"quantity 0", withJSON("", `"quantity":0`), []string{"body.quantity"}, []string{"must be an integer from 1 to 5 (this payment link's max_quantity)"}},
		{"quantity over max_quantity", withJSON("", `"quantity":6`), []string{"body.quantity"}, []string{"from 1 to 5"}},
		{"quantity negative", withJSON("", `"quantity":-1`), []string{"body.quantity"}, []string{"from 1 to 5"}},
		{"quantity above int64", withJSON("", `"quantity":99999999999999999999`), []string{"body.quantity"}, []string{"from 1 to 5"}},
		{"quantity string", withJSON("", `"quantity":"2"`), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity decimal", withJSON("", `"quantity":2.0`), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity exponent", withJSON("", `"quantity":1e0`), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity boolean", withJSON("", `"quantity":true`), []string{"body.quantity"}, []string{"must be an integer"}},
		// required fields
		{"nothing answered", `{}`, []string{"body.fields.size", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"},
			[]string{"is required: choose one of the field's options", "is required: it must be checked (true)", "is required", "is required: choose"}},
		{"empty answers", `{"fields":{"size":"","terms":false,"gift.wrap":"  \t ","roll-no":""}}`,
			[]string{"body.fields.size", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, []string{"is required", "must be checked", "is required", "is required"}},
		{"fields null", `{"fields":null}`, []string{"body.fields.size", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, nil},
		// select and radio: an option, exactly
		{"select not an option", withJSON(`"size":"XL"`, ""), []string{"body.fields.size"}, []string{`must be one of the field's options ["S","M","L"," padded "]`}},
		{"select option differs by case", withJSON(`"size":"m"`, ""), []string{"body.fields.size"}, []string{"options"}},
		{"select option not trimmed", withJSON(`"size":"padded"`, ""), []string{"body.fields.size"}, []string{"options"}},
		{"radio not an option", withJSON(`"colour":"Blue"`, ""), []string{"body.fields.colour"}, []string{`["Green","Red"]`}},
		{"select number", withJSON(`"size":1`, ""), []string{"body.fields.size"}, []string{"must be a string"}},
		// text and textarea
		{"text too long", withJSON(`"print_name":"`+long(MaxText+1, "ক")+`"`, ""), []string{"body.fields.print_name"}, []string{"must be at most 1000 characters"}},
		{"text with a tab", withJSON(`"print_name":"a\tb"`, ""), []string{"body.fields.print_name"}, []string{"must not contain control characters"}},
		{"text with a newline", withJSON(`"print_name":"a\nb"`, ""), []string{"body.fields.print_name"}, []string{"must not contain control characters"}},
		{"text with DEL", withJSON(`"print_name":"a\u007fb"`, ""), []string{"body.fields.print_name"}, []string{"control characters"}},
		{"text object", withJSON(`"print_name":{}`, ""), []string{"body.fields.print_name"}, []string{"must be a string"}},
		{"textarea too long", withJSON(`"note":"`+long(MaxTextarea+1, "a")+`"`, ""), []string{"body.fields.note"}, []string{"must be at most 4000 characters"}},
		{"textarea too long with CR LF", withJSON(`"note":"`+long(MaxTextarea/2, `a\r\n`)+`b"`, ""), []string{"body.fields.note"}, []string{"at most 4000"}},
		{"textarea with a bell", withJSON(`"note":"a\u0007b"`, ""), []string{"body.fields.note"}, []string{"must not contain control characters other than tab and newline"}},
		{"textarea with NUL", withJSON(`"note":"a\u0000b"`, ""), []string{"body.fields.note"}, []string{"other than tab and newline"}},
		{"textarea with a C1 control", withJSON(`"note":"a\u0085b"`, ""), []string{"body.fields.note"}, []string{"other than tab and newline"}},
		// checkbox
		{"checkbox string", withJSON(`"news":"true"`, ""), []string{"body.fields.news"}, []string{"must be a boolean"}},
		{"checkbox number", withJSON(`"terms":1`, ""), []string{"body.fields.terms"}, []string{"must be a boolean"}},
		// file
		{"file answered", withJSON(`"photo":"photo.jpg"`, ""), []string{"body.fields.photo"}, []string{"file fields are not available yet"}},
		{"file answered empty", withJSON(`"photo":""`, ""), []string{"body.fields.photo"}, []string{"file fields are not available yet"}},
		{"file answered object", withJSON(`"photo":{"name":"a.png"}`, ""), []string{"body.fields.photo"}, []string{"not available yet"}},
		// ids
		{"field not in the document", withJSON(`"shoe_size":"42"`, ""), []string{"body.fields.shoe_size"}, []string{"is not a custom field of this document"}},
		{"odd field id", withJSON(`"a b<c>":"x"`, ""), []string{`body.fields["a b\u003cc\u003e"]`}, []string{"is not a custom field"}},
		{"field id case", withJSON(`"Size":"M"`, ""), []string{"body.fields.Size"}, []string{"is not a custom field"}},
		{"repeated field", `{"fields":{"size":"M","size":"L","terms":true}}`, []string{"body.fields.size"}, []string{"appears more than once"}},
		// shapes
		{"unknown member", withJSON("", `"amount":1`), []string{"body.amount"}, []string{"is not a known field (allowed: fields, payer, quantity)"}},
		{"fields array", `{"fields":[]}`, []string{"body.fields"}, []string{"must be a JSON object"}},
		{"fields string", `{"fields":"size=M"}`, []string{"body.fields"}, []string{"must be a JSON object"}},
		{"payer string", withJSON("", `"payer":"Karim"`), []string{"body.payer"}, []string{"must be a JSON object"}},
		{"payer unknown member", withJSON("", `"payer":{"address":"Dhaka"}`), []string{"body.payer.address"}, []string{"is not a known field (allowed: email, name, phone)"}},
		// payer
		{"payer name too long", withJSON("", `"payer":{"name":"`+long(MaxPayerName+1, "ক")+`"}`), []string{"body.payer.name"}, []string{"must be at most 160 characters"}},
		{"payer name control", withJSON("", `"payer":{"name":"a\nb"}`), []string{"body.payer.name"}, []string{"control characters"}},
		{"payer name number", withJSON("", `"payer":{"name":5}`), []string{"body.payer.name"}, []string{"must be a string"}},
		{"payer email", withJSON("", `"payer":{"email":"karim@"}`), []string{"body.payer.email"}, []string{"must be an email address"}},
		{"payer email too long", withJSON("", `"payer":{"email":"`+long(250, "a")+`@b.co"}`), []string{"body.payer.email"}, []string{"email address"}},
		{"payer phone letters", withJSON("", `"payer":{"phone":"01711-ABC"}`), []string{"body.payer.phone"}, []string{"must be a phone number"}},
		{"payer phone too short", withJSON("", `"payer":{"phone":"12345"}`), []string{"body.payer.phone"}, []string{"6 to 15 digits"}},
		{"payer phone too long", withJSON("", `"payer":{"phone":"+880 `+long(14, "1 ")+`1"}`), []string{"body.payer.phone"}, []string{"must be at most 32 characters"}},
		// every violation at once, in order
		{"everything", `{"colour_x":1,"quantity":9,"fields":{"size":"XL","photo":"p","nope":1,"terms":"yes","note":"\u0001"},"payer":{"email":"x","phone":"y","fax":1}}`,
			[]string{"body.colour_x", "body.quantity", "body.fields.size", "body.fields.photo", "body.fields.nope", "body.fields.terms", "body.fields.note",
				"body.payer.fax", "body.payer.email", "body.payer.phone", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, nil},
	}
	checkViolations(t, false, answersView(), cases)
	checkViolations(t, false, invoiceView(), []violationCase{
		{"invoice quantity 2", `{"quantity":2}`, []string{"body.quantity"}, []string{"must be 1: an invoice is paid as a whole"}},
		{"invoice quantity 0", `{"quantity":0}`, []string{"body.quantity"}, []string{"must be 1"}},
		{"invoice field not in the document", `{"fields":{"size":"M"}}`, []string{"body.fields.size"}, []string{"is not a custom field"}},
	})
	// Exactly at the bounds.
	for _, body := range []string{
		withJSON(`"print_name":"`+long(MaxText, "ক")+`"`, `"quantity":5`),
		withJSON(`"note":"`+long(MaxTextarea-1, "a")+`\r\n"`, `"payer":{"name":"`+long(MaxPayerName, "ক")+`"}`),
		withJSON(`"note":"`+long(MaxTextarea/2-1, `a\r\n`)+`ab"`, `"payer":{"phone":"+8801711`+long(MaxPayerPhone-15, " ")+`0000000"}`),
		withJSON(`"print_name":"  `+long(MaxText, "a")+`  "`, ""),
	} {
		if _, err := ParseAnswers([]byte(body), false, answersView()); err != nil {
			t.Errorf("%.120s: %v", body, err)
		}
	}
}

func TestParseAnswersFormRules(t *testing.T) {
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	form := func(extra string) string { return validForm + "&" + extra }
	cases := []violationCase{
		{"quantity 0", strings.Replace(validForm, "quantity=1", "quantity=0", 1), []string{"body.quantity"}, []string{"from 1 to 5"}},
		{"quantity 6", strings.Replace(validForm, "quantity=1", "quantity=6", 1), []string{"body.quantity"}, []string{"from 1 to 5"}},
		{"quantity word", strings.Replace(validForm, "quantity=1", "quantity=two", 1), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity plus", strings.Replace(validForm, "quantity=1", "quantity=%2B1", 1), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity decimal", strings.Replace(validForm, "quantity=1", "quantity=1.0", 1), []string{"body.quantity"}, []string{"must be an integer"}},
		{"quantity twice", form("quantity=2"), []string{"body.quantity"}, []string{"appears more than once"}},
		{"nothing answered", "", []string{"body.fields.size", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, nil},
		{"empty answers", "quantity=1&field.size=&field.gift.wrap=+&field.roll-no=", []string{"body.fields.size", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, nil},
		{"select not an option", strings.Replace(validForm, "field.size=M", "field.size=XL", 1), []string{"body.fields.size"}, []string{"must be one of the field's options"}},
		{"select twice", form("field.size=L"), []string{"body.fields.size"}, []string{"appears more than once"}},
		{"radio not an option", form("field.colour=Blue"), []string{"body.fields.colour"}, []string{"options"}},
		{"text too long", form("field.print_name=" + long(MaxText+1, "x")), []string{"body.fields.print_name"}, []string{"at most 1000"}},
		{"text with a newline", form("field.print_name=a%0Ab"), []string{"body.fields.print_name"}, []string{"must not contain control characters"}},
		{"textarea too long", form("field.note=" + long(MaxTextarea+1, "x")), []string{"body.fields.note"}, []string{"at most 4000"}},
		{"textarea with ESC", form("field.note=a%1Bb"), []string{"body.fields.note"}, []string{"other than tab and newline"}},
		{"checkbox yes", strings.Replace(validForm, "field.terms=true", "field.terms=yes", 1), []string{"body.fields.terms"}, []string{`must be "true" or "on"`}},
		{"checkbox empty", strings.Replace(validForm, "field.terms=true", "field.terms=", 1), []string{"body.fields.terms"}, []string{`"true" or "on"`}},
		{"checkbox left out", strings.Replace(validForm, "&field.terms=true", "", 1), []string{"body.fields.terms"}, []string{"must be checked"}},
		{"file answered", form("field.photo=photo.jpg"), []string{"body.fields.photo"}, []string{"file fields are not available yet"}},
		{"field not in the document", form("field.shoe_size=42"), []string{"body.fields.shoe_size"}, []string{"is not a custom field of this document"}},
		{"field with no id", form("field.=x"), []string{`body.fields[""]`}, []string{"is not a custom field"}},
		{"unknown name", form("submit=Continue"), []string{"body.submit"}, []string{"is not a known field (allowed: field.<field id>, payer_email, payer_name, payer_phone, quantity)"}},
		{"JSON name in a form", form("fields=x"), []string{"body.fields"}, []string{"is not a known field"}},
		{"payer name too long", form("payer_name=" + long(MaxPayerName+1, "n")), []string{"body.payer.name"}, []string{"at most 160"}},
		{"payer email", form("payer_email=karim"), []string{"body.payer.email"}, []string{"email address"}},
		{"payer phone", form("payer_phone=call+me"), []string{"body.payer.phone"}, []string{"phone number"}},
		{"payer twice", form("payer_email=a%40b.co&payer_email=c%40d.co"), []string{"body.payer.email"}, []string{"appears more than once"}},
		{"everything", "quantity=x&field.size=XL&field.photo=p&field.nope=1&field.terms=no&field.note=%01&payer_email=x&payer_phone=y&fax=1",
			[]string{"body.quantity", "body.fields.size", "body.fields.photo", "body.fields.nope", "body.fields.terms", "body.fields.note",
				"body.payer.email", "body.payer.phone", "body.fax", `body.fields["gift.wrap"]`, "body.fields.roll-no"}, nil},
	}
	checkViolations(t, true, answersView(), cases)
	checkViolations(t, true, invoiceView(), []violationCase{
		{"invoice quantity 2", "quantity=2", []string{"body.quantity"}, []string{"must be 1"}},
	})
	for _, body := range []string{validForm, "quantity=&" + validForm[len("quantity=1&"):], "&&" + validForm + "&", validForm + "&field.news=on&field.colour=Green"} {
		if _, err := ParseAnswers([]byte(body), true, answersView()); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// Bodies that are not JSON, not form data or not UTF-8 are a 400, with no answers.
func TestParseAnswersMalformed(t *testing.T) {
	for _, c := range []struct {
		body string
		form bool
	}{
		{"", false}, {"  ", false}, {"{", false}, {`{"fields":}`, false}, {`{} {}`, false}, {"{\"fields\":{\"size\":\"\xff\"}}", false},
		{"field.size=%zz", true}, {"field.size%G1=M", true}, {"field.size=%ff", true}, {"%c3%28=x", true},
	} {
		a, err := ParseAnswers([]byte(c.body), c.form, answersView())
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Status() != 400 || a != nil {
			t.Errorf("ParseAnswers(%q, %v) = %v, %v; want a 400", c.body, c.form, a, err)
		}
	}
	// Not an object, or a repeated member at the top: a 422 at body, and no answers.
	for _, body := range []string{`[]`, `"x"`, `null`, `{"quantity":1,"quantity":2}`} {
		a, err := ParseAnswers([]byte(body), false, answersView())
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Status() != 422 || a != nil || !strings.HasPrefix(ae.Violations[0].Path, "body") {
			t.Errorf("ParseAnswers(%q) = %v, %v; want a 422", body, a, err)
		}
	}
	if _, err := ParseAnswers([]byte(`{}`), false, nil); err == nil {
		t.Errorf("no error without a view")
	}
}

// With a 422 ParseAnswers returns what was posted, to refill the form.
func TestParseAnswersRefill(t *testing.T) {
	body := url.Values{
		"quantity": {"3"}, "field.size": {"L"}, "field.print_name": {"Rahim"}, "field.news": {"on"},
		"payer_email": {"not-an-email"}, "field.note": {"two\r\nlines"},
	}.Encode()
	a, err := ParseAnswers([]byte(body), true, answersView())
	if got := paths(err); !reflect.DeepEqual(got, []string{"body.payer.email", "body.fields.terms", `body.fields["gift.wrap"]`, "body.fields.roll-no"}) {
		t.Fatalf("paths %q (%v)", got, err)
	}
	want := &Answers{
		Quantity: ptr(int64(3)),
		Fields: map[string]Answer{"size": {Text: "L"}, "print_name": {Text: "Rahim"}, "news": {Bool: ptr(true)},
			"note": {Text: "two\nlines"}, "terms": {Bool: ptr(false)}},
		Payer: Payer{Email: "not-an-email"},
		// The same violations, worded for the payer: whose answer, by its label, and what.
		Problems: []Problem{
			{LabelKey: "doc.email", Key: "doc.problem.email"},
			{Label: "I accept", Key: "doc.problem.check"},
			{Label: "Gift message", Key: "doc.problem.required"},
			{Label: "Roll number", Key: "doc.problem.choose"},
		},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("refill answers\n%+v\nwant\n%+v", a, want)
	}
	// An invalid answer is kept for the form too; an invalid quantity is not.
	a, _ = ParseAnswers([]byte(`{"quantity":9,"fields":{"size":"XL"}}`), false, answersView())
	if a.Quantity != nil || a.Fields["size"].Text != "XL" {
		t.Errorf("refill answers %+v", a)
	}
}

func TestCanonical(t *testing.T) {
	a := &Answers{
		Quantity: ptr(int64(2)),
		Fields: map[string]Answer{
			"z": {Text: "last"}, "a": {Text: `<b>"bold" & 'more'</b>`}, "m.id": {Bool: ptr(false)}, "b": {Bool: ptr(true)},
			"empty": {}, "both": {Text: "ignored", Bool: ptr(true)}, "bn": {Text: "শুভ\nজন্মদিন\t!"},
		},
		Payer: Payer{Name: "Karim", Phone: "+8801711000000"},
	}
	want := `{"fields":{"a":"<b>\"bold\" & 'more'</b>","b":true,"bn":"শুভ\nজন্মদিন\t!","both":true,"m.id":false,"z":"last"},"payer":{"name":"Karim","phone":"+8801711000000"},"quantity":2}`
	for i := 0; i < 20; i++ { // map order varies from run to run
		if got := a.Canonical(); got != want {
			t.Fatalf("Canonical =\n%s\nwant\n%s", got, want)
		}
	}
	for _, c := range []struct {
		a    *Answers
		want string
	}{
		{nil, `{"fields":{},"quantity":1}`},
		{&Answers{}, `{"fields":{},"quantity":1}`},
		{&Answers{Payer: Payer{Email: "a@b.co"}}, `{"fields":{},"payer":{"email":"a@b.co"},"quantity":1}`},
	} {
		if got := c.a.Canonical(); got != c.want {
			t.Errorf("Canonical = %s, want %s", got, c.want)
		}
	}

	// Formatting, member order and JSON versus form do not change the canonical text, and
	// ParseAnswers accepts it back as the same answers.
	v := answersView()
	bodies := []struct {
		body string
		form bool
	}{
		{`{"payer":{"phone":"01711000000","name":"Karim"},"fields":{"roll-no":"2","gift.wrap":"Hi","terms":true,"size":"M","news":false},"quantity":2}`, false},
		{"{\n \"quantity\" : 2 ,\"fields\":{\"size\":\"M\",\"terms\":true,\"gift.wrap\":\" Hi \",\"roll-no\":\"2\",\"colour\":\"\"},\n\"payer\":{\"name\":\"Karim \",\"phone\":\"01711000000\",\"email\":\"\"}}", false},
		{"field.terms=on&quantity=2&field.gift.wrap=Hi&field.roll-no=2&field.size=M&payer_name=Karim&payer_phone=01711000000&payer_email=", true},
	}
	var first string
	for i, b := range bodies {
		a, err := ParseAnswers([]byte(b.body), b.form, v)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		c := a.Canonical()
		if i == 0 {
			first = c
			if want := `{"fields":{"gift.wrap":"Hi","news":false,"roll-no":"2","size":"M","terms":true},"payer":{"name":"Karim","phone":"01711000000"},"quantity":2}`; c != want {
				t.Errorf("Canonical = %s, want %s", c, want)
			}
		} else if c != first {
			t.Errorf("%d: Canonical = %s, want %s", i, c, first)
		}
		again, err := ParseAnswers([]byte(c), false, v)
		if err != nil || !reflect.DeepEqual(again, a) {
			t.Errorf("%d: ParseAnswers(Canonical) = %+v, %v; want %+v", i, again, err, a)
		}
	}
}

// everyProblemBodies are form posts that, between them, break every rule an answer has.
var everyProblemBodies = []struct {
	view func() *View
	body string
}{
	{answersView, "quantity=abc&field.colour=Blue&field.print_name=" + strings.Repeat("x", MaxText+1) +
		"&field.note=a%01b&field.photo=x&field.news=maybe&field.ghost=1&payer_phone=abc&payer_email=x%40" +
		"&payer_name=A&payer_name=B"},
	{answersView, "quantity=9&field.size=S&field.terms=on&field.gift.wrap=yes&field.roll-no=1"},
	{invoiceView, "quantity=2"},
}

// Every rule an answer can break is worded for the payer: the problems of a refused form
// name, between them, every doc.problem.* message of the catalogue (in both languages, which
// TestCatalogues holds equal), and no key the catalogue lacks.
func TestEveryProblemIsWorded(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range everyProblemBodies {
		a, err := ParseAnswers([]byte(c.body), true, c.view())
		if err == nil || a == nil || len(a.Problems) != len(apierr.As(err).Violations) {
			t.Fatalf("%s: %v, %+v: want a 422 with one problem per violation", c.body, err, a)
		}
		for _, p := range a.Problems {
			seen[p.Key] = true
			if p.Label == "" && p.LabelKey == "" {
				t.Errorf("%s: a problem without a label: %+v", c.body, p)
			}
		}
	}
	for _, key := range kit.Keys("doc.problem.") {
		if !seen[key] {
			t.Errorf("no refused answer is worded %s", key)
		}
		delete(seen, key)
	}
	for key := range seen {
		t.Errorf("problem key %s is not in the catalogue", key)
	}
}
