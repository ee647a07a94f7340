package integration_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// namedImmutable are the payment item's attributes no request may change once an intent
// exists (gsi3pk holds its workspace and environment; src, doc_v, qty and snap its source and
// snapshot).
var namedImmutable = []string{"amount_minor", "currency", "reference", "src", "document_id", "doc_v",
	"qty", "snap", "created_at", "request_hash", "checkout_hash", "gsi3pk"}

// mutableAttributes are the payment item's attributes that may legitimately change: the
// status and its bookkeeping (lock, outcome, webhook outbox and its GSI2 keys, first
// verification). Every other attribute, whatever its name, must stay byte-identical and none
// may appear or disappear.
var mutableAttributes = []string{"status", "updated_at", "expires_at", "finished_at", "locked_at",
	"lock_route", "lock_payer", "outbox", "gsi2pk", "gsi2sk", "first_verified_at",
	// The use hold ends at the lock; an outcome other than COMPLETED sets the retention.
	"lock_by", "ttl"}

// The five statuses an intent may be in.
var intentStatuses = []string{"PENDING", "COMPLETED", "FAILED", "CANCELLED", "EXPIRED"}

// probeMethods are the methods sent to a route declared with ANY, and the methods tried on
// every path for the methods it does not declare (they fall through to $default).
var probeMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

var templateParam = regexp.MustCompile(`\{([^}]+)\}`)

// sweepTarget is one intent under attack and what it looked like right after creation.
type sweepTarget struct {
	name  string
	key   string // the Idempotency-Key that created it: every request reuses it
	it    intentResp
	token string
	view  map[string]json.RawMessage // GET right after creation
	item  map[string]types.AttributeValue
	snaps map[string]string // SNAP# sort key -> canonical item
}

// sweepRequest is one request of the sweep.
type sweepRequest struct {
	what  string // for messages: intent, method, path template, body variant
	route string // the route key the gateway must have matched
	res   *localapi.Result
}

