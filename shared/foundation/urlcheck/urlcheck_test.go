package urlcheck

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

type checkCase struct {
	raw  string
	rule string // empty means accepted
}

func runChecks(t *testing.T, name string, check func(string) error, tests []checkCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(name+"/"+tc.raw, func(t *testing.T) {
			err := check(tc.raw)
			if tc.rule == "" {
				if err != nil {
					t.Fatalf("%s(%q) = %v; want nil", name, tc.raw, err)
				}
				return
			}
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("%s(%q) = %v; want *RuleError %q", name, tc.raw, err, tc.rule)
			}
			if re.Rule != tc.rule || err.Error() != tc.rule {
				t.Fatalf("%s(%q) rule = %q; want %q", name, tc.raw, re.Rule, tc.rule)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	long := "https://shop.com.bd/" + strings.Repeat("a", MaxLength-len("https://shop.com.bd/"))
	label63 := strings.Repeat("a", 63)
	host253 := strings.Repeat(label63+".", 3) + strings.Repeat("b", 253-3*64-len(".bd")) + ".bd"
	if len(host253) != 253 {
		t.Fatalf("test setup: len(host253) = %d", len(host253))
	}
	tests := []checkCase{
		// Accepted.
		{"https://shop.com.bd", ""},
		{"https://shop.com.bd/", ""},
		{"https://shop.com.bd/payments/callback?order=42&status=ok", ""},
		{"https://shop.com.bd/cb#done", ""}, // fragments are the caller's business
		{"HTTPS://Shop.COM.bd/cb", ""},
		{"https://shop.com.bd./cb", ""}, // one trailing dot is normalised away
		{"https://pay.shop.com.bd:8443/cb", ""},
		{"https://shop.com.bd:1/", ""},
		{"https://shop.com.bd:65535/", ""},
		{"https://xn--45be4a8a4an7e.xn--54b7fta0cc/cb", ""}, // punycode IDN
		{"https://my-shop.com.bd/", ""},
		{"https://1shop.com.bd/", ""}, // digits are fine except in the last label
		{"https://shop.example.com/", ""},
		{"https://test.com.bd/", ""},
		{"https://localhost.com.bd/", ""},
		{"https://" + label63 + ".com.bd/", ""},
		{"https://" + host253 + "/", ""},
		{long, ""},

		// Empty, too long, control characters.
		{"", ruleEmpty},
		{long + "a", ruleTooLong},
		{"https://shop.com.bd/a b", ruleControl},
		{" https://shop.com.bd/", ruleControl},
		{"https://shop.com.bd/\n", ruleControl},
		{"https://shop.com.bd/\t", ruleControl},
		{"https://shop.com.bd/\x00", ruleControl},
		{"https://shop.com.bd/\x7f", ruleControl},
		{`https://shop.com.bd\@evil.com/`, ruleBackslash},
		{`https://evil.com\.shop.com.bd/`, ruleBackslash},

		// Not an absolute URL.
		{"shop.com.bd/cb", ruleInvalid},
		{"//shop.com.bd/cb", ruleInvalid},
		{"/cb", ruleInvalid},
		{"https:shop.com.bd", ruleInvalid},
		{"https://shop.com.bd/%zz", ruleInvalid},
		{"https://shop%2Ecom.bd/", ruleInvalid},
		{"https://shop.com.bd:https/", ruleInvalid},
		{"https://[v1.x]/", ruleInvalid},
		{"://shop.com.bd", ruleInvalid},

		// Scheme.
		{"http://shop.com.bd", ruleHTTPS},
		{"ftp://shop.com.bd/", ruleHTTPS},
		{"javascript:alert(1)", ruleHTTPS},
		{"file:///etc/passwd", ruleHTTPS},
		{"gopher://shop.com.bd/", ruleHTTPS},
		{"http://localhost:8080/cb", ruleHTTPS},
		{"httpss://shop.com.bd/", ruleHTTPS},

		// Credentials.
		{"https://user:pw@shop.com.bd", ruleCredentials},
		{"https://user@shop.com.bd", ruleCredentials},
		{"https://@shop.com.bd", ruleCredentials},
		{"https://shop.com.bd@evil.com/", ruleCredentials},

		// Host presence.
		{"https:///cb", ruleHost},
		{"https://:443/", ruleHost},
		{"https://?x", ruleHost},

		// Port.
		{"https://shop.com.bd:0/", rulePort},
		{"https://shop.com.bd:65536/", rulePort},
		{"https://shop.com.bd:99999/", rulePort},
		{"https://shop.com.bd:000000443/", rulePort},
		{"https://shop.com.bd:/", rulePort},

		// Non-ASCII host.
		{"https://দোকান.বাংলা/", rulePunycode},
		{"https://%E0%A6%AC.com/", rulePunycode},
		{"https://shop.com.bd/পথ", ""}, // non-ASCII outside the host is left to encoding

		// IP literals in every notation.
		{"https://169.254.169.254/latest", ruleIP},
		{"https://127.0.0.1/", ruleIP},
		{"https://8.8.8.8/", ruleIP},
		{"https://0.0.0.0/", ruleIP},
		{"https://[::1]/", ruleIP},
		{"https://[fd00::1]/", ruleIP},
		{"https://[2606:4700::1111]:443/", ruleIP},
		{"https://[::ffff:127.0.0.1]/", ruleIP},
		{"https://[fe80::1%25en0]/", ruleIP},
		{"https://2130706433/", ruleIP},
		{"https://0x7f000001/", ruleIP},
		{"https://0X7F000001/", ruleIP},
		{"https://127.1/", ruleIP},
		{"https://0177.0.0.1/", ruleIP},
		{"https://0x7f.0.0.1/", ruleIP},
		{"https://127.0.0.0x1/", ruleIP},
		{"https://foo.0x/", ruleIP},
		{"https://shop.123/", ruleIP},
		{"https://127.0.0.1./", ruleIP},
		{"https://169.254.169.254:80/", ruleIP},

		// Host name syntax.
		{"https://./", ruleHostSyntax},
		{"https://shop..com.bd/", ruleHostSyntax},
		{"https://.shop.com.bd/", ruleHostSyntax},
		{"https://shop.com.bd../", ruleHostSyntax},
		{"https://-shop.com.bd/", ruleHostSyntax},
		{"https://shop-.com.bd/", ruleHostSyntax},
		{"https://sh_op.com.bd/", ruleHostSyntax},
		{"https://shop.com.bd%25x/", ruleHostSyntax},
		{"https://shop!.com.bd/", ruleHostSyntax},
		{"https://" + label63 + "a.com.bd/", ruleHostSyntax},
		{"https://a" + host253 + "/", ruleHostSyntax},

		// Localhost.
		{"https://localhost", ruleLocalhost},
		{"https://localhost/", ruleLocalhost},
		{"https://LocalHost:8443/", ruleLocalhost},
		{"https://localhost./", ruleLocalhost},
		{"https://foo.localhost", ruleLocalhost},
		{"https://a.b.localhost/", ruleLocalhost},

		// Single-label names.
		{"https://intranet/", ruleSingleLabel},
		{"https://metadata/", ruleSingleLabel},
		{"https://shop./", ruleSingleLabel},
		{"https://com/", ruleSingleLabel},

		// Reserved and internal suffixes.
		{"https://printer.local/", ruleReserved},
		{"https://metadata.google.internal/computeMetadata/v1/", ruleReserved},
		{"https://wiki.intranet/", ruleReserved},
		{"https://nas.lan/", ruleReserved},
		{"https://router.home.arpa/", ruleReserved},
		{"https://erp.corp/", ruleReserved},
		{"https://box.localdomain/", ruleReserved},
		{"https://shop.test/", ruleReserved},
		{"https://shop.example/", ruleReserved},
		{"https://shop.invalid/", ruleReserved},
		{"https://abcdefghijklmnop.onion/", ruleReserved},
		{"https://SHOP.LOCAL./", ruleReserved},
	}
	runChecks(t, "Check", Policy{}.Check, tests)
}

func TestCheckAllowLocalhost(t *testing.T) {
	dev := Policy{AllowLocalhost: true}
	tests := []checkCase{
		{"http://localhost:8080/cb", ""},
		{"http://localhost/cb", ""},
		{"https://localhost:8443/cb", ""},
		{"http://LOCALHOST:3000/", ""},
		{"http://127.0.0.1:9/x", ""},
		{"https://127.0.0.1/x", ""},
		{"http://[::1]:8080/cb", ""},
		{"http://[::1]/cb", ""},
		{"https://shop.com.bd/cb", ""},

		// Nothing else loosens.
		{"http://10.0.0.1", ruleHTTPS},
		{"https://10.0.0.1/", ruleIP},
		{"http://shop.com.bd", ruleHTTPS},
		{"http://foo.localhost/", ruleHTTPS},
		{"https://foo.localhost/", ruleLocalhost},
		{"http://localhost./", ruleHTTPS},
		{"http://127.0.0.2/", ruleHTTPS},
		{"http://127.1/", ruleHTTPS},
		{"http://[0:0::1]/", ruleHTTPS},
		{"http://[::ffff:127.0.0.1]/", ruleHTTPS},
		{"http://0.0.0.0:8080/", ruleHTTPS},
		{"http://user:pw@localhost:8080/", ruleCredentials},
		{"http://localhost:0/", rulePort},
		{"http://localhost:/", rulePort},
		{"ftp://localhost/", ruleHTTPS},
		{"https://intranet/", ruleSingleLabel},
	}
	runChecks(t, "Check", dev.Check, tests)
}

func TestCheckWebhook(t *testing.T) {
	tests := []checkCase{
		{"https://shop.com.bd/webhooks/takapay", ""},
		{"https://shop.com.bd/webhooks?id=1", ""},
		{"https://shop.com.bd/webhooks#frag", ruleFragment},
		{"https://shop.com.bd/webhooks#", ruleFragment},
		{"https://shop.com.bd#", ruleFragment},
		{"http://shop.com.bd/#x", ruleHTTPS},
		{"https://10.0.0.1/#x", ruleIP},
	}
	runChecks(t, "CheckWebhook", Policy{}.CheckWebhook, tests)
	runChecks(t, "CheckWebhookDev", Policy{AllowLocalhost: true}.CheckWebhook, []checkCase{
		{"http://localhost:8080/hook", ""},
		{"http://localhost:8080/hook#x", ruleFragment},
	})
}

func TestRulesDoNotNameFields(t *testing.T) {
	if ruleTooLong != "must be at most "+strconv.Itoa(MaxLength)+" bytes" {
		t.Errorf("ruleTooLong = %q does not match MaxLength %d", ruleTooLong, MaxLength)
	}
	for _, r := range []string{ruleEmpty, ruleTooLong, ruleControl, ruleBackslash, ruleInvalid, ruleHTTPS,
		ruleCredentials, ruleHost, rulePort, rulePunycode, ruleIP, ruleHostSyntax, ruleLocalhost,
		ruleSingleLabel, ruleReserved, ruleFragment} {
		lr := strings.ToLower(r)
		if strings.Contains(lr, "url") && r != ruleInvalid || strings.Contains(lr, "redirect") || strings.Contains(lr, "webhook") || strings.Contains(lr, "cancel") {
			t.Errorf("rule %q names a field", r)
		}
	}
}

func TestIsPublicIP(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		// Public.
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"103.4.145.1", true}, // a Bangladeshi allocation
		{"100.63.255.255", true},
		{"100.128.0.0", true},
		{"172.15.255.255", true},
		{"172.32.0.0", true},
		{"192.0.1.1", true},
		{"192.0.3.1", true},
		{"192.169.0.1", true},
		{"198.17.255.255", true},
		{"198.20.0.0", true},
		{"223.255.255.255", true},
		{"2606:4700:4700::1111", true},
		{"2001:4860:4860::8888", true},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8
		{"2002:808:808::1", true},  // 6to4 of 8.8.8.8
		{"2400:cb00::1", true},

		// IPv4 special-purpose.
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"10.0.0.1", false},
		{"10.255.255.255", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"169.254.169.254", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"192.168.1.1", false},
		{"198.18.0.1", false},
		{"198.19.255.255", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},

		// IPv6 special-purpose.
		{"::", false},
		{"::1", false},
		{"::127.0.0.1", false}, // deprecated IPv4-compatible
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"febf::1", false},
		{"fec0::1", false},
		{"fc00::1", false},
		{"fd00::1", false},
		{"fd12:3456:789a::1", false},
		{"ff02::1", false},
		{"ff0e::1", false},
		{"2001:db8::1", false},
		{"2001:db8:ffff::1", false},
		{"3fff::1", false},
		{"100::1", false},
		{"2001::1", false}, // Teredo
		{"64:ff9b:1::1", false},
		{"::ffff:0:a00:1", false}, // IPv4-translated, outside 2000::/3
		{"1::1", false},           // unallocated, outside 2000::/3
		{"4000::1", false},        // unallocated, outside 2000::/3
		{"2a00:1450:4001::1", true},

		// Embedded non-public IPv4.
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:0.0.0.0", false},
		{"::ffff:255.255.255.255", false},
		{"64:ff9b::a00:1", false},     // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"2002:a00:1::1", false},      // 6to4 of 10.0.0.1
		{"2002:7f00:1::", false},      // 6to4 of 127.0.0.1
		{"2002:c0a8:101::1", false},   // 6to4 of 192.168.1.1
	}
	for _, tc := range tests {
		ip := netip.MustParseAddr(tc.ip)
		if got := IsPublicIP(ip); got != tc.want {
			t.Errorf("IsPublicIP(%s) = %v; want %v", tc.ip, got, tc.want)
		}
	}
	if IsPublicIP(netip.Addr{}) {
		t.Error("IsPublicIP(zero Addr) = true; want false")
	}
}

