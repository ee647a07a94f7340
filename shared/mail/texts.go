package mail

import (
	"github.com/takapay/payments/shared/foundation/page"
)

// content is one composed email before it is written out as text and HTML. Every string is
// plain text; the HTML template escapes it.
type content struct {
	Lang    string
	Subject string
	Heading string
	// Before are the paragraphs above the link, After those below it.
	Before []string
	// Action labels the link (the HTML's button); Link is the URL ("" for none).
	Action, Link string
	After        []string
	// CopyHint introduces the link written out in full, for a client that shows no button.
	CopyHint string
	Footer   string
}

// texts holds every word of every email, in both languages. Bangla follows the payer pages'
// choices (shared/foundation/page/messages_bn.go): everyday loanwords people use (ইমেইল, লিংক, পাসওয়ার্ড,
// অ্যাকাউন্ট, সাইন ইন), brand names in Latin letters (Takapay), Bangla digits.
func texts(k Kind, l page.Lang, d Data) content {
	if l == page.BN {
		return textsBN(k, d, duration(l, d.ValidFor))
	}
	return textsEN(k, d, duration(l, d.ValidFor))
}

// textsBN are the Bangla words of kind k's email; valid is how long its link is valid, as
// people say it.
func textsBN(k Kind, d Data, valid string) content {
	const l = page.BN
	c := content{
		CopyHint: "বোতামটি কাজ না করলে এই ঠিকানাটি কপি করে ব্রাউজারে খুলুন:",
		Footer:   "এই ইমেইলটি Takapay পাঠিয়েছে, কারণ এই ঠিকানাটি একটি Takapay অ্যাকাউন্টে ব্যবহার করা হয়েছে। আমরা কখনো ইমেইলে আপনার পাসওয়ার্ড চাই না।",
	}
	switch k {
	case VerifyEmail:
		c.Subject = "Takapay-এ আপনার ইমেইল ঠিকানা নিশ্চিত করুন"
		c.Heading = "আপনার ইমেইল ঠিকানা নিশ্চিত করুন"
		c.Before = []string{"এই ইমেইল ঠিকানা দিয়ে Takapay-এ সাইন আপ করা হয়েছে। সাইন আপ শেষ করতে নিশ্চিত করুন যে ঠিকানাটি আপনার।"}
		c.Action = "ইমেইল ঠিকানা নিশ্চিত করুন"
		c.After = []string{
			"লিংকটি একবারই কাজ করবে, আর " + valid + " পর এর মেয়াদ শেষ হবে।",
			"আপনি সাইন আপ না করে থাকলে এই ইমেইলটি উপেক্ষা করুন: নিশ্চিত না করা পর্যন্ত কোনো অ্যাকাউন্ট তৈরি হয় না।",
		}
	case AccountExists:
		c.Subject = "আপনার ইমেইল ঠিকানা দিয়ে Takapay-এ সাইন আপের চেষ্টা"
		c.Heading = "এই ঠিকানায় আপনার অ্যাকাউন্ট আগে থেকেই আছে"
		c.Before = []string{"কেউ এই ইমেইল ঠিকানা দিয়ে Takapay-এ সাইন আপ করার চেষ্টা করেছেন, কিন্তু এই ঠিকানায় আগে থেকেই একটি অ্যাকাউন্ট আছে। নতুন কোনো অ্যাকাউন্ট তৈরি হয়নি।"}
		c.Action = "সাইন ইন করুন বা পাসওয়ার্ড রিসেট করুন"
		c.After = []string{"চেষ্টাটি আপনি না করে থাকলে কিছুই করতে হবে না: আপনার অ্যাকাউন্ট আগের মতোই আছে।"}
	case ResetPassword:
		c.Subject = "আপনার Takapay পাসওয়ার্ড রিসেট করুন"
		c.Heading = "পাসওয়ার্ড রিসেট করুন"
		c.Before = []string{"আপনার Takapay অ্যাকাউন্টের পাসওয়ার্ড রিসেট করার অনুরোধ এসেছে। নতুন পাসওয়ার্ড ঠিক করতে নিচের লিংকটি খুলুন।"}
		c.Action = "নতুন পাসওয়ার্ড ঠিক করুন"
		c.After = []string{
			"লিংকটি একবারই কাজ করবে, আর " + valid + " পর এর মেয়াদ শেষ হবে। পাসওয়ার্ড বদলালে আপনার অ্যাকাউন্টের সব সেশন থেকে সাইন আউট হয়ে যাবে।",
			"অনুরোধটি আপনি না করে থাকলে এই ইমেইলটি উপেক্ষা করুন: আপনার পাসওয়ার্ড বদলাবে না।",
		}
		c.After = append(c.After, passkeyLines(l, d.Passkeys)...)
	case ResetNoAccount:
		c.Subject = "Takapay-এ পাসওয়ার্ড রিসেটের অনুরোধ"
		c.Heading = "এই ঠিকানায় কোনো Takapay অ্যাকাউন্ট নেই"
		c.Before = []string{"কেউ এই ইমেইল ঠিকানার একটি Takapay অ্যাকাউন্টের পাসওয়ার্ড রিসেট করতে চেয়েছেন, কিন্তু এই ঠিকানায় কোনো অ্যাকাউন্ট নেই। কিছুই বদলানো হয়নি।"}
		c.Action = "সাইন ইন করুন"
		c.After = []string{"অনুরোধটি আপনি করে থাকলে, হয়তো অন্য কোনো ঠিকানা দিয়ে সাইন আপ করেছিলেন। অনুরোধটি আপনি না করে থাকলে এই ইমেইলটি উপেক্ষা করুন।"}
		c.Footer = "এই ইমেইলটি Takapay পাঠিয়েছে, কারণ কেউ Takapay-এ এই ঠিকানাটি লিখেছেন। আমরা কখনো ইমেইলে আপনার পাসওয়ার্ড চাই না।"
	case PasswordChanged:
		c.Subject = "আপনার Takapay পাসওয়ার্ড বদলানো হয়েছে"
		c.Heading = "আপনার পাসওয়ার্ড বদলানো হয়েছে"
		c.Before = []string{"আপনার Takapay অ্যাকাউন্টের পাসওয়ার্ড এইমাত্র বদলানো হয়েছে, আর সব ডিভাইসের সব সেশন থেকে সাইন আউট করা হয়েছে। নতুন পাসওয়ার্ড দিয়ে আবার সাইন ইন করুন।"}
		c.Action = "সাইন ইন করুন"
		c.After = []string{"পাসওয়ার্ডটি আপনি না বদলে থাকলে এখনই পাসওয়ার্ড রিসেট করুন এবং আপনার ওয়ার্কস্পেসের মালিক বা অ্যাডমিনকে জানান।"}
	case SignInAttempts:
		c.Subject = "আপনার Takapay অ্যাকাউন্টে সাইন ইনের ব্যর্থ চেষ্টা"
		c.Heading = "কেউ আপনার পাসওয়ার্ড আন্দাজ করার চেষ্টা করছে"
		c.Before = []string{
			"আপনার Takapay অ্যাকাউন্টে ভুল পাসওয়ার্ড দিয়ে " + l.Number(int64(d.Attempts)) + " বার সাইন ইনের চেষ্টা হয়েছে। পরের চেষ্টাগুলো আপাতত ধীর করে দেওয়া হয়েছে।",
			"চেষ্টাগুলো আপনি না করে থাকলে আপনাকে কিছুই করতে হবে না: সঠিক পাসওয়ার্ড ছাড়া কেউ সাইন ইন করতে পারবে না।",
			"চেষ্টাগুলো আপনি করে থাকলে আর পাসওয়ার্ড মনে না পড়লে, নিচের লিংক দিয়ে রিসেট করুন।",
		}
		c.Action = "পাসওয়ার্ড রিসেট করুন"
	case Invitation:
		c.Subject = "Takapay-এর একটি ওয়ার্কস্পেসে যোগ দেওয়ার আমন্ত্রণ"
		c.Heading = "Takapay-এ যোগ দেওয়ার আমন্ত্রণ"
		c.Before = []string{
			d.InviterEmail + " আপনাকে Takapay-এর একটি ওয়ার্কস্পেসে " + roles[d.Role][1] + " হিসেবে যোগ দিতে আমন্ত্রণ জানিয়েছেন।",
			// The name is the workspace's members' words, not Takapay's: labelled and quoted.
			"ওয়ার্কস্পেসের নাম (এর সদস্যদের দেওয়া, Takapay-এর লেখা নয়): “" + d.WorkspaceName + "”",
		}
		c.Action = "আমন্ত্রণ গ্রহণ করুন"
		c.Footer = "এই ইমেইলটি Takapay পাঠিয়েছে, কারণ কেউ এই ঠিকানাটিকে একটি Takapay ওয়ার্কস্পেসে আমন্ত্রণ জানিয়েছেন। আমরা কখনো ইমেইলে আপনার পাসওয়ার্ড চাই না।"
		c.After = []string{
			"আমন্ত্রণটি " + valid + " পর্যন্ত বৈধ। আপনার অ্যাকাউন্ট না থাকলে লিংকটি আপনাকে সাইন আপ করাবে।",
			"এই ব্যক্তিকে না চিনলে এই ইমেইলটি উপেক্ষা করুন।",
		}
	case PasskeyAdded:
		c.Subject = "আপনার Takapay অ্যাকাউন্টে একটি পাসকি যোগ করা হয়েছে"
		c.Heading = "একটি নতুন পাসকি যোগ করা হয়েছে"
		c.Before = []string{
			"আপনার Takapay অ্যাকাউন্টে “" + d.PasskeyName + "” নামের একটি পাসকি যোগ করা হয়েছে, " + l.DateTime(d.At) + " (ঢাকার সময়)। এই পাসকি দিয়ে পাসওয়ার্ড ছাড়াই সাইন ইন করা যায়।",
			"কাজটি আপনি করে থাকলে কিছুই করতে হবে না।",
			"আপনি না করে থাকলে এখনই পাসওয়ার্ড রিসেট করুন এবং রিসেটের ফর্মে “সব পাসকি সরিয়ে দিন” বেছে রাখুন: এতে সব সেশন থেকে সাইন আউট হবে আর পাসকিটি আর কাজ করবে না। তারপর আপনার ওয়ার্কস্পেসের মালিক বা অ্যাডমিনকে জানান।",
		}
		c.Action = "পাসওয়ার্ড রিসেট করুন"
	}
	return c
}

