package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/local/localapi"
)

// reservingFunctions take an invoice's live intent or a payment link's use on a document:
// the payer's door (the public documents) and the API's linked create.
var reservingFunctions = []string{"PublicDocumentsFunction", "PaymentIntentsFunction"}

// reservationAttributes are all a reservation's UpdateItem may name on a document: the key,
// the two reservations, and the version its condition compares.
var reservationAttributes = []string{"pk", "sk", "live_intent", "uses", "version", "holds", "hv"}

// Least privilege, as written (issue 30 item 6): IAM checks every attribute an UpdateItem
// names — its update and its condition — against dynamodb:Attributes, so a function whose
// document statements do not list status cannot change a document's status, whatever its
// code does. The reserving functions list only the reservations (and version); they may not
// put, delete or batch-write documents. What a compromised function would send — SET status,
// or a body, amount or public_token — is refused by its policy.
func TestReservingFunctionsCannotChangeADocumentsStatus(t *testing.T) {
	byFn := functionStatements(t)
	for _, fn := range reservingFunctions {
		sts := byFn[fn]
		g := grantFor(sts, "dynamodb:UpdateItem", "DOC#")
		switch {
		case !g.allowed:
			t.Errorf("%s may not UpdateItem documents: its reservations would fail", fn)
		case g.unbounded:
			t.Errorf("%s may UpdateItem documents without a dynamodb:Attributes list", fn)
		}
		for _, a := range g.attrs {
			if !slices.Contains(reservationAttributes, a) {
				t.Errorf("%s may UpdateItem the document attribute %q (allowed only %v)", fn, a, reservationAttributes)
			}
		}
		for _, action := range []string{"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem",
			"dynamodb:PartiQLUpdate", "dynamodb:PartiQLInsert", "dynamodb:PartiQLDelete", "dynamodb:TransactWriteItems"} {
			if grantFor(sts, action, "DOC#").allowed {
				t.Errorf("%s may %s documents", fn, action)
			}
		}
		for _, kind := range []string{"invoices", "payment-links"} {
			for _, attrs := range [][]string{{"status"}, {"status", "live_intent"}, {"body"}, {"amount_minor"}, {"public_token"}, {"paid_minor"}} {
				req := ddbRequest{action: "dynamodb:UpdateItem", keys: []string{"DOC#ws#sandbox#" + kind}, attrs: append([]string{"pk", "sk"}, attrs...)}
				if allows(sts, req) {
					t.Errorf("%s's policy allows an UpdateItem of a %s document naming %v", fn, kind, attrs)
				}
			}
			if !allows(sts, ddbRequest{action: "dynamodb:UpdateItem", keys: []string{"DOC#ws#sandbox#" + kind}, attrs: reservationAttributes}) {
				t.Errorf("%s's policy refuses a reservation on a %s document", fn, kind)
			}
		}
	}
}

