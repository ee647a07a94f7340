// Package merchant is the merchant context (GET /v1/merchant/context, served by package
// merchantapi): what a merchant API key is (its workspace, merchant name, environment, key id
// and scopes) and what this release allows, so an integration can check its configuration
// without spending money. Nothing secret: never the key, its hash or its hint.
package merchant

import (
	"github.com/takapay/payments/shared/auth"
)

// PaymentsRelease is what this release allows for money: sandbox keys only (live keys get 403
// on every payment operation).
const PaymentsRelease = "sandbox-only"

// Release describes what the deployed release allows.
type Release struct {
	Payments string `json:"payments"`
}

// Context is the 200 body of GET /v1/merchant/context.
type Context struct {
	WorkspaceID  string           `json:"workspace_id"`
	MerchantName string           `json:"merchant_name"`
	Environment  auth.Environment `json:"environment"`
	KeyID        string           `json:"key_id"`
	Scopes       []auth.Scope     `json:"scopes"`
	Release      Release          `json:"release"`
}

// Describe is the context of an API key identity.
func Describe(id *auth.Identity) Context {
	c := Context{
		WorkspaceID:  id.WorkspaceID,
		MerchantName: id.WorkspaceName,
		KeyID:        id.CredentialID,
		Scopes:       append([]auth.Scope{}, id.Scopes...),
		Release:      Release{Payments: PaymentsRelease},
	}
	if len(id.Environments) == 1 {
		c.Environment = id.Environments[0]
	}
	return c
}
