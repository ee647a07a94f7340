package localapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/openapi"
)

// Every published path called with every method, on the running stack: each answer is checked
// against the contract by TestAPI.Do (a published operation's documented responses, or the
// documented 405 METHOD_NOT_ALLOWED with an Allow header naming the path's methods), and a
// method the path does not publish is a 405 whose Allow is exactly the published methods.
func TestEveryPublishedPathWithEveryMethod(t *testing.T) {
	a := localapi.StartTestAPI(t, localapi.Options{})
	ops, err := openapi.Operations()
	if err != nil {
		t.Fatal(err)
	}
	published := map[string][]string{}
	for _, op := range ops {
		published[op.Path] = append(published[op.Path], op.Method)
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	fill := func(p string) string {
		return param.ReplaceAllStringFunc(p, func(m string) string {
			if m == "{workspaceID}" {
				return a.Creds.WorkspaceID
			}
			return "0195f3a4-5555-7000-8000-000000000001"
		})
	}
	calls := 0
	for path, methods := range published {
		sort.Strings(methods)
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			body := ""
			if m != "GET" && m != "DELETE" {
				body = "{}"
			}
			res := a.Do(t, m, fill(path), a.Creds.SandboxKey, body, "Idempotency-Key", "every-method-key-0001")
			calls++
			if !contains(methods, m) {
				allow := strings.Split(strings.ReplaceAll(res.Header.Get("Allow"), " ", ""), ",")
				sort.Strings(allow)
				if res.Status != http.StatusMethodNotAllowed || strings.Join(allow, ",") != strings.Join(methods, ",") {
					t.Errorf("%s %s: %d Allow %q, want 405 with Allow %v", m, path, res.Status, res.Header.Get("Allow"), methods)
				}
			} else if res.Status == http.StatusMethodNotAllowed || res.Status >= 500 {
				t.Errorf("%s %s (published): %d %s", m, path, res.Status, res.Body)
			}
		}
	}
	t.Logf("%d paths, %d calls", len(published), calls)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A JSON operation refuses a body sent as something else (the contract lists only
// application/json): text/plain and a form are 400 MALFORMED_REQUEST and create nothing;
// application/json with a charset, and a body without a Content-Type, are read as JSON.
func TestJSONOperationsRefuseOtherContentTypes(t *testing.T) {
	a := localapi.StartTestAPI(t, localapi.Options{})
	body := `{"amount": 150.50, "reference": "ct-1"}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8"} {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Content-Type", ct, "Idempotency-Key", "ct-key-refused-000001")
		var env struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(res.Body, &env); err != nil || res.Status != 400 || env.Error.Code != "MALFORMED_REQUEST" ||
			!strings.Contains(env.Error.Message, "Content-Type must be application/json") {
			t.Errorf("create as %s: %d %s", ct, res.Status, res.Body)
		}
	}
	// The refused key created nothing: the same key with JSON is a first create (201, not a replay).
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, body, "Content-Type", "application/json; charset=utf-8", "Idempotency-Key", "ct-key-refused-000001")
	if res.Status != 201 || res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("create as application/json; charset=utf-8: %d %v %s", res.Status, res.Header, res.Body)
	}
	res = a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id": "0195f3a4-5555-7000-8000-000000000001"}`, "Content-Type", "text/plain")
	if res.Status != 400 {
		t.Errorf("verify as text/plain: %d %s", res.Status, res.Body)
	}
	res = a.Do(t, "POST", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/customers?environment=sandbox", a.Creds.SandboxKey,
		`{"name": "Rahim"}`, "Content-Type", "text/plain", "Idempotency-Key", "ct-key-customer-000001")
	if res.Status != 400 {
		t.Errorf("customer create as text/plain: %d %s", res.Status, res.Body)
	}
}

// A PATCH takes a JSON merge patch as RFC 7396 names it (application/merge-patch+json, what
// merge-patch clients send) as well as application/json, on every document kind; any other
// Content-Type is still 400 MALFORMED_REQUEST and changes nothing. A POST's body is not a
// patch: merge-patch+json there is refused as before.
func TestPatchTakesMergePatchMediaType(t *testing.T) {
	a := localapi.StartTestAPI(t, localapi.Options{})
	base := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/"
	type record struct {
		ID      string          `json:"id"`
		Version int             `json:"version"`
		Body    json.RawMessage `json:"body"`
	}
	for i, kind := range []struct{ path, create string }{
		{"customers", `{"reference": "MP-C", "name": "Karim"}`},
		{"invoices", `{"reference": "MP-I", "amount_minor": 15000}`},
		{"payment-links", `{"reference": "MP-L", "amount_minor": 15000}`},
	} {
		res := a.Do(t, "POST", base+kind.path+"?environment=sandbox", a.Creds.SandboxKey, kind.create,
			"Idempotency-Key", fmt.Sprintf("mp-create-%d-0000000001", i))
		if res.Status != 201 {
			t.Fatalf("%s create: %d %s", kind.path, res.Status, res.Body)
		}
		var rec record
		if err := json.Unmarshal(res.Body, &rec); err != nil {
			t.Fatal(err)
		}
		url := base + kind.path + "/" + rec.ID + "?environment=sandbox"
		for j, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
			res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"reference": "Refused"}`, "Content-Type", ct,
				"Idempotency-Key", fmt.Sprintf("mp-refused-%d-%d-00000001", i, j))
			var env struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(res.Body, &env); err != nil || res.Status != 400 || env.Error.Code != "MALFORMED_REQUEST" ||
				!strings.Contains(env.Error.Message, "Content-Type must be application/json or application/merge-patch+json") {
				t.Errorf("%s patch as %s: %d %s", kind.path, ct, res.Status, res.Body)
			}
		}
		version := rec.Version
		for j, ct := range []string{"application/merge-patch+json", "Application/Merge-Patch+JSON; charset=utf-8", "application/json; charset=utf-8"} {
			ref := fmt.Sprintf("MP-%d-%d", i, j)
			res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"reference": "`+ref+`"}`, "Content-Type", ct,
				"Idempotency-Key", fmt.Sprintf("mp-patch-%d-%d-0000000001", i, j))
			var got record
			var body struct{ Reference string }
			if res.Status != 200 || json.Unmarshal(res.Body, &got) != nil || json.Unmarshal(got.Body, &body) != nil ||
				body.Reference != ref || got.Version != version+1 {
				t.Fatalf("%s patch as %s: %d %s", kind.path, ct, res.Status, res.Body)
			}
			version = got.Version
		}
		if version != rec.Version+3 {
			t.Errorf("%s: version %d after three patches from %d (a refused patch wrote)", kind.path, version, rec.Version)
		}
	}
	res := a.Do(t, "POST", base+"customers?environment=sandbox", a.Creds.SandboxKey, `{"reference": "MP-P", "name": "Rahim"}`,
		"Content-Type", "application/merge-patch+json", "Idempotency-Key", "mp-post-refused-0000001")
	if res.Status != 400 || !strings.Contains(string(res.Body), "Content-Type must be application/json, not") {
		t.Errorf("customer create as merge-patch+json: %d %s", res.Status, res.Body)
	}
}
