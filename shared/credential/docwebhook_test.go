package credential_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/credential"
	"github.com/takapay/payments/shared/foundation/apierr"
	"github.com/takapay/payments/shared/foundation/urlcheck"
)

// The document webhook takes the API's webhook_url rule (production policy here), is set per
// environment on the workspace item, and is cleared with "".
func TestSetDocumentWebhook(t *testing.T) {
	e := setup(t)
	ws := e.workspace(t)
	prod := urlcheck.Policy{}
	for _, bad := range []string{"http://hooks.example.com/x", "https://10.0.0.8/x", "https://169.254.169.254/latest",
		"https://localhost/x", "not a url"} {
		err := e.svc.SetDocumentWebhook(e.ctx, e.store, prod, ws, auth.Sandbox, bad)
		_, v, ok := apierr.FieldOf(err)
		if !ok || v.Path != "url" || v.Rule == "" {
			t.Errorf("%q: %v, want a url field error", bad, err)
		}
		if want := prod.CheckWebhook(bad); want == nil || v.Rule != want.Error() {
			t.Errorf("%q: rule %q, want the webhook_url rule's %v", bad, v.Rule, want)
		}
	}
	if err := e.svc.SetDocumentWebhook(e.ctx, e.store, prod, ws, "staging", "https://hooks.example.com/x"); err == nil {
		t.Error("an unknown environment was accepted")
	}
	if err := e.svc.SetDocumentWebhook(e.ctx, e.store, prod, uuid.NewString(), auth.Sandbox, "https://hooks.example.com/x"); !errors.Is(err, credential.ErrWorkspaceNotFound) {
		t.Errorf("unknown workspace: %v", err)
	}
	must := func(env auth.Environment, u string) {
		t.Helper()
		if err := e.svc.SetDocumentWebhook(e.ctx, e.store, prod, ws, env, u); err != nil {
			t.Fatalf("%s %q: %v", env, u, err)
		}
	}
	must(auth.Sandbox, " https://hooks.example.com/sandbox ")
	must(auth.Live, "https://hooks.example.com/live")
	w, err := e.store.FindWorkspace(e.ctx, ws)
	if err != nil || w.DocumentWebhook(auth.Sandbox) != "https://hooks.example.com/sandbox" ||
		w.DocumentWebhook(auth.Live) != "https://hooks.example.com/live" || w.Name == "" {
		t.Fatalf("workspace after setting both: %+v %v", w, err)
	}
	must(auth.Sandbox, "")
	w, err = e.store.FindWorkspace(e.ctx, ws)
	if err != nil || w.DocumentWebhook(auth.Sandbox) != "" || w.DocumentWebhook(auth.Live) != "https://hooks.example.com/live" {
		t.Fatalf("workspace after clearing sandbox: %+v %v", w, err)
	}
}