// "No path changes an intent's amount, currency, reference, source or snapshot": every route
// of every HTTP function of the template (read from template.yaml, so a new route is covered
// without touching this test) is sent requests for a linked and a standalone intent, with
// bodies that try to overwrite the intent, reusing the Idempotency-Key that created it; so is
// every path of the template with each method it does not declare ($default, the fallback).
// Any answer but a 5xx is acceptable; afterwards the intents' amount, currency, reference,
// source and snapshot (the API's view and the stored attributes, byte for byte) are those
// they were created with. Only the status may have moved.
func TestNoRouteChangesAnIntent(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	inv := issuedInvoice(t, a)
	// A real document of the same workspace, so that a body naming it would price something.
	other := newDocument(t, a, "invoices", `{"reference": "INV-OTHER", "amount_minor": 4200}`, "issue")

	linked := &sweepTarget{name: "linked", key: idemKey()}
	linked.it, _ = createIntent(t, a, linked.key, `{"document_id": "`+inv+`", "webhook_url": "https://hooks.shop.com.bd/takapay"}`)
	standalone := &sweepTarget{name: "standalone", key: idemKey()}
	standalone.it, _ = createIntent(t, a, standalone.key, `{"amount": 150.50, "reference": "order-immutable"}`)
	if l := linked.it; l.AmountMinor != invoiceTotal || l.Source.Kind != "invoices" || l.Source.DocumentID != inv || l.Snapshot == nil {
		t.Fatalf("linked intent = %+v", l)
	}
	if s := standalone.it; s.AmountMinor != 15050 || s.Source.Kind != "standalone" || s.Snapshot != nil {
		t.Fatalf("standalone intent = %+v", s)
	}
	targets := []*sweepTarget{linked, standalone}
	for _, tg := range targets {
		u, err := url.Parse(tg.it.PaymentURL)
		if err != nil {
			t.Fatal(err)
		}
		tg.token = strings.TrimPrefix(u.Path, "/v1/public/checkout/")
		if tg.token == u.Path || tg.token == "" || strings.Contains(tg.token, "/") {
			t.Fatalf("%s: payment_url %q has no checkout token", tg.name, tg.it.PaymentURL)
		}
		tg.view = intentMembers(t, a, tg.it.ID)
		tg.item = rawPaymentItem(t, a, ctx, tg.it.ID)
		tg.snaps = rawSnapshotItems(t, a, ctx, tg.it.ID)
	}
	// The baseline must hold what the comparisons below compare, or they would prove nothing:
	// the immutable part of each stored item carries the intent's amount, currency, reference
	// and creation time (and, linked, its document, version and snapshot), whatever the
	// attributes are called.
	if len(linked.snaps) != 1 || len(standalone.snaps) != 0 {
		t.Fatalf("snapshot items: linked %v, standalone %v; want one and none", linked.snaps, standalone.snaps)
	}
	var linkedSnap string
	for sk := range linked.snaps {
		linkedSnap = strings.TrimPrefix(sk, "SNAP#")
	}
	for _, tg := range targets {
		frozen := immutableAttrs(tg.item)
		want := []string{`N:` + fmt.Sprint(tg.it.AmountMinor), `S:"BDT"`, `S:` + quoteJSON(tg.it.Reference),
			tg.it.CreatedAt.UTC().Format("2006-01-02T15:04:05")}
		if tg == linked {
			want = append(want, inv, `N:`+fmt.Sprint(tg.it.Source.DocumentVersion), `S:"invoices"`, linkedSnap)
		}
		for _, w := range want {
			if !strings.Contains(frozen, w) {
				t.Fatalf("%s: the immutable attributes of the stored item do not carry %s: %s", tg.name, w, frozen)
			}
		}
		if tg.view["source"] == nil || tg.view["amount_minor"] == nil {
			t.Fatalf("%s: view lacks source or amount_minor: %v", tg.name, tg.view)
		}
		var absent []string
		for _, n := range namedImmutable {
			if tg.item[n] == nil {
				absent = append(absent, n)
			}
		}
		t.Logf("%s: stored item %s; of the named immutable attributes, not stored under that name: %v", tg.name, frozen, absent)
	}
	if linked.view["snapshot"] == nil || standalone.view["snapshot"] != nil {
		t.Fatalf("views: linked snapshot %s, standalone snapshot %s", linked.view["snapshot"], standalone.view["snapshot"])
	}

	hostile := fmt.Sprintf(`{"amount": 1, "amount_minor": 1, "currency": "USD", "reference": "hacked", "source": {"kind": "standalone"}, "document_id": %q, "snapshot": {}, "quantity": 9}`, other)
	// Besides the hostile body, bodies some route accepts: each gets past validation somewhere
	// and so reaches the code that writes (an empty body is what cancel and the documents'
	// commands take; the creates, with the intent's own Idempotency-Key, reach the replay).
	bodies := []struct{ name, body string }{
		{"hostile", hostile},
		{"empty", ""},
		{"standalone create", `{"amount": 1, "reference": "hacked"}`},
		{"linked create of another document", `{"document_id": "` + other + `"}`},
		{"document edit", `{"amount_minor": 1, "reference": "hacked"}`},
		{"checkout lock", `{"route": "bkash", "payer": "01712345678"}`},
	}

	// The template's HTTP functions and routes.
	var routes []samtemplate.Route
	declared := map[string]map[string]bool{} // path template -> methods
	hasDefault := false
	for _, f := range a.Stack.Template.Functions {
		if len(f.Routes) == 0 {
			t.Logf("%s has no HttpApi route (a worker, not behind the HTTP API): nothing to send", f.LogicalID)
			continue
		}
		for _, r := range f.Routes {
			routes = append(routes, r)
			if r.Path == "$default" {
				hasDefault = true
				continue
			}
			if declared[r.Path] == nil {
				declared[r.Path] = map[string]bool{}
			}
			declared[r.Path][r.Method] = true
		}
	}
	if len(routes) == 0 {
		t.Fatal("the template has no routes")
	}

	var log []sweepRequest
	do := func(tg *sweepTarget, method, path, routeKey, variant, body string) *localapi.Result {
		t.Helper()
		// Not following redirects: a dashboard page redirects a request without a session to
		// its sign-in page, and the check below wants the route the request was sent to.
		res := a.DoNoRedirect(t, method, path+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", tg.key)
		what := fmt.Sprintf("%s intent: %s %s (%s body)", tg.name, method, path, variant)
		if res.Status >= 500 {
			t.Errorf("%s: %d %s", what, res.Status, res.Body)
		}
		log = append(log, sweepRequest{what: what, route: routeKey, res: res})
		return res
	}
	// paths returns the concrete paths of a path template for a target (a parameter with
	// several values multiplies them).
	paths := func(tmpl string, tg *sweepTarget) []string {
		out := []string{tmpl}
		for _, m := range templateParam.FindAllStringSubmatch(tmpl, -1) {
			var values []string
			switch name := m[1]; {
			case name == "intentID":
				values = []string{tg.it.ID}
			case name == "workspaceID":
				values = []string{a.Creds.WorkspaceID}
			case name == "token":
				values = []string{tg.token}
			case name == "documentID":
				values = []string{inv}
			case name == "noticeAction":
				values = []string{"approve", "decline", "cancel"}
			default:
				// A parameter this test does not know: try the ids that could address the
				// intent or its document, and say so.
				values = []string{tg.it.ID, inv, uuid.NewString()}
				t.Logf("%s: unknown path parameter {%s}: tried the intent id, the invoice id and a fresh UUID; teach this test its meaning", tmpl, name)
			}
			var next []string
			for _, p := range out {
				for _, v := range values {
					next = append(next, strings.Replace(p, m[0], url.PathEscape(v), 1))
				}
			}
			out = next
		}
		return out
	}

	// The linked intent sees the routes in the template's order (the payer's lock and approve
	// come first and complete it); the standalone one in reverse (the merchant's cancel comes
	// first and cancels it): both real transitions run, and every route after them too.
	for _, tg := range targets {
		order := slices.Clone(routes)
		if tg == standalone {
			slices.Reverse(order)
		}
		for _, r := range order {
			if r.Path == "$default" {
				continue // below: every path with the methods it does not declare
			}
			methods := []string{r.Method}
			if r.Method == "ANY" {
				methods = probeMethods
			}
			for _, m := range methods {
				for _, p := range paths(r.Path, tg) {
					for _, b := range bodies {
						do(tg, m, p, r.String(), b.name, b.body)
					}
				}
			}
		}

		// The fallback: intents have no PATCH, PUT or DELETE (405, never a change)...
		for _, p := range []string{"/v1/payment-intents/" + tg.it.ID, "/v1/workspaces/" + a.Creds.WorkspaceID + "/payment-intents/" + tg.it.ID} {
			for _, m := range []string{"PATCH", "PUT", "DELETE"} {
				if res := do(tg, m, p, "$default", "hostile", hostile); res.Status != http.StatusMethodNotAllowed {
					t.Errorf("%s %s: %d %s, want 405 from the fallback", m, p, res.Status, res.Body)
				} else if !strings.Contains(res.Header.Get("Allow"), "GET") {
					t.Errorf("%s %s: 405 with Allow %q, want GET among them", m, p, res.Header.Get("Allow"))
				}
			}
		}
		// ...and every other path of the template with every method it does not declare.
		tmpls := make([]string, 0, len(declared))
		for p := range declared {
			tmpls = append(tmpls, p)
		}
		sort.Strings(tmpls)
		for _, tmpl := range tmpls {
			if declared[tmpl]["ANY"] {
				continue
			}
			for _, m := range probeMethods {
				if declared[tmpl][m] {
					continue
				}
				if (tmpl == "/v1/payment-intents/{intentID}" || tmpl == "/v1/workspaces/{workspaceID}/payment-intents/{intentID}") &&
					(m == "PATCH" || m == "PUT" || m == "DELETE") {
					continue // sent above
				}
				for _, p := range paths(tmpl, tg) {
					do(tg, m, p, "$default", "hostile", hostile)
				}
			}
		}
	}
	if !hasDefault {
		t.Error("the template has no $default route: nothing answers the undeclared methods above")
	}

	// Every request reached the route it was built for (the request log line names the route
	// key the gateway matched): no route was exercised only in name.
	matched := map[string]string{}
	for _, l := range a.Logs.Lines() {
		if l["msg"] == "request" {
			cid, _ := l["correlation_id"].(string)
			route, _ := l["route"].(string)
			matched[cid] = route
		}
	}
	hits := map[string]int{}
	statuses := map[string]map[int]int{}
	for _, s := range log {
		cid := s.res.Header.Get("X-Correlation-Id")
		got, ok := matched[cid]
		switch {
		case !ok:
			t.Errorf("%s: no request log line (correlation id %q): %d %s", s.what, cid, s.res.Status, s.res.Body)
			continue
		case got != s.route:
			t.Errorf("%s: served by route %q, want %q: %d %s", s.what, got, s.route, s.res.Status, s.res.Body)
			continue
		}
		hits[s.route]++
		if statuses[s.route] == nil {
			statuses[s.route] = map[int]int{}
		}
		statuses[s.route][s.res.Status]++
	}
	for _, r := range routes {
		if hits[r.String()] == 0 {
			t.Errorf("route %s was never reached", r)
		}
		t.Logf("%-85s %3d requests, statuses %v", r, hits[r.String()], statuses[r.String()])
	}
	t.Logf("%d routes in the template, %d requests sent", len(routes), len(log))

	// Afterwards: the API's view and the stored item are those of the creation.
	for _, tg := range targets {
		view := intentMembers(t, a, tg.it.ID)
		for _, n := range []string{"id", "amount_minor", "currency", "reference", "source", "snapshot", "created_at", "workspace_id", "environment"} {
			if !bytes.Equal(view[n], tg.view[n]) {
				t.Errorf("%s intent: %s changed from %s to %s", tg.name, n, tg.view[n], view[n])
			}
		}
		var status string
		if err := json.Unmarshal(view["status"], &status); err != nil || !slices.Contains(intentStatuses, status) {
			t.Errorf("%s intent: status %s is not one of %v", tg.name, view["status"], intentStatuses)
		}
		t.Logf("%s intent %s ends %s", tg.name, tg.it.ID, status)

		item := rawPaymentItem(t, a, ctx, tg.it.ID)
		for _, n := range namedImmutable {
			if was, now := canonicalValue(tg.item[n]), canonicalValue(item[n]); was != now {
				t.Errorf("%s intent: stored %s changed from %s to %s", tg.name, n, was, now)
			}
		}
		for n := range attributeNames(tg.item, item) {
			if slices.Contains(mutableAttributes, n) || slices.Contains(namedImmutable, n) {
				continue
			}
			if was, now := canonicalValue(tg.item[n]), canonicalValue(item[n]); was != now {
				t.Errorf("%s intent: stored %s changed from %s to %s", tg.name, n, was, now)
			}
		}
		snaps := rawSnapshotItems(t, a, ctx, tg.it.ID)
		for sk, before := range tg.snaps {
			if snaps[sk] != before {
				t.Errorf("%s intent: snapshot item %s changed from %s to %s", tg.name, sk, before, snaps[sk])
			}
		}
		for sk := range snaps {
			if tg.snaps[sk] == "" {
				// A create that reuses the intent's Idempotency-Key for another document is
				// refused (409) and must leave nothing behind in the intent's partition.
				t.Errorf("%s intent: an extra snapshot item %s appeared in its partition (the intent names %s)",
					tg.name, sk, cmp.Or(strings.Join(slices.Sorted(maps.Keys(tg.snaps)), ", "), "none"))
			}
		}
	}
}

// intentMembers reads an intent through the API, member by member.
func intentMembers(t *testing.T, a *localapi.TestAPI, id string) map[string]json.RawMessage {
	t.Helper()
	res := a.Do(t, "GET", "/v1/payment-intents/"+id, a.Creds.SandboxKey, "")
	if res.Status != http.StatusOK {
		t.Fatalf("get intent %s: %d %s", id, res.Status, res.Body)
	}
	return decode[map[string]json.RawMessage](t, res)
}

// rawPaymentItem reads the intent's PAY# item as stored.
func rawPaymentItem(t *testing.T, a *localapi.TestAPI, ctx context.Context, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := a.Stack.DDB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(a.Store.Table),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "PAY#" + id},
			"sk": &types.AttributeValueMemberS{Value: "PAY"},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		t.Fatalf("no payment item for intent %s", id)
	}
	return out.Item
}

