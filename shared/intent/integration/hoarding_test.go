package integration_test

// A payment link's uses cannot be hoarded (issue 30 item 6d): a hold on a use ends by itself
// minutes after it was taken, whatever happened to its intent (expired, never written,
// never settled); one client holds at most intent.MaxHoldsPerClient uses of a link and
// spends only its own part of the link's budget; and a use is never sold twice.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/intent"
	"github.com/takapay/payments/shared/local/localapi"
	"github.com/takapay/payments/shared/local/registry"
	"github.com/takapay/payments/shared/payment"
)

// postFrom posts to a document's public page through the gateway from a client address of
// its own (a loopback address other than 127.0.0.1 is another client to the gateway).
func postFrom(t *testing.T, a *localapi.TestAPI, addr, token string) (int, http.Header, publicPay) {
	t.Helper()
	res := a.DoFrom(t, addr, "POST", "/v1/public/documents/"+token, "", `{}`)
	var p publicPay
	_ = json.Unmarshal(res.Body, &p)
	return res.Status, res.Header, p
}

// One client hammering a payment link is refused (429, Retry-After) once it holds
// MaxHoldsPerClient uses, while another client still gets one. Before, the first client's
// POSTs took every use and the second was refused (409).
func TestOneClientCannotHoardAPaymentLink(t *testing.T) {
	t.Parallel()
	a := start(t)
	link := newDocument(t, a, "payment-links", `{"reference": "HOARD", "amount_minor": 5000, "max_uses": 4}`, "publish")
	token := publicToken(t, a, "payment-links", link)
	codes := map[int]int{}
	var retry string
	for range intent.MaxHoldsPerClient + 3 {
		status, h, _ := postFrom(t, a, "127.0.0.1", token)
		codes[status]++
		if status == http.StatusTooManyRequests {
			retry = h.Get("Retry-After")
		}
	}
	if codes[http.StatusCreated] != intent.MaxHoldsPerClient || codes[http.StatusTooManyRequests] != 3 || retry == "" {
		t.Fatalf("one client's %d POSTs: %v (Retry-After %q), want %d created and the rest 429", intent.MaxHoldsPerClient+3, codes, retry, intent.MaxHoldsPerClient)
	}
	if status, _, p := postFrom(t, a, "127.0.0.2", token); status != http.StatusCreated || p.IntentID == "" {
		t.Fatalf("another client: %d, want 201", status)
	}
	// The link's uses are all held now: a third client is told so (409), not rate limited.
	if status, _, _ := postFrom(t, a, "127.0.0.3", token); status != http.StatusConflict {
		t.Fatalf("a third client on a link whose uses are all held: %d, want 409", status)
	}
}

// The document's budget of intent creations cannot be spent by one client: each client's own
// budget on the document is spent first, and a refusal there spends nothing of the
// document's. Before, one client's POSTs spent the document's burst and every other payer got
// 429.
func TestOneClientCannotSpendADocumentsBudget(t *testing.T) {
	t.Parallel()
	a := localapi.StartTestAPI(t, localapi.Options{Env: map[string]string{
		"DOCUMENT_PAY_RATE": "1", "DOCUMENT_PAY_BURST": "3", "DOCUMENT_PAY_PER_CLIENT": "2"}})
	link := newDocument(t, a, "payment-links", `{"reference": "BUDGET", "amount_minor": 5000}`, "publish")
	token := publicToken(t, a, "payment-links", link)
	codes := map[int]int{}
	for range 5 {
		status, _, _ := postFrom(t, a, "127.0.0.1", token)
		codes[status]++
	}
	if codes[http.StatusCreated] != 2 || codes[http.StatusTooManyRequests] != 3 {
		t.Fatalf("one client's 5 POSTs with 2 a minute: %v", codes)
	}
	if status, _, _ := postFrom(t, a, "127.0.0.2", token); status != http.StatusCreated {
		t.Fatalf("another client after the first spent its budget: %d, want 201", status)
	}
}

