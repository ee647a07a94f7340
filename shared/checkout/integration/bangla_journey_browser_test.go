//go:build !race

// Excluded from -race builds like the other browser tests (chromedp v0.23 races on its own).

package integration_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/takapay/payments/shared/local/browsertest"
	"github.com/takapay/payments/shared/local/localapi"
)

// pageText returns the page's <html lang> and its visible text.
func pageText(t *testing.T, ctx context.Context) (string, string) {
	t.Helper()
	lang, err := browsertest.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
	if err != nil {
		t.Fatal(err)
	}
	text, err := browsertest.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	return lang, text
}

// checkText asserts the page is in lang and shows every one of wants and none of unwanted.
func checkText(t *testing.T, ctx context.Context, step, lang string, wants []string, unwanted ...string) {
	t.Helper()
	gotLang, text := pageText(t, ctx)
	if gotLang != lang {
		t.Errorf("%s: <html lang=%q>, want %q", step, gotLang, lang)
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s: the page lacks %q:\n%s", step, w, text)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(text, u) {
			t.Errorf("%s: the page still shows %q:\n%s", step, u, text)
		}
	}
}

// chooseBangla clicks the page's language switch and waits for the Bangla page (ready is an
// element it shows); the URL then carries ?lang=bn.
func chooseBangla(t *testing.T, ctx context.Context, ready string) {
	t.Helper()
	if got, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("lang-other"))); err != nil || got != "বাংলা" {
		t.Fatalf("the language switch says %q (%v), want বাংলা", got, err)
	}
	if err := do(ctx, chromedp.Click(chromedp.ID("lang-other")), chromedp.WaitVisible(chromedp.CSS(`html[lang="bn"] `+ready))); err != nil {
		t.Fatalf("switch to Bangla: %v", err)
	}
	if u := location(t, ctx); !strings.HasSuffix(u, "?lang=bn") {
		t.Fatalf("after the switch the page is %q, want ?lang=bn", u)
	}
}

