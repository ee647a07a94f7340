// Package sesmail sends mail.Message through Amazon SES (API v2, SendEmail with Simple content:
// the text and HTML parts in UTF-8, SES builds the MIME message). It is the only code that knows
// SES; the domain composes messages with shared/mail and sends them through mail.Sender.
//
// Production: the function's role may call ses:SendEmail on the sender identity only, and the
// From address is a verified identity (template parameters). Locally and in tests the same
// client talks to aws-ses-v2-local (shared/local/devstack.StartSES) through BaseEndpoint.
package sesmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	takamail "github.com/takapay/payments/shared/mail"
)

// API is the one SES v2 operation the sender uses (*sesv2.Client satisfies it).
type API interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// DefaultTimeout bounds one Send, every retry of the SDK's retryer included. SES answers in
// well under a second; a call this slow is a hung dependency, and the caller (a dashboard
// request) has its own deadline too.
const DefaultTimeout = 5 * time.Second

// Config is the sender's identity and bounds.
type Config struct {
	// From is the verified SES identity mail is sent from: an address, optionally with a display
	// name ("Takapay <no-reply@mail.takapay.com.bd>"; a non-ASCII name is MIME-encoded).
	From string
	// ConfigurationSet is the SES configuration set to send with ("" for none).
	ConfigurationSet string
	// Timeout bounds one Send (DefaultTimeout when zero).
	Timeout time.Duration
}

// Sender is a mail.Sender over SES v2.
type Sender struct {
	api     API
	from    string
	confSet string
	timeout time.Duration
}

var _ takamail.Sender = (*Sender)(nil)

// New returns a Sender that calls api. It refuses a From that is not one address (with an
// optional display name) or that carries a control character.
func New(api API, cfg Config) (*Sender, error) {
	if api == nil {
		return nil, errors.New("sesmail: no SES client")
	}
	if strings.ContainsAny(cfg.From, "\r\n") {
		return nil, errors.New("sesmail: From must not contain CR or LF")
	}
	a, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("sesmail: From %q is not an email address: %w", cfg.From, err)
	}
	if cfg.Timeout < 0 {
		return nil, errors.New("sesmail: Timeout must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Sender{api: api, from: a.String(), confSet: cfg.ConfigurationSet, timeout: cfg.Timeout}, nil
}

// The environment variables a function reads its mail settings from (ConfigFromEnv).
const (
	// EnvFrom is the sender identity (Config.From), required: a verified SES identity on AWS.
	EnvFrom = "MAIL_FROM"
	// EnvConfigurationSet is the optional SES configuration set (Config.ConfigurationSet).
	EnvConfigurationSet = "MAIL_CONFIGURATION_SET"
	// EnvEndpoint is the SES endpoint, set only locally (make dev: aws-ses-v2-local); unset on
	// AWS, where the SDK resolves SES's regional endpoint.
	EnvEndpoint = "SES_ENDPOINT"
)

// ConfigFromEnv reads the sender's settings: the endpoint ("" on AWS) and the Config.
func ConfigFromEnv(lookup func(string) (string, bool)) (endpoint string, cfg Config, err error) {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	cfg = Config{From: get(EnvFrom), ConfigurationSet: get(EnvConfigurationSet)}
	if cfg.From == "" {
		return "", cfg, fmt.Errorf("sesmail: %s is not set", EnvFrom)
	}
	return get(EnvEndpoint), cfg, nil
}

// NewFromConfig builds the SES v2 client from awsCfg (its retryer, HTTP client and credentials;
// the functions use awsx.Load) and returns New's Sender. endpoint, when not "", is the client's
// BaseEndpoint (a local aws-ses-v2-local); "" leaves the SDK's resolution, which also reads
// AWS_ENDPOINT_URL_SESV2.
func NewFromConfig(awsCfg aws.Config, endpoint string, cfg Config) (*Sender, error) {
	client := sesv2.NewFromConfig(awsCfg, func(o *sesv2.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return New(client, cfg)
}

// FromEnv is the sender of a function whose environment names MAIL_FROM (and SES_ENDPOINT
// locally): nil, with the reason logged, when lookup is nil (route table tests) or the
// configuration is unusable; the dashboard then reports each email as not sent.
func FromEnv(awsCfg aws.Config, lookup func(string) (string, bool), logger *slog.Logger) takamail.Sender {
	if lookup == nil {
		return nil
	}
	endpoint, cfg, err := ConfigFromEnv(lookup)
	if err == nil {
		var s *Sender
		if s, err = NewFromConfig(awsCfg, endpoint, cfg); err == nil {
			return s
		}
	}
	if logger != nil {
		logger.Error("no email sender", slog.String("error", err.Error()))
	}
	return nil
}

// Send sends m: one SendEmail call under the sender's timeout (the SDK's retryer retries inside
// it). It refuses, without calling SES, a To or Subject that could add a header
// (mail.CheckHeaders) and a message with neither body.
func (s *Sender) Send(ctx context.Context, m takamail.Message) error {
	if err := takamail.CheckHeaders(m); err != nil {
		return fmt.Errorf("sesmail: %w", err)
	}
	if m.Text == "" && m.HTML == "" {
		return fmt.Errorf("sesmail: %w: the message has no body", takamail.ErrInvalid)
	}
	body := &types.Body{}
	if m.Text != "" {
		body.Text = utf8Content(m.Text)
	}
	if m.HTML != "" {
		body.Html = utf8Content(m.HTML)
	}
	in := &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(s.from),
		Destination:      &types.Destination{ToAddresses: []string{m.To}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: utf8Content(m.Subject),
			Body:    body,
		}},
	}
	if s.confSet != "" {
		in.ConfigurationSetName = aws.String(s.confSet)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if _, err := s.api.SendEmail(ctx, in); err != nil {
		return fmt.Errorf("sesmail: SendEmail: %w", err)
	}
	return nil
}

func utf8Content(s string) *types.Content {
	return &types.Content{Data: aws.String(s), Charset: aws.String("UTF-8")}
}