// rawSnapshotItems reads the SNAP# items of the intent's partition, canonically encoded.
func rawSnapshotItems(t *testing.T, a *localapi.TestAPI, ctx context.Context, id string) map[string]string {
	t.Helper()
	out, err := a.Stack.DDB.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(a.Store.Table),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :snap)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: "PAY#" + id},
			":snap": &types.AttributeValueMemberS{Value: "SNAP#"},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	snaps := map[string]string{}
	for _, item := range out.Items {
		sk, _ := item["sk"].(*types.AttributeValueMemberS)
		if sk == nil {
			t.Fatalf("snapshot item without a string sk: %v", canonicalAttrs(item))
		}
		snaps[sk.Value] = canonicalAttrs(item)
	}
	return snaps
}

// canonicalValue encodes an attribute value exactly (type and bytes); "<absent>" for nil.
func canonicalValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "<absent>"
	case *types.AttributeValueMemberS:
		return "S:" + quoteJSON(v.Value)
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return "B:" + hex.EncodeToString(v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL:%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return fmt.Sprintf("NULL:%v", v.Value)
	case *types.AttributeValueMemberM:
		return "M:" + canonicalAttrs(v.Value)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canonicalValue(e)
		}
		return "L:[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberSS:
		s := slices.Sorted(slices.Values(v.Value))
		return "SS:" + quoteJSON(strings.Join(s, "\x00"))
	case *types.AttributeValueMemberNS:
		s := slices.Sorted(slices.Values(v.Value))
		return "NS:" + strings.Join(s, ",")
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = hex.EncodeToString(b)
		}
		sort.Strings(s)
		return "BS:" + strings.Join(s, ",")
	default:
		return fmt.Sprintf("%T:%v", v, v)
	}
}

// immutableAttrs encodes an item without its mutable attributes.
func immutableAttrs(item map[string]types.AttributeValue) string {
	frozen := map[string]types.AttributeValue{}
	for n, v := range item {
		if !slices.Contains(mutableAttributes, n) {
			frozen[n] = v
		}
	}
	return canonicalAttrs(frozen)
}

// attributeNames is the set of attribute names of two items.
func attributeNames(a, b map[string]types.AttributeValue) map[string]bool {
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	return names
}

// canonicalAttrs encodes an item with its attributes in name order.
func canonicalAttrs(item map[string]types.AttributeValue) string {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + canonicalValue(item[n])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// quoteJSON quotes s as JSON does.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
