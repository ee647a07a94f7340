package account

import (
	"testing"
	"time"
)

func TestAccountLockDoublesUpToAnHour(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var c Counter
	fail := func() (Counter, bool) {
		n, notify := accountRule.fail(live("k", &c, now), now)
		c = n
		return n, notify
	}
	for i := 1; i < AccountThreshold; i++ {
		if n, notify := fail(); !n.LockedUntil.IsZero() || notify || n.Failures != i || n.Version != int64(i) {
			t.Fatalf("failure %d: %+v notify %v", i, n, notify)
		}
	}
	n, notify := fail()
	if !notify || !n.LockedUntil.Equal(now.Add(time.Minute)) {
		t.Fatalf("threshold: %+v notify %v", n, notify)
	}
	// Each failure after a lock ends doubles the next lock, up to an hour; one email a window.
	want := []time.Duration{2, 4, 8, 16, 32, 60, 60}
	emails := 1
	for i, w := range want {
		now = c.LockedUntil
		n, notify := fail()
		if notify {
			emails++
		}
		if got := n.LockedUntil.Sub(now); got != w*time.Minute {
			t.Fatalf("lock %d: %s, want %d min", i+2, got, w)
		}
	}
	// 1+2+4+8+16+32+60+60 minutes spans several windows: one email per window.
	if emails < 2 || emails > 8 {
		t.Fatalf("%d emails", emails)
	}
	// A whole window without a lock starts the doubling over.
	now = c.LockedUntil.Add(AccountWindow)
	for range AccountThreshold {
		fail()
	}
	if got := c.LockedUntil.Sub(now); got != time.Minute {
		t.Fatalf("after a quiet window the lock is %s, want 1 min", got)
	}
	if !c.Expires.After(c.LockedUntil) {
		t.Fatal("the counter expires before its lock ends")
	}
}

func TestIPLockLastsTheWindow(t *testing.T) {
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var c Counter
	now := start
	for i := 1; i <= IPThreshold; i++ {
		c, _ = ipRule.fail(live("ip", &c, now), now)
		if i < IPThreshold && !c.LockedUntil.IsZero() {
			t.Fatalf("locked after %d failures", i)
		}
		now = now.Add(10 * time.Second)
	}
	if !c.LockedUntil.Equal(start.Add(IPWindow)) {
		t.Fatalf("locked until %s, want the window's end %s", c.LockedUntil, start.Add(IPWindow))
	}
}

func TestExpiredCounterIsAbsentButKeepsItsVersion(t *testing.T) {
	now := time.Now()
	c := &Counter{Key: "k", Failures: 4, Version: 7, Expires: now}
	if got := live("k", c, now); got.Failures != 0 || got.Version != 7 {
		t.Fatalf("live = %+v", got)
	}
	if got := live("k", nil, now); got.Version != 0 || got.Key != "k" {
		t.Fatalf("live(nil) = %+v", got)
	}
}

func TestIPKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":          "ip#203.0.113.7",
		"::ffff:203.0.113.7":   "ip#203.0.113.7",
		"2001:db8:1:2:3:4:5:6": "ip#2001:db8:1:2::/64",
		"2001:db8:1:2::99":     "ip#2001:db8:1:2::/64",
		"":                     "",
		"not an address":       "",
		"203.0.113.7:443":      "",
	} {
		if got := ipKey(in); got != want {
			t.Errorf("ipKey(%q) = %q, want %q", in, got, want)
		}
	}
	if accountKey("Rahim@Shop.com.bd") != accountKey("rahim@shop.COM.BD") {
		t.Error("account keys depend on letter case")
	}
}