// A payer who locks a route holds the use for minutes, not for the intent's whole lifetime:
// a use-holding intent lives payment.UseLife at most, and its hold is free HoldGrace later
// even if nobody has recorded the expiry or settled it. Its payer cannot then complete it,
// so the use is not sold twice; the settlement that comes later changes nothing.
func TestAHoldPastItsTimeGivesTheUseBack(t *testing.T) {
	t.Parallel()
	c := &clock{}
	a := startAt(t, c)
	ctx := context.Background()
	link := newDocument(t, a, "payment-links", `{"reference": "ONE-SEAT", "amount_minor": 5000, "max_uses": 1}`, "publish")
	token := publicToken(t, a, "payment-links", link)
	status, _, first := postFrom(t, a, "127.0.0.1", token)
	if status != http.StatusCreated {
		t.Fatalf("first payer: %d", status)
	}
	if r := a.Do(t, "POST", pathOf(t, first.PaymentURL)+"/lock", "", `{"route":"bkash","payer":"01712345678"}`); r.Status != http.StatusOK {
		t.Fatalf("lock: %d %s", r.Status, r.Body)
	}
	if status, _, _ := postFrom(t, a, "127.0.0.2", token); status != http.StatusConflict {
		t.Fatalf("a second payer while the use is held: %d, want 409", status)
	}
	// Just before the hold is free: still held.
	c.Advance(payment.UseLife + intent.HoldGrace - time.Second)
	if status, _, _ := postFrom(t, a, "127.0.0.2", token); status != http.StatusConflict {
		t.Fatalf("a second payer within the hold's grace: %d, want 409", status)
	}
	c.Advance(2 * time.Second)
	status, _, second := postFrom(t, a, "127.0.0.2", token)
	if status != http.StatusCreated {
		t.Fatalf("a second payer after the hold: %d, want 201 (no re-drive has run)", status)
	}
	// The first payer cannot complete now: the use is the second payer's.
	if r := a.Do(t, "POST", pathOf(t, first.PaymentURL)+"/notices/approve", "", ""); r.Status != http.StatusConflict {
		t.Fatalf("approve of the intent whose hold passed: %d %s", r.Status, r.Body)
	}
	// The late settlement of the first intent's expiry gives nothing back twice.
	if _, err := registry.WebhookRedrive(a.Deps["WebhookRedriveFunction"]).Run(ctx); err != nil {
		t.Fatal(err)
	}
	a.DrainWebhooks(t)
	if status, _, _ := postFrom(t, a, "127.0.0.3", token); status != http.StatusConflict {
		t.Fatalf("a third payer while the second holds the only use: %d, want 409", status)
	}
	if r := a.Do(t, "POST", pathOf(t, second.PaymentURL)+"/lock", "", `{"route":"nagad","payer":"01812345678"}`); r.Status != http.StatusOK {
		t.Fatalf("second lock: %d %s", r.Status, r.Body)
	}
	if r := a.Do(t, "POST", pathOf(t, second.PaymentURL)+"/notices/approve", "", ""); r.Status != http.StatusOK {
		t.Fatalf("second approve: %d %s", r.Status, r.Body)
	}
	a.DrainWebhooks(t)
	// Sold once: the use is counted, and no later payer gets one, ever.
	c.Advance(time.Hour)
	if status, _, _ := postFrom(t, a, "127.0.0.4", token); status != http.StatusConflict {
		t.Fatalf("a payer after the only use was sold: %d, want 409", status)
	}
	if n := countedUses(t, a, link); n != 1 {
		t.Fatalf("uses counted %d, want 1", n)
	}
}

func countedUses(t *testing.T, a *localapi.TestAPI, link string) int64 {
	t.Helper()
	rec, err := a.Store.GetDocument(context.Background(), a.Creds.WorkspaceID, auth.Sandbox, document.PaymentLinks, link)
	if err != nil {
		t.Fatal(err)
	}
	return rec.UsesCounted
}

// crashingStore is the real store whose intent write never happens: the writer died after
// its hold and before its intent.
type crashingStore struct{ intent.LinkedStore }

