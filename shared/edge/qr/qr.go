// Package qr draws the QR code of a public link (a payment link's URL) as an SVG or a PNG, for
// the dashboard to show, print or offer for download. It is plain Go: the code matrix comes from
// github.com/piglig/go-qr (zero-dependency, maintained), and the SVG and PNG are drawn here so the
// markup is ours (one <path>, an accessible <title>, a quiet zone) and the output deterministic:
// the same input always gives the same bytes, so a response can carry a strong ETag.
//
// The input is our own public link, never arbitrary user text: anything that is not an absolute
// http(s) URL of printable ASCII within MaxURLBytes is refused with a VALIDATION_FAILED error
// naming the argument and the rule (the caller names the field it came from).
package qr

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	goqr "github.com/piglig/go-qr"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// Bounds of the input.
const (
	// MaxURLBytes is the longest link encoded: 1,000 bytes of ASCII fit a version-26 code at
	// level M (121×121 modules), still scannable from a phone screen or a printed A6 card.
	MaxURLBytes = 1000
	// MinPNGSize and MaxPNGSize bound the PNG's side in pixels.
	MinPNGSize = 128
	MaxPNGSize = 1024
	// MaxTitleBytes bounds the SVG's accessible title (UTF-8 bytes; Bangla is 3 bytes a letter).
	MaxTitleBytes = 300
	// QuietZone is the white margin around the code, in modules (ISO/IEC 18004 asks for 4).
	QuietZone = 4
	// minPixelsPerModule is the least a PNG module may be drawn with: at one pixel a module
	// blurs into its neighbours as soon as the image is scaled.
	minPixelsPerModule = 2
)

// Media types of the two outputs, for a response's Content-Type. A standalone SVG served from
// our origin holds no script or external reference; serve it with a CSP of default-src 'none'.
const (
	SVGContentType = "image/svg+xml"
	PNGContentType = "image/png"
)

// SVGOptions are the SVG's presentation choices.
type SVGOptions struct {
	// Title is the SVG's accessible name, in the page's language (e.g. "পেমেন্ট লিংকের QR
	// কোড" or "QR code of the payment link"). Required; it is escaped, never trusted.
	Title string
}

// SVG returns the QR code of url (error correction M) as a standalone SVG document: role="img",
// a <title> first, the size given by its viewBox only (so CSS sizes it), a white background
// including the quiet zone, and every dark module in one <path>.
func SVG(url string, opts SVGOptions) ([]byte, error) {
	if err := checkTitle(opts.Title); err != nil {
		return nil, err
	}
	m, err := encode(url)
	if err != nil {
		return nil, err
	}
	n := len(m)
	side := n + 2*QuietZone
	var b bytes.Buffer
	b.Grow(256 + len(opts.Title) + n*n*2)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" shape-rendering="crispEdges">`, side, side)
	b.WriteString(`<title>`)
	_ = xml.EscapeText(&b, []byte(opts.Title)) // writes to a bytes.Buffer: cannot fail
	b.WriteString(`</title>`)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`, side, side)
	b.WriteString(`<path fill="#000" d="`)
	// One rectangle per horizontal run of dark modules: M x y h w v1 h -w z. Runs never overlap,
	// so the fill rule does not matter.
	for y := range n {
		for x := 0; x < n; {
			if !m[y][x] {
				x++
				continue
			}
			w := 1
			for x+w < n && m[y][x+w] {
				w++
			}
			b.WriteString("M")
			b.WriteString(strconv.Itoa(x + QuietZone))
			b.WriteString(" ")
			b.WriteString(strconv.Itoa(y + QuietZone))
			b.WriteString("h")
			b.WriteString(strconv.Itoa(w))
			b.WriteString("v1h-")
			b.WriteString(strconv.Itoa(w))
			b.WriteString("z")
			x += w
		}
	}
	b.WriteString(`"/></svg>`)
	return b.Bytes(), nil
}

// PNG returns the QR code of url (error correction M) as a size×size two-colour PNG. Modules are
// whole pixels (size divided by the code's width with its quiet zone, rounded down), the code is
// centred and the rest is white, so the quiet zone is at least QuietZone modules. A size outside
// MinPNGSize..MaxPNGSize, or too small to give each module minPixelsPerModule pixels for this
// url, is refused.
func PNG(url string, size int) ([]byte, error) {
	if size < MinPNGSize || size > MaxPNGSize {
		return nil, invalid("size", fmt.Sprintf("must be between %d and %d pixels", MinPNGSize, MaxPNGSize))
	}
	m, err := encode(url)
	if err != nil {
		return nil, err
	}
	n := len(m)
	scale := size / (n + 2*QuietZone)
	if scale < minPixelsPerModule {
		return nil, invalid("size", fmt.Sprintf("must be at least %d pixels for this link", minPixelsPerModule*(n+2*QuietZone)))
	}
	off := (size - n*scale) / 2
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.Gray{Y: 0xff}, color.Gray{Y: 0}})
	for y := range n {
		for x := range n {
			if !m[y][x] {
				continue
			}
			for py := off + y*scale; py < off+(y+1)*scale; py++ {
				row := img.Pix[py*img.Stride:]
				for px := off + x*scale; px < off+(x+1)*scale; px++ {
					row[px] = 1
				}
			}
		}
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("qr: png: %w", err)
	}
	return b.Bytes(), nil
}

// encode checks url and returns its code's modules (true is dark), row by row, without the quiet
// zone. The level is pinned to M (no boost) so the same link always gives the same code.
func encode(raw string) ([][]bool, error) {
	if err := CheckURL(raw); err != nil {
		return nil, err
	}
	segs, err := goqr.MakeSegments(raw)
	if err != nil {
		return nil, fmt.Errorf("qr: segments: %w", err)
	}
	code, err := goqr.EncodeSegments(segs, goqr.Medium, goqr.MinVersion, goqr.MaxVersion, -1, false)
	if err != nil {
		return nil, fmt.Errorf("qr: encode: %w", err)
	}
	n := code.Size()
	m := make([][]bool, n)
	for y := range n {
		m[y] = make([]bool, n)
		for x := range n {
			m[y][x] = code.Module(x, y)
		}
	}
	return m, nil
}

// CheckURL returns nil if raw may be encoded: an absolute http or https URL with a host, no
// credentials, of printable ASCII (no spaces: our links are already escaped) and at most
// MaxURLBytes long. Otherwise a VALIDATION_FAILED error naming "url" and the rule.
func CheckURL(raw string) error {
	if raw == "" {
		return invalid("url", "is required")
	}
	if len(raw) > MaxURLBytes {
		return invalid("url", fmt.Sprintf("must be at most %d bytes", MaxURLBytes))
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] >= 0x7f {
			return invalid("url", "must be printable ASCII without spaces")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("url", "must be a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return invalid("url", "must be an absolute http or https URL")
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return invalid("url", "must be an absolute http or https URL with a host")
	}
	if u.User != nil {
		return invalid("url", "must not contain credentials")
	}
	return nil
}

func checkTitle(t string) error {
	if strings.TrimSpace(t) == "" {
		return invalid("title", "is required")
	}
	if len(t) > MaxTitleBytes {
		return invalid("title", fmt.Sprintf("must be at most %d bytes", MaxTitleBytes))
	}
	if !utf8.ValidString(t) {
		return invalid("title", "must be valid UTF-8")
	}
	for _, r := range t {
		// XML 1.0 forbids most control characters; refuse them all rather than drop them.
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return invalid("title", "must not contain control characters")
		}
	}
	return nil
}

func invalid(path, rule string) error {
	return apierr.Invalid(apierr.Violation{Path: path, Rule: rule})
}
