package dashboard

// The words the keys, secrets, team, activity and passkeys pages added in issue 32 (counts
// with their plural forms, the state pills, the credential and URL rules in the page's
// language), in their own file pair so that they join the base catalogue (every function
// that serves these pages links it) without touching its files: init adds them, and a key
// the base has already is a programming error.
func init() {
	for from, to := range map[*map[string]string]map[string]string{&messagesKeysEN: messagesEN, &messagesKeysBN: messagesBN} {
		for k, v := range *from {
			if _, dup := to[k]; dup {
				panic("dashboard: message " + k + " defined twice")
			}
			to[k] = v
		}
	}
}

var messagesKeysEN = map[string]string{
	"dash.keys.count.one":      "{n} key",
	"dash.keys.count":          "{n} keys",
	"dash.keys.active.one":     "{n} active",
	"dash.keys.active":         "{n} active",
	"dash.keys.state.expiring": "Expiring",

	"dash.secrets.caption": "{environment} secrets",
	"dash.secrets.col.id":  "Secret id",
	"dash.secrets.signing": "Still signs",

	"dash.team.count.one":         "{n} member",
	"dash.team.count":             "{n} members",
	"dash.team.invites_count.one": "{n} pending invitation",
	"dash.team.invites_count":     "{n} pending invitations",
	"dash.team.you":               "you",
	"dash.team.invited":           "Invited",
	"dash.team.expires":           "Expires",

	"dash.activity.count.one": "{n} event on this page",
	"dash.activity.count":     "{n} events on this page",

	"dash.passkeys.count.one":     "{n} passkey",
	"dash.passkeys.count":         "{n} passkeys",
	"dash.passkeys.state.pending": "Pending",
	"dash.passkeys.caption":       "Your passkeys",

	"dash.rule.key_name.max_length":        "Use at most 64 characters.",
	"dash.rule.control":                    "Remove line breaks and other control characters.",
	"dash.rule.name.max_length":            "Use at most 64 characters.",
	"dash.rule.name.no_surrounding_space":  "Remove the spaces at the start and the end.",
	"dash.rule.name.no_control_characters": "Remove line breaks and other control characters.",
	"dash.rule.name.utf8":                  "Use plain text.",
	"dash.rule.email.already_member":       "That person is already a member of this workspace.",
	"dash.rule.url.max_length":             "Use at most 2048 characters.",
	"dash.rule.url.https":                  "Use an address that starts with https://.",
	"dash.rule.url.public":                 "Use your server's public host name, not an IP address, localhost or an internal name.",
	"dash.rule.url.host":                   "Use a valid host name, like hooks.example.com.",
	"dash.rule.url.fragment":               "Remove the part from # on.",
	"dash.rule.url.credentials":            "Remove the user name and password from the address.",
	"dash.rule.url.invalid":                "Enter a whole address, like https://hooks.example.com/takapay.",
}

var messagesKeysBN = map[string]string{
	"dash.keys.count.one":      "{n}টি কি",
	"dash.keys.count":          "{n}টি কি",
	"dash.keys.active.one":     "{n}টি চালু",
	"dash.keys.active":         "{n}টি চালু",
	"dash.keys.state.expiring": "মেয়াদ ফুরোচ্ছে",

	"dash.secrets.caption": "{environment} সিক্রেট",
	"dash.secrets.col.id":  "সিক্রেটের আইডি",
	"dash.secrets.signing": "এখনো সই করে",

	"dash.team.count.one":         "{n} জন সদস্য",
	"dash.team.count":             "{n} জন সদস্য",
	"dash.team.invites_count.one": "{n}টি অপেক্ষমাণ আমন্ত্রণ",
	"dash.team.invites_count":     "{n}টি অপেক্ষমাণ আমন্ত্রণ",
	"dash.team.you":               "আপনি",
	"dash.team.invited":           "আমন্ত্রিত",
	"dash.team.expires":           "মেয়াদ শেষ হবে",

	"dash.activity.count.one": "এই পাতায় {n}টি ঘটনা",
	"dash.activity.count":     "এই পাতায় {n}টি ঘটনা",

	"dash.passkeys.count.one":     "{n}টি পাসকি",
	"dash.passkeys.count":         "{n}টি পাসকি",
	"dash.passkeys.state.pending": "অপেক্ষমাণ",
	"dash.passkeys.caption":       "আপনার পাসকি",

	"dash.rule.key_name.max_length":        "সর্বোচ্চ ৬৪ অক্ষর ব্যবহার করুন।",
	"dash.rule.control":                    "লাইন ব্রেক ও অন্যান্য নিয়ন্ত্রণ-অক্ষর মুছে দিন।",
	"dash.rule.name.max_length":            "সর্বোচ্চ ৬৪ অক্ষর ব্যবহার করুন।",
	"dash.rule.name.no_surrounding_space":  "শুরু ও শেষের ফাঁকা জায়গা মুছে দিন।",
	"dash.rule.name.no_control_characters": "লাইন ব্রেক ও অন্যান্য নিয়ন্ত্রণ-অক্ষর মুছে দিন।",
	"dash.rule.name.utf8":                  "সাধারণ লেখা ব্যবহার করুন।",
	"dash.rule.email.already_member":       "এই ব্যক্তি ইতিমধ্যে এই ওয়ার্কস্পেসের সদস্য।",
	"dash.rule.url.max_length":             "সর্বোচ্চ ২০৪৮ অক্ষর ব্যবহার করুন।",
	"dash.rule.url.https":                  "https:// দিয়ে শুরু হওয়া একটি ঠিকানা দিন।",
	"dash.rule.url.public":                 "আপনার সার্ভারের পাবলিক হোস্ট নাম দিন: IP ঠিকানা, localhost বা অভ্যন্তরীণ নাম নয়।",
	"dash.rule.url.host":                   "একটি সঠিক হোস্ট নাম দিন, যেমন hooks.example.com।",
	"dash.rule.url.fragment":               "# থেকে শেষ পর্যন্ত অংশটি মুছে দিন।",
	"dash.rule.url.credentials":            "ঠিকানা থেকে ব্যবহারকারীর নাম ও পাসওয়ার্ড মুছে দিন।",
	"dash.rule.url.invalid":                "পুরো ঠিকানা দিন, যেমন https://hooks.example.com/takapay।",
}
