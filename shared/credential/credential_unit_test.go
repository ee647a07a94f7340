package credential

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/foundation/apierr"
)

func TestParseGrace(t *testing.T) {
	good := map[string]Grace{"now": 0, "1h": Grace(time.Hour), "24h": Grace(24 * time.Hour), "7d": Grace(7 * 24 * time.Hour)}
	for in, want := range good {
		g, err := ParseGrace(in)
		if err != nil || g != want || g.String() != in {
			t.Errorf("ParseGrace(%q) = %v, %v; want %v", in, g, err, want)
		}
	}
	for _, in := range []string{"", "2h", "0", "0s", "1H", "NOW", " now", "now ", "7d0h", "168h", "1h0m0s", "-1h", "30d", "1d"} {
		_, err := ParseGrace(in)
		if _, v, ok := apierr.FieldOf(err); !ok || v.Path != "grace" || v.Rule != "must be one of now, 1h, 24h, 7d" {
			t.Errorf("ParseGrace(%q) error = %v, want a FieldError on grace", in, err)
			continue
		}
		// The edge maps it, without knowing this package, to 422 naming the field and rule.
		ae := apierr.As(err)
		if ae.Status() != http.StatusUnprocessableEntity || ae.Code != apierr.ValidationFailed ||
			len(ae.Violations) != 1 || ae.Violations[0].Path != "grace" || !strings.Contains(ae.Message, "grace: must be one of now, 1h, 24h, 7d") {
			t.Errorf("apierr.As(ParseGrace(%q)) = %+v", in, ae)
		}
	}
}

func TestCheckGrace(t *testing.T) {
	// A dashboard user may give only the four graces, whatever the Go value.
	for _, g := range []Grace{GraceNow, Grace1h, Grace24h, Grace7d} {
		if err := checkGrace(g, "user-1", maxKeyGrace); err != nil {
			t.Errorf("checkGrace(%v, user) = %v", g, err)
		}
	}
	for _, g := range []Grace{Grace(2 * time.Hour), Grace(-time.Hour), Grace(time.Minute)} {
		if err := checkGrace(g, "user-1", maxKeyGrace); err == nil {
			t.Errorf("checkGrace(%v, user) accepted", g)
		}
	}
	// The operator gives any grace from 0 to the bound.
	if err := checkGrace(Grace(2*time.Hour), Operator, MaxWebhookGrace); err != nil {
		t.Errorf("operator 2h: %v", err)
	}
	for _, g := range []Grace{Grace(-time.Second), Grace(MaxWebhookGrace + time.Second)} {
		if err := checkGrace(g, Operator, MaxWebhookGrace); err == nil {
			t.Errorf("operator %v accepted", g)
		}
	}
}

func TestValidKeyID(t *testing.T) {
	id, err := auth.NewKeyID()
	if err != nil {
		t.Fatal(err)
	}
	if !validKeyID(id) {
		t.Errorf("validKeyID(%q) = false", id)
	}
	for _, bad := range []string{"", "key_", "key_doesnotexist0000000", id + "0", id[:len(id)-1], "KEY_" + id[4:],
		"key_0000000000000000000#", "key_00000000000000000/0", "key_000000000000000000é", "APIKEY#" + id, " " + id} {
		if validKeyID(bad) {
			t.Errorf("validKeyID(%q) = true", bad)
		}
	}
}

func TestCheckKeyName(t *testing.T) {
	if n, err := checkKeyName("  web server  ", "u"); err != nil || n != "web server" {
		t.Errorf("trim: %q, %v", n, err)
	}
	if n, err := checkKeyName("ক্\u200dষ", "u"); err != nil || n == "" { // ZWJ in Bangla is text
		t.Errorf("Bangla with ZWJ: %v", err)
	}
	if n, err := checkKeyName(strings.Repeat("ক", MaxKeyName), "u"); err != nil || n == "" {
		t.Errorf("64 Bangla letters: %v", err)
	}
	for in, rule := range map[string]string{
		"":                                "is required",
		"   ":                             "is required",
		strings.Repeat("a", MaxKeyName+1): "must be at most 64 characters",
		"a\nb":                            "must not contain control characters",
		"a\x00b":                          "must not contain control characters",
		"bad\xffutf8":                     "must not contain control characters",
	} {
		_, err := checkKeyName(in, "u")
		if _, v, ok := apierr.FieldOf(err); !ok || v.Path != "name" || v.Rule != rule {
			t.Errorf("checkKeyName(%q) = %v, want name: %s", in, err, rule)
		}
	}
	// The operator may leave the name empty, as paymentsctl key issue always could.
	if n, err := checkKeyName("", Operator); err != nil || n != "" {
		t.Errorf("operator empty name: %q, %v", n, err)
	}
}

func TestCheckScopes(t *testing.T) {
	got, err := checkScopes([]auth.Scope{auth.DocumentsRead, auth.PaymentsWrite, auth.DocumentsRead})
	if err != nil || len(got) != 2 || got[0] != auth.PaymentsWrite || got[1] != auth.DocumentsRead {
		t.Errorf("checkScopes = %v, %v", got, err)
	}
	for _, in := range [][]auth.Scope{nil, {}, {"admin"}, {auth.PaymentsRead, "payments:*"}, {"PAYMENTS:READ"}} {
		_, err := checkScopes(in)
		if _, v, ok := apierr.FieldOf(err); !ok || v.Path != "scopes" {
			t.Errorf("checkScopes(%v) = %v", in, err)
		}
	}
}

func TestErrorsMapToTheEnvelope(t *testing.T) {
	for err, status := range map[error]int{
		ErrKeyNotFound: 404, ErrWorkspaceNotFound: 404, ErrKeyInactive: 409, ErrKeyRolled: 409,
		ErrTooManyKeys: 409, ErrWebhookSecretExists: 409, ErrNoWebhookSecret: 409, ErrTooManyWebhookSecrets: 409,
	} {
		// The refusal is the envelope's error itself: its code and message as they are.
		if ae := apierr.As(err); ae.Status() != status || error(ae) != err {
			t.Errorf("apierr.As(%v) = %+v (status %d), want %d", err, ae, ae.Status(), status)
		}
	}
}