// PublicDocumentsFunction's policy, as run: a payer opens and pays an issued invoice (a new
// live intent, the same one again, a replacement after the merchant cancelled it) and a
// payment link with max_uses; every request the function sends is one its template.yaml
// statements allow (keys and attribute lists), and its document writes name no attribute
// but the reservations'. The reservations keep what their old status condition held: an
// invoice or link closed (or edited) after it was read is not reserved.
func TestPublicDocumentsStayWithinTheirPolicy(t *testing.T) {
	const fn = "PublicDocumentsFunction"
	sts := functionStatements(t)[fn]
	rec := &allRecorder{fn: fn}
	a := localapi.StartTestAPI(t, localapi.Options{ConfigureAWS: rec.configure})
	ctx := context.Background()
	api := documentsAPI(t, a, "policy-public")
	pay := func(token string, want int) string {
		t.Helper()
		res := a.Do(t, "POST", "/v1/public/documents/"+token, "", `{"payer": {"name": "Karim"}}`)
		var p struct {
			IntentID string `json:"intent_id"`
		}
		_ = json.Unmarshal(res.Body, &p)
		if res.Status != want {
			t.Fatalf("pay %s: %d %s", token, res.Status, res.Body)
		}
		return p.IntentID
	}

	inv := api("POST", "invoices", `{"reference": "PUB-INV", "items": [{"title": "Tea", "quantity": 1, "unit_amount_minor": 5000}]}`, 201)
	invID, invToken := inv["id"].(string), fmt.Sprint(inv["public_token"])
	api("POST", "invoices/"+invID+"/issue", "", 200)
	if r := a.Do(t, "GET", "/v1/public/documents/"+invToken, "", ""); r.Status != 200 {
		t.Fatalf("invoice page: %d %s", r.Status, r.Body)
	}
	first := pay(invToken, 201)
	if again := pay(invToken, 200); again != first {
		t.Fatalf("the invoice's live intent changed: %s, then %s", first, again)
	}
	if r := a.Do(t, "POST", "/v1/payment-intents/"+first+"/cancel", a.Creds.SandboxKey, ""); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	if second := pay(invToken, 201); second == first || second == "" {
		t.Fatalf("no new live intent after the cancel: %s", second)
	}
	link := api("POST", "payment-links", `{"reference": "PUB-LINK", "amount_minor": 25000, "max_uses": 3}`, 201)
	linkID, linkToken := link["id"].(string), fmt.Sprint(link["public_token"])
	api("POST", "payment-links/"+linkID+"/publish", "", 200)
	pay(linkToken, 201)

	// The version conditions hold what the status condition held: a document read before the
	// merchant closed it is not reserved (the Linker reads it again and refuses).
	ws := a.Creds.WorkspaceID
	staleLink, err := a.Store.GetDocument(ctx, ws, auth.Sandbox, document.PaymentLinks, linkID)
	if err != nil {
		t.Fatal(err)
	}
	api("POST", "payment-links/"+linkID+"/archive", "", 200)
	hold := intent.UseHoldWrite{ID: "00000000-0000-4000-8000-000000000002",
		Hold: document.UseHold{Until: time.Now().Add(time.Minute)}, Version: staleLink.HoldsVersion}
	if err := a.Store.HoldUse(ctx, staleLink, hold); !errors.Is(err, intent.ErrHoldsChanged) {
		t.Errorf("a hold on an archived link read while active: %v, want ErrHoldsChanged", err)
	}
	pay(linkToken, 409)
	staleInv, err := a.Store.GetDocument(ctx, ws, auth.Sandbox, document.Invoices, invID)
	if err != nil {
		t.Fatal(err)
	}
	api("POST", "invoices/"+invID+"/cancel", "", 200)
	if err := a.Store.ReserveInvoiceIntent(ctx, staleInv, "00000000-0000-4000-8000-000000000001", time.Now().Add(time.Hour), staleInv.LiveIntentID); !errors.Is(err, intent.ErrLiveIntentTaken) {
		t.Errorf("a live intent on a cancelled invoice read while issued: %v, want ErrLiveIntentTaken", err)
	}
	if cur, err := a.Store.GetDocument(ctx, ws, auth.Sandbox, document.Invoices, invID); err != nil || cur.Status != document.StatusCancelled {
		t.Fatalf("the invoice after the refused reservation: %+v %v", cur, err)
	}

	seen, written := rec.judge(t, sts, func(req ddbRequest, prefix string) {
		if req.action != "dynamodb:UpdateItem" || prefix != "DOC" {
			return
		}
		for _, a := range req.attrs {
			if !slices.Contains(reservationAttributes, a) {
				t.Errorf("%s's document UpdateItem names %q", fn, a)
			}
		}
	})
	for _, want := range []string{"dynamodb:Query gsi3 PUBDOC", "dynamodb:BatchGetItem  DOC", "dynamodb:UpdateItem  DOC",
		"dynamodb:PutItem  PAY", "dynamodb:UpdateItem  RATE"} {
		if !seen[want] {
			t.Errorf("the journey made no %q request; the test lost its coverage (made %v)", want, slices.Sorted(maps.Keys(seen)))
		}
	}
	for what, attrs := range written {
		t.Logf("%s %s names %v", fn, what, slices.Sorted(maps.Keys(attrs)))
	}
}
