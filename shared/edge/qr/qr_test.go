package qr

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	"golang.org/x/image/vector"

	"github.com/takapay/payments/shared/foundation/apierr"
)

// urlOfLen returns a plausible payment-link URL of exactly n bytes.
func urlOfLen(n int) string {
	u := "https://pay.takapay.com.bd/l/plink_01JD6Y8ZK3Q?ref="
	for i := 0; len(u) < n; i++ {
		u += string("abcdefghijklmnopqrstuvwxyz0123456789-_"[i%38])
	}
	return u[:n]
}

var goodURLs = []string{
	"https://pay.takapay.com.bd/l/plink_01JD6Y8ZK3QW5Z",
	"http://localhost:3000/l/plink_01JD6Y8ZK3QW5Z",
	"http://127.0.0.1:49152/l/plink_x?lang=bn&utm_source=facebook#top",
	"https://pay.takapay.com.bd/l/%E0%A6%A2%E0%A6%BE%E0%A6%95%E0%A6%BE?q=a+b",
	"HTTPS://PAY.TAKAPAY.COM.BD/L/ABC123", // alphanumeric mode
	urlOfLen(500),
	urlOfLen(MaxURLBytes - 1),
	urlOfLen(MaxURLBytes),
}

// decode reads one QR code from img with ZXing's reader (an independent, widely used decoder)
// and returns its text and error-correction level.
func decode(t *testing.T, img image.Image) (string, string) {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		t.Fatalf("gozxing could not decode: %v", err)
	}
	return res.GetText(), fmt.Sprint(res.GetResultMetadata()[gozxing.ResultMetadataType_ERROR_CORRECTION_LEVEL])
}

func TestPNGDecodesBackToTheURL(t *testing.T) {
	for _, u := range goodURLs {
		size := 256
		if len(u) > 200 {
			size = MaxPNGSize
		}
		t.Run(strconv.Itoa(len(u)), func(t *testing.T) {
			b, err := PNG(u, size)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds(); got != image.Rect(0, 0, size, size) {
				t.Fatalf("bounds %v, want %dx%d", got, size, size)
			}
			text, level := decode(t, img)
			if text != u {
				t.Fatalf("decoded %q, want %q", text, u)
			}
			if level != "M" {
				t.Fatalf("error correction %q, want M", level)
			}
			assertQuietZone(t, img, size, u)
		})
	}
}

// The smallest size decodes too, for a link of a usual length.
func TestPNGAtMinimumSize(t *testing.T) {
	u := goodURLs[0]
	b, err := PNG(u, MinPNGSize)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := decode(t, img); text != u {
		t.Fatalf("decoded %q, want %q", text, u)
	}
	assertQuietZone(t, img, MinPNGSize, u)
}

// assertQuietZone checks that no dark pixel lies within QuietZone modules of the image's edge.
func assertQuietZone(t *testing.T, img image.Image, size int, u string) {
	t.Helper()
	m, err := encode(u)
	if err != nil {
		t.Fatal(err)
	}
	margin := QuietZone * (size / (len(m) + 2*QuietZone))
	if margin < QuietZone*minPixelsPerModule {
		t.Fatalf("margin %d px", margin)
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			if y >= margin && x >= margin && y < size-margin && x < size-margin {
				continue
			}
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				t.Fatalf("dark pixel at %d,%d within the %d px quiet zone", x, y, margin)
			}
		}
	}
}

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	ViewBox string   `xml:"viewBox,attr"`
	Role    string   `xml:"role,attr"`
	Width   string   `xml:"width,attr"`
	Height  string   `xml:"height,attr"`
	Inner   []struct {
		XMLName xml.Name
		Text    string `xml:",chardata"`
		D       string `xml:"d,attr"`
		Fill    string `xml:"fill,attr"`
	} `xml:",any"`
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, b)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("content after </svg>: %v", err)
	}
	return doc
}