// textsEN are the English words of kind k's email; valid is how long its link is valid, as
// people say it.
func textsEN(k Kind, d Data, valid string) content {
	const l = page.EN
	c := content{
		CopyHint: "If the button does not work, copy this address into your browser:",
		Footer:   "Takapay sent this email because this address was used for a Takapay account. We never ask for your password by email.",
	}
	switch k {
	case VerifyEmail:
		c.Subject = "Confirm your email address for Takapay"
		c.Heading = "Confirm your email address"
		c.Before = []string{"This email address was used to sign up for Takapay. To finish signing up, confirm that it is yours."}
		c.Action = "Confirm email address"
		c.After = []string{
			"The link works once and expires in " + valid + ".",
			"If you did not sign up, ignore this email: no account is created without confirmation.",
		}
	case AccountExists:
		c.Subject = "Someone tried to sign up with your Takapay address"
		c.Heading = "You already have an account"
		c.Before = []string{"Someone tried to sign up for Takapay with this email address, but it already has an account. No new account was created."}
		c.Action = "Sign in or reset your password"
		c.After = []string{"If this was not you, there is nothing to do: your account is unchanged."}
	case ResetPassword:
		c.Subject = "Reset your Takapay password"
		c.Heading = "Reset your password"
		c.Before = []string{"We received a request to reset the password of your Takapay account. Open the link below to choose a new one."}
		c.Action = "Choose a new password"
		c.After = []string{
			"The link works once and expires in " + valid + ". Changing your password signs you out of every session.",
			"If you did not ask for this, ignore this email: your password stays as it is.",
		}
		c.After = append(c.After, passkeyLines(l, d.Passkeys)...)
	case ResetNoAccount:
		c.Subject = "Password reset request on Takapay"
		c.Heading = "There is no Takapay account for this address"
		c.Before = []string{"Someone asked to reset the password of a Takapay account with this email address, but this address has no account. Nothing was changed."}
		c.Action = "Sign in"
		c.After = []string{"If it was you, you may have signed up with another address. If it was not you, ignore this email."}
		c.Footer = "Takapay sent this email because someone typed this address on Takapay. We never ask for your password by email."
	case PasswordChanged:
		c.Subject = "Your Takapay password was changed"
		c.Heading = "Your password was changed"
		c.Before = []string{"The password of your Takapay account was just changed, and every session on every device was signed out. Sign in again with your new password."}
		c.Action = "Sign in"
		c.After = []string{"If you did not change it, reset your password now and tell your workspace's owner or an admin."}
	case SignInAttempts:
		c.Subject = "Failed sign-in attempts on your Takapay account"
		c.Heading = "Someone is trying to guess your password"
		attempts := l.Count(int64(d.Attempts), "failed sign-in attempt", "failed sign-in attempts")
		c.Before = []string{
			"There were " + attempts + " with a wrong password on your Takapay account. Further attempts are being slowed down for now.",
			"If this was not you, there is nothing to do: nobody can sign in without your password.",
			"If it was you and you have forgotten your password, reset it with the link below.",
		}
		c.Action = "Reset your password"
	case Invitation:
		c.Subject = "You are invited to a Takapay workspace"
		c.Heading = "Join a workspace on Takapay"
		c.Before = []string{
			d.InviterEmail + " invited you to join a workspace on Takapay as " + article(roles[d.Role][0]) + ".",
			// The name is the workspace's members' words, not Takapay's: labelled and quoted.
			"Workspace name (chosen by its members, not written by Takapay): “" + d.WorkspaceName + "”",
		}
		c.Action = "Accept the invitation"
		c.Footer = "Takapay sent this email because someone invited this address to a Takapay workspace. We never ask for your password by email."
		c.After = []string{
			"The invitation is valid for " + valid + ". If you have no account yet, the link signs you up.",
			"If you do not know this person, ignore this email.",
		}
	case PasskeyAdded:
		c.Subject = "A passkey was added to your Takapay account"
		c.Heading = "A new passkey was added"
		c.Before = []string{
			"A passkey named “" + d.PasskeyName + "” was added to your Takapay account on " + l.DateTime(d.At) + " (Dhaka time). It signs in without your password.",
			"If this was you, there is nothing to do.",
			"If it was not you, reset your password now and keep “Remove every passkey” ticked on the reset form: that signs out every session and the passkey stops working. Then tell your workspace's owner or an admin.",
		}
		c.Action = "Reset your password"
	}
	return c
}

// passkeyLines are a reset email's words about the account's passkeys: which exist (name and
// when each was added), and that the reset form can remove them all.
func passkeyLines(l page.Lang, keys []Passkey) []string {
	none, intro, added := "Your account has no passkeys.", "Your account has these passkeys (the reset form can remove them all):", "added"
	if l == page.BN {
		none, intro, added = "আপনার অ্যাকাউন্টে কোনো পাসকি নেই।", "আপনার অ্যাকাউন্টে এই পাসকিগুলো আছে (রিসেটের ফর্ম এগুলো সব সরিয়ে দিতে পারে):", "যোগ করা হয়েছে"
	}
	if len(keys) == 0 {
		return []string{none}
	}
	out := []string{intro}
	for _, k := range keys {
		out = append(out, "• “"+k.Name+"”, "+added+" "+l.DateTime(k.CreatedAt))
	}
	return out
}

// article puts "a" or "an" before a role name.
func article(role string) string {
	if role != "" && (role[0] == 'a' || role[0] == 'o') {
		return "an " + role
	}
	return "a " + role
}
