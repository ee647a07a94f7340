package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
)

// SESOptions configures StartSES.
type SESOptions struct {
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// LogWriter, if set, receives the server's output line by line, prefixed with "[ses] ".
	LogWriter io.Writer
}

// StartSES starts aws-ses-v2-local (Amazon SES, v1 and v2 APIs) on 127.0.0.1 via
// shared/local/devstack/ses.mjs and waits until it listens; ctx bounds only the start-up. The
// server keeps every message it is sent in memory (ReceivedMail reads them; its web view is at
// Endpoint + "/"), accepts any signature (it only checks that an AWS Authorization header is
// there), and sends nothing anywhere. An sesv2 client reaches it with BaseEndpoint = Endpoint
// (SESClient); SendEmail's POST /v2/email/outbound-emails with Simple content is understood as
// the SDK sends it (shared/aws/sesmail's integration test).
func StartSES(ctx context.Context, opts SESOptions) (*Server, error) {
	nm, err := NodeModulesDir()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(nm, "aws-ses-v2-local", "package.json")); err != nil {
		return nil, fmt.Errorf("devstack: aws-ses-v2-local is not installed; run `npm ci` (or `make deps`) in %s: %w", filepath.Dir(nm), err)
	}
	root := filepath.Dir(nm)
	script := filepath.Join(root, "shared", "local", "devstack", "ses.mjs")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("devstack: ses launcher missing: %w", err)
	}
	return startServer(ctx, serverSpec{
		name:        "ses",
		args:        func(port int) []string { return []string{script, strconv.Itoa(port)} },
		readyMarker: "aws-ses-v2-local listening at",
		port:        opts.Port,
		logWriter:   opts.LogWriter,
		dir:         root,
	})
}

// SESClient returns an SES v2 client for cfg (AWSConfig's static local credentials and region)
// whose BaseEndpoint is endpoint.
func SESClient(cfg aws.Config, endpoint string, optFns ...func(*sesv2.Options)) *sesv2.Client {
	return sesv2.NewFromConfig(cfg, append([]func(*sesv2.Options){func(o *sesv2.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, optFns...)...)
}

// ReceivedEmail is one message aws-ses-v2-local accepted, as its GET /store lists it.
type ReceivedEmail struct {
	MessageID string
	From      string
	To        []string
	Cc        []string
	Bcc       []string
	ReplyTo   []string
	Subject   string
	// Text and HTML are the bodies exactly as sent ("" when the part was absent).
	Text, HTML string
	// At is when the server accepted it (whole seconds).
	At time.Time
}

// storeEmail is one element of GET /store's "emails" (aws-ses-v2-local 2.10).
type storeEmail struct {
	MessageID   string   `json:"messageId"`
	From        string   `json:"from"`
	ReplyTo     []string `json:"replyTo"`
	Destination struct {
		To  []string `json:"to"`
		Cc  []string `json:"cc"`
		Bcc []string `json:"bcc"`
	} `json:"destination"`
	Subject string `json:"subject"`
	Body    struct {
		Text string `json:"text"`
		HTML string `json:"html"`
	} `json:"body"`
	At int64 `json:"at"`
}

// mailRequestTimeout bounds one request to the local SES server's store.
const mailRequestTimeout = 5 * time.Second

// ReceivedMail returns every message the aws-ses-v2-local server at endpoint (Server.Endpoint)
// has accepted since it started or since ClearMail, oldest first. The request is bounded by ctx
// and by 5 s.
func ReceivedMail(ctx context.Context, endpoint string) ([]ReceivedEmail, error) {
	var store struct {
		Emails []storeEmail `json:"emails"`
	}
	if err := sesStoreRequest(ctx, http.MethodGet, endpoint, "/store", &store); err != nil {
		return nil, err
	}
	out := make([]ReceivedEmail, 0, len(store.Emails))
	for _, e := range store.Emails {
		out = append(out, ReceivedEmail{
			MessageID: e.MessageID, From: e.From, ReplyTo: e.ReplyTo,
			To: e.Destination.To, Cc: e.Destination.Cc, Bcc: e.Destination.Bcc,
			Subject: e.Subject, Text: e.Body.Text, HTML: e.Body.HTML,
			At: time.Unix(e.At, 0),
		})
	}
	return out, nil
}

// ClearMail empties the server's store (POST /clear-store).
func ClearMail(ctx context.Context, endpoint string) error {
	return sesStoreRequest(ctx, http.MethodPost, endpoint, "/clear-store", nil)
}

// MailTo returns the messages of mails addressed (To) to addr, compared without case, in the
// order given.
func MailTo(mails []ReceivedEmail, addr string) []ReceivedEmail {
	var out []ReceivedEmail
	for _, m := range mails {
		for _, to := range m.To {
			if strings.EqualFold(to, addr) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

func sesStoreRequest(ctx context.Context, method, endpoint, path string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, mailRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(endpoint, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("devstack: local SES %s: %w", path, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("devstack: local SES %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("devstack: local SES %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("devstack: local SES %s: HTTP %d: %.200s", path, resp.StatusCode, body)
	}
	if into == nil {
		return nil
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("devstack: local SES %s: %w", path, err)
	}
	return nil
}

// StartTestSES starts aws-ses-v2-local for a test (skipped under -short, like every test that
// needs the local servers), stops it in tb.Cleanup (resuming it first if the test paused it) and
// logs its output when the test failed. DEVSTACK_VERBOSE=1 streams the output to stderr.
func StartTestSES(tb testing.TB) *Server {
	tb.Helper()
	RequireServers(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := SESOptions{}
	if os.Getenv("DEVSTACK_VERBOSE") != "" {
		opts.LogWriter = os.Stderr
	}
	srv, err := StartSES(ctx, opts)
	if err != nil {
		tb.Fatalf("devstack: start aws-ses-v2-local: %v", err)
	}
	tb.Cleanup(func() {
		_ = srv.Resume()
		srv.Stop()
		if tb.Failed() {
			tb.Logf("devstack: aws-ses-v2-local output:\n%s", srv.Logs())
		}
	})
	return srv
}