// rasterizeSVG draws the parsed SVG at scale pixels per unit with golang.org/x/image/vector
// (a pure-Go rasterizer): white, then every path in black. The path interpreter knows the
// absolute and relative M, L, H, V and Z commands, which is all a module outline needs.
func rasterizeSVG(t *testing.T, doc svgDoc, scale int) *image.RGBA {
	t.Helper()
	var x0, y0, w, h int
	if _, err := fmt.Sscanf(doc.ViewBox, "%d %d %d %d", &x0, &y0, &w, &h); err != nil || x0 != 0 || y0 != 0 || w != h || w <= 0 {
		t.Fatalf("viewBox %q", doc.ViewBox)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w*scale, h*scale))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	for _, el := range doc.Inner {
		if el.XMLName.Local != "path" {
			continue
		}
		z := vector.NewRasterizer(w*scale, h*scale)
		s := float32(scale)
		var cx, cy, sx, sy float32
		toks := tokenizePath(t, el.D)
		for i := 0; i < len(toks); {
			cmd := toks[i]
			i++
			arg := func() float32 {
				if i >= len(toks) {
					t.Fatalf("path ends inside %q", cmd)
				}
				f, err := strconv.ParseFloat(toks[i], 32)
				if err != nil {
					t.Fatalf("path number %q: %v", toks[i], err)
				}
				i++
				return float32(f)
			}
			switch cmd {
			case "M", "m", "L", "l":
				x, y := arg(), arg()
				if cmd == "m" || cmd == "l" {
					x, y = cx+x, cy+y
				}
				cx, cy = x, y
				if cmd == "M" || cmd == "m" {
					sx, sy = x, y
					z.MoveTo(x*s, y*s)
				} else {
					z.LineTo(x*s, y*s)
				}
			case "H", "h":
				x := arg()
				if cmd == "h" {
					x += cx
				}
				cx = x
				z.LineTo(cx*s, cy*s)
			case "V", "v":
				y := arg()
				if cmd == "v" {
					y += cy
				}
				cy = y
				z.LineTo(cx*s, cy*s)
			case "Z", "z":
				z.ClosePath()
				cx, cy = sx, sy
			default:
				t.Fatalf("unexpected path command %q", cmd)
			}
		}
		z.Draw(dst, dst.Bounds(), image.NewUniform(color.Black), image.Point{})
	}
	return dst
}

func tokenizePath(t *testing.T, d string) []string {
	t.Helper()
	var toks []string
	for i := 0; i < len(d); {
		c := d[i]
		switch {
		case c == ' ' || c == ',':
			i++
		case strings.IndexByte("MmLlHhVvZz", c) >= 0:
			toks = append(toks, string(c))
			i++
		case c == '-' || c == '.' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(d) && (d[j] == '.' || (d[j] >= '0' && d[j] <= '9')) {
				j++
			}
			toks = append(toks, d[i:j])
			i = j
		default:
			t.Fatalf("unexpected %q in path", c)
		}
	}
	return toks
}