// The three journeys once in Bangla, end to end in Chromium, as a payer whose browser asks for
// English: the first page is English, the payer chooses Bangla with the page's switch, and
// every later page — the document page, the 303 to the checkout, the lock, the sandbox outcome
// — stays in Bangla (the choice rides on every form action and redirect) until the payer lands
// on the merchant's return_url. The page text is checked in Bangla at each step, including the
// words the checkout's script writes (the payer field's label, the countdown). Screenshots of
// both languages at a phone's and a desktop's width go to .artifacts/.
func TestBrowserBanglaJourneys(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	browsertest.Chromium(t)
	a := localapi.StartTestAPI(t, localapi.Options{AllowLocalhostURLs: true})
	shop := newMerchant(t)
	ctx := browsertest.New(t, "en-US,en")

	// 1. The hosted checkout of a standalone payment.
	res := a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 1500, "reference": "order-bn-1",
		"redirect_url": "`+shop.srv.URL+`/thanks", "cancel_url": "`+shop.srv.URL+`/cancelled"}`)
	var c struct {
		InvoiceID  string `json:"invoice_id"`
		PaymentURL string `json:"payment_url"`
	}
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	if err := do(ctx, chromedp.Navigate(c.PaymentURL), chromedp.WaitVisible(chromedp.ID("route-bkash"))); err != nil {
		t.Fatal(err)
	}
	checkText(t, ctx, "checkout, first view", "en", []string{"Choose how to pay", "৳1,500.00", "Sandbox — no real money moves"})
	browsertest.Screenshots(t, ctx, "checkout-pending-en")
	chooseBangla(t, ctx, "#route-bkash")
	checkText(t, ctx, "checkout in Bangla", "bn", []string{
		"স্যান্ডবক্স — আসল টাকা লেনদেন হবে না", "প্রাপক", "রেফারেন্স", "order-bn-1", "৳১,৫০০.০০",
		"পর্যন্ত পেমেন্ট করা যাবে (ঢাকার সময়)", "কীভাবে পেমেন্ট করবেন, বেছে নিন", "পেমেন্ট মাধ্যম", "bKash", "Nagad", "কার্ড",
		"bKash অ্যাকাউন্ট নম্বর", "রসিদ পাঠানোর ইমেইল", "এগিয়ে যান", "পেমেন্ট বাতিল করুন", "Takapay-এর নিরাপদ পেমেন্ট", "English",
	}, "Choose how to pay", "Cancel payment", "৳1,500.00")
	// Each method has its own Bangla-labelled field, and the script's words are Bangla: the
	// countdown runs in Bangla digits.
	if err := do(ctx, chromedp.Click(chromedp.ID("route-bkash")),
		chromedp.WaitVisible(chromedp.CSS("#countdown:not([hidden])"))); err != nil {
		t.Fatal(err)
	}
	if label, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("payer-bkash-label"))); err != nil || label != "bKash অ্যাকাউন্ট নম্বর" {
		t.Errorf("payer label after choosing bKash: %q %v", label, err)
	}
	if cd, err := browsertest.Run(ctx, chromedp.Text(chromedp.ID("countdown"))); err != nil || !strings.HasPrefix(cd, "· আর ") ||
		!strings.HasSuffix(cd, " বাকি") || strings.ContainsAny(cd, "0123456789") {
		t.Errorf("countdown %q %v, want Bangla words and digits", cd, err)
	}
	browsertest.Screenshots(t, ctx, "checkout-pending-bn")
	// The payer types their wallet number with a Bangla keyboard: Bangla digits.
	if err := do(ctx, chromedp.SendKeys(chromedp.ID("payer-bkash"), "০১৭১২৩৪৫৬৭৮"), chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("approve"))); err != nil {
		browsertest.Screenshot(t, ctx, "checkout-bn-failed.png")
		t.Fatalf("lock in Bangla: %v", err)
	}
	if u := location(t, ctx); !strings.HasSuffix(u, "?lang=bn") {
		t.Errorf("after the lock the page is %q, want ?lang=bn", u)
	}
	checkText(t, ctx, "locked checkout in Bangla", "bn", []string{
		"পেমেন্ট নিশ্চিত করুন", "bKash দিয়ে পেমেন্ট · 017•••••678", "এটি স্যান্ডবক্স পেমেন্ট",
		"অনুমোদন করুন (স্যান্ডবক্স)", "প্রত্যাখ্যান করুন (স্যান্ডবক্স)",
	}, "Confirm your payment", "Approve (sandbox)")
	browsertest.Screenshots(t, ctx, "checkout-locked-bn")
	if err := do(ctx, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("merchant"))); err != nil {
		t.Fatal(err)
	}
	if u := location(t, ctx); !strings.HasPrefix(u, shop.srv.URL+"/thanks?invoice_id="+c.InvoiceID) {
		t.Fatalf("after approve the payer is on %q, want the redirect_url with invoice_id", u)
	}
	if st := verifyStatus(t, a, c.InvoiceID); st != "COMPLETED" {
		t.Fatalf("verify: %s", st)
	}
	// The final page in both languages, for the screenshots (a payment without a return URL,
	// so that no redirect interrupts them).
	res = a.Do(t, "POST", "/v1/payment/create", a.Creds.SandboxKey, `{"amount": 150000.5, "reference": "order-bn-2"}`)
	if err := json.Unmarshal(res.Body, &c); err != nil || res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	page := c.PaymentURL[strings.Index(c.PaymentURL, "/v1/"):]
	for _, step := range []struct{ suffix, body string }{{"/lock", `{"route":"nagad","payer":"01812345678"}`}, {"/notices/approve", ""}} {
		if r := a.Do(t, "POST", page+step.suffix, "", step.body); r.Status != 200 {
			t.Fatalf("%s: %d %s", step.suffix, r.Status, r.Body)
		}
	}
	for _, lang := range []string{"en", "bn"} {
		if err := do(ctx, chromedp.Navigate(c.PaymentURL+"?lang="+lang), chromedp.WaitVisible(chromedp.ID("final"))); err != nil {
			t.Fatal(err)
		}
		if lang == "bn" {
			checkText(t, ctx, "completed checkout in Bangla", "bn", []string{"পেমেন্ট সম্পন্ন হয়েছে", "৳১,৫০,০০০.৫০",
				"Demo merchant (local)-কে আপনার ৳১,৫০,০০০.৫০ পেমেন্ট সম্পন্ন হয়েছে।", "Nagad · 018•••••678", "এখন এই পেজটি বন্ধ করতে পারেন।"})
		}
		browsertest.Screenshots(t, ctx, "checkout-completed-"+lang)
	}

	// 2. A payment link with fields: the document page, its form, the checkout, the return_url.
	_, linkToken := newBrowserDocument(t, a, "payment-links", `{"reference": "LINK-BN-1", "amount_minor": 150000,
		"max_quantity": 3, "return_url": "`+shop.srv.URL+`/link-thanks", "description": "ক্লাবের টি-শার্ট",
		"fields": [{"id": "name_on_card", "label": "কার্ডে নাম", "type": "text", "required": true},
			{"id": "size", "label": "সাইজ", "type": "select", "options": ["S", "L"], "required": true},
			{"id": "gift", "label": "উপহার মোড়ক", "type": "checkbox"}]}`, "publish")
	if err := do(ctx, chromedp.Navigate(a.URL+"/v1/public/documents/"+linkToken), chromedp.WaitVisible(chromedp.ID("continue"))); err != nil {
		t.Fatal(err)
	}
	checkText(t, ctx, "payment link, first view", "en", []string{"Your details", "Price per item", "৳1,500.00", "Continue to payment"})
	browsertest.Screenshots(t, ctx, "document-link-en")
	chooseBangla(t, ctx, "#continue")
	checkText(t, ctx, "payment link in Bangla", "bn", []string{
		"প্রাপক", "LINK-BN-1", "প্রতিটির মূল্য", "৳১,৫০০.০০", "বিস্তারিত", "ক্লাবের টি-শার্ট", "আপনার তথ্য",
		"“(আবশ্যক)” লেখা ঘরগুলো পূরণ করতে হবে।", "পরিমাণ", "১ থেকে ৩টি, প্রতিটি ৳১,৫০০.০০", "কার্ডে নাম (আবশ্যক)",
		"একটি বেছে নিন", "আপনার যোগাযোগের তথ্য (ঐচ্ছিক)", "মোবাইল নম্বর", "পেমেন্টে এগিয়ে যান",
	}, "Your details", "Continue to payment")
	browsertest.Screenshots(t, ctx, "document-link-bn")
	if err := do(ctx,
		chromedp.SendKeys(chromedp.ID("field-name_on_card"), "রহিমা বেগম"),
		chromedp.SetValue(chromedp.ID("field-size"), "L"),
		chromedp.Click(chromedp.ID("field-gift")),
		chromedp.Clear(chromedp.ID("quantity")),
		chromedp.SendKeys(chromedp.ID("quantity"), "2"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("route-bkash")),
	); err != nil {
		browsertest.Screenshot(t, ctx, "document-link-bn-failed.png")
		t.Fatalf("submit the link form: %v", err)
	}
	if u := location(t, ctx); !strings.HasPrefix(u, a.URL+"/v1/public/checkout/") || !strings.HasSuffix(u, "?lang=bn") {
		t.Fatalf("the form's 303 went to %q, want the checkout with ?lang=bn", u)
	}
	checkText(t, ctx, "payment link's checkout in Bangla", "bn", []string{"৳৩,০০০.০০", "কীভাবে পেমেন্ট করবেন, বেছে নিন", "LINK-BN-1"},
		"Choose how to pay")
	payInBangla(t, ctx, a)
	if u := location(t, ctx); !strings.HasPrefix(u, shop.srv.URL+"/link-thanks?invoice_id=") {
		t.Fatalf("after approve the payer is on %q, want the link's return_url", u)
	}

	// 3. An invoice with a return_url: the same, from the invoice's page.
	_, invToken := newBrowserDocument(t, a, "invoices", `{"reference": "INV-BN-1", "return_url": "`+shop.srv.URL+`/invoice-thanks",
		"due_at": "2030-04-14T18:00:00+06:00",
		"items": [{"title": "শাড়ি", "quantity": 2, "unit_amount_minor": 125000}, {"title": "ব্লাউজ", "quantity": 1, "unit_amount_minor": 55050}],
		"tax_minor": 1000, "shipping_minor": 6000, "discount_minor": 5000}`, "issue")
	if err := do(ctx, chromedp.Navigate(a.URL+"/v1/public/documents/"+invToken), chromedp.WaitVisible(chromedp.ID("continue"))); err != nil {
		t.Fatal(err)
	}
	checkText(t, ctx, "invoice, first view", "en", []string{"Amount due", "Shipping", "৳3,070.50"})
	browsertest.Screenshots(t, ctx, "document-invoice-en")
	chooseBangla(t, ctx, "#continue")
	checkText(t, ctx, "invoice in Bangla", "bn", []string{
		"ইনভয়েস প্রেরক", "INV-BN-1", "বকেয়া", "৳৩,০৭০.৫০", "পরিশোধের শেষ সময় ১৪ এপ্রিল ২০৩০, ১৮:০০ (ঢাকার সময়)",
		"পণ্যের তালিকা", "শাড়ি", "একক মূল্য", "৳১,২৫০.০০", "৳২,৫০০.০০", "কর", "ডেলিভারি চার্জ", "৳৬০.০০", "ছাড়", "-৳৫০.০০",
		"মোট", "পেমেন্টে এগিয়ে যান",
	}, "Amount due", "Shipping")
	browsertest.Screenshots(t, ctx, "document-invoice-bn")
	if err := do(ctx, chromedp.Click(chromedp.ID("continue")), chromedp.WaitVisible(chromedp.ID("route-bkash"))); err != nil {
		t.Fatalf("submit the invoice form: %v", err)
	}
	if u := location(t, ctx); !strings.HasSuffix(u, "?lang=bn") {
		t.Fatalf("the invoice's 303 went to %q, want ?lang=bn", u)
	}
	checkText(t, ctx, "invoice's checkout in Bangla", "bn", []string{"৳৩,০৭০.৫০", "INV-BN-1", "কীভাবে পেমেন্ট করবেন, বেছে নিন"})
	payInBangla(t, ctx, a)
	if u := location(t, ctx); !strings.HasPrefix(u, shop.srv.URL+"/invoice-thanks?invoice_id=") {
		t.Fatalf("after approve the payer is on %q, want the invoice's return_url", u)
	}
	if hits := shop.landed(); len(hits) != 3 {
		t.Errorf("the merchant saw %v, want three returns", hits)
	}
}

// payInBangla completes a checkout that is in Bangla: bKash, a number, the lock (still in
// Bangla), then the sandbox approve, which sends the payer to the merchant.
func payInBangla(t *testing.T, ctx context.Context, a *localapi.TestAPI) {
	t.Helper()
	if err := do(ctx,
		chromedp.Click(chromedp.ID("route-bkash")),
		chromedp.SendKeys(chromedp.ID("payer-bkash"), "01712345678"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	); err != nil {
		browsertest.Screenshot(t, ctx, "checkout-bn-pay-failed.png")
		t.Fatalf("lock: %v", err)
	}
	if u := location(t, ctx); !strings.HasSuffix(u, "?lang=bn") {
		t.Errorf("after the lock the page is %q, want ?lang=bn", u)
	}
	checkText(t, ctx, "locked checkout in Bangla", "bn", []string{"পেমেন্ট নিশ্চিত করুন", "bKash দিয়ে পেমেন্ট · 017•••••678", "অনুমোদন করুন (স্যান্ডবক্স)"})
	if err := do(ctx, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("merchant"))); err != nil {
		t.Fatalf("approve: %v", err)
	}
}
