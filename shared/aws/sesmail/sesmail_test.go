package sesmail

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/foundation/page"
	"github.com/takapay/payments/shared/local/devstack"
	"github.com/takapay/payments/shared/mail"
)

const from = "Takapay <no-reply@takapay.test>"

// startSES starts aws-ses-v2-local for one test and a Sender that reaches it through the real
// SDK client, configured as the functions configure theirs (awsx: per-attempt timeout, retryer).
func startSES(t *testing.T, cfg Config) (*devstack.Server, *Sender) {
	t.Helper()
	srv := devstack.StartTestSES(t)
	ctx := context.Background()
	awsCfg, err := devstack.AWSConfig(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	awsx.Configure(&awsCfg, 0)
	if cfg.From == "" {
		cfg.From = from
	}
	s, err := NewFromConfig(awsCfg, srv.Endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, s
}

// TestSendArrivesIntact sends one composed message per language through the SDK to the local
// SES server and reads it back: recipient, subject, both parts byte for byte (Bangla intact).
func TestSendArrivesIntact(t *testing.T) {
	srv, s := startSES(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sent := map[string]mail.Message{}
	for i, l := range page.Langs {
		to := string(l) + "-owner@shop.com.bd"
		m, err := mail.Compose(mail.Invitation, l, mail.Data{
			To: to, Link: "https://dash.takapay.test/dashboard/invite?token=t" + string(rune('0'+i)) + "&lang=" + string(l),
			WorkspaceName: `ঢাকা <শাড়ি> & "Saree" House`, InviterEmail: "owner@shop.com.bd", Role: "admin",
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Send(ctx, m); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		sent[to] = m
	}
	got, err := devstack.ReceivedMail(ctx, srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sent) {
		t.Fatalf("received %d messages, want %d: %+v", len(got), len(sent), got)
	}
	for to, want := range sent {
		r := devstack.MailTo(got, to)
		if len(r) != 1 {
			t.Fatalf("%s: %d messages", to, len(r))
		}
		e := r[0]
		if len(e.To) != 1 || e.To[0] != to || len(e.Cc)+len(e.Bcc) != 0 {
			t.Errorf("%s: recipients %v %v %v", to, e.To, e.Cc, e.Bcc)
		}
		if e.From != `"Takapay" <no-reply@takapay.test>` {
			t.Errorf("From = %q", e.From)
		}
		if e.Subject != want.Subject || e.Text != want.Text || e.HTML != want.HTML {
			t.Errorf("%s: the message changed on the way:\nsubject %q\nwant    %q\ntext %q\nwant %q", to, e.Subject, want.Subject, e.Text, want.Text)
		}
		if strings.HasPrefix(to, "bn") && !strings.Contains(e.Text, "অ্যাডমিন হিসেবে") {
			t.Errorf("Bangla text lost: %q", e.Text)
		}
	}
}

// TestSendToHungServerReturns pauses the server (SIGSTOP: it accepts connections and answers
// nothing) and checks that Send gives up with an error instead of hanging, then that the
// sender works again once the server resumes.
func TestSendToHungServerReturns(t *testing.T) {
	srv, s := startSES(t, Config{Timeout: 2 * time.Second})
	m, err := mail.Compose(mail.ResetPassword, page.BN, mail.Data{To: "rahim@shop.com.bd", Link: "https://dash.takapay.test/dashboard/reset?token=x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), m)
	if err == nil {
		t.Fatal("Send to a hung server succeeded")
	}
	if !strings.HasPrefix(err.Error(), "sesmail: SendEmail:") {
		t.Errorf("error not wrapped: %v", err)
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Send(ctx, m); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
	got, err := devstack.ReceivedMail(ctx, srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	// The request that timed out may still have reached the server once it resumed: a failed
	// Send means "not known to be sent", never "certainly not sent".
	if len(got) < 1 {
		t.Fatalf("nothing received after Resume")
	}
	t.Logf("messages stored after a timed-out send and a good one: %d", len(got))
}

// recorder is an API that records the input, for the checks that need no server.
type recorder struct {
	in       *sesv2.SendEmailInput
	deadline bool
	calls    int
}

func (r *recorder) SendEmail(ctx context.Context, in *sesv2.SendEmailInput, _ ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	r.calls++
	r.in = in
	_, r.deadline = ctx.Deadline()
	return &sesv2.SendEmailOutput{}, nil
}

func TestSendRequest(t *testing.T) {
	r := &recorder{}
	s, err := New(r, Config{From: "Takapay <no-reply@takapay.test>", ConfigurationSet: "takapay-mail"})
	if err != nil {
		t.Fatal(err)
	}
	m := mail.Message{To: "a@b.com", Subject: "স্বাগতম", Text: "t", HTML: "<p>h</p>"}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	in := r.in
	if !r.deadline {
		t.Error("SendEmail ran without a deadline")
	}
	if *in.FromEmailAddress != `"Takapay" <no-reply@takapay.test>` || *in.ConfigurationSetName != "takapay-mail" ||
		len(in.Destination.ToAddresses) != 1 || in.Destination.ToAddresses[0] != "a@b.com" {
		t.Errorf("request %+v", in)
	}
	sm := in.Content.Simple
	if *sm.Subject.Data != m.Subject || *sm.Body.Text.Data != m.Text || *sm.Body.Html.Data != m.HTML ||
		*sm.Subject.Charset != "UTF-8" || *sm.Body.Text.Charset != "UTF-8" || *sm.Body.Html.Charset != "UTF-8" {
		t.Errorf("content %+v", sm)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{EnvFrom: " Takapay <no-reply@takapay.test> ", EnvEndpoint: "http://127.0.0.1:8005", EnvConfigurationSet: "cs"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	endpoint, cfg, err := ConfigFromEnv(lookup)
	if err != nil || endpoint != "http://127.0.0.1:8005" || cfg.From != "Takapay <no-reply@takapay.test>" || cfg.ConfigurationSet != "cs" {
		t.Errorf("%q %+v %v", endpoint, cfg, err)
	}
	delete(env, EnvFrom)
	if _, _, err := ConfigFromEnv(lookup); err == nil {
		t.Error("no MAIL_FROM accepted")
	}
}

func TestSendRefusesHeaderInjection(t *testing.T) {
	r := &recorder{}
	s, err := New(r, Config{From: "no-reply@takapay.test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []mail.Message{
		{To: "a@b.com\r\nBcc: evil@x.com", Subject: "Hi", Text: "t"},
		{To: "a@b.com", Subject: "Hi\nBcc: evil@x.com", Text: "t"},
		{To: "a@b.com, evil@x.com", Subject: "Hi", Text: "t"},
		{To: "a@b.com", Subject: "Hi"}, // no body
	} {
		if err := s.Send(context.Background(), m); !errors.Is(err, mail.ErrInvalid) {
			t.Errorf("%q/%q: %v", m.To, m.Subject, err)
		}
	}
	if r.calls != 0 {
		t.Errorf("SES was called %d times", r.calls)
	}
	for _, f := range []string{"", "no-reply@takapay.test\r\nBcc: x@y.com", "not an address", "a@b.com, c@d.com"} {
		if _, err := New(r, Config{From: f}); err == nil {
			t.Errorf("From %q accepted", f)
		}
	}
}
