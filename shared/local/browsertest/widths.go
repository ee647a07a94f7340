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
// element whose right edge is past innerWidth (not counting an element a scroll or clip box
// holds: that one does not widen the page), named by its tag, id, classes and its start.
const overflowJS = `(() => {
	const iw = window.innerWidth, sw = document.documentElement.scrollWidth;
	if (sw <= iw) return "";
	const held = el => {
		for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
			if (getComputedStyle(p).overflowX !== "visible") return true;
		}
		return false;
	};
	let worst = null, wr = null;
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.width > 0 && r.right > iw + 0.5 && (!wr || r.width > wr.width) && !held(el)) { worst = el; wr = r; }
	}
	if (!worst) return "scrollWidth " + sw + " > innerWidth " + iw + " (no element past the right edge found)";
	let name = worst.tagName.toLowerCase() + (worst.id ? "#" + worst.id : "");
	for (const c of worst.classList) name += "." + c;
	const path = [];
	for (let p = worst.parentElement; p && p !== document.body && path.length < 4; p = p.parentElement) {
		path.unshift(p.tagName.toLowerCase() + (p.id ? "#" + p.id : "") + (p.classList.length ? "." + Array.from(p.classList).join(".") : ""));
	}
	const text = (worst.textContent || "").replace(/\s+/g, " ").trim().slice(0, 60);
	return "scrollWidth " + sw + " > innerWidth " + iw + "; widest element past the right edge: " + name +
		" (" + Math.round(wr.width) + " px wide, right edge at " + Math.round(wr.right) + " px; in " + (path.join(" > ") || "body") +
		(text ? "; text \"" + text + "\"" : "") + ")";
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
// and the last size stays set.
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
