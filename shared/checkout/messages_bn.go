package checkout

// messagesBN is the hosted checkout' words in Bangla, joined to the page kit's catalogue at
// initialisation (messages.go): a binary that does not link this package does not carry them.
// Keys and placeholders match messagesEN exactly (TestCatalogues).
var messagesBN = map[string]string{
	// The hosted checkout.
	// Choice: "প্রাপক" (recipient) for "Pay to": the word bKash's Send Money screen uses.
	"checkout.pay_to": "প্রাপক",
	// Choice: "until {time} you can pay" reads more naturally than a literal "expires at".
	"checkout.expires": "{time} পর্যন্ত পেমেন্ট করা যাবে (ঢাকার সময়)",
	"checkout.title":   "{merchant}-কে {amount} পেমেন্ট করুন",
	// Choice: "সম্পন্ন" (completed), "ব্যর্থ" (failed), "বাতিল" (cancelled) and "মেয়াদ শেষ"
	// (expired): the status words of bKash's and Nagad's transaction history.
	"checkout.state.COMPLETED":   "পেমেন্ট সম্পন্ন হয়েছে",
	"checkout.state.FAILED":      "পেমেন্ট ব্যর্থ হয়েছে",
	"checkout.state.CANCELLED":   "পেমেন্ট বাতিল হয়েছে",
	"checkout.state.EXPIRED":     "এই পেমেন্টের মেয়াদ শেষ হয়ে গেছে",
	"checkout.state.other":       "পেমেন্টের অবস্থা: {status}",
	"checkout.message.COMPLETED": "{merchant}-কে আপনার {amount} পেমেন্ট সম্পন্ন হয়েছে।",
	"checkout.message.FAILED":    "{merchant}-কে {amount} পেমেন্ট সম্পন্ন হয়নি।",
	"checkout.message.CANCELLED": "এই পেমেন্টটি বাতিল করা হয়েছে।",
	"checkout.message.EXPIRED":   "পেমেন্টের সময় শেষ হয়ে গেছে। নতুন পেমেন্ট লিংকের জন্য {merchant}-এর সাথে যোগাযোগ করুন।",
	"checkout.return_to":         "{merchant}-এ ফিরে যান",
	"checkout.close":             "এখন এই পেজটি বন্ধ করতে পারেন।",
	"checkout.confirm":           "পেমেন্ট নিশ্চিত করুন",
	"checkout.paying_with":       "{route} দিয়ে পেমেন্ট · {payer}",
	// Choice: "প্রোভাইডার" transliterated: payers meet it on every wallet's help pages.
	"checkout.sandbox_note": "এটি স্যান্ডবক্স পেমেন্ট: প্রোভাইডার কী উত্তর দেবে, তা বেছে নিন।",
	"checkout.approve":      "অনুমোদন করুন (স্যান্ডবক্স)",
	"checkout.decline":      "প্রত্যাখ্যান করুন (স্যান্ডবক্স)",
	"checkout.waiting":      "{route} থেকে পেমেন্ট নিশ্চিত হওয়ার অপেক্ষা করা হচ্ছে।",
	"checkout.check_again":  "আবার দেখুন",
	"checkout.choose":       "কীভাবে পেমেন্ট করবেন, বেছে নিন",
	"checkout.no_routes":    "এই পেমেন্টের জন্য এখনো কোনো পেমেন্ট মাধ্যম চালু নেই।",
	// Choice: "মাধ্যম" (means) for a payment method, as the wallets' "পেমেন্ট মাধ্যম".
	"checkout.pay_with": "পেমেন্ট মাধ্যম",
	// Choice: the provider names stay bKash and Nagad (see above); a card is "কার্ড".
	"checkout.route.bkash":       "bKash",
	"checkout.route.nagad":       "Nagad",
	"checkout.route.card":        "কার্ড",
	"checkout.route.bkash.payer": "bKash অ্যাকাউন্ট নম্বর",
	"checkout.route.nagad.payer": "Nagad অ্যাকাউন্ট নম্বর",
	"checkout.route.card.payer":  "রসিদ পাঠানোর ইমেইল",
	"checkout.continue":          "এগিয়ে যান",
	"checkout.cancel":            "পেমেন্ট বাতিল করুন",
	"checkout.payment_ref":       "পেমেন্ট রেফারেন্স: {id}",
	"checkout.purchase":          "পরিমাণ: {quantity} × {unit}",
	"checkout.option_yes":        "হ্যাঁ",
	"checkout.err.route":         "কীভাবে পেমেন্ট করবেন, বেছে নিন।",
	"checkout.err.phone":         "০১৭১২৩৪৫৬৭৮-এর মতো একটি বাংলাদেশি মোবাইল নম্বর লিখুন।",
	"checkout.err.email":         "সঠিক ইমেইল ঠিকানা লিখুন।",
	"checkout.err.payer":         "মোবাইল নম্বর বা ইমেইলটি আবার দেখুন।",
	// Choice: "বিক্রেতা" (seller) for the merchant: what payers call a shop; "মার্চেন্ট" is
	// the wallets' word for the account type, not for the person being paid.
	"checkout.closed.link":         "বিক্রেতা এই পেমেন্ট লিংকটি বন্ধ করে দিয়েছেন, তাই পেমেন্টটি বাতিল হয়েছে। কোনো টাকা কাটা হয়নি।",
	"checkout.closed.invoice":      "বিক্রেতা এই ইনভয়েসটি বাতিল করেছেন, তাই পেমেন্টটি বাতিল হয়েছে। কোনো টাকা কাটা হয়নি।",
	"checkout.err.not_found.title": "পেমেন্ট পাওয়া যায়নি",
	"checkout.err.not_found":       "এই পেমেন্ট লিংকটি সঠিক নয়। লিংকটি আবার দেখুন, অথবা বিক্রেতার কাছে নতুন লিংক চান।",
	"checkout.err.conflict.title":  "এই পেমেন্টে আর কোনো পরিবর্তন করা যাবে না",
	"checkout.err.conflict":        "পেমেন্টটি হয়তো আগেই সম্পন্ন বা বাতিল হয়েছে, অথবা অন্য মাধ্যম বা নম্বর দিয়ে শুরু করা হয়েছে। বর্তমান অবস্থা দেখতে পেমেন্ট পেজটি আবার খুলুন।",
	"checkout.js.leaving":          "{merchant}-এ ফিরিয়ে নেওয়া হচ্ছে…",
	"checkout.js.updating":         "হালনাগাদ করা হচ্ছে…",
	"checkout.js.stopped":          "এই পেজটি এখন আর নিজে থেকে খোঁজ নিচ্ছে না। সর্বশেষ অবস্থা জানতে “আবার দেখুন” চাপুন।",
	"checkout.js.time_up":          "· সময় শেষ",
	"checkout.js.left_hours":       "· আর {h} ঘণ্টা {m} মিনিট বাকি",
	"checkout.js.left_minutes":     "· আর {m}:{s} বাকি",
	"checkout.js.merchant":         "বিক্রেতা",
}
