package publicdoc

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// fuzzMaxInput bounds the inputs the fuzz target looks at.
const fuzzMaxInput = 8192

// FuzzParseAnswers: any body, JSON or form, gives answers or an apierr 400/422 whose paths
// start with body; accepted answers are within the rules, their canonical text is accepted
// back as the same answers, and the page refilled with them renders and posts them back.
func FuzzParseAnswers(f *testing.F) {
	for _, s := range []string{
		validJSON, `{}`, `{"quantity":5,"fields":{"size":" padded ","note":"a\r\nb","news":false},"payer":{"name":"K","email":"a@b.co","phone":"01711000000"}}`,
		`{"fields":{"size":"M","size":"L"}}`, `{"fields":{"photo":"x","nope":1}}`, `[]`, `{"quantity":"1"}`, "{\"fields\":{\"a\\u0000\":1}}",
	} {
		f.Add([]byte(s), false, false)
		f.Add([]byte(s), false, true)
	}
	for _, s := range []string{
		validForm, "", "quantity=&field.size=M&field.terms=on", "field.size=%zz", "field.terms=yes&field.terms=on", "payer_email=%E0%A6%B6@x.co",
		"field.note=a%0D%0Ab&field.gift.wrap=+x+&field.roll-no=1&field.size=S&field.terms=true", "a=b=c&&=&field.=1",
	} {
		f.Add([]byte(s), true, false)
		f.Add([]byte(s), true, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, form, invoice bool) {
		if len(body) > fuzzMaxInput {
			t.Skip()
		}
		v := answersView()
		if invoice {
			v = invoiceView()
			v.Fields = answersView().Fields
		}
		a, err := ParseAnswers(body, form, v)
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || (ae.Status() != 400 && ae.Status() != 422) {
				t.Fatalf("error %v is not a 400 or 422", err)
			}
			if ae.Status() == 422 && len(ae.Violations) == 0 {
				t.Fatalf("422 without violations")
			}
			for _, vi := range ae.Violations {
				if !strings.HasPrefix(vi.Path, "body") || vi.Rule == "" {
					t.Fatalf("bad violation %#v", vi)
				}
			}
			return
		}
		if a.Quantity == nil || *a.Quantity < 1 || *a.Quantity > v.MaxQuantity || invoice && *a.Quantity != 1 {
			t.Fatalf("quantity %v", a.Quantity)
		}
		for _, fl := range v.Fields {
			ans, ok := a.Fields[fl.ID]
			switch {
			case fl.Type == "checkbox" && (!ok || ans.Bool == nil || fl.Required && !*ans.Bool):
				t.Fatalf("checkbox %s: %+v", fl.ID, ans)
			case fl.Type == "file" && ok:
				t.Fatalf("file answered")
			case (fl.Type == "select" || fl.Type == "radio") && ok && !contains(fl.Options, ans.Text):
				t.Fatalf("%s: %q is no option", fl.ID, ans.Text)
			case fl.Required && fl.Type != "file" && fl.Type != "checkbox" && ans.Text == "":
				t.Fatalf("required %s unanswered", fl.ID)
			}
		}
		if len(a.Fields) != len(v.Fields)-1-countUnanswered(a, v) {
			t.Fatalf("fields %+v", a.Fields)
		}
		canon := a.Canonical()
		again, err := ParseAnswers([]byte(canon), false, v)
		if err != nil || !reflect.DeepEqual(again, a) {
			t.Fatalf("ParseAnswers(Canonical %s) = %+v, %v; want %+v", canon, again, err, a)
		}
		if again.Canonical() != canon {
			t.Fatalf("Canonical not stable")
		}
		var buf bytes.Buffer
		if err := RenderPage(&buf, Page{View: v, Values: *a}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(buf.String()), "<script") {
			t.Fatalf("page has a script")
		}
		posted, err := ParseAnswers([]byte(submit(t, buf.String())), true, v)
		if err != nil || posted.Canonical() != canon {
			t.Fatalf("refilled form posts %v, %v; want %s", posted, err, canon)
		}
	})
}

// countUnanswered counts the fields of v other than file fields that a has no answer to.
func countUnanswered(a *Answers, v *View) int {
	n := 0
	for _, f := range v.Fields {
		if _, ok := a.Fields[f.ID]; !ok && f.Type != "file" {
			n++
		}
	}
	return n
}
