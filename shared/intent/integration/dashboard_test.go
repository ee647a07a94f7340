package integration_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/takapay/payments/shared/app/operator"
	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

// dashboardOrigin is the one origin the test API accepts for a session's unsafe requests.
const dashboardOrigin = "https://dashboard.shop.com.bd"

// itemIDs returns the ids of a list page, in order.
func itemIDs(l listResp) []string {
	out := make([]string, 0, len(l.Items))
	for _, it := range l.Items {
		out = append(out, it.ID)
	}
	return out
}

// memberSession makes a new user a member of workspace with role and returns the token of a
// session of theirs (an hour long).
func memberSession(t *testing.T, op *operator.Operator, workspace string, role auth.Role) string {
	t.Helper()
	ctx := t.Context()
	u, err := op.CreateUser(ctx, fmt.Sprintf("%s-%d@shop.com.bd", role, keySeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Grant(ctx, u.ID, workspace, role); err != nil {
		t.Fatal(err)
	}
	s, err := op.CreateSession(ctx, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return s.Token
}

// TestDashboardIntents drives the workspace variants of the intent routes
// (/v1/workspaces/{workspaceID}/payment-intents...) with dashboard sessions of every kind of
// member, with bearer keys of this and another workspace, and checks that they and the
// bearer-key routes see one and the same set of intents.
func TestDashboardIntents(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{"DASHBOARD_ORIGINS": dashboardOrigin}})
	ctx := t.Context()
	op := &operator.Operator{Store: a.Store}
	ws := a.Creds.WorkspaceID
	session := func(workspace string, role auth.Role) string { return memberSession(t, op, workspace, role) }
	owner := session(ws, auth.RoleOwner)
	dev := session(ws, auth.RoleDeveloper)
	viewer := session(ws, auth.RoleViewer)
	other, err := op.CreateWorkspace(ctx, "", "Other Bazaar Ltd")
	if err != nil {
		t.Fatal(err)
	}
	outsider := session(other.ID, auth.RoleOwner)
	otherKey, err := op.IssueKey(ctx, other.ID, auth.Sandbox, localapi.FullScopes, "other sandbox")
	if err != nil {
		t.Fatal(err)
	}
	wsRecord, err := a.Store.GetWorkspace(ctx, ws)
	if err != nil || wsRecord.Name == "" {
		t.Fatalf("seeded workspace: %+v %v", wsRecord, err)
	}

	base := "/v1/workspaces/" + ws + "/payment-intents"
	sandbox, live := "?environment=sandbox", "?environment=live"
	cookie := func(token string) []string { return []string{"Cookie", auth.HostSessionCookie + "=" + token} } // an https dashboard
	// unsafe adds what a dashboard POST carries: the session cookie, the allowed Origin and a
	// fresh Idempotency-Key.
	unsafe := func(token string) []string {
		return append(cookie(token), "Origin", dashboardOrigin, "Idempotency-Key", idemKey())
	}
	create := func(token, env, body string) *localapi.Result {
		t.Helper()
		return a.Do(t, "POST", base+env, "", body, unsafe(token)...)
	}
	cancel := func(token, env, id string, headers ...string) *localapi.Result {
		t.Helper()
		if headers == nil {
			headers = append(cookie(token), "Origin", dashboardOrigin)
		}
		return a.Do(t, "POST", base+"/"+id+"/cancel"+env, "", "", headers...)
	}
	get := func(token, env, id string) *localapi.Result {
		t.Helper()
		return a.Do(t, "GET", base+"/"+id+env, "", "", cookie(token)...)
	}
	list := func(token, env string) *localapi.Result {
		t.Helper()
		return a.Do(t, "GET", base+env, "", "", cookie(token)...)
	}
	status := func(id string) string {
		t.Helper()
		res := a.Do(t, "GET", "/v1/payment-intents/"+id, a.Creds.ReadonlyKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("get %s with the key: %d %s", id, res.Status, res.Body)
		}
		return decode[intentResp](t, res).Status
	}

	// A developer creates a standalone intent: the session, the membership, the workspace
	// (its name, which a session does not carry) and the conditional PutItem.
	res := create(dev, sandbox, `{"amount": 310.25, "reference": "dash-1", "metadata": {"by": "dashboard"}}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("developer create: %d %s", res.Status, res.Body)
	}
	byDev := decode[intentResp](t, res)
	if byDev.Object != "payment_intent" || byDev.WorkspaceID != ws || byDev.Environment != "sandbox" || byDev.Status != "PENDING" ||
		byDev.AmountMinor != 31025 || byDev.Reference != "dash-1" || byDev.Source.Kind != "standalone" || byDev.Snapshot != nil ||
		string(byDev.Metadata) != `{"by":"dashboard"}` || byDev.PaymentURL == "" {
		t.Fatalf("developer create = %s", res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("session standalone create made %d DynamoDB requests, want 4 (session, membership, workspace GetItem, conditional PutItem)", n)
	}

	// The payer's page of a dashboard-created intent names the workspace: the create read it.
	u, err := url.Parse(byDev.PaymentURL)
	if err != nil {
		t.Fatal(err)
	}
	page := a.Do(t, "GET", u.Path, "", "")
	if v := decode[struct {
		InvoiceID    string `json:"invoice_id"`
		MerchantName string `json:"merchant_name"`
		AmountMinor  int64  `json:"amount_minor"`
	}](t, page); page.Status != http.StatusOK || v.InvoiceID != byDev.ID || v.MerchantName != wsRecord.Name || v.AmountMinor != 31025 {
		t.Fatalf("checkout view of a dashboard intent: %d %s (workspace name %q)", page.Status, page.Body, wsRecord.Name)
	}

	// The owner creates too; a replay with the same Idempotency-Key answers the same intent.
	ownerKey := idemKey()
	ownerBody := `{"amount": 12, "reference": "dash-owner"}`
	res = a.Do(t, "POST", base+sandbox, "", ownerBody, append(cookie(owner), "Origin", dashboardOrigin, "Idempotency-Key", ownerKey)...)
	if res.Status != http.StatusCreated {
		t.Fatalf("owner create: %d %s", res.Status, res.Body)
	}
	byOwner := decode[intentResp](t, res)
	if byOwner.AmountMinor != 1200 || byOwner.WorkspaceID != ws || byOwner.ID == byDev.ID {
		t.Fatalf("owner create = %s", res.Body)
	}
	res = a.Do(t, "POST", base+sandbox, "", ownerBody, append(cookie(owner), "Origin", dashboardOrigin, "Idempotency-Key", ownerKey)...)
	if res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "true" || decode[intentResp](t, res).ID != byOwner.ID {
		t.Fatalf("owner replay: %d %s", res.Status, res.Body)
	}

	// Unsafe methods with a session need the dashboard's Origin: none or a foreign one is 403,
	// for developers and owners alike, and nothing is created or cancelled.
	for _, tok := range []string{dev, owner} {
		apitest.Envelope(t, a.Do(t, "POST", base+sandbox, "", `{"amount": 5}`, append(cookie(tok), "Idempotency-Key", idemKey())...), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
		apitest.Envelope(t, a.Do(t, "POST", base+sandbox, "", `{"amount": 5}`, append(cookie(tok), "Origin", "https://evil.example.net", "Idempotency-Key", idemKey())...), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
		apitest.Envelope(t, cancel(tok, sandbox, byDev.ID, cookie(tok)...), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
		apitest.Envelope(t, cancel(tok, sandbox, byDev.ID, append(cookie(tok), "Origin", "https://evil.example.net")...), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	}
	if st := status(byDev.ID); st != "PENDING" {
		t.Fatalf("after refused cancels the intent is %s", st)
	}

	// environment is required on every workspace route, and must be sandbox or live.
	for _, env := range []string{"", "?environment=staging", "?environment="} {
		apitest.Envelope(t, list(dev, env), 400, "INVALID_ENVIRONMENT")
		apitest.Envelope(t, get(dev, env, byDev.ID), 400, "INVALID_ENVIRONMENT")
		apitest.Envelope(t, create(dev, env, `{"amount": 5}`), 400, "INVALID_ENVIRONMENT")
		apitest.Envelope(t, cancel(dev, env, byDev.ID), 400, "INVALID_ENVIRONMENT")
		apitest.Envelope(t, a.Do(t, "GET", base+env, a.Creds.SandboxKey, ""), 400, "INVALID_ENVIRONMENT")
	}

	// A viewer reads (list, get) but neither creates nor cancels.
	res = list(viewer, sandbox)
	vl := decode[listResp](t, res)
	if res.Status != http.StatusOK || !slices.Equal(itemIDs(vl), []string{byOwner.ID, byDev.ID}) {
		t.Fatalf("viewer list: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("session list made %d DynamoDB requests, want 4 (session, membership, GSI3 Query, BatchGetItem)", n)
	}
	res = get(viewer, sandbox, byDev.ID)
	if g := decode[intentResp](t, res); res.Status != http.StatusOK || g.ID != byDev.ID || g.AmountMinor != 31025 || g.PaymentURL != "" {
		t.Fatalf("viewer get: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("session get made %d DynamoDB requests, want 3 (session, membership, one Query)", n)
	}
	apitest.Envelope(t, create(viewer, sandbox, `{"amount": 5}`), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, cancel(viewer, sandbox, byDev.ID), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	if st := status(byDev.ID); st != "PENDING" {
		t.Fatalf("after a viewer's cancel the intent is %s", st)
	}

	// Developers and owners cancel with the Origin; cancelling again is the same 200.
	for _, c := range []struct {
		tok string
		it  intentResp
	}{{dev, byDev}, {owner, byOwner}} {
		res := cancel(c.tok, sandbox, c.it.ID)
		if got := decode[intentResp](t, res); res.Status != http.StatusOK || got.ID != c.it.ID || got.Status != "CANCELLED" ||
			len(got.History) != 2 || got.History[1].Status != "CANCELLED" {
			t.Fatalf("cancel %s: %d %s", c.it.ID, res.Status, res.Body)
		}
		if n := apitest.DDBRequests(t, a, res); n != 4 {
			t.Errorf("session cancel made %d DynamoDB requests, want 4 (session, membership, Query, conditional UpdateItem)", n)
		}
		if st := status(c.it.ID); st != "CANCELLED" {
			t.Fatalf("after the dashboard cancel the key sees %s", st)
		}
		if res := cancel(c.tok, sandbox, c.it.ID); res.Status != http.StatusOK || decode[intentResp](t, res).Status != "CANCELLED" {
			t.Fatalf("second cancel: %d %s", res.Status, res.Body)
		}
	}

	// Linked create through the dashboard: priced from the issued invoice.
	inv := issuedInvoice(t, a)
	res = create(dev, sandbox, `{"document_id": "`+inv+`"}`)
	linked := decode[intentResp](t, res)
	if res.Status != http.StatusCreated || linked.AmountMinor != invoiceTotal || linked.Reference != "INV-7" ||
		linked.Source.Kind != "invoices" || linked.Source.DocumentID != inv || linked.Snapshot == nil ||
		linked.Snapshot.TotalMinor != invoiceTotal || linked.Snapshot.DocumentID != inv || len(linked.Snapshot.Items) != 2 {
		t.Fatalf("dashboard linked create: %d %s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 7 {
		t.Errorf("session linked create made %d DynamoDB requests, want 7 (session, membership, document BatchGetItem, the invoice's live-intent UpdateItem, workspace GetItem, conditional PutItem, snapshot PutItem)", n)
	}
	u, _ = url.Parse(linked.PaymentURL)
	if v := decode[struct {
		MerchantName string `json:"merchant_name"`
	}](t, a.Do(t, "GET", u.Path, "", "")); v.MerchantName != wsRecord.Name {
		t.Errorf("checkout of a dashboard linked intent names %q, want %q", v.MerchantName, wsRecord.Name)
	}

	// One set of intents: what the dashboard made, the key lists and reads, and the reverse.
	byKey, _ := createIntent(t, a, idemKey(), `{"amount": 77, "reference": "by-key"}`)
	want := []string{byKey.ID, linked.ID, byOwner.ID, byDev.ID} // newest first
	res = a.Do(t, "GET", "/v1/payment-intents", a.Creds.ReadonlyKey, "")
	if l := decode[listResp](t, res); res.Status != http.StatusOK || !slices.Equal(itemIDs(l), want) {
		t.Fatalf("key list = %v, want %v: %s", itemIDs(l), want, res.Body)
	}
	res = list(dev, sandbox)
	if l := decode[listResp](t, res); res.Status != http.StatusOK || !slices.Equal(itemIDs(l), want) {
		t.Fatalf("session list = %v, want %v: %s", itemIDs(l), want, res.Body)
	}
	if g := decode[intentResp](t, a.Do(t, "GET", "/v1/payment-intents/"+linked.ID, a.Creds.SandboxKey, "")); g.ID != linked.ID ||
		g.Snapshot == nil || g.Snapshot.TotalMinor != invoiceTotal || g.PaymentURL != linked.PaymentURL {
		t.Fatalf("key get of a dashboard intent: %+v", g)
	}
	if g := decode[intentResp](t, get(dev, sandbox, byKey.ID)); g.ID != byKey.ID || g.AmountMinor != 7700 || g.PaymentURL != byKey.PaymentURL {
		t.Fatalf("session get of a key intent: %+v", g)
	}
	if g := decode[intentResp](t, get(viewer, sandbox, byKey.ID)); g.ID != byKey.ID || g.AmountMinor != 7700 || g.PaymentURL != "" {
		t.Fatalf("viewer's get of a key intent: %+v", g)
	}
	// The document filter works on the workspace route too.
	res = a.Do(t, "GET", base+sandbox+"&document_id="+inv, "", "", cookie(viewer)...)
	if l := decode[listResp](t, res); res.Status != http.StatusOK || !slices.Equal(itemIDs(l), []string{linked.ID}) {
		t.Fatalf("session list by document: %d %s", res.Status, res.Body)
	}

	// A bearer key of the workspace works on the workspace routes, in its own environment.
	res = a.Do(t, "GET", base+sandbox, a.Creds.ReadonlyKey, "")
	if l := decode[listResp](t, res); res.Status != http.StatusOK || !slices.Equal(itemIDs(l), want) {
		t.Fatalf("key on the workspace list: %d %s", res.Status, res.Body)
	}
	res = a.Do(t, "POST", base+sandbox, a.Creds.SandboxKey, `{"amount": 3}`, "Idempotency-Key", idemKey())
	keyWS := decode[intentResp](t, res)
	if res.Status != http.StatusCreated || keyWS.WorkspaceID != ws || keyWS.AmountMinor != 300 {
		t.Fatalf("key create on the workspace route: %d %s", res.Status, res.Body)
	}
	if res := a.Do(t, "GET", base+"/"+keyWS.ID+sandbox, a.Creds.ReadonlyKey, ""); res.Status != http.StatusOK || decode[intentResp](t, res).ID != keyWS.ID {
		t.Fatalf("key get on the workspace route: %d %s", res.Status, res.Body)
	}
	apitest.Envelope(t, a.Do(t, "POST", base+"/"+keyWS.ID+"/cancel"+sandbox, a.Creds.ReadonlyKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	if res := a.Do(t, "POST", base+"/"+keyWS.ID+"/cancel"+sandbox, a.Creds.SandboxKey, ""); res.Status != http.StatusOK || decode[intentResp](t, res).Status != "CANCELLED" {
		t.Fatalf("key cancel on the workspace route: %d %s", res.Status, res.Body)
	}
	// ...but not in the other environment.
	apitest.Envelope(t, a.Do(t, "GET", base+live, a.Creds.SandboxKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "GET", base+"/"+byDev.ID+live, a.Creds.SandboxKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "GET", base+sandbox, a.Creds.LiveKey, ""), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	apitest.Envelope(t, a.Do(t, "POST", base+sandbox, a.Creds.LiveKey, `{"amount": 3}`, "Idempotency-Key", idemKey()), 403, "SCOPE_OR_ENVIRONMENT_DENIED")

	// Another workspace's member and another workspace's key find nothing here: 404 on every
	// route, and nothing they could create or cancel.
	for name, cred := range map[string][]string{
		"outsider session": append(cookie(outsider), "Origin", dashboardOrigin),
		"other key":        {"Authorization", "Bearer " + otherKey.Plaintext},
	} {
		for _, r := range []struct{ method, path string }{
			{"GET", base + sandbox}, {"GET", base + "/" + linked.ID + sandbox},
			{"POST", base + sandbox}, {"POST", base + "/" + linked.ID + "/cancel" + sandbox},
		} {
			body := ""
			if r.method == "POST" && r.path == base+sandbox {
				body = `{"amount": 5}`
			}
			res := a.Do(t, r.method, r.path, "", body, append(cred, "Idempotency-Key", idemKey())...)
			if res.Status != http.StatusNotFound {
				t.Errorf("%s %s %s: %d %s, want 404", name, r.method, r.path, res.Status, res.Body)
				continue
			}
			apitest.Envelope(t, res, 404, "NOT_FOUND")
		}
		// In its own workspace, this workspace's intent is not found either.
		res := a.Do(t, "GET", "/v1/workspaces/"+other.ID+"/payment-intents/"+linked.ID+sandbox, "", "", cred...)
		apitest.Envelope(t, res, 404, "NOT_FOUND")
		res = a.Do(t, "GET", "/v1/workspaces/"+other.ID+"/payment-intents"+sandbox, "", "", cred...)
		if l := decode[listResp](t, res); res.Status != http.StatusOK || len(l.Items) != 0 {
			t.Errorf("%s lists its own workspace: %d %s, want 200 with no items", name, res.Status, res.Body)
		}
	}
	if st := status(linked.ID); st != "PENDING" {
		t.Fatalf("after the outsiders' cancels the intent is %s", st)
	}

	// An owner of the other workspace creates there: its page names that workspace.
	res = a.Do(t, "POST", "/v1/workspaces/"+other.ID+"/payment-intents"+sandbox, "", `{"amount": 45}`, unsafe(outsider)...)
	theirs := decode[intentResp](t, res)
	if res.Status != http.StatusCreated || theirs.WorkspaceID != other.ID {
		t.Fatalf("outsider create in its own workspace: %d %s", res.Status, res.Body)
	}
	u, _ = url.Parse(theirs.PaymentURL)
	if v := decode[struct {
		MerchantName string `json:"merchant_name"`
	}](t, a.Do(t, "GET", u.Path, "", "")); v.MerchantName != other.Name {
		t.Errorf("checkout of the other workspace's dashboard intent names %q, want %q", v.MerchantName, other.Name)
	}
	if l := decode[listResp](t, list(dev, sandbox)); slices.Contains(itemIDs(l), theirs.ID) || len(l.Items) != len(want)+1 {
		t.Errorf("this workspace's list after the other's create = %v", itemIDs(l))
	}

	// Live with a session: money is sandbox-only (create and cancel 403); reads answer, empty.
	for _, tok := range []string{dev, owner} {
		apitest.Envelope(t, create(tok, live, `{"amount": 5}`), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
		apitest.Envelope(t, cancel(tok, live, linked.ID), 403, "SCOPE_OR_ENVIRONMENT_DENIED")
	}
	res = list(viewer, live)
	if l := decode[listResp](t, res); res.Status != http.StatusOK || l.Items == nil || len(l.Items) != 0 || l.NextCursor != nil {
		t.Fatalf("session live list: %d %s, want 200 with no items", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 3 {
		t.Errorf("empty session list made %d DynamoDB requests, want 3 (session, membership, GSI3 Query)", n)
	}
	apitest.Envelope(t, get(viewer, live, linked.ID), 404, "NOT_FOUND")
	if st := status(linked.ID); st != "PENDING" {
		t.Fatalf("after the live cancels the intent is %s", st)
	}
	if l := decode[listResp](t, a.Do(t, "GET", "/v1/payment-intents", a.Creds.LiveKey, "")); len(l.Items) != 0 {
		t.Fatalf("a live create slipped through: %v", itemIDs(l))
	}
}
