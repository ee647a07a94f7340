package payment

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The attempt log keeps the latest AttemptLogSize attempts, oldest first, in whole seconds,
// each error cut to AttemptErrorMax bytes on a rune boundary; the delivery it grows from is
// left as it was.
func TestLogAttempt(t *testing.T) {
	var d *Delivery
	at := time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.FixedZone("Dhaka", 6*3600))
	log := d.LogAttempt(Attempt{At: at, HTTPStatus: 503, DurationMS: 12})
	if len(log) != 1 || !log[0].At.Equal(at.Truncate(time.Second)) || log[0].At.Location() != time.UTC {
		t.Fatalf("first attempt: %+v", log)
	}
	d = &Delivery{}
	for i := range 15 {
		d.AttemptLog = d.LogAttempt(Attempt{At: at.Add(time.Duration(i) * time.Minute), HTTPStatus: 500 + i})
	}
	if len(d.AttemptLog) != AttemptLogSize || d.AttemptLog[0].HTTPStatus != 505 || d.AttemptLog[9].HTTPStatus != 514 {
		t.Fatalf("after 15 attempts: %+v", d.AttemptLog)
	}
	before := append([]Attempt(nil), d.AttemptLog...)
	long := strings.Repeat("ঢাকা ", 20) // 3-byte runes
	next := d.LogAttempt(Attempt{At: at, Error: long})
	if e := next[9].Error; len(e) > AttemptErrorMax || !utf8.ValidString(e) || !strings.HasPrefix(long, e) || len(e) < AttemptErrorMax-3 {
		t.Errorf("error kept as %q (%d bytes)", e, len(e))
	}
	for i := range before {
		if d.AttemptLog[i] != before[i] {
			t.Fatal("LogAttempt changed the delivery's own log")
		}
	}
	if got := MaskPayer("01712345678"); got != "017•••••678" {
		t.Errorf("MaskPayer = %q", got)
	}
}
