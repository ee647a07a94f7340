package webhook

import (
	"testing"

	"github.com/takapay/payments/shared/auth"
)

func TestScopeEncryptionContext(t *testing.T) {
	s := Scope{WorkspaceID: "0196a000-0000-7000-8000-00000000000a", Environment: auth.Live}
	ec := s.EncryptionContext()
	if len(ec) != 2 || ec["workspace_id"] != s.WorkspaceID || ec["environment"] != "live" {
		t.Errorf("EncryptionContext = %v", ec)
	}
	if s.Check() != nil || (Scope{Environment: auth.Live}).Check() == nil || (Scope{WorkspaceID: "w", Environment: "prod"}).Check() == nil {
		t.Error("Check")
	}
}
