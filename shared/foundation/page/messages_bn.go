package page

// messagesBN is the Bangla catalogue, in the plain Bangla that bKash's and Nagad's own apps
// use with payers: everyday loanwords where payers know them (পেমেন্ট, লিংক, ইনভয়েস,
// মোবাইল নম্বর, ইমেইল, অ্যাকাউন্ট) rather than formal coinages (অর্থপ্রদান, সংযোগ, চালান).
// Keys and placeholders match messagesEN exactly (TestCatalogues). Deliberate choices are
// marked "Choice:".
//
// Choice: brand names stay in Latin letters as the brands write them (bKash, Nagad, Takapay),
// as bKash's and Nagad's own Bangla screens print their logos; the markup gives them no lang
// attribute of their own (names, not English phrases).
// Choice: a value is joined to its case ending with a hyphen ({merchant}-কে, {merchant}-এর),
// as Bangla writes endings after Latin-script names and numbers.
var messagesBN = catalogue{
	// The kit: every page family.
	// Choice: "স্যান্ডবক্স" transliterated: the term merchants and developers see everywhere.
	"page.sandbox":                "স্যান্ডবক্স — আসল টাকা লেনদেন হবে না",
	"page.language":               "ভাষা",
	"page.footer":                 "Takapay-এর নিরাপদ পেমেন্ট",
	"page.reference":              "রেফারেন্স",
	"page.error":                  "ত্রুটি",
	"page.err.rate_limited.title": "অনেক বেশি অনুরোধ এসেছে",
	"page.err.rate_limited":       "এক মিনিট অপেক্ষা করে আবার চেষ্টা করুন।",
	"page.err.denied.title":       "এখান থেকে এটি করা যাবে না",
	"page.err.denied":             "পেমেন্ট পেজে ফিরে গিয়ে সেখান থেকে আবার চেষ্টা করুন।",
	"page.err.bad_request.title":  "ফর্মটি পড়া যায়নি",
	"page.err.bad_request":        "পেছনে ফিরে আবার চেষ্টা করুন।",
	"page.err.internal.title":     "কোনো একটা সমস্যা হয়েছে",
	"page.err.internal":           "একটু পরে আবার চেষ্টা করুন।",
}
