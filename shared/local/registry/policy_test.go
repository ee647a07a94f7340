package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/local/sqspoll"
	"github.com/takapay/payments/shared/webhook"
)

// immutablePaymentAttributes are written once, by create, and never again.
var immutablePaymentAttributes = []string{"amount_minor", "currency", "reference", "workspace_id", "environment",
	"invoice_id", "redirect_url", "cancel_url", "webhook_url", "idempotency_key", "request_hash", "created_at",
	"merchant_name", "metadata", "customer_name", "customer_email", "customer_phone",
	// A payment intent's source and snapshot, and its place in the intents list.
	"src", "document_id", "doc_v", "qty", "snap", "gsi3pk"}

// statement is one IAM policy statement of a function, as template.yaml writes it.
type statement struct {
	Sid       string                    `yaml:"Sid"`
	Effect    string                    `yaml:"Effect"`
	Action    any                       `yaml:"Action"`
	Resource  any                       `yaml:"Resource"`
	Condition map[string]map[string]any `yaml:"Condition"`
}

func (s statement) actions() []string {
	switch a := s.Action.(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, x := range a {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

func (s statement) values(op, key string) []string {
	var out []string
	switch v := s.Condition[op][key].(type) {
	case []any:
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
	case string:
		out = append(out, v)
	}
	return out
}

// functionStatements reads every function's inline policy statements from template.yaml.
func functionStatements(t *testing.T) map[string][]statement {
	t.Helper()
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				Policies []struct {
					Statement []statement `yaml:"Statement"`
				} `yaml:"Policies"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]statement{}
	for id, r := range doc.Resources {
		if r.Type != samtemplate.TypeFunction {
			continue
		}
		for _, p := range r.Properties.Policies {
			out[id] = append(out[id], p.Statement...)
		}
		if len(out[id]) == 0 {
			t.Fatalf("read no policy statement of %s from template.yaml", id)
		}
	}
	if len(out) == 0 {
		t.Fatal("read no function from template.yaml")
	}
	return out
}

// writable returns the attributes a function may write to PAY# items with UpdateItem, and
// whether any statement lets it update payments without an attribute list.
func writable(sts []statement) (attrs []string, unbounded bool) {
	for _, s := range sts {
		if s.Effect != "Allow" || !slices.Contains(s.actions(), "dynamodb:UpdateItem") && !slices.Contains(s.actions(), "dynamodb:*") {
			continue
		}
		keys := s.values("ForAllValues:StringLike", "dynamodb:LeadingKeys")
		if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "PAY#") || k == "*" }) && len(keys) > 0 {
			continue
		}
		list := s.values("ForAllValues:StringEquals", "dynamodb:Attributes")
		if len(list) == 0 {
			unbounded = true
		}
		attrs = append(attrs, list...)
	}
	return attrs, unbounded
}

// keyMatches reports whether a dynamodb:LeadingKeys pattern ("DOC#*", "*", an exact key)
// covers partition keys beginning with prefix.
func keyMatches(pattern, prefix string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(prefix, p)
	}
	return false
}

// grant is what a function's statements allow one action to write to the items whose
// partition key begins with prefix: the union of the statements' dynamodb:Attributes lists,
// whether some statement allows it without a list (unbounded), and whether any does at all.
type grant struct {
	attrs     []string
	unbounded bool
	allowed   bool
}

func grantFor(sts []statement, action, prefix string) grant {
	var g grant
	for _, s := range sts {
		if s.Effect != "Allow" || !slices.Contains(s.actions(), action) && !slices.Contains(s.actions(), "dynamodb:*") {
			continue
		}
		keys := s.values("ForAllValues:StringLike", "dynamodb:LeadingKeys")
		if len(keys) > 0 && !slices.ContainsFunc(keys, func(k string) bool { return keyMatches(k, prefix) }) {
			continue
		}
		g.allowed = true
		list := s.values("ForAllValues:StringEquals", "dynamodb:Attributes")
		if len(list) == 0 {
			g.unbounded = true
		}
		g.attrs = append(g.attrs, list...)
	}
	return g
}

// settlementDocumentAttributes are a document's payment state: written by the payments'
// follow-ups (paid_minor, payments, applying) and the payers' reservations (uses, holds,
// hv, live_intent), never by the documents API.
var settlementDocumentAttributes = []string{"paid_minor", "payments", "uses", "holds", "hv", "live_intent", "applying"}

// Least privilege, as written: no function may update an immutable payment attribute, every
// payment update is bounded by an attribute list, and the sender cannot write signing secrets.
// updaters are the functions that update payments (each within a dynamodb:Attributes list).
var updaters = []string{"CheckoutFunction", "PaymentVerifyFunction", "WebhookSenderFunction", "WebhookRedriveFunction",
	"PaymentIntentsFunction", "PaymentIntentCancelFunction"}

func TestTemplatePoliciesLeastPrivilege(t *testing.T) {
	byFn := functionStatements(t)
	for id, sts := range byFn {
		attrs, unbounded := writable(sts)
		if unbounded {
			t.Errorf("%s may UpdateItem payments without a dynamodb:Attributes list", id)
		}
		for _, a := range attrs {
			if slices.Contains(immutablePaymentAttributes, a) {
				t.Errorf("%s may update the immutable payment attribute %s", id, a)
			}
		}
		for _, s := range sts {
			keys := s.values("ForAllValues:StringLike", "dynamodb:LeadingKeys")
			if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "WHSEC#") }) ||
				id == "DashboardFunction" { // owners and admins issue and roll secrets there (sealed: kms:Encrypt only)
				continue
			}
			for _, a := range s.actions() {
				if a != "dynamodb:GetItem" {
					t.Errorf("%s statement %s allows %s on webhook signing secrets; functions may only read them", id, s.Sid, a)
				}
			}
		}
	}
	for _, id := range updaters {
		if attrs, _ := writable(byFn[id]); len(attrs) == 0 {
			t.Errorf("%s has no bounded payment update statement", id)
		}
	}
	if attrs, _ := writable(byFn["PaymentCreateFunction"]); len(attrs) != 0 {
		t.Errorf("PaymentCreateFunction may update payments (%v); create only puts new ones", attrs)
	}

	// The documents API writes documents only within attribute lists, and never their
	// payment state: an edit or a lifecycle command cannot set paid_minor or payments, and
	// a create (PutItem) cannot write uses, live_intent or applying.
	docs := byFn["DocumentsFunction"]
	update := grantFor(docs, "dynamodb:UpdateItem", "DOC#")
	switch {
	case !update.allowed:
		t.Error("DocumentsFunction may not UpdateItem documents: its edits and commands would fail")
	case update.unbounded:
		t.Error("DocumentsFunction may UpdateItem documents without a dynamodb:Attributes list")
	}
	for _, a := range settlementDocumentAttributes {
		if slices.Contains(update.attrs, a) {
			t.Errorf("DocumentsFunction may UpdateItem the document attribute %s (a payment's, not the API's)", a)
		}
	}
	put := grantFor(docs, "dynamodb:PutItem", "DOC#")
	switch {
	case !put.allowed:
		t.Error("DocumentsFunction may not PutItem documents: its creates would fail")
	case put.unbounded:
		t.Error("DocumentsFunction may PutItem documents without a dynamodb:Attributes list")
	}
	for _, a := range []string{"uses", "holds", "hv", "live_intent", "applying"} {
		if slices.Contains(put.attrs, a) {
			t.Errorf("DocumentsFunction may PutItem documents with %s", a)
		}
	}
	// BatchWriteItem takes no condition: a put through it could replace a document whole.
	if g := grantFor(docs, "dynamodb:BatchWriteItem", "DOC#"); g.allowed {
		t.Error("DocumentsFunction may BatchWriteItem documents (an unconditional replace)")
	}
	for _, action := range []string{"dynamodb:DeleteItem", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLInsert", "dynamodb:TransactWriteItems"} {
		if g := grantFor(docs, action, "DOC#"); g.allowed {
			t.Errorf("DocumentsFunction may %s documents", action)
		}
	}
}

var (
	exprToken   = regexp.MustCompile(`[#:]?[A-Za-z_][A-Za-z0-9_]*`)
	exprKeyword = map[string]bool{"SET": true, "REMOVE": true, "ADD": true, "DELETE": true, "AND": true, "OR": true,
		"NOT": true, "IN": true, "BETWEEN": true, "attribute_exists": true, "attribute_not_exists": true,
		"attribute_type": true, "begins_with": true, "contains": true, "size": true, "if_not_exists": true, "list_append": true}
)

// topLevelAttributes lists the top-level attribute names an expression touches.
func topLevelAttributes(expr string, names map[string]string) []string {
	var out []string
	for _, loc := range exprToken.FindAllStringIndex(expr, -1) {
		tok := expr[loc[0]:loc[1]]
		dotted := loc[0] > 0 && expr[loc[0]-1] == '.'
		switch {
		case dotted, strings.HasPrefix(tok, ":"), exprKeyword[tok]:
		case strings.HasPrefix(tok, "#"):
			out = append(out, names[tok])
		default:
			out = append(out, tok)
		}
	}
	return out
}

// recorder collects, per function, the attributes its UpdateItem calls touch on payments
// (attrs), and every write it sends, by action and key prefix (writes).
type recorder struct {
	mu     sync.Mutex
	attrs  map[string]map[string]bool
	writes map[write]map[string]bool
}

// write is one function's writes of one action to the items whose partition key begins with
// prefix (the key up to its first '#', inclusive).
type write struct{ fn, action, prefix string }

func keyPrefix(key map[string]types.AttributeValue) string {
	v, _ := key["pk"].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	if i := strings.IndexByte(v.Value, '#'); i >= 0 {
		return v.Value[:i+1]
	}
	return v.Value
}

// add records attributes written by fn with action under prefix.
func (r *recorder) add(w write, attrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writes == nil {
		r.writes = map[write]map[string]bool{}
	}
	if r.writes[w] == nil {
		r.writes[w] = map[string]bool{}
	}
	for _, a := range attrs {
		r.writes[w][a] = true
	}
}

func (r *recorder) configure(logicalID string, cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("policyRecorder",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				switch u := in.Parameters.(type) {
				case *dynamodb.UpdateItemInput:
					attrs := []string{"pk", "sk"}
					for _, e := range []*string{u.UpdateExpression, u.ConditionExpression} {
						attrs = append(attrs, topLevelAttributes(aws.ToString(e), u.ExpressionAttributeNames)...)
					}
					prefix := keyPrefix(u.Key)
					r.add(write{logicalID, "dynamodb:UpdateItem", prefix}, attrs...)
					if prefix == "PAY#" {
						r.mu.Lock()
						if r.attrs[logicalID] == nil {
							r.attrs[logicalID] = map[string]bool{}
						}
						for _, a := range attrs {
							r.attrs[logicalID][a] = true
						}
						r.mu.Unlock()
					}
				case *dynamodb.PutItemInput:
					attrs := slices.Collect(maps.Keys(u.Item))
					attrs = append(attrs, topLevelAttributes(aws.ToString(u.ConditionExpression), u.ExpressionAttributeNames)...)
					r.add(write{logicalID, "dynamodb:PutItem", keyPrefix(u.Item)}, attrs...)
				case *dynamodb.BatchWriteItemInput:
					for _, reqs := range u.RequestItems {
						for _, req := range reqs {
							switch {
							case req.PutRequest != nil:
								r.add(write{logicalID, "dynamodb:BatchWriteItem", keyPrefix(req.PutRequest.Item)}, slices.Collect(maps.Keys(req.PutRequest.Item))...)
							case req.DeleteRequest != nil:
								r.add(write{logicalID, "dynamodb:BatchWriteItem", keyPrefix(req.DeleteRequest.Key)}, "pk", "sk")
							}
						}
					}
				case *dynamodb.DeleteItemInput:
					r.add(write{logicalID, "dynamodb:DeleteItem", keyPrefix(u.Key)}, "pk", "sk")
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

// Least privilege, as run: a whole paid journey — create, lock, approve, verify, a webhook
// delivery, an expiry seen by the page and one swept by the re-drive — touches, in each
// function, only the payment attributes template.yaml allows that function to update.
func TestPaymentUpdatesStayWithinTheirPolicies(t *testing.T) {
	rec := &recorder{attrs: map[string]map[string]bool{}}
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true, ConfigureAWS: rec.configure})
	ctx := context.Background()
	if _, err := a.Operator(t).IssueWebhookSecret(ctx, a.Creds.WorkspaceID, auth.Sandbox); err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	t.Cleanup(hook.Close)
	workers := func(logicalID string) *app.Deps {
		d := a.Deps[logicalID]
		cfg := a.Stack.Config.Copy()
		awsx.Configure(&cfg, 0)
		rec.configure(logicalID, &cfg)
		w := app.New(d.Config, devstack.DynamoClient(cfg, a.Stack.Dynamo.Endpoint), devstack.SQSClient(cfg, a.Stack.SQS.Endpoint), d.Logger)
		w.AWS = cfg
		return w
	}
	create := func(ref string) (string, string) {
		res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 99.5, "reference": "`+ref+`", "webhook_url": "`+hook.URL+`/h"}`)
		var c struct {
			InvoiceID  string `json:"invoice_id"`
			PaymentURL string `json:"payment_url"`
		}
		if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		u, _ := url.Parse(c.PaymentURL)
		return c.InvoiceID, u.Path
	}
	expireNow := func(id string) {
		if _, err := a.Stack.DDB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(a.Store.Table),
			Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "PAY#" + id}, "sk": &types.AttributeValueMemberS{Value: "PAY"}},
			UpdateExpression:          aws.String("SET expires_at = :t, gsi2sk = :t"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: time.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000000000Z")}},
		}); err != nil {
			t.Fatal(err)
		}
	}

	paid, page := create("policy-paid")
	for _, step := range []struct{ path, body string }{{page + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {page + "/notices/approve", ""}} {
		if r := a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	if r := a.Do(t, "POST", "/v1/payment/verify", a.Creds.SandboxKey, `{"invoice_id":"`+paid+`"}`); r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	// The intents' updates: the first verification through verify-transaction, a merchant's cancel.
	intentPaid, intentPage := create("policy-intent-paid")
	for _, step := range []struct{ path, body string }{{intentPage + "/lock", `{"route":"bkash","payer":"01712345678"}`}, {intentPage + "/notices/approve", ""}} {
		if r := a.Do(t, "POST", step.path, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.path, r.Status, r.Body)
		}
	}
	if r := a.Do(t, "POST", "/v1/payment-intents/"+intentPaid+"/verify-transaction", a.Creds.SandboxKey, ""); r.Status != 200 {
		t.Fatalf("verify-transaction: %d %s", r.Status, r.Body)
	}
	cancelled, _ := create("policy-intent-cancelled")
	if r := a.Do(t, "POST", "/v1/payment-intents/"+cancelled+"/cancel", a.Creds.SandboxKey, ""); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	seen, seenPage := create("policy-expired-page")
	expireNow(seen)
	if r := a.Do(t, "GET", seenPage, "", ""); r.Status != 200 {
		t.Fatalf("page of an expired payment: %d %s", r.Status, r.Body)
	}
	swept, _ := create("policy-expired-sweep")
	expireNow(swept)
	redrive := registry.WebhookRedrive(workers("WebhookRedriveFunction"))
	later := time.Now().Add(webhook.DefaultOverdue + time.Minute)
	redrive.Now = func() time.Time { return later }
	if _, err := redrive.Run(ctx); err != nil {
		t.Fatal(err)
	}
	sender := registry.WebhookConsumer(workers("WebhookSenderFunction"))
	poller := &sqspoll.Poller{SQS: a.Stack.Queue, QueueURL: a.Deps["CheckoutFunction"].Config.WebhookQueueURL, Handler: sender.Handle}
	for range 5 {
		if _, err := poller.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}

	documentJourney(t, a)

	byFn := functionStatements(t)
	for _, id := range updaters {
		used := rec.attrs[id]
		if len(used) <= 2 {
			t.Errorf("%s made no payment update in the journey; the test lost its coverage", id)
			continue
		}
		allowed, _ := writable(byFn[id])
		for attr := range used {
			if !slices.Contains(allowed, attr) {
				t.Errorf("%s updates payment attribute %q, which its policy does not allow (allowed %v)", id, attr, allowed)
			}
		}
		t.Logf("%-22s updates %v", id, slices.Sorted(maps.Keys(used)))
	}
	if _, ok := rec.attrs["PaymentCreateFunction"]; ok {
		t.Errorf("PaymentCreateFunction updated a payment: %v", rec.attrs["PaymentCreateFunction"])
	}

	// The documents API: every write of its journey is one its policy allows, within the
	// statement's attribute list, and the journey made each kind of write.
	const docs = "DocumentsFunction"
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, want := range []write{{docs, "dynamodb:PutItem", "DOC#"}, {docs, "dynamodb:UpdateItem", "DOC#"},
		{docs, "dynamodb:PutItem", "IDEM#"}, {docs, "dynamodb:BatchWriteItem", "IDEM#"}, {docs, "dynamodb:BatchWriteItem", "HIST#"}} {
		if len(rec.writes[want]) == 0 {
			t.Errorf("%s made no %s on %s items in the journey; the test lost its coverage", docs, want.action, want.prefix)
		}
	}
	for w, used := range rec.writes {
		if w.fn != docs || w.prefix == "RATE#" {
			continue
		}
		g := grantFor(byFn[docs], w.action, w.prefix)
		if !g.allowed {
			t.Errorf("%s sends %s on %s items, which its policy does not allow", docs, w.action, w.prefix)
			continue
		}
		if g.unbounded && w.prefix == "DOC#" {
			t.Errorf("%s may %s documents without a dynamodb:Attributes list to check its writes against", docs, w.action)
		}
		for attr := range used {
			if !g.unbounded && !slices.Contains(g.attrs, attr) {
				t.Errorf("%s %s writes %s attribute %q, which its policy does not allow (allowed %v)", docs, w.action, w.prefix, attr, g.attrs)
			}
		}
		t.Logf("%s %s %s writes %v", docs, w.action, w.prefix, slices.Sorted(maps.Keys(used)))
	}
}

// documentsAPI returns a caller of the documents API in the sandbox with the full key: each
// call has its own Idempotency-Key (prefix and a count), must answer want, and returns the
// JSON object answered.
func documentsAPI(t *testing.T, a *localapi.TestAPI, prefix string) func(method, path, body string, want int) map[string]any {
	n := 0
	return func(method, path, body string, want int) map[string]any {
		t.Helper()
		n++
		res := a.Do(t, method, "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/"+path+"?environment=sandbox",
			a.Creds.SandboxKey, body, "Idempotency-Key", fmt.Sprintf("%s-%04d", prefix, n))
		if res.Status != want {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
		var v map[string]any
		_ = json.Unmarshal(res.Body, &v)
		return v
	}
}

// documentJourney runs every documents write through the API: creates (a customer, invoices
// linked to it with items, a payment link), edits (enough of them that history entries and
// edit keys are copied out of the item), an invoice issued and one cancelled, a payment link
// published and archived.
func documentJourney(t *testing.T, a *localapi.TestAPI) {
	t.Helper()
	do := documentsAPI(t, a, "policy-journey")
	cust := do("POST", "customers", `{"reference": "C-1", "name": "Rahim"}`, 201)["id"].(string)
	for i := range 22 { // past the 20-entry history window: entries and edit keys are copied out
		do("PATCH", "customers/"+cust, fmt.Sprintf(`{"name": "Rahim %d"}`, i), 200)
	}
	invoice := func(ref string) string {
		return do("POST", "invoices", `{"reference": "`+ref+`", "customer_id": "`+cust+`",
			"items": [{"title": "Tea", "quantity": 2, "unit_amount_minor": 5000}]}`, 201)["id"].(string)
	}
	issued := invoice("INV-1")
	do("PATCH", "invoices/"+issued, `{"customer_id": null, "items": [{"title": "Tea", "quantity": 3, "unit_amount_minor": 5000}]}`, 200)
	do("PATCH", "invoices/"+issued, `{"customer_id": "`+cust+`"}`, 200)
	do("POST", "invoices/"+issued+"/issue", "", 200)
	cancelled := invoice("INV-2")
	do("POST", "invoices/"+cancelled+"/cancel", "", 200)
	link := do("POST", "payment-links", `{"reference": "L-1", "amount_minor": 25000, "max_uses": 3}`, 201)["id"].(string)
	do("PATCH", "payment-links/"+link, `{"amount_minor": 30000}`, 200)
	do("POST", "payment-links/"+link+"/publish", "", 200)
	do("POST", "payment-links/"+link+"/archive", "", 200)
}
