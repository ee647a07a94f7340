package walkthrough

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is one fenced code block of a Markdown page: its language (the info string's first
// word), its title (title="…" after it: the file the reader saves the block as) and its text.
type Block struct {
	Lang, Title, Text string
}

var fence = regexp.MustCompile("(?ms)^```([a-z]*)([^\n]*)\n(.*?)^```[ \t]*$")

var titleAttr = regexp.MustCompile(`\btitle="([^"]+)"`)

// Blocks returns the fenced code blocks of md in order.
func Blocks(md string) []Block {
	var out []Block
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		b := Block{Lang: m[1], Text: m[3]}
		if t := titleAttr.FindStringSubmatch(m[2]); t != nil {
			b.Title = t[1]
		}
		out = append(out, b)
	}
	return out
}

// Section returns the text under a heading (a whole line, e.g. "## Walk-through (curl)") up to
// the next heading of level two, or false when md has no such heading.
func Section(md, heading string) (string, bool) {
	i := strings.Index(md, "\n"+heading+"\n")
	if i < 0 {
		return "", false
	}
	rest := md[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest, true
}

// Script is what a reader does with a page's blocks, as one bash script: every sh block runs
// as written, and every titled block is saved, at that point, to its file (relative to the
// directory the script is in by then). Blocks of other kinds (output shown as text, say) are
// left out. An error names a titled block whose path leaves the directory or whose text
// contains the here-document's terminator.
func Script(blocks []Block) (string, error) {
	const eof = "TAKAPAY_PAGE_EOF"
	var b strings.Builder
	for _, bl := range blocks {
		switch {
		case bl.Title != "":
			if strings.HasPrefix(bl.Title, "/") || strings.Contains(bl.Title, "..") || strings.ContainsAny(bl.Title, "'\n") {
				return "", fmt.Errorf("block title %q: not a relative file path", bl.Title)
			}
			if strings.Contains(bl.Text, eof) {
				return "", fmt.Errorf("block %q contains %s", bl.Title, eof)
			}
			fmt.Fprintf(&b, "mkdir -p \"$(dirname '%s')\"\ncat > '%s' <<'%s'\n%s%s\n", bl.Title, bl.Title, eof, bl.Text, eof)
		case bl.Lang == "sh":
			b.WriteString(bl.Text)
		}
	}
	return b.String(), nil
}
