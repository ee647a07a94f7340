// Package urlcheck validates merchant-supplied callback URLs (redirect_url,
// cancel_url, webhook_url, a document's return_url) at the API edge, rejecting junk and URLs that
// point at internal infrastructure (SSRF).
//
// Check is a syntactic, DNS-free check. A name that passes can still resolve
// to a private address, so whatever later connects to the URL must also
// check the resolved addresses with IsPublicIP at send time.
package urlcheck

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxLength is the longest callback URL accepted, in bytes.
const MaxLength = 2048

// maxHostLength is the longest DNS name accepted, without a trailing dot.
const maxHostLength = 253

// maxLabelLength is the longest DNS label accepted.
const maxLabelLength = 63

// Rule phrases returned in RuleError.Rule; they never mention a field name
// because callers prefix the field path themselves.
const (
	ruleEmpty       = "must not be empty"
	ruleTooLong     = "must be at most 2048 bytes"
	ruleControl     = "must not contain spaces or control characters"
	ruleBackslash   = "must not contain backslashes"
	ruleInvalid     = "must be a valid absolute URL"
	ruleHTTPS       = "must use https"
	ruleCredentials = "must not contain credentials"
	ruleHost        = "must have a host"
	rulePort        = "must have a numeric port between 1 and 65535"
	rulePunycode    = "must use the punycode (xn--) form for non-ASCII host names"
	ruleIP          = "must not be an IP address"
	ruleHostSyntax  = "must have a valid DNS host name"
	ruleLocalhost   = "must not point to localhost"
	ruleSingleLabel = "must use a fully qualified public host name"
	ruleReserved    = "must not use a reserved or internal domain"
	ruleFragment    = "must not contain a fragment"
)

// reservedSuffixes are special-use and conventionally internal DNS suffixes
// that never name a public merchant host; "metadata.google.internal" is
// covered by "internal".
var reservedSuffixes = []string{
	"local",
	"internal",
	"intranet",
	"lan",
	"home.arpa",
	"corp",
	"localdomain",
	"test",
	"example",
	"invalid",
	"onion",
}

// RuleError reports which URL rule a value broke, without naming the field.
type RuleError struct {
	// Rule is a short human phrase naming the broken rule, e.g. "must use https".
	Rule string
}

// Error returns the broken rule phrase.
func (e *RuleError) Error() string { return e.Rule }

func ruleErr(rule string) error { return &RuleError{Rule: rule} }

// Policy configures Check; the zero value is the production policy.
type Policy struct {
	// AllowLocalhost, set only by the local dev stack, additionally permits
	// http:// and https:// URLs whose host is exactly localhost, 127.0.0.1
	// or [::1], on any port.
	AllowLocalhost bool
}

// Check returns nil if raw is an acceptable callback URL under p, or a
// *RuleError naming the first rule it breaks.
//
// An acceptable URL is an absolute https URL of at most MaxLength bytes
// with no credentials, an optional numeric port in 1–65535, and a host
// that is a syntactically valid, multi-label, ASCII (punycode) DNS name
// outside localhost and the reserved/internal suffixes, never an IP
// address in any notation. Fragments are allowed; see CheckWebhook.
func (p Policy) Check(raw string) error {
	_, err := p.check(raw)
	return err
}

// CheckWebhook is Check plus the rule that the URL must not contain a
// fragment, which has no meaning for server-to-server requests.
func (p Policy) CheckWebhook(raw string) error {
	u, err := p.check(raw)
	if err != nil {
		return err
	}
	// After a successful parse a '#' can only be the fragment delimiter;
	// checking raw also catches an empty fragment ("https://a.com.bd/#").
	if u.Fragment != "" || strings.IndexByte(raw, '#') >= 0 {
		return ruleErr(ruleFragment)
	}
	return nil
}

