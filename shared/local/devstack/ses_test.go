package devstack

import (
	"net"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
)

// TestSESReceivesAndLists sends one message through the SES v2 SDK to aws-ses-v2-local and reads
// it back from the store; ClearMail empties it. (shared/aws/sesmail tests the adapter itself.)
func TestSESReceivesAndLists(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv, err := StartSES(ctx, SESOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if !strings.HasPrefix(srv.Endpoint, "http://127.0.0.1:") {
		t.Errorf("endpoint %s", srv.Endpoint)
	}
	if got, err := ReceivedMail(ctx, srv.Endpoint); err != nil || len(got) != 0 {
		t.Fatalf("fresh server: %v, %v", got, err)
	}
	cfg, err := AWSConfig(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = SESClient(cfg, srv.Endpoint).SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String("no-reply@takapay.test"),
		Destination:      &sestypes.Destination{ToAddresses: []string{"Rahim@Shop.com.bd"}},
		Content: &sestypes.EmailContent{Simple: &sestypes.Message{
			Subject: &sestypes.Content{Data: aws.String("স্বাগতম"), Charset: aws.String("UTF-8")},
			Body:    &sestypes.Body{Text: &sestypes.Content{Data: aws.String("১২৩"), Charset: aws.String("UTF-8")}},
		}},
	})
	if err != nil {
		t.Fatalf("SendEmail: %v\n%s", err, srv.Logs())
	}
	got, err := ReceivedMail(ctx, srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Subject != "স্বাগতম" || got[0].Text != "১২৩" || got[0].HTML != "" ||
		got[0].From != "no-reply@takapay.test" || got[0].MessageID == "" || got[0].At.IsZero() {
		t.Fatalf("received %+v", got)
	}
	if n := len(MailTo(got, "rahim@shop.com.bd")); n != 1 {
		t.Errorf("MailTo found %d", n)
	}
	if n := len(MailTo(got, "karim@shop.com.bd")); n != 0 {
		t.Errorf("MailTo(other) found %d", n)
	}
	if err := ClearMail(ctx, srv.Endpoint); err != nil {
		t.Fatal(err)
	}
	if got, err := ReceivedMail(ctx, srv.Endpoint); err != nil || len(got) != 0 {
		t.Fatalf("after ClearMail: %v, %v", got, err)
	}
}

func TestSESFixedPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if _, err := StartSES(testCtx(t), SESOptions{Port: port}); err == nil || !strings.Contains(err.Error(), "EADDRINUSE") {
		t.Errorf("ses: err = %v, want an EADDRINUSE explanation", err)
	}
}
