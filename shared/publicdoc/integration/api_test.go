package integration_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

var keySeq atomic.Int64

func idemKey() string { return fmt.Sprintf("public-doc-test-%012d", keySeq.Add(1)) }

// newDocument creates a document, runs its lifecycle command ("" for none) and returns its id
// and public token.
func newDocument(t *testing.T, a *localapi.TestAPI, kind, body, command string) (string, string) {
	t.Helper()
	docs := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/" + kind
	res := a.Do(t, "POST", docs+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
	var rec struct {
		ID          string `json:"id"`
		PublicToken string `json:"public_token"`
	}
	if err := json.Unmarshal(res.Body, &rec); err != nil || res.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", kind, res.Status, res.Body)
	}
	if command != "" {
		if res := a.Do(t, "POST", docs+"/"+rec.ID+"/"+command+"?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", command, res.Status, res.Body)
		}
	}
	return rec.ID, rec.PublicToken
}

type view struct {
	Kind             string `json:"kind"`
	Reference        string `json:"reference"`
	MerchantName     string `json:"merchant_name"`
	Environment      string `json:"environment"`
	TotalMinor       int64  `json:"total_minor"`
	OutstandingMinor int64  `json:"outstanding_minor"`
	AmountDisplay    string `json:"amount_display"`
	State            string `json:"state"`
	Fields           []struct {
		ID       string `json:"id"`
		Required bool   `json:"required"`
	} `json:"fields"`
}

func TestPublicDocumentView(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{})
	secret := "PRIVATE-NOTE-7f3a"
	id, token := newDocument(t, a, "invoices", `{"reference": "INV-PUB-1", "description": "Two sarees",
		"email": "customer@example.com", "phone": "+8801712345678", "name": "Private Customer",
		"notes": "`+secret+`-notes", "private_notes": "`+secret+`",
		"items": [{"title": "Saree", "quantity": 2, "unit_amount_minor": 75000}],
		"fields": [{"id": "size", "label": "Size", "type": "select", "options": ["S", "M"], "required": true}]}`, "issue")
	path := "/v1/public/documents/" + token

	res := a.Do(t, "GET", path, "", "")
	if res.Status != http.StatusOK {
		t.Fatalf("view: %d %s", res.Status, res.Body)
	}
	var v view
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatal(err)
	}
	if v.Kind != "invoices" || v.Reference != "INV-PUB-1" || v.MerchantName != "Demo merchant (local)" || v.Environment != "sandbox" ||
		v.TotalMinor != 150000 || v.OutstandingMinor != 150000 || v.AmountDisplay != "৳1,500.00" || v.State != "payable" ||
		len(v.Fields) != 1 || v.Fields[0].ID != "size" || !v.Fields[0].Required {
		t.Fatalf("view = %s", res.Body)
	}
	for _, private := range []string{secret, "customer@example.com", "1712345678", "Private Customer", a.Creds.WorkspaceID, id} {
		if strings.Contains(string(res.Body), private) {
			t.Errorf("the public view shows %q: %s", private, res.Body)
		}
	}
	if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("JSON headers: %v", res.Header)
	}
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("view made %d DynamoDB requests, want 2 (GSI3 Query, BatchGetItem of the document and the workspace)", n)
	}

	// A browser gets the page.
	res = a.Do(t, "GET", path, "", "", "Accept", "text/html")
	page := string(res.Body)
	if res.Status != http.StatusOK || !strings.Contains(page, "INV-PUB-1") || !strings.Contains(page, "৳1,500.00") ||
		!strings.Contains(page, `name="field.size"`) || strings.Contains(page, secret) || strings.Contains(page, "<script") {
		t.Fatalf("page: %d %s", res.Status, page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") ||
		res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("page headers: %v", res.Header)
	}

	// Not found: unknown and malformed tokens, drafts; a browser gets a plain page.
	unknown := strings.Repeat("A", 43)
	apitest.Envelope(t, a.Do(t, "GET", "/v1/public/documents/"+unknown, "", ""), 404, "NOT_FOUND")
	bad := a.Do(t, "GET", "/v1/public/documents/short", "", "")
	apitest.Envelope(t, bad, 404, "NOT_FOUND")
	if n := apitest.DDBRequests(t, a, bad); n != 0 {
		t.Errorf("a malformed token made %d DynamoDB requests, want 0", n)
	}
	_, draftToken := newDocument(t, a, "invoices", `{"reference": "INV-DRAFT", "amount_minor": 5000}`, "")
	apitest.Envelope(t, a.Do(t, "GET", "/v1/public/documents/"+draftToken, "", ""), 404, "NOT_FOUND")
	res = a.Do(t, "GET", "/v1/public/documents/"+unknown, "", "", "Accept", "text/html")
	if res.Status != http.StatusNotFound || !strings.Contains(string(res.Body), `id="error-title"`) ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("not-found page: %d %v %s", res.Status, res.Header, res.Body)
	}

	// A cancelled invoice and an archived link are closed.
	docs := "/v1/workspaces/" + a.Creds.WorkspaceID + "/documents/"
	if res := a.Do(t, "POST", docs+"invoices/"+id+"/cancel?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	linkID, linkToken := newDocument(t, a, "payment-links", `{"reference": "LINK-PUB", "amount_minor": 20000}`, "publish")
	if got := decodeView(t, a.Do(t, "GET", "/v1/public/documents/"+linkToken, "", "")); got.State != "payable" || got.Kind != "payment-links" || got.AmountDisplay != "৳200.00" {
		t.Fatalf("link view: %+v", got)
	}
	if res := a.Do(t, "POST", docs+"payment-links/"+linkID+"/archive?environment=sandbox", a.Creds.SandboxKey, ""); res.Status != http.StatusOK {
		t.Fatalf("archive: %d %s", res.Status, res.Body)
	}
	for _, tok := range []string{token, linkToken} {
		if got := decodeView(t, a.Do(t, "GET", "/v1/public/documents/"+tok, "", "")); got.State != "closed" {
			t.Errorf("closed document: %+v", got)
		}
	}
}

func decodeView(t *testing.T, res *localapi.Result) view {
	t.Helper()
	var v view
	if res.Status != http.StatusOK || json.Unmarshal(res.Body, &v) != nil {
		t.Fatalf("view: %d %s", res.Status, res.Body)
	}
	return v
}

// The page and the POST share the checkout's abuse limits: per token (and per client address),
// a minute's budget, then 429 with Retry-After.
func TestPublicDocumentLimits(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"CHECKOUT_RATE_PER_TOKEN": "3", "CHECKOUT_RATE_PER_CLIENT": "1000"}})
	_, token := newDocument(t, a, "payment-links", `{"reference": "LINK-LIMIT", "amount_minor": 1000}`, "publish")
	path := "/v1/public/documents/" + token
	for i := range 3 {
		if res := a.Do(t, "GET", path, "", ""); res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
	}
	res := a.Do(t, "POST", path, "", `{}`)
	apitest.Envelope(t, res, 429, "RATE_LIMITED")
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After: %v", res.Header)
	}
	// Another document's token has its own budget.
	_, other := newDocument(t, a, "payment-links", `{"reference": "LINK-LIMIT-2", "amount_minor": 1000}`, "publish")
	if res := a.Do(t, "GET", "/v1/public/documents/"+other, "", ""); res.Status != 200 {
		t.Fatalf("another token: %d %s", res.Status, res.Body)
	}
}
