// Package htmlw builds HTML documents in plain Go: a Builder to which the page code writes its
// constant markup as it is and every dynamic value through a helper that escapes it for where
// it goes (text, a double-quoted attribute value, a URL attribute).
//
// It exists instead of html/template to keep Lambda binaries small: text/template's
// reflection (reflect.Value.MethodByName with non-constant names) makes the linker keep every
// exported method of every reachable type, and html/template itself is large. htmlw uses no
// reflection and imports only io, slices and strings.
//
// The escaping matches html/template's for the same contexts, byte for byte, except that an
// unsafe URL becomes "#" (html/template writes "#ZgotmplZ") and mailto: URLs are unsafe too.
//
// The rules that keep a page safe, which the Builder cannot check:
//   - Raw is for constant markup (and verbatim trusted content such as an embedded script):
//     never pass it a value that came from a request, a database or a user.
//   - Element and attribute names are constants, written with Raw or as the name argument.
//   - Attribute values are always double-quoted: Attr and URLAttr write the quotes.
//   - Text and Attr are for text content and ordinary attribute values only: never inside
//     <script> or <style>, in an on* event handler, or in a style attribute.
//   - Any attribute that holds a URL (href, src, action, formaction, data-*-url…) is written
//     with URLAttr.
package htmlw

import (
	"io"
	"slices"
	"strings"
)

// Builder accumulates an HTML document. The zero value is ready to use.
type Builder struct {
	buf []byte
}

// Grow makes room for at least n more bytes.
func (b *Builder) Grow(n int) {
	b.buf = slices.Grow(b.buf, n)
}

// Raw writes s unescaped: constant markup, or trusted content written verbatim.
func (b *Builder) Raw(s string) {
	b.buf = append(b.buf, s...)
}

// Text writes s escaped as text content (also correct inside <title> and <textarea>).
func (b *Builder) Text(s string) {
	b.buf = appendEscaped(b.buf, s)
}

// Attr writes ` name="value"` with value escaped. name must be a constant, and not an event
// handler (on*), style or an attribute that holds a URL (use URLAttr).
func (b *Builder) Attr(name, value string) {
	b.buf = append(b.buf, ' ')
	b.buf = append(b.buf, name...)
	b.buf = append(b.buf, '=', '"')
	b.buf = appendEscaped(b.buf, value)
	b.buf = append(b.buf, '"')
}

// URLAttr writes ` name="url"` for an attribute that holds a URL (href, action, src…): url
// goes through SafeURL, then is escaped.
func (b *Builder) URLAttr(name, url string) {
	b.buf = append(b.buf, ' ')
	b.buf = append(b.buf, name...)
	b.buf = append(b.buf, '=', '"')
	b.buf = appendEscaped(b.buf, SafeURL(url))
	b.buf = append(b.buf, '"')
}

// Len returns the number of bytes written so far.
func (b *Builder) Len() int { return len(b.buf) }

// Bytes returns the document written so far; it aliases the Builder's buffer.
func (b *Builder) Bytes() []byte { return b.buf }

// String returns the document written so far.
func (b *Builder) String() string { return string(b.buf) }

// WriteTo writes the document to w in one Write.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b.buf)
	return int64(n), err
}

// escapes maps each byte that Text and Attr replace to its replacement; the others are "".
// They are html/template's: the five HTML specials (the quotes as numeric references, which
// every HTML and XML parser reads), '+' (so that no UTF-7 sequence survives) and NUL, which
// HTML parsers drop or replace, as U+FFFD.
var escapes = [256]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// EscapeString returns s escaped for text content or a double- or single-quoted attribute
// value: & < > " ' + and NUL are replaced; everything else, including bytes that are not
// UTF-8, is kept.
func EscapeString(s string) string {
	for i := 0; i < len(s); i++ {
		if escapes[s[i]] != "" {
			return string(appendEscaped(make([]byte, 0, len(s)+16), s))
		}
	}
	return s
}

func appendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if r := escapes[s[i]]; r != "" {
			dst = append(dst, s[start:i]...)
			dst = append(dst, r...)
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// UnsafeURL is what SafeURL returns for a URL it refuses: a link to the top of the page.
const UnsafeURL = "#"

// SafeURL returns url for a URL attribute: UnsafeURL if url has a scheme other than http or
// https (javascript:, data:, vbscript:, mailto:…), else url normalised so that it is a valid
// URL that cannot end the attribute: each byte other than the ASCII letters and digits,
// -._~ and the delimiters !#$&*+,/:;=?@[] is percent-encoded, except a % that starts a valid
// escape (" " becomes %20, "'" %27, "(" %28, "৳" %e0%a7%b3). The result still needs escaping
// (& and +) in the attribute; URLAttr does both.
//
// Any text before the first ':' that holds no '/' is taken as a scheme, so a relative URL
// with a colon in its first segment or query ("?next=a:b") is refused too, and so is a
// scheme hidden by spaces or control characters (" javascript:", "java\tscript:"). A
// scheme-relative URL ("//host/path") is allowed: it stays on http or https.
func SafeURL(url string) string {
	if scheme, _, ok := strings.Cut(url, ":"); ok && !strings.Contains(scheme, "/") &&
		!strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "http") {
		return UnsafeURL
	}
	for i := 0; i < len(url); i++ {
		if !urlKeep(url, i) {
			return string(appendNormalizedURL(make([]byte, 0, len(url)+16), url))
		}
	}
	return url
}

const hexDigits = "0123456789abcdef"

func appendNormalizedURL(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if !urlKeep(s, i) {
			c := s[i]
			dst = append(dst, s[start:i]...)
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&0xf])
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// urlKeep reports whether SafeURL keeps s[i] as it is (html/template's urlNormalizer).
func urlKeep(s string, i int) bool {
	c := s[i]
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case strings.IndexByte("-._~!#$&*+,/:;=?@[]", c) >= 0:
		return true
	case c == '%':
		return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
