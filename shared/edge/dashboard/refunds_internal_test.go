package dashboard

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/refund"
)

// The Refund form's token names one refund: the same token, workspace, environment and payment
// give the same id, a uuid v7 with the token's time (so it sorts as a new refund would);
// another token, workspace, environment or payment gives another; a token this page does not
// make, one older than a day or one from the future is refused.
func TestRefundIDFromToken(t *testing.T) {
	now := time.Date(2026, 11, 28, 4, 30, 0, 0, time.UTC)
	sc := refund.Scope{WorkspaceID: "ws-1", Environment: auth.Sandbox, By: "u-1"}
	tok := newRefundToken(now)
	id, ok := refundIDFrom(sc, payID, tok, now.Add(time.Minute))
	if !ok {
		t.Fatalf("a fresh token %s refused", tok)
	}
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 || id == tok {
		t.Fatalf("id %s (from %s): %v, version %d", id, tok, err, u.Version())
	}
	if sec, _ := u.Time().UnixTime(); sec != now.Unix() {
		t.Errorf("the id's time is %d, the token's %d", sec, now.Unix())
	}
	if again, _ := refundIDFrom(sc, payID, tok, now.Add(time.Hour)); again != id {
		t.Errorf("the same token names %s, then %s", id, again)
	}
	other := sc
	other.WorkspaceID = "ws-2"
	live := sc
	live.Environment = auth.Live
	for name, got := range map[string]string{
		"another token":     first(refundIDFrom(sc, payID, newRefundToken(now), now)),
		"another workspace": first(refundIDFrom(other, payID, tok, now)),
		"live":              first(refundIDFrom(live, payID, tok, now)),
		"another payment":   first(refundIDFrom(sc, invoice1, tok, now)),
	} {
		if got == id || got == "" {
			t.Errorf("%s: id %q", name, got)
		}
	}
	for name, bad := range map[string]string{
		"not a uuid":  "not-a-token",
		"uuid v4":     "0b7e6f2c-3c1d-4f5e-9a8b-7c6d5e4f3a2b",
		"a day old":   newRefundToken(now.Add(-25 * time.Hour)),
		"future":      newRefundToken(now.Add(time.Hour)),
		"braces form": "{" + tok + "}",
	} {
		if _, ok := refundIDFrom(sc, payID, bad, now); ok {
			t.Errorf("%s token %q accepted", name, bad)
		}
	}
}

func first(s string, _ bool) string { return s }
