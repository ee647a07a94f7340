package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Viewport is one window size a page is checked at.
type Viewport struct {
	Width, Height int64
}

func (v Viewport) String() string {
	return strconv.FormatInt(v.Width, 10) + "×" + strconv.FormatInt(v.Height, 10)
}

// Widths are the sizes every page is checked at (issue 32): two common phones (360×740,
// 390×844) and a laptop (1366×900).
var Widths = []Viewport{{360, 740}, {390, 844}, {1366, 900}}

// overflowJS reports the shown page's sideways scroll: "" when
// document.documentElement.scrollWidth <= innerWidth; else the two widths and the widest
// element, or text (a long URL that does not wrap overflows its element's box), whose right
// edge is past innerWidth (not counting one a scroll or clip box holds: that one does not
// widen the page), named by its tag, id, classes, where it is and how its text starts.
const overflowJS = `(() => {
	const iw = window.innerWidth, sw = document.documentElement.scrollWidth;
	if (sw <= iw) return "";
	// clipper is the box that clips what starts at p (a box positioned pos, or text: "static"),
	// or null: the first ancestor whose overflow is not visible, skipping for an absolutely
	// positioned box the static ones (its containing block is the nearest positioned one) and
	// every one for a fixed box.
	const clipper = (p, pos) => {
		for (; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
			const cs = getComputedStyle(p);
			if (pos === "fixed") return null;
			if (pos === "absolute" && cs.position === "static") continue;
			if (cs.overflowX !== "visible") return p;
			pos = cs.position;
		}
		return null;
	};
	const held = el => clipper(el.parentElement, getComputedStyle(el).position);
	// Candidates: every element by its box, and every text by its own box (a long unbroken
	// URL overflows the element that holds it without widening that element's box).
	let worst = null, wr = null, isText = false;
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.width > 0 && r.right > iw + 0.5 && (!wr || r.width > wr.width) && !held(el)) { worst = el; wr = r; }
	}
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	const range = document.createRange();
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		if (!n.textContent.trim() || !n.parentElement) continue;
		range.selectNodeContents(n);
		const r = range.getBoundingClientRect();
		if (r.width > 0 && r.right > iw + 0.5 && (!wr || r.width > wr.width) && !clipper(n.parentElement, "static")) {
			worst = n.parentElement; wr = r; isText = true;
		}
	}
	const label = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.classList.length ? "." + Array.from(e.classList).join(".") : "");
	if (!worst) {
		// Nothing outside a clipping box: name the widest inside one, and the box, whose
		// clipping does not hold it (a table box, say, on which overflow does not apply).
		let inner = null, ir = null;
		for (const el of document.body.querySelectorAll("*")) {
			const r = el.getBoundingClientRect();
			if (r.width > 0 && r.right > iw + 0.5 && (!ir || r.width > ir.width)) { inner = el; ir = r; }
		}
		if (!inner) return "scrollWidth " + sw + " > innerWidth " + iw + " (no element past the right edge found)";
		const box = held(inner);
		return "scrollWidth " + sw + " > innerWidth " + iw + "; widest past the right edge: " + label(inner) + " (" +
			Math.round(ir.width) + " px wide, right edge at " + Math.round(ir.right) + " px), inside " + (box ? label(box) + " (overflow-x: " +
			getComputedStyle(box).overflowX + ", display: " + getComputedStyle(box).display + ", position: " + getComputedStyle(inner).position + ")" : "body");
	}
	const path = [];
	for (let p = worst.parentElement; p && p !== document.body && path.length < 4; p = p.parentElement) path.unshift(label(p));
	const text = (worst.textContent || "").replace(/\s+/g, " ").trim().slice(0, 60);
	return "scrollWidth " + sw + " > innerWidth " + iw + "; widest past the right edge: " + (isText ? "the unwrapped text of " : "") +
		label(worst) + " (" + Math.round(wr.width) + " px wide, right edge at " + Math.round(wr.right) + " px; in " + (path.join(" > ") || "body") +
		(text ? "; text \"" + text + "\"" : "") + ")";
})()`

// innerScrollJS lists the boxes of the page shown whose content scrolls sideways inside them
// (a wide table in its scroll box): allowed, as the page itself does not scroll, but worth
// knowing (on a phone, and on a desktop where a table is wider than its card).
const innerScrollJS = `(() => {
	const out = [];
	for (const el of document.body.querySelectorAll("*")) {
		const ox = getComputedStyle(el).overflowX;
		if ((ox === "auto" || ox === "scroll") && el.scrollWidth > el.clientWidth + 1) {
			const first = el.firstElementChild;
			out.push(el.tagName.toLowerCase() + (el.className ? "." + String(el.className).trim().replace(/\s+/g, ".") : "") +
				(first ? " (its " + first.tagName.toLowerCase() + (first.id ? "#" + first.id : "") + ")" : "") +
				" " + el.scrollWidth + " px in " + el.clientWidth);
		}
	}
	return out.join("; ");
})()`

// Overflow is "" when the page shown does not scroll sideways, else what widens it
// (overflowJS).
func Overflow(ctx context.Context) (string, error) {
	return Run(ctx, chromedp.Evaluate[string](overflowJS))
}

// CheckWidths checks the page shown at every size of Widths: no sideways scroll and no
// axe-core WCAG 2.1 AA violation, each failure an error naming the page (name), its language
// and the size, and the overflowing element. It saves each size's screenshot as
// .artifacts/<name>-<lang>-<width>.png. The viewport is emulated (no new window, no reload),
// and the last size stays set. A box whose content scrolls sideways inside it is logged, not
// failed.
func CheckWidths(t testing.TB, ctx context.Context, axeSource, name, lang string) {
	t.Helper()
	for _, v := range Widths {
		if err := Do(ctx, chromedp.EmulateViewport(v.Width, v.Height)); err != nil {
			t.Fatalf("%s (%s) at %s: %v", name, lang, v, err)
		}
		what, err := Overflow(ctx)
		if err != nil {
			t.Fatalf("%s (%s) at %s: %v", name, lang, v, err)
		}
		if what != "" {
			t.Errorf("%s (%s) at %s scrolls sideways: %s", name, lang, v, what)
		} else if inner, err := Run(ctx, chromedp.Evaluate[string](innerScrollJS)); err == nil && inner != "" {
			t.Logf("%s (%s) at %s: scrolls sideways inside: %s", name, lang, v, inner)
		}
		violations := axeLoaded(t, ctx, axeSource)
		for _, x := range violations {
			t.Errorf("%s (%s) at %s: axe: %s", name, lang, v, x)
		}
		Screenshot(t, ctx, fmt.Sprintf("%s-%s-%d.png", name, lang, v.Width))
	}
}

// axeLoaded is Axe for a page checked at several sizes: axe-core is put into the page once
// (the first size; evaluating its half a megabyte again for each size costs more than the
// check), then run at each size.
func axeLoaded(t testing.TB, ctx context.Context, axeSource string) []Violation {
	t.Helper()
	loaded, err := Run(ctx, chromedp.Evaluate[bool](`typeof axe !== "undefined"`))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	if !loaded {
		v, _ := Axe(t, ctx, axeSource)
		return v
	}
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(c, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	var result struct {
		Violations []Violation `json:"violations"`
		Passes     int         `json:"passes"`
	}
	if err := json.Unmarshal([]byte(raw), &result); err != nil || result.Passes == 0 {
		t.Fatalf("axe result: %v: %.500s", err, raw)
	}
	return result.Violations
}