func (crashingStore) CreateIntent(context.Context, *payment.Payment, *intent.Snapshot) (*payment.Payment, error) {
	return nil, errors.New("crashed")
}

// A crash after the hold and before the intent's write gives the use back once the hold's
// time has passed, with no intent, no event and no re-drive: the use is never lost. Before,
// the use stayed taken for good.
func TestACrashAfterTheHoldGivesTheUseBack(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	link := newDocument(t, a, "payment-links", `{"reference": "CRASH", "amount_minor": 5000, "max_uses": 1}`, "publish")
	tokens := a.Deps["PublicDocumentsFunction"].Config.CheckoutTokenKey
	now := time.Now()
	place := func(store intent.LinkedStore, client string, at time.Time) (*intent.Placed, error) {
		doc, err := a.Store.GetDocument(ctx, a.Creds.WorkspaceID, auth.Sandbox, document.PaymentLinks, link)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := payment.NewInvoiceID()
		return (&intent.Linker{Store: store, Tokens: tokens}).Place(ctx, intent.Order{Doc: doc, ID: id, Client: client,
			Options: payment.Options{ExpiresIn: payment.DefaultExpiry}, MerchantName: "Shop", Live: intent.AdoptLive, Now: at})
	}
	if _, err := place(crashingStore{a.Store}, "c1", now); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Fatalf("the crashing create: %v", err)
	}
	if _, err := place(a.Store, "c2", now.Add(time.Minute)); apierr.As(err).Status() != http.StatusConflict {
		t.Fatalf("while the dead writer's hold lasts: %v, want 409", err)
	}
	placed, err := place(a.Store, "c2", now.Add(payment.UseLife+intent.HoldGrace))
	if err != nil || !placed.Created {
		t.Fatalf("after the dead writer's hold: %v", err)
	}
	rec, _ := a.Store.GetDocument(ctx, a.Creds.WorkspaceID, auth.Sandbox, document.PaymentLinks, link)
	if len(rec.Holds) != 1 || rec.Holds[placed.Payment.InvoiceID].Client != "c2" {
		t.Fatalf("holds after the dead writer's was dropped: %+v", rec.Holds)
	}
}

// Never sold twice under contention: 12 clients at once on a link with 3 uses get exactly 3
// intents, and the link holds exactly those 3.
func TestConcurrentHoldsNeverOversell(t *testing.T) {
	t.Parallel()
	a := start(t)
	ctx := context.Background()
	link := newDocument(t, a, "payment-links", `{"reference": "RUSH", "amount_minor": 5000, "max_uses": 3}`, "publish")
	tokens := a.Deps["PublicDocumentsFunction"].Config.CheckoutTokenKey
	var wg sync.WaitGroup
	var mu sync.Mutex
	var created []string
	refused := map[int]int{}
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, err := a.Store.GetDocument(ctx, a.Creds.WorkspaceID, auth.Sandbox, document.PaymentLinks, link)
			if err != nil {
				t.Error(err)
				return
			}
			id, _ := payment.NewInvoiceID()
			placed, err := (&intent.Linker{Store: a.Store, Tokens: tokens}).Place(ctx, intent.Order{Doc: doc, ID: id,
				Client: fmt.Sprintf("client-%d", i), Options: payment.Options{ExpiresIn: payment.DefaultExpiry},
				MerchantName: "Shop", Live: intent.AdoptLive, Now: time.Now()})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused[apierr.As(err).Status()]++
				return
			}
			created = append(created, placed.Payment.InvoiceID)
		}()
	}
	wg.Wait()
	if len(created) != 3 || refused[http.StatusConflict] != 9 {
		t.Fatalf("12 clients on 3 uses: %d created, refused %v", len(created), refused)
	}
	rec, _ := a.Store.GetDocument(ctx, a.Creds.WorkspaceID, auth.Sandbox, document.PaymentLinks, link)
	for _, id := range created {
		if _, ok := rec.Holds[id]; !ok {
			t.Errorf("intent %s holds no use", id)
		}
	}
	if len(rec.Holds) != 3 {
		t.Errorf("%d holds, want 3", len(rec.Holds))
	}
}