func TestSVGRasterizedDecodesBackToTheURLAndMatchesTheMatrix(t *testing.T) {
	for _, u := range goodURLs {
		t.Run(strconv.Itoa(len(u)), func(t *testing.T) {
			b, err := SVG(u, SVGOptions{Title: "QR code of the payment link"})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			if doc.Role != "img" || doc.Width != "" || doc.Height != "" {
				t.Fatalf("role %q width %q height %q: want role img and size by viewBox only", doc.Role, doc.Width, doc.Height)
			}
			var paths, titles int
			for i, el := range doc.Inner {
				switch el.XMLName.Local {
				case "path":
					paths++
				case "title":
					titles++
					if i != 0 {
						t.Fatal("title is not the first child")
					}
				case "rect":
				default:
					t.Fatalf("unexpected element %q", el.XMLName.Local)
				}
			}
			if paths != 1 || titles != 1 {
				t.Fatalf("%d paths and %d titles, want one of each", paths, titles)
			}
			const scale = 4
			img := rasterizeSVG(t, doc, scale)
			text, _ := decode(t, img)
			if text != u {
				t.Fatalf("decoded %q, want %q", text, u)
			}
			// Module by module: the pixel at each module's centre is the encoder's module.
			m, err := encode(u)
			if err != nil {
				t.Fatal(err)
			}
			side := len(m) + 2*QuietZone
			if img.Bounds().Dx() != side*scale {
				t.Fatalf("viewBox side %d, want %d", img.Bounds().Dx()/scale, side)
			}
			for y := 0; y < side; y++ {
				for x := 0; x < side; x++ {
					want := false
					if mx, my := x-QuietZone, y-QuietZone; mx >= 0 && my >= 0 && mx < len(m) && my < len(m) {
						want = m[my][mx]
					}
					r, _, _, _ := img.At(x*scale+scale/2, y*scale+scale/2).RGBA()
					if got := r < 0x8000; got != want {
						t.Fatalf("module %d,%d dark=%v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
}

func TestSameInputSameBytes(t *testing.T) {
	for _, u := range []string{goodURLs[0], urlOfLen(MaxURLBytes)} {
		a, err := PNG(u, 512)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := PNG(u, 512)
		if !bytes.Equal(a, b) {
			t.Fatal("PNG differs between two calls")
		}
		s1, err := SVG(u, SVGOptions{Title: "পেমেন্ট লিংকের QR কোড"})
		if err != nil {
			t.Fatal(err)
		}
		s2, _ := SVG(u, SVGOptions{Title: "পেমেন্ট লিংকের QR কোড"})
		if !bytes.Equal(s1, s2) {
			t.Fatal("SVG differs between two calls")
		}
	}
	a, _ := PNG(goodURLs[0], 512)
	b, _ := PNG(goodURLs[1], 512)
	if bytes.Equal(a, b) {
		t.Fatal("two links gave the same PNG")
	}
}

func TestSVGTitleIsEscapedText(t *testing.T) {
	for _, title := range []string{
		"পেমেন্ট লিংকের QR কোড — ঢাকা স্টোর",
		`</title><script>alert(1)</script><title>`,
		`"><svg onload=alert(1)> & &amp; ' ]]> <![CDATA[x]]>`,
	} {
		b, err := SVG(goodURLs[0], SVGOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("<script")) || bytes.Contains(b, []byte("<svg onload")) || bytes.Contains(b, []byte("<![CDATA")) {
			t.Fatalf("markup from the title reached the SVG: %s", b)
		}
		doc := parseSVG(t, b)
		if len(doc.Inner) != 3 || doc.Inner[0].XMLName.Local != "title" {
			t.Fatalf("elements changed by the title: %+v", doc.Inner)
		}
		if got := doc.Inner[0].Text; got != title {
			t.Fatalf("title read back %q, want %q", got, title)
		}
	}
}

func TestBoundsAreRefusedNamingTheRule(t *testing.T) {
	const ok = "https://pay.takapay.com.bd/l/plink_1"
	title := SVGOptions{Title: "QR"}
	cases := []struct {
		name string
		call func() ([]byte, error)
		path string
	}{
		{"empty url", func() ([]byte, error) { return PNG("", 256) }, "url"},
		{"url too long", func() ([]byte, error) { return PNG(urlOfLen(MaxURLBytes+1), MaxPNGSize) }, "url"},
		{"relative", func() ([]byte, error) { return PNG("/l/plink_1", 256) }, "url"},
		{"no scheme", func() ([]byte, error) { return PNG("pay.takapay.com.bd/l/plink_1", 256) }, "url"},
		{"javascript", func() ([]byte, error) { return PNG("javascript:alert(1)", 256) }, "url"},
		{"data", func() ([]byte, error) { return SVG("data:text/html,<script>alert(1)</script>", title) }, "url"},
		{"ftp", func() ([]byte, error) { return PNG("ftp://files.example.com/x", 256) }, "url"},
		{"no host", func() ([]byte, error) { return PNG("https:///l/plink_1", 256) }, "url"},
		{"opaque", func() ([]byte, error) { return PNG("https:pay.takapay.com.bd", 256) }, "url"},
		{"credentials", func() ([]byte, error) { return PNG("https://user:pw@pay.takapay.com.bd/l/1", 256) }, "url"},
		{"space", func() ([]byte, error) { return PNG("https://pay.takapay.com.bd/l/a b", 256) }, "url"},
		{"newline", func() ([]byte, error) { return SVG("https://pay.takapay.com.bd/\n<script>", title) }, "url"},
		{"non-ascii", func() ([]byte, error) { return PNG("https://ঢাকা.example/l/1", 256) }, "url"},
		{"size too small", func() ([]byte, error) { return PNG(ok, MinPNGSize-1) }, "size"},
		{"size too large", func() ([]byte, error) { return PNG(ok, MaxPNGSize+1) }, "size"},
		{"size zero", func() ([]byte, error) { return PNG(ok, 0) }, "size"},
		{"size negative", func() ([]byte, error) { return PNG(ok, -256) }, "size"},
		{"size too small for a long link", func() ([]byte, error) { return PNG(urlOfLen(MaxURLBytes), MinPNGSize) }, "size"},
		{"no title", func() ([]byte, error) { return SVG(ok, SVGOptions{}) }, "title"},
		{"blank title", func() ([]byte, error) { return SVG(ok, SVGOptions{Title: " \u00a0 "}) }, "title"},
		{"title too long", func() ([]byte, error) { return SVG(ok, SVGOptions{Title: strings.Repeat("ক", MaxTitleBytes/3+1)}) }, "title"},
		{"title control", func() ([]byte, error) { return SVG(ok, SVGOptions{Title: "QR\x00code"}) }, "title"},
		{"title bad utf-8", func() ([]byte, error) { return SVG(ok, SVGOptions{Title: "QR \xff"}) }, "title"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.call()
			if b != nil {
				t.Fatal("output returned with an error")
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.ValidationFailed || len(e.Violations) != 1 || e.Violations[0].Path != c.path || e.Violations[0].Rule == "" {
				t.Fatalf("err %v, want VALIDATION_FAILED on %q", err, c.path)
			}
		})
	}
}

// Concurrent calls (the local dev server serves requests in parallel) give the serial bytes.
func TestConcurrentCallsGiveTheSameBytes(t *testing.T) {
	want := make([][]byte, len(goodURLs))
	for i, u := range goodURLs {
		b, err := SVG(u, SVGOptions{Title: "QR"})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = b
	}
	errs := make(chan error, 4*len(goodURLs))
	for range 4 {
		for i, u := range goodURLs {
			go func() {
				b, err := SVG(u, SVGOptions{Title: "QR"})
				if err == nil && !bytes.Equal(b, want[i]) {
					err = fmt.Errorf("SVG of %d bytes differs", len(u))
				}
				if err == nil {
					_, err = PNG(u, MaxPNGSize)
				}
				errs <- err
			}()
		}
	}
	for range 4 * len(goodURLs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