func (p Policy) check(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, ruleErr(ruleEmpty)
	}
	if len(raw) > MaxLength {
		return nil, ruleErr(ruleTooLong)
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c == 0x7f {
			return nil, ruleErr(ruleControl)
		}
	}
	// Browsers treat '\' as '/' in http(s) URLs while net/url does not, so
	// a backslash lets the two disagree about which host a URL names.
	if strings.IndexByte(raw, '\\') >= 0 {
		return nil, ruleErr(ruleBackslash)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return nil, ruleErr(ruleInvalid)
	}

	devLocal := p.AllowLocalhost && isDevLocalhost(u)
	switch {
	case strings.EqualFold(u.Scheme, "https"):
	case devLocal && strings.EqualFold(u.Scheme, "http"):
	default:
		return nil, ruleErr(ruleHTTPS)
	}
	if u.Opaque != "" { // "https:shop.com.bd" has no authority at all
		return nil, ruleErr(ruleInvalid)
	}
	if u.User != nil {
		return nil, ruleErr(ruleCredentials)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, ruleErr(ruleHost)
	}
	if err := checkPort(u.Host); err != nil {
		return nil, err
	}
	if devLocal {
		return u, nil
	}
	if err := checkHost(u.Host, u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// isDevLocalhost reports whether u's host is exactly one of the loopback
// spellings the dev stack uses: localhost, 127.0.0.1 or [::1].
func isDevLocalhost(u *url.URL) bool {
	host := u.Host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "[::1]"
}

// checkPort validates the optional port in hostport (u.Host). An explicit
// but empty port ("host:") is rejected as junk.
func checkPort(hostport string) error {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 || strings.HasSuffix(hostport, "]") {
		return nil
	}
	port := hostport[i+1:]
	if port == "" || len(port) > 5 {
		return ruleErr(rulePort)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || port[0] == '+' || port[0] == '-' {
		return ruleErr(rulePort)
	}
	return nil
}

// checkHost applies the public DNS name rules to hostname, the host
// without port and brackets; hostport is the raw authority host.
func checkHost(hostport, hostname string) error {
	if strings.HasPrefix(hostport, "[") {
		return ruleErr(ruleIP)
	}
	for i := 0; i < len(hostname); i++ {
		if hostname[i] >= 0x80 {
			return ruleErr(rulePunycode)
		}
	}
	host := strings.ToLower(strings.TrimSuffix(hostname, "."))
	if host == "" {
		return ruleErr(ruleHostSyntax)
	}
	if looksLikeIP(host) {
		return ruleErr(ruleIP)
	}
	if len(host) > maxHostLength {
		return ruleErr(ruleHostSyntax)
	}
	for label := range strings.SplitSeq(host, ".") {
		if !validLabel(label) {
			return ruleErr(ruleHostSyntax)
		}
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ruleErr(ruleLocalhost)
	}
	if !strings.Contains(host, ".") {
		return ruleErr(ruleSingleLabel)
	}
	for _, suffix := range reservedSuffixes {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return ruleErr(ruleReserved)
		}
	}
	return nil
}

// looksLikeIP reports whether a lower-cased host would be read as an IP
// address by some URL parser: anything netip accepts, or any name whose last
// label is all decimal digits or a 0x-prefixed hex number (the WHATWG IPv4
// parser accepts forms such as "2130706433", "0x7f000001", "127.1" and
// "0177.0.0.1").
func looksLikeIP(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if isAll(last, isDecimal) {
		return true
	}
	return strings.HasPrefix(last, "0x") && isAll(last[2:], isHex)
}

func isDecimal(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDecimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

func isAll(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

// validLabel reports whether label is 1–63 characters of [A-Za-z0-9-] that
// neither starts nor ends with '-'.
func validLabel(label string) bool {
	if len(label) == 0 || len(label) > maxLabelLength || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	return isAll(label, func(c byte) bool {
		return isDecimal(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'
	})
}

// nonPublicPrefixes are the IPv4 and IPv6 ranges IsPublicIP rejects outright.
var nonPublicPrefixes = []netip.Prefix{
	// IPv4.
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network", includes unspecified
	netip.MustParsePrefix("10.0.0.0/8"),      // private
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared address space
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),   // private
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1 documentation
	netip.MustParsePrefix("192.168.0.0/16"),  // private
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2 documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3 documentation
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, includes broadcast

	// IPv6.
	netip.MustParsePrefix("::/96"),          // unspecified, loopback, deprecated IPv4-compatible
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001::/23"),      // IETF protocol assignments, includes Teredo
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("3fff::/20"),      // documentation
	netip.MustParsePrefix("fc00::/7"),       // unique-local
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("ff00::/8"),       // multicast
}

// Prefixes whose addresses embed an IPv4 address that decides reachability,
// and the only IPv6 block IANA allocates for global unicast.
var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64Prefix    = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64, IPv4 in the last 32 bits
	sixToFour      = netip.MustParsePrefix("2002::/16")    // 6to4, IPv4 in bits 16–47
)

// IsPublicIP reports whether ip is a globally routable unicast address that
// a webhook sender may connect to; it is false for invalid, loopback,
// private, link-local, unique-local, CGNAT, multicast, broadcast,
// unspecified, documentation, benchmarking and other reserved addresses,
// for IPv6 addresses outside the 2000::/3 global unicast block, and for
// IPv4-mapped, NAT64 and 6to4 forms of non-public IPv4 addresses.
func IsPublicIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64Prefix.Contains(ip):
			return IsPublicIP(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return IsPublicIP(netip.AddrFrom4([4]byte(b[2:6])))
		case !globalUnicast6.Contains(ip):
			// Everything outside 2000::/3 is special-purpose or unallocated;
			// the explicit prefixes below document the notable ones.
			return false
		}
	}
	for _, p := range nonPublicPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
