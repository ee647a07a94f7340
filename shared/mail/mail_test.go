package mail

import (
	"errors"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/foundation/page/pagetest"
)

// sample is valid data for every kind.
func sample(k Kind) Data {
	d := Data{To: "rahim@shop.com.bd", Link: "https://dash.takapay.test/dashboard/verify?token=abc&x=1"}
	switch k {
	case SignInAttempts:
		d.Attempts = 12
	case Invitation:
		d.WorkspaceName, d.InviterEmail, d.Role = "Dhaka Saree House", "owner@shop.com.bd", "developer"
	case ResetPassword:
		d.Passkeys = []Passkey{{Name: "Rahim's phone", CreatedAt: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)},
			{Name: "অফিসের ল্যাপটপ", CreatedAt: time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)}}
	case PasskeyAdded:
		d.PasskeyName, d.At = "Work laptop", time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	}
	return d
}

func TestComposeEveryKindAndLanguage(t *testing.T) {
	for _, k := range Kinds {
		for _, l := range page.Langs {
			t.Run(string(k)+"/"+string(l), func(t *testing.T) {
				d := sample(k)
				m, err := Compose(k, l, d)
				if err != nil {
					t.Fatal(err)
				}
				if m.To != d.To || m.Subject == "" || m.Text == "" || m.HTML == "" {
					t.Fatalf("incomplete message: %+v", m)
				}
				if !strings.Contains(m.Text, d.Link) {
					t.Errorf("text part lacks the link %q:\n%s", d.Link, m.Text)
				}
				if !strings.Contains(m.HTML, `href="`+html.EscapeString(d.Link)+`"`) {
					t.Errorf("HTML part lacks the link as href:\n%s", m.HTML)
				}
				if !strings.Contains(m.HTML, `<html lang="`+string(l)+`">`) {
					t.Errorf("HTML part does not say its language %s", l)
				}
				if strings.Contains(m.HTML, "<img") || strings.Contains(m.HTML, "src=") {
					t.Error("HTML part loads something")
				}
				bangla := strings.ContainsRune(m.Subject, 'া') || strings.ContainsRune(m.Subject, 'ে')
				if bangla != (l == page.BN) {
					t.Errorf("subject %q is not in %s", m.Subject, l)
				}
				if err := CheckHeaders(m); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

func TestNumbersInTheLanguagesDigits(t *testing.T) {
	cases := []struct {
		k      Kind
		d      func(*Data)
		en, bn string
	}{
		{VerifyEmail, func(*Data) {}, "expires in 24 hours", "২৪ ঘণ্টা"},
		{ResetPassword, func(*Data) {}, "expires in 30 minutes", "৩০ মিনিট"},
		{Invitation, func(*Data) {}, "valid for 7 days", "৭ দিন"},
		{SignInAttempts, func(d *Data) { d.Attempts = 12 }, "12 failed sign-in attempts", "১২ বার"},
		{SignInAttempts, func(d *Data) { d.Attempts = 1 }, "1 failed sign-in attempt ", "১ বার"},
		{ResetPassword, func(d *Data) { d.ValidFor = time.Hour }, "expires in 1 hour.", "১ ঘণ্টা"},
		{ResetPassword, func(d *Data) { d.ValidFor = time.Minute }, "expires in 1 minute.", "১ মিনিট পর"},
		{ResetPassword, func(d *Data) { d.ValidFor = 90 * time.Second }, "expires in 2 minutes.", "২ মিনিট পর"},
		{Invitation, func(d *Data) { d.ValidFor = 48 * time.Hour }, "valid for 2 days.", "২ দিন পর্যন্ত"},
	}
	for _, c := range cases {
		d := sample(c.k)
		c.d(&d)
		for l, want := range map[page.Lang]string{page.EN: c.en, page.BN: c.bn} {
			m, err := Compose(c.k, l, d)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
				t.Errorf("%s/%s: %q missing in\n%s", c.k, l, want, m.Text)
			}
		}
	}
}

func TestInvitationNamesWorkspaceInviterAndRole(t *testing.T) {
	d := sample(Invitation)
	for l, role := range map[page.Lang]string{page.EN: "as a developer", page.BN: "ডেভেলপার হিসেবে"} {
		m, err := Compose(Invitation, l, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{d.WorkspaceName, d.InviterEmail, role} {
			if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
				t.Errorf("%s: %q missing", l, want)
			}
		}
	}
	d.Role = "admin"
	if m, _ := Compose(Invitation, page.EN, d); !strings.Contains(m.Text, "as an admin") {
		t.Errorf("admin: %s", m.Text)
	}
}

func TestHTMLEscapesHostileData(t *testing.T) {
	d := sample(Invitation)
	d.WorkspaceName = `<script>alert(1)</script><img src=x onerror=alert(2)> & "quoted"`
	d.InviterEmail = "o'brien@shop.com.bd"
	d.Link = "https://dash.takapay.test/dashboard/invite?token=a&b=<c>"
	if _, err := Compose(Invitation, page.EN, d); err == nil {
		t.Fatal("a link with < > was accepted")
	}
	d.Link = "https://dash.takapay.test/dashboard/invite?token=a&b=c"
	for _, l := range page.Langs {
		m, err := Compose(Invitation, l, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"<script", "<img", `"quoted"`, "o'brien", "&b=c"} {
			if strings.Contains(m.HTML, bad) {
				t.Errorf("%s: HTML part carries %q unescaped", l, bad)
			}
		}
		if !strings.Contains(m.HTML, "&lt;script&gt;") || !strings.Contains(m.HTML, "&amp;b=c") {
			t.Errorf("%s: escaped forms missing:\n%s", l, m.HTML)
		}
		if !strings.Contains(m.Text, d.WorkspaceName) {
			t.Errorf("%s: the text part should carry the name as written", l)
		}
	}
	// A javascript: link never gets into a message.
	d.Link = "javascript:alert(1)"
	if _, err := Compose(Invitation, page.EN, d); !errors.Is(err, ErrInvalid) {
		t.Errorf("javascript: link: %v", err)
	}
}

func TestComposeRefuses(t *testing.T) {
	cases := map[string]struct {
		k Kind
		d func(*Data)
	}{
		"To with LF":                {VerifyEmail, func(d *Data) { d.To = "a@b.com\nBcc: c@d.com" }},
		"To with CR":                {VerifyEmail, func(d *Data) { d.To = "a@b.com\r" }},
		"To with display name":      {VerifyEmail, func(d *Data) { d.To = "Eve <a@b.com>" }},
		"two recipients":            {VerifyEmail, func(d *Data) { d.To = "a@b.com, c@d.com" }},
		"no To":                     {VerifyEmail, func(d *Data) { d.To = "" }},
		"not an address":            {VerifyEmail, func(d *Data) { d.To = "rahim" }},
		"no link":                   {ResetPassword, func(d *Data) { d.Link = "" }},
		"relative link":             {ResetPassword, func(d *Data) { d.Link = "/dashboard/reset" }},
		"link with LF":              {ResetPassword, func(d *Data) { d.Link = "https://a.test/x\nBcc: y" }},
		"link with credentials":     {ResetPassword, func(d *Data) { d.Link = "https://u:p@a.test/x" }},
		"workspace with LF":         {Invitation, func(d *Data) { d.WorkspaceName = "Shop\n\nClick evil.test" }},
		"workspace empty":           {Invitation, func(d *Data) { d.WorkspaceName = " " }},
		"inviter with CR":           {Invitation, func(d *Data) { d.InviterEmail = "o@b.com\r\nX: y" }},
		"unknown role":              {Invitation, func(d *Data) { d.Role = "root" }},
		"no attempts":               {SignInAttempts, func(d *Data) { d.Attempts = 0 }},
		"passkey name with LF":      {PasskeyAdded, func(d *Data) { d.PasskeyName = "laptop\n\nClick evil.test" }},
		"passkey without time":      {PasskeyAdded, func(d *Data) { d.At = time.Time{} }},
		"listed passkey with LF":    {ResetPassword, func(d *Data) { d.Passkeys = []Passkey{{Name: "a\nb"}} }},
		"negative validity":         {VerifyEmail, func(d *Data) { d.ValidFor = -time.Minute }},
		"unknown kind":              {Kind("spam"), func(*Data) {}},
		"password changed bad link": {PasswordChanged, func(d *Data) { d.Link = "ftp://a.test/" }},
	}
	for name, c := range cases {
		d := sample(c.k)
		c.d(&d)
		if _, err := Compose(c.k, page.EN, d); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Compose answered %v, want ErrInvalid", name, err)
		}
	}
	// PasswordChanged needs no link.
	if _, err := Compose(PasswordChanged, page.BN, Data{To: "a@b.com"}); err != nil {
		t.Errorf("PasswordChanged without a link: %v", err)
	}
}

func TestCheckHeaders(t *testing.T) {
	ok := Message{To: "a@b.com", Subject: "Hello"}
	if err := CheckHeaders(ok); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Message{
		{To: "a@b.com", Subject: "Hello\r\nBcc: x@y.com"},
		{To: "a@b.com", Subject: "Hello\nworld"},
		{To: "a@b.com", Subject: "Hello\u2028world"},
		{To: "a@b.com", Subject: " "},
		{To: "a@b.com\r\nBcc: x@y.com", Subject: "Hello"},
		{To: "", Subject: "Hello"},
	} {
		if err := CheckHeaders(m); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q / %q: %v", m.To, m.Subject, err)
		}
	}
}

// TestGolden keeps every email, in both languages, byte for byte in testdata/golden
// (`go test ./shared/mail -run TestGolden -update` rewrites them). Each file is the subject, the
// text part and the HTML part of one message.
func TestGolden(t *testing.T) {
	pages := map[string]string{}
	for _, k := range Kinds {
		for _, l := range page.Langs {
			m, err := Compose(k, l, sample(k))
			if err != nil {
				t.Fatal(err)
			}
			pages[string(k)+"."+string(l)] = "<!-- To: " + m.To + "\n     Subject: " + m.Subject +
				"\n---- text part ----\n" + m.Text + "---- end of text part -->\n" + m.HTML
		}
	}
	pagetest.Golden{Dir: "testdata/golden"}.CheckAll(t, pages)
}

// A workspace's name is its members' words: an invitation shows it only as a labelled, quoted
// value on a line of its own, never in the subject, the heading or a sentence Takapay says
// (a name like "Your account is suspended, visit evil.example" reads as a name, not a notice).
func TestInvitationShowsTheWorkspaceNameAsData(t *testing.T) {
	d := sample(Invitation)
	d.WorkspaceName = "Your account is suspended, visit evil.example"
	for l, label := range map[page.Lang]string{page.EN: "Workspace name (chosen by its members, not written by Takapay): “", page.BN: "ওয়ার্কস্পেসের নাম (এর সদস্যদের দেওয়া, Takapay-এর লেখা নয়): “"} {
		m, err := Compose(Invitation, l, d)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(m.Subject, "suspended") {
			t.Errorf("%s: the name is in the subject %q", l, m.Subject)
		}
		if n := strings.Count(m.Text, d.WorkspaceName); n != 1 || !strings.Contains(m.Text, label+d.WorkspaceName+"”") {
			t.Errorf("%s: the name appears %d times, or not after its label, in\n%s", l, n, m.Text)
		}
		for _, line := range strings.Split(m.Text, "\n") {
			if strings.Contains(line, d.WorkspaceName) && !strings.HasPrefix(strings.TrimSpace(line), label) {
				t.Errorf("%s: the name is inside Takapay's words: %q", l, line)
			}
		}
		if n := strings.Count(m.HTML, d.WorkspaceName); n != 1 {
			t.Errorf("%s: the HTML part shows the name %d times", l, n)
		}
	}
}
