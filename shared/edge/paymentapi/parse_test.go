package paymentapi

import (
	"errors"
	"fmt"
	"github.com/takapay/payments/shared/payment"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/money"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// ptAPIErr asserts err is an *apierr.Error with code and returns it.
func ptAPIErr(t *testing.T, err error, code apierr.Code) *apierr.Error {
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

// ptJSON renders s as a JSON string literal.
func ptJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestParseCreateAmount(t *testing.T) {
	tests := []struct {
		name  string
		value string // raw JSON for "amount"; "" means absent
		want  money.Paisa
		fail  string // expected "path: rule" in the message; "" means success
	}{
		{"fraction", `150.5`, 15050, ""},
		{"two decimals", `150.50`, 15050, ""},
		{"integer", `150`, 15000, ""},
		{"one paisa", `0.01`, 1, ""},
		{"exponent", `1.5e2`, 15000, ""},
		{"max", `1000000000`, money.MaxPaisa, ""},
		{"max with decimals", `1000000000.00`, money.MaxPaisa, ""},
		{"over max by a paisa", `1000000000.01`, 0, "body.amount: must be at most 1000000000 taka"},
		{"string", `"150"`, 0, "body.amount: must be a JSON number (taka), not a string"},
		{"null", `null`, 0, "body.amount: is required"},
		{"absent", ``, 0, "body.amount: is required"},
		{"zero", `0`, 0, "body.amount: must be greater than 0"},
		{"zero decimal", `0.00`, 0, "body.amount: must be greater than 0"},
		{"negative", `-5`, 0, "body.amount: must be greater than 0"},
		{"three decimals", `1.234`, 0, "body.amount: must have at most two decimal places"},
		{"sub-paisa", `0.001`, 0, "body.amount: must have at most two decimal places"},
		{"bool", `true`, 0, "body.amount: must be a JSON number (taka), not a boolean"},
		{"object", `{"value":1}`, 0, "body.amount: must be a JSON number (taka), not an object"},
		{"array", `[150]`, 0, "body.amount: must be a JSON number (taka), not an array"},
		{"huge exponent", `1e400`, 0, "body.amount: must be at most 1000000000 taka"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{}`
			if tt.value != "" {
				body = `{"amount":` + tt.value + `}`
			}
			req, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
			if tt.fail == "" {
				if err != nil {
					t.Fatalf("ParseCreateRequest(%s): %v", body, err)
				}
				if req.Amount != tt.want {
					t.Errorf("Amount = %d, want %d", req.Amount, tt.want)
				}
				return
			}
			if req != nil {
				t.Errorf("request %+v returned with an error", req)
			}
			e := ptAPIErr(t, err, apierr.ValidationFailed)
			if e.Status() != 422 {
				t.Errorf("status = %d, want 422", e.Status())
			}
			if !strings.Contains(e.Message, tt.fail) {
				t.Errorf("message %q does not contain %q", e.Message, tt.fail)
			}
		})
	}
}

func TestParseCreateBodyShape(t *testing.T) {
	tests := []struct {
		name string
		body string
		code apierr.Code
		msgs []string
	}{
		{"empty", ``, apierr.MalformedRequest, []string{"empty"}},
		{"malformed", `{"amount":150,`, apierr.MalformedRequest, []string{"not valid JSON"}},
		{"trailing", `{"amount":150} {}`, apierr.MalformedRequest, nil},
		{"array", `[{"amount":150}]`, apierr.ValidationFailed, []string{"body: must be a JSON object"}},
		{"duplicate amount", `{"amount":1,"amount":1000}`, apierr.ValidationFailed, []string{"body.amount: appears more than once"}},
		{"typo ammount", `{"ammount":150}`, apierr.ValidationFailed,
			[]string{"body.ammount: is not a known field", "body.amount: is required"}},
		{"typo redirect_uri", `{"amount":150,"redirect_uri":"https://shop.com.bd/"}`, apierr.ValidationFailed,
			[]string{"body.redirect_uri: is not a known field"}},
		{"case matters", `{"Amount":150}`, apierr.ValidationFailed, []string{"body.Amount: is not a known field", "body.amount: is required"}},
		{"currency not accepted", `{"amount":150,"currency":"BDT"}`, apierr.ValidationFailed, []string{"body.currency: is not a known field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseCreateRequest([]byte(tt.body), urlcheck.Policy{})
			if req != nil {
				t.Errorf("request returned with an error: %+v", req)
			}
			e := ptAPIErr(t, err, tt.code)
			for _, m := range tt.msgs {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q does not contain %q", e.Message, m)
				}
			}
		})
	}
}

func TestParseCreateStrings(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		field string
		value string // Go string, JSON-encoded for the body; see raw
		raw   string // raw JSON instead of value, when set
		ok    bool
		rule  string // expected rule phrase on failure
	}{
		{field: "reference", value: long(128), ok: true},
		{field: "reference", value: strings.Repeat("ব", 128), ok: true},
		{field: "reference", value: long(129), rule: "must be at most 128 characters"},
		{field: "reference", value: strings.Repeat("ব", 129), rule: "must be at most 128 characters"},
		{field: "reference", value: "", rule: "must not be empty"},
		{field: "reference", value: " order-1", rule: "must not start or end with white space"},
		{field: "reference", value: "order-1 ", rule: "must not start or end with white space"},
		{field: "reference", value: "order\n1", rule: "must not contain control characters"},
		{field: "reference", value: "order 1", ok: true},
		{field: "reference", raw: `42`, rule: "must be a string"},
		{field: "reference", raw: `null`, ok: true},

		{field: "customer_name", value: "রহিম উদ্দিন", ok: true},
		{field: "customer_name", value: long(160), ok: true},
		{field: "customer_name", value: long(161), rule: "must be at most 160 characters"},
		{field: "customer_name", value: "", rule: "must not be empty"},
		{field: "customer_name", value: "Rahim\u00a0", rule: "must not start or end with white space"},
		{field: "customer_name", value: "\tRahim", rule: "must not contain control characters"},

		{field: "customer_email", value: "name@example.com", ok: true},
		{field: "customer_email", value: "first.last+tag@shop.com.bd", ok: true},
		{field: "customer_email", value: "a@b.co", ok: true},
		{field: "customer_email", value: "no-at-sign.com", rule: "must be an email address"},
		{field: "customer_email", value: "name@localhost", rule: "must be an email address"},
		{field: "customer_email", value: "a@@b.com", rule: "must be an email address"},
		{field: "customer_email", value: "a b@c.com", rule: "must be an email address"},
		{field: "customer_email", value: "name@-shop.com", rule: "must be an email address"},
		{field: "customer_email", value: "@shop.com", rule: "must be an email address"},
		{field: "customer_email", value: long(65) + "@shop.com", rule: "must be an email address"},
		{field: "customer_email", value: "ab", rule: "must be at least 3 characters"},
		{field: "customer_email", value: long(64) + "@" + strings.Repeat(long(60)+".", 4) + "com", rule: "must be at most 254 characters"},

		{field: "customer_phone", value: "+880 1712-345678", ok: true},
		{field: "customer_phone", value: "01712345678", ok: true},
		{field: "customer_phone", value: "+880 (2) 955-1234", ok: true},
		{field: "customer_phone", value: "123456", ok: true},
		{field: "customer_phone", value: "abc", rule: "must be a phone number"},
		{field: "customer_phone", value: "12345", rule: "must be a phone number"},
		{field: "customer_phone", value: "1234567890123456", rule: "must be a phone number"},
		{field: "customer_phone", value: "+880 1712-345678-", rule: "must be a phone number"},
		{field: "customer_phone", value: "++8801712345678", rule: "must be a phone number"},
		{field: "customer_phone", value: "880.1712.345678", rule: "must be a phone number"},
		{field: "customer_phone", value: "1" + strings.Repeat(" ", 31) + "2", rule: "must be at most 32 characters"},
		{field: "customer_phone", value: strings.Repeat("1-", 16) + "1", rule: "must be at most 32 characters"},
		{field: "customer_phone", value: "", rule: "must not be empty"},
	}
	for _, tt := range tests {
		name := tt.field + "=" + tt.value + tt.raw
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			raw := tt.raw
			if raw == "" {
				raw = ptJSON(tt.value)
			}
			body := `{"amount":100,"` + tt.field + `":` + raw + `}`
			req, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
			if tt.ok {
				if err != nil {
					t.Fatalf("ParseCreateRequest(%s): %v", body, err)
				}
				got := map[string]string{"reference": req.Reference, "customer_name": req.CustomerName,
					"customer_email": req.CustomerEmail, "customer_phone": req.CustomerPhone}[tt.field]
				if got != tt.value {
					t.Errorf("%s = %q, want %q", tt.field, got, tt.value)
				}
				return
			}
			e := ptAPIErr(t, err, apierr.ValidationFailed)
			if want := "body." + tt.field + ": " + tt.rule; !strings.HasPrefix(e.Message, want) {
				t.Errorf("message = %q, want it to start with %q", e.Message, want)
			}
		})
	}
}

func TestParseCreateURLs(t *testing.T) {
	tests := []struct {
		field  string
		url    string
		policy urlcheck.Policy
		rule   string // "" means accepted
	}{
		{"redirect_url", "https://shop.com.bd/return?order=1", urlcheck.Policy{}, ""},
		{"redirect_url", "https://shop.com.bd/return#done", urlcheck.Policy{}, ""},
		{"redirect_url", "http://shop.com.bd", urlcheck.Policy{}, "must use https"},
		{"redirect_url", "https://169.254.169.254/latest/meta-data", urlcheck.Policy{}, "must not be an IP address"},
		{"redirect_url", "https://[::1]/", urlcheck.Policy{}, "must not be an IP address"},
		{"redirect_url", "http://localhost:8080/return", urlcheck.Policy{}, "must use https"},
		{"redirect_url", "https://localhost:8080/return", urlcheck.Policy{}, "must not point to localhost"},
		{"redirect_url", "http://localhost:8080/return", urlcheck.Policy{AllowLocalhost: true}, ""},
		{"redirect_url", "http://127.0.0.1:3000/return", urlcheck.Policy{AllowLocalhost: true}, ""},
		{"redirect_url", "http://shop.com.bd/return", urlcheck.Policy{AllowLocalhost: true}, "must use https"},
		{"redirect_url", "https://user:pw@shop.com.bd/", urlcheck.Policy{}, "must not contain credentials"},
		{"redirect_url", "", urlcheck.Policy{}, "must not be empty"},
		{"redirect_url", "shop.com.bd/return", urlcheck.Policy{}, "must be a valid absolute URL"},
		{"cancel_url", "https://shop.com.bd/cancel", urlcheck.Policy{}, ""},
		{"cancel_url", "javascript:alert(1)", urlcheck.Policy{}, "must use https"},
		{"cancel_url", "https://metadata.google.internal/", urlcheck.Policy{}, "must not use a reserved or internal domain"},
		{"webhook_url", "https://shop.com.bd/hooks/takapay", urlcheck.Policy{}, ""},
		{"webhook_url", "https://shop.com.bd/hook#x", urlcheck.Policy{}, "must not contain a fragment"},
		{"webhook_url", "https://shop.com.bd/hook#", urlcheck.Policy{}, "must not contain a fragment"},
		{"webhook_url", "http://localhost:8080/hook", urlcheck.Policy{AllowLocalhost: true}, ""},
		{"webhook_url", "http://localhost:8080/hook#x", urlcheck.Policy{AllowLocalhost: true}, "must not contain a fragment"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%s/%v", tt.field, tt.url, tt.policy.AllowLocalhost), func(t *testing.T) {
			body := `{"amount":100,"` + tt.field + `":` + ptJSON(tt.url) + `}`
			req, err := ParseCreateRequest([]byte(body), tt.policy)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("ParseCreateRequest(%s): %v", body, err)
				}
				got := map[string]string{"redirect_url": req.RedirectURL, "cancel_url": req.CancelURL, "webhook_url": req.WebhookURL}[tt.field]
				if got != tt.url {
					t.Errorf("%s = %q, want %q", tt.field, got, tt.url)
				}
				return
			}
			e := ptAPIErr(t, err, apierr.ValidationFailed)
			if want := "body." + tt.field + ": " + tt.rule; e.Message != want {
				t.Errorf("message = %q, want %q", e.Message, want)
			}
		})
	}
}

func TestParseCreateMetadata(t *testing.T) {
	keys := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"k%02d":%d`, i, i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	// {"k":"<s>"} is 8 bytes plus len(s) as compact JSON.
	sized := func(total int) string { return `{"k":"` + strings.Repeat("x", total-8) + `"}` }
	tests := []struct {
		name  string
		value string // raw JSON for "metadata"
		canon string // expected canonical form on success
		rule  string // expected rule on failure
	}{
		{"object", `{"order":"A-1","n":5}`, `{"n":5,"order":"A-1"}`, ""},
		{"whitespace and order", "{ \"order\" : \"A-1\" ,\n\t\"n\" : 5 }", `{"n":5,"order":"A-1"}`, ""},
		{"nested values kept as written", `{"z":{"b":[1, 2.50, 1e3],"a":true},"a":null}`, `{"a":null,"z":{"a":true,"b":[1,2.50,1e3]}}`, ""},
		{"empty object", `{}`, `{}`, ""},
		{"null means absent", `null`, ``, ""},
		{"50 keys", keys(50), "", ""},
		{"40-character key", `{"` + strings.Repeat("ব", 40) + `":1}`, `{"` + strings.Repeat("ব", 40) + `":1}`, ""},
		{"exactly 4096 bytes", sized(4096), sized(4096), ""},
		{"4097 bytes", sized(4097), "", "body.metadata: must be at most 4096 bytes as compact JSON"},
		{"large when compact", `{"k":"` + strings.Repeat("x", 5000) + `"}`, "", "body.metadata: must be at most 4096 bytes as compact JSON"},
		{"array", `[1,2]`, "", "body.metadata: must be a JSON object"},
		{"string", `"a=b"`, "", "body.metadata: must be a JSON object"},
		{"number", `5`, "", "body.metadata: must be a JSON object"},
		{"51 keys", keys(51), "", "body.metadata: must have at most 50 keys"},
		{"41-character key", `{"` + strings.Repeat("k", 41) + `":1}`, "", "body.metadata: keys must be 1 to 40 characters"},
		{"empty key", `{"":1}`, "", "body.metadata: keys must be 1 to 40 characters"},
		{"duplicate key", `{"a":1,"a":2}`, "", "body.metadata.a: appears more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"amount":100,"metadata":` + tt.value + `}`
			req, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
			if tt.rule != "" {
				e := ptAPIErr(t, err, apierr.ValidationFailed)
				if !strings.HasPrefix(e.Message, "body.metadata") || !strings.Contains(e.Message, tt.rule) {
					t.Errorf("message = %q, want %q", e.Message, tt.rule)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCreateRequest: %v", err)
			}
			if tt.canon != "" && req.Metadata != tt.canon {
				t.Errorf("Metadata = %s, want %s", req.Metadata, tt.canon)
			}
			if tt.name == "null means absent" && req.Metadata != "" {
				t.Errorf("Metadata = %q, want empty", req.Metadata)
			}
		})
	}
}

// Regression (fixed): canonicalMetadata (original create.go) built the canonical form with json.Marshal,
// which HTML-escapes '<', '>' and '&' (as \u003c, \u003e, \u0026; 6 bytes each). The stored
// metadata then differed textually from what the merchant sent, and the documented limit
// "4096 bytes as compact JSON" was measured on the escaped text: metadata whose compact JSON
// is exactly 4096 bytes was refused with "must be at most 4096 bytes as compact JSON" when it
// contains these characters. (Fails on the original code; encoding without HTML escaping, as
// httpapi does for response bodies, makes it pass.)
func TestParseCreateMetadataNotHTMLEscaped(t *testing.T) {
	tests := []struct {
		name, metadata, canon string
	}{
		{"markup characters kept", `{"note":"a<b & c>d"}`, `{"note":"a<b & c>d"}`},
		{"4096 compact bytes of '<'", `{"k":"` + strings.Repeat("<", 4088) + `"}`, `{"k":"` + strings.Repeat("<", 4088) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseCreateRequest([]byte(`{"amount":1,"metadata":`+tt.metadata+`}`), urlcheck.Policy{})
			if err != nil {
				t.Fatalf("ParseCreateRequest: %v", err)
			}
			if req.Metadata != tt.canon {
				t.Errorf("Metadata = %.80s, want %.80s", req.Metadata, tt.canon)
			}
		})
	}
}

func TestParseCreateMultipleViolations(t *testing.T) {
	body := `{"amount":0,"reference":"","redirect_url":"http://shop.com.bd","webhook_url":"https://shop.com.bd/h#f",` +
		`"customer_email":"nope","customer_phone":"abc","metadata":[],"ammount":1}`
	_, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
	e := ptAPIErr(t, err, apierr.ValidationFailed)
	want := []string{
		"body.ammount: is not a known field",
		"body.amount: must be greater than 0",
		"body.redirect_url: must use https",
		"body.webhook_url: must not contain a fragment",
		"body.reference: must not be empty",
		"body.customer_email: must be an email address",
		"body.customer_phone: must be a phone number",
		"body.metadata: must be a JSON object",
	}
	parts := strings.Split(e.Message, "; ")
	if len(parts) != len(want) {
		t.Fatalf("message has %d violations, want %d: %q", len(parts), len(want), e.Message)
	}
	for i, w := range want {
		if !strings.HasPrefix(parts[i], w) {
			t.Errorf("violation %d = %q, want prefix %q", i, parts[i], w)
		}
	}
}

func TestParseCreateAllFields(t *testing.T) {
	body := `{"amount":150.5,"redirect_url":"https://shop.com.bd/ok","cancel_url":"https://shop.com.bd/cancel",` +
		`"webhook_url":"https://api.shop.com.bd/hook","reference":"INV-1","customer_name":"Rahim",` +
		`"customer_email":"rahim@shop.com.bd","customer_phone":"+880 1712-345678","metadata":{"b":1,"a":"x"}}`
	req, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	want := payment.CreateRequest{
		Amount:        15050,
		RedirectURL:   "https://shop.com.bd/ok",
		CancelURL:     "https://shop.com.bd/cancel",
		WebhookURL:    "https://api.shop.com.bd/hook",
		Reference:     "INV-1",
		CustomerName:  "Rahim",
		CustomerEmail: "rahim@shop.com.bd",
		CustomerPhone: "+880 1712-345678",
		Metadata:      `{"a":"x","b":1}`,
		ExpiresIn:     payment.DefaultExpiry,
	}
	if *req != want {
		t.Errorf("request = %+v\nwant %+v", *req, want)
	}
}

// locale is optional: bn or en is kept, auto (or null, or absent) is "" — and hashes as a
// request without it did before the member existed, so older idempotent retries still match.
func TestParseCreateLocale(t *testing.T) {
	parse := func(body string) (*payment.CreateRequest, error) {
		return ParseCreateRequest([]byte(body), urlcheck.Policy{})
	}
	plain, err := parse(`{"amount":10}`)
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"amount":10,"locale":"bn"}`:   "bn",
		`{"amount":10,"locale":"en"}`:   "en",
		`{"amount":10,"locale":"auto"}`: "",
		`{"amount":10,"locale":null}`:   "",
	} {
		req, err := parse(body)
		if err != nil || req.Locale != want {
			t.Errorf("%s: locale %q, %v; want %q", body, req.Locale, err, want)
			continue
		}
		if (want == "") != (req.Hash() == plain.Hash()) {
			t.Errorf("%s: hash %s against %s without locale", body, req.Hash(), plain.Hash())
		}
	}
	for _, body := range []string{`{"amount":10,"locale":"BN"}`, `{"amount":10,"locale":"fr"}`, `{"amount":10,"locale":"bn-BD"}`,
		`{"amount":10,"locale":1}`, `{"amount":10,"locale":""}`} {
		_, err := parse(body)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status() != 422 || len(e.Violations) != 1 || e.Violations[0].Path != "body.locale" {
			t.Errorf("%s: %v, want a 422 naming body.locale", body, err)
		}
	}
	bn, _ := parse(`{"amount":10,"locale":"bn"}`)
	en, _ := parse(`{"amount":10,"locale":"en"}`)
	if bn.Hash() == en.Hash() {
		t.Errorf("bn and en hash alike")
	}
}

func TestCreateRequestHashCanonical(t *testing.T) {
	mustHash := func(body string) string {
		t.Helper()
		req, err := ParseCreateRequest([]byte(body), urlcheck.Policy{})
		if err != nil {
			t.Fatalf("ParseCreateRequest(%s): %v", body, err)
		}
		return req.Hash()
	}
	base := mustHash(`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(base) {
		t.Fatalf("Hash() = %q, want 32 hex characters (128 bits)", base)
	}
	same := []string{
		`{"amount":150.50,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`,
		`{"metadata":{"b":"two","a":1},"redirect_url":"https://shop.com.bd/ok","reference":"r1","amount":150.5}`,
		"{\n  \"amount\" : 15050e-2 ,\n  \"reference\" : \"r1\",\n  \"redirect_url\" : \"https://shop.com.bd/ok\",\n  \"metadata\" : { \"b\" : \"two\" , \"a\" : 1 }\n}\n",
		`{"amount":150.500,"reference":"\u0072\u0031","redirect_url":"https:\/\/shop.com.bd\/ok","metadata":{"a":1,"b":"tw\u006f"},"customer_name":null}`,
	}
	for _, b := range same {
		if h := mustHash(b); h != base {
			t.Errorf("hash of %s differs from the equivalent base request", b)
		}
	}
	different := []string{
		`{"amount":150.51,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`,
		`{"amount":150.5,"reference":"r2","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`,
		`{"amount":150.5,"redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`,
		`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok2","metadata":{"a":1,"b":"two"}}`,
		`{"amount":150.5,"reference":"r1","cancel_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"}}`,
		`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"tw0"}}`,
		`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1.0,"b":"two"}}`,
		`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok"}`,
		`{"amount":150.5,"reference":"r1","redirect_url":"https://shop.com.bd/ok","metadata":{"a":1,"b":"two"},"customer_name":"A"}`,
	}
	seen := map[string]string{base: "base"}
	for _, b := range different {
		h := mustHash(b)
		if prev, dup := seen[h]; dup {
			t.Errorf("hash of %s equals the hash of %s", b, prev)
		}
		seen[h] = b
	}
}

// TestCreateRequestHashCoversEveryField changes each field of payment.CreateRequest in turn (by
// reflection, so a field added later without joining the hash fails here).
func TestCreateRequestHashCoversEveryField(t *testing.T) {
	base := payment.CreateRequest{Amount: 100, RedirectURL: "https://a.com.bd/r", CancelURL: "https://a.com.bd/c",
		WebhookURL: "https://a.com.bd/w", Reference: "ref", CustomerName: "n", CustomerEmail: "e@a.com.bd",
		CustomerPhone: "0123456", Metadata: `{"a":1}`, ExpiresIn: payment.DefaultExpiry, Locale: "bn"}
	baseHash := base.Hash()
	if base.Hash() != baseHash {
		t.Fatal("Hash is not deterministic")
	}
	typ := reflect.TypeOf(base)
	hashes := map[string]string{baseHash: "base"}
	for i := range typ.NumField() {
		for _, variant := range []string{"changed", "empty"} {
			c := base
			f := reflect.ValueOf(&c).Elem().Field(i)
			switch f.Kind() {
			case reflect.String:
				if variant == "changed" {
					f.SetString(f.String() + "x")
				} else {
					f.SetString("")
				}
			case reflect.Int64:
				if variant == "changed" {
					f.SetInt(f.Int() + 1)
				} else {
					f.SetInt(0)
				}
			default:
				t.Fatalf("field %s has unexpected kind %s: extend this test", typ.Field(i).Name, f.Kind())
			}
			h := c.Hash()
			label := typ.Field(i).Name + " " + variant
			if prev, dup := hashes[h]; dup {
				t.Errorf("%s: hash equals that of %s", label, prev)
			}
			hashes[h] = label
		}
	}
	// Content moving from one field to its neighbour changes the hash.
	a, b := base, base
	a.Reference, a.CustomerName = "ab", ""
	b.Reference, b.CustomerName = "a", "b"
	if a.Hash() == b.Hash() {
		t.Error("field boundaries are not part of the hash")
	}
}

func TestParseVerifyRequest(t *testing.T) {
	const id = "0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"
	tests := []struct {
		name     string
		body     string
		wantID   string
		expected *payment.Expected
		fail     []string // "path: rule" prefixes, in order
	}{
		{name: "id only", body: `{"invoice_id":"` + id + `"}`, wantID: id},
		{name: "upper-case id lower-cased", body: `{"invoice_id":"` + strings.ToUpper(id) + `"}`, wantID: id},
		{name: "expected null", body: `{"invoice_id":"` + id + `","expected":null}`, wantID: id},
		{name: "expected ok", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":15050,"currency":"BDT","reference":"INV-1"}}`,
			wantID: id, expected: &payment.Expected{AmountMinor: 15050, Currency: "BDT", Reference: "INV-1"}},
		{name: "expected max amount", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100000000000,"currency":"BDT","reference":"r"}}`,
			wantID: id, expected: &payment.Expected{AmountMinor: money.MaxPaisa, Currency: "BDT", Reference: "r"}},

		{name: "missing invoice_id", body: `{}`, fail: []string{"body.invoice_id: is required"}},
		{name: "null invoice_id", body: `{"invoice_id":null}`, fail: []string{"body.invoice_id: is required"}},
		{name: "not a uuid", body: `{"invoice_id":"not-a-uuid"}`, fail: []string{"body.invoice_id: must be a UUID"}},
		{name: "uuid without hyphens", body: `{"invoice_id":"0190a3c45b6d7e8f9a0b1c2d3e4f5a6b"}`, fail: []string{"body.invoice_id: must be a UUID"}},
		{name: "uuid with braces", body: `{"invoice_id":"{` + id + `}"}`, fail: []string{"body.invoice_id: must be a UUID"}},
		{name: "urn uuid", body: `{"invoice_id":"urn:uuid:` + id + `"}`, fail: []string{"body.invoice_id: must be a UUID"}},
		{name: "numeric invoice_id", body: `{"invoice_id":42}`, fail: []string{"body.invoice_id: must be a string"}},
		{name: "unknown top-level", body: `{"invoice_id":"` + id + `","invoiceId":"x"}`, fail: []string{"body.invoiceId: is not a known field"}},
		{name: "expected missing currency", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100,"reference":"r"}}`,
			fail: []string{"body.expected.currency: is required"}},
		{name: "expected fractional amount", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":1.5,"currency":"BDT","reference":"r"}}`,
			fail: []string{"body.expected.amount_minor: must be an integer"}},
		{name: "expected string amount", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":"100","currency":"BDT","reference":"r"}}`,
			fail: []string{"body.expected.amount_minor: must be an integer"}},
		{name: "expected zero amount", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":0,"currency":"BDT","reference":"r"}}`,
			fail: []string{"body.expected.amount_minor: must be between 1 and 100000000000"}},
		{name: "expected amount over max", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100000000001,"currency":"BDT","reference":"r"}}`,
			fail: []string{"body.expected.amount_minor: must be between 1 and 100000000000"}},
		{name: "expected unknown field", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100,"currency":"BDT","reference":"r","x":1}}`,
			fail: []string{"body.expected.x: is not a known field"}},
		{name: "expected long currency", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100,"currency":"BDTX","reference":"r"}}`,
			fail: []string{"body.expected.currency: must be at most 3 characters"}},
		{name: "expected empty reference", body: `{"invoice_id":"` + id + `","expected":{"amount_minor":100,"currency":"BDT","reference":""}}`,
			fail: []string{"body.expected.reference: must not be empty"}},
		{name: "expected array", body: `{"invoice_id":"` + id + `","expected":[1]}`, fail: []string{"body.expected: must be a JSON object"}},
		{name: "everything wrong", body: `{"invoice_id":"x","expected":{"y":1},"z":2}`, fail: []string{
			"body.z: is not a known field",
			"body.invoice_id: must be a UUID",
			"body.expected.y: is not a known field",
			"body.expected.amount_minor: is required",
			"body.expected.currency: is required",
			"body.expected.reference: is required",
		}},
		{name: "malformed", body: `{"invoice_id":`, fail: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseVerifyRequest([]byte(tt.body))
			if tt.name == "malformed" {
				ptAPIErr(t, err, apierr.MalformedRequest)
				return
			}
			if tt.fail != nil {
				if req != nil {
					t.Errorf("request %+v returned with an error", req)
				}
				e := ptAPIErr(t, err, apierr.ValidationFailed)
				parts := strings.Split(e.Message, "; ")
				if len(parts) != len(tt.fail) {
					t.Fatalf("message %q has %d violations, want %d", e.Message, len(parts), len(tt.fail))
				}
				for i, w := range tt.fail {
					if !strings.HasPrefix(parts[i], w) {
						t.Errorf("violation %d = %q, want prefix %q", i, parts[i], w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseVerifyRequest: %v", err)
			}
			if req.InvoiceID != tt.wantID {
				t.Errorf("InvoiceID = %q, want %q", req.InvoiceID, tt.wantID)
			}
			if !reflect.DeepEqual(req.Expected, tt.expected) {
				t.Errorf("Expected = %+v, want %+v", req.Expected, tt.expected)
			}
		})
	}
}

func TestNewReference(t *testing.T) {
	refRE := regexp.MustCompile(`^ref_[0-9a-z]{20}$`)
	seen := map[string]bool{}
	for range 1000 {
		ref, err := payment.NewReference()
		if err != nil {
			t.Fatal(err)
		}
		if !refRE.MatchString(ref) {
			t.Fatalf("NewReference() = %q, want ref_ + 20 of [0-9a-z]", ref)
		}
		// The alphabet leaves out the easily confused i, l, o and u.
		if strings.ContainsAny(ref[4:], "ilou") {
			t.Fatalf("NewReference() = %q uses a left-out letter", ref)
		}
		if seen[ref] {
			t.Fatalf("NewReference() repeated %q", ref)
		}
		seen[ref] = true
	}
	// A generated reference is itself a valid merchant reference.
	ref, _ := payment.NewReference()
	req, err := ParseCreateRequest([]byte(`{"amount":1,"reference":"`+ref+`"}`), urlcheck.Policy{})
	if err != nil || req.Reference != ref {
		t.Errorf("generated reference %q does not parse back: %v", ref, err)
	}
}

func TestParseCreateMetadataNestedDuplicate(t *testing.T) {
	_, err := ParseCreateRequest([]byte(`{"amount":1,"metadata":{"a":{"x":1,"x":2}}}`), urlcheck.Policy{})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.ValidationFailed || !strings.Contains(ae.Message, "body.metadata.a.x: appears more than once") {
		t.Fatalf("nested duplicate in metadata: %v", err)
	}
	if _, err := ParseCreateRequest([]byte(`{"amount":1,"metadata":{"a":[{"x":1},{"x":2}]}}`), urlcheck.Policy{}); err != nil {
		t.Fatalf("same name in sibling objects is not a duplicate: %v", err)
	}
}