// TestIsPublicIPAgreesWithNetip cross-checks IsPublicIP against the netip
// classifiers over the whole IPv4 space at a coarse stride.
func TestIsPublicIPAgreesWithNetip(t *testing.T) {
	for i := uint64(0); i < 1<<32; i += 65521 {
		v := uint32(i)
		ip := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		special := ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
			ip.IsMulticast() || ip.IsUnspecified() || !ip.IsGlobalUnicast()
		if special && IsPublicIP(ip) {
			t.Errorf("IsPublicIP(%s) = true for a netip-special address", ip)
		}
		mapped := netip.AddrFrom16(ip.As16())
		if IsPublicIP(mapped) != IsPublicIP(ip) {
			t.Errorf("IsPublicIP(%s) disagrees with its IPv4-mapped form", ip)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"https://shop.com.bd/cb", "https://shop.com.bd:8443/cb?x=1#y", "http://shop.com.bd",
		"https://169.254.169.254/latest", "https://[::1]/", "https://[fd00::1]/",
		"https://0.0.0.0/", "https://user:pw@shop.com.bd", "https://localhost",
		"https://foo.localhost", "https://intranet/", "https://2130706433/",
		"https://0x7f000001/", "https://127.1/", "https://0177.0.0.1/", "http://localhost:8080/cb",
		"http://127.0.0.1:9/x", "http://[::1]:8080/", "https://shop.com.bd./",
		"https://metadata.google.internal/", "https://xn--45be4a8a4an7e.xn--54b7fta0cc/",
		"https://দোকান.বাংলা/", "https://shop.com.bd:0/", `https://a.com\@b.com/`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, allowLocalhost bool) {
		// Long inputs only exercise the length rule (covered by TestCheck)
		// and make the engine spend its time minimizing instead of exploring.
		if len(raw) > 512 {
			return
		}
		p := Policy{AllowLocalhost: allowLocalhost}
		err := p.Check(raw)
		werr := p.CheckWebhook(raw)
		for _, e := range []error{err, werr} {
			var re *RuleError
			if e != nil && (!errors.As(e, &re) || re.Rule == "") {
				t.Fatalf("error %v is not a *RuleError", e)
			}
		}
		if werr == nil && err != nil {
			t.Fatalf("CheckWebhook(%q) accepted what Check rejected: %v", raw, err)
		}
		if err != nil {
			return
		}
		if len(raw) > MaxLength {
			t.Fatalf("Check accepted %d bytes", len(raw))
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("Check(%q) accepted an unparsable URL: %v", raw, perr)
		}
		if u.User != nil {
			t.Fatalf("Check(%q) accepted userinfo", raw)
		}
		if werr == nil && strings.Contains(raw, "#") {
			t.Fatalf("CheckWebhook(%q) accepted a fragment", raw)
		}
		host := u.Hostname()
		if allowLocalhost {
			bracketed := host
			if strings.HasPrefix(u.Host, "[") {
				bracketed = "[" + host + "]"
			}
			switch strings.ToLower(bracketed) {
			case "localhost", "127.0.0.1", "[::1]":
				return
			}
		}
		if u.Scheme != "https" {
			t.Fatalf("Check(%q) accepted scheme %q", raw, u.Scheme)
		}
		if !strings.Contains(strings.TrimSuffix(host, "."), ".") {
			t.Fatalf("Check(%q) accepted host %q without a dot", raw, host)
		}
		if _, err := netip.ParseAddr(host); err == nil {
			t.Fatalf("Check(%q) accepted IP host %q", raw, host)
		}
		lh := strings.ToLower(strings.TrimSuffix(host, "."))
		if lh == "localhost" || strings.HasSuffix(lh, ".localhost") || strings.HasSuffix(lh, ".internal") {
			t.Fatalf("Check(%q) accepted internal host %q", raw, host)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	urls := []string{
		"https://shop.com.bd/payments/callback?order=42&status=ok",
		"https://pay.merchant.com.bd:8443/cb",
		"https://169.254.169.254/latest",
		"http://shop.com.bd/",
	}
	var p Policy
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = p.Check(urls[i%len(urls)])
	}
}
