package credential

import (
	"context"
	"fmt"
	"strings"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// DocumentWebhookStore keeps a workspace's document webhook (shared/aws/dynamo implements it).
type DocumentWebhookStore interface {
	// SetDocumentWebhook sets (or, with "", removes) the workspace's document webhook for env:
	// one UpdateItem of the workspace item, conditional on the workspace existing.
	SetDocumentWebhook(ctx context.Context, workspaceID string, env auth.Environment, url string) error
}

// SetDocumentWebhook sets where the payments that payers start on the workspace's public
// invoice and payment-link pages in env send their webhook events ("" stops them). The URL
// must pass the webhook_url rules of the API's payment create (urls.CheckWebhook: https, a
// public host; the same rule, not a copy), and the sender checks it again at each send.
func (s *Service) SetDocumentWebhook(ctx context.Context, st DocumentWebhookStore, urls urlcheck.Policy, ws string, env auth.Environment, rawURL string) error {
	if err := checkEnvironment(env); err != nil {
		return err
	}
	u := strings.TrimSpace(rawURL)
	if u != "" {
		if len(u) > 2048 {
			return invalid("url", "must be at most 2048 characters")
		}
		if err := urls.CheckWebhook(u); err != nil {
			return invalid("url", err.Error())
		}
	}
	if _, err := s.workspace(ctx, ws); err != nil {
		return err
	}
	if err := st.SetDocumentWebhook(ctx, ws, env, u); err != nil {
		return fmt.Errorf("set document webhook: %w", err)
	}
	return nil
}
