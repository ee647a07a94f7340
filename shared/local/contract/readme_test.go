package contract

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/openapi"
)

// The README's shell variables, with plausible values: ids are UUIDs, tokens 43 base64url
// characters. A README variable missing here fails the test (add it with a value its
// operation's schema takes).
var (
	exampleUUID  = "7d3f1c2a-5b6e-4f80-9a1b-2c3d4e5f6a7b"
	exampleToken = "lEZVq3XbN0cT7yH2wKp9sRmA4uJdF6gE8iO1zL5vB_Q"
	shellVars    = map[string]string{
		"B":        "http://127.0.0.1:3000",
		"KEY":      "sk_sandbox_0123456789abcdef0123456789abcdef0123456789abcdef0",
		"WS":       exampleUUID,
		"DOCS":     "http://127.0.0.1:3000/v1/workspaces/" + exampleUUID + "/documents",
		"INVOICE":  exampleUUID,
		"INV":      exampleUUID,
		"INTENT":   exampleUUID,
		"TOKEN":    exampleToken,
		"PAGE":     "http://127.0.0.1:3000/v1/public/checkout/" + exampleToken,
		"LINK_URL": "http://127.0.0.1:3000/v1/workspaces/" + exampleUUID + "/documents/payment-links/" + exampleUUID + "?environment=sandbox",
		"SHOP_URL": "http://" + shopHost,
		// docs/refunds.md and getting-started-curl's refund
		"R":       "http://127.0.0.1:3000/v1/workspaces/" + exampleUUID + "/refunds",
		"PAYMENT": exampleUUID,
		"REFUND":  exampleUUID,
		"REST_ID": exampleUUID,
		"CURSOR":  exampleUUID,
	}
	// shopHost is the getting-started pages' shop (the merchant's server, not the API): curls
	// to it are not checked against the contract.
	shopHost = "127.0.0.1:8080"
	// "${H[@]}": the walk-through's header array.
	shellArrays = map[string][]string{
		"H": {"-H", "Authorization: Bearer sk_sandbox_x", "-H", "Content-Type: application/json"},
	}
	// $(...) substitutions inside curl commands, by their text.
	shellSubstitutions = map[string]string{
		`echo "$LINK" | jq -r .id`: exampleUUID,
		"date +%s":                 "1764300000",
		// The checkout's return_url: the payer's browser going back to the shop.
		`curl -s $PAGE | jq -r .return_url`: "http://" + shopHost + "/orders/ORDER-1001/return?invoice_id=" + exampleUUID,
	}
)

// curlCommand is one curl of a documentation file's sh block.
type curlCommand struct {
	file   string // the file, relative to the repository root
	line   int    // its line of the curl
	method string
	url    string
	body   *string // -d's argument
}

// TestReadmeRequestExamples validates every request body the curl examples of README.md and
// of every markdown file of docs/ send (the
// -d arguments, shell variables given plausible values) against the request body schema of
// the operation their method and path name, and checks each curl's method and path is a
// deployed operation. The bodies are validated as application/json: curl -d sends the form
// content type unless told otherwise, and the service reads a body that is a JSON object as
// JSON whatever the Content-Type says (README: Content-Type is not enforced).
func TestReadmeRequestExamples(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ has no markdown file")
	}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []curlCommand
	dataFlags := 0
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		fileCmds, flags := readmeCurls(t, f, string(text))
		cmds = append(cmds, fileCmds...)
		dataFlags += flags
	}
	if len(cmds) == 0 {
		t.Fatal("README.md and docs/ have no curl examples in sh blocks")
	}
	withBody := 0
	ops := map[string]bool{}
	for _, cmd := range cmds {
		u, err := url.Parse(cmd.url)
		if err == nil && u.Host == shopHost {
			if cmd.body != nil {
				dataFlags--
			}
			continue
		}
		if err != nil || u.Host != "127.0.0.1:3000" {
			t.Errorf("%s:%d: curl to %q, not a path of the local API", cmd.file, cmd.line, cmd.url)
			continue
		}
		op, _, err := openapi.Lookup(cmd.method, u.Path)
		if err != nil {
			t.Fatal(err)
		}
		if op == nil || !op.Deployed {
			t.Errorf("%s:%d: %s %s is not a deployed operation of openapi.yaml", cmd.file, cmd.line, cmd.method, u.Path)
			continue
		}
		if cmd.body == nil {
			continue
		}
		withBody++
		ops[op.OperationID] = true
		if !json.Valid([]byte(*cmd.body)) {
			t.Errorf("%s:%d: the body of %s %s is not JSON: %s", cmd.file, cmd.line, cmd.method, u.Path, *cmd.body)
			continue
		}
		if problems := c.RequestBody(cmd.method, u.Path, "application/json", []byte(*cmd.body)); len(problems) > 0 {
			t.Errorf("%s:%d: the body of %s %s (%s) does not satisfy openapi.yaml:\n\t%s\n\tbody: %s",
				cmd.file, cmd.line, cmd.method, u.Path, op.OperationID, strings.Join(problems, "\n\t"), *cmd.body)
		} else {
			t.Logf("%s:%d: %s %s (%s): body valid", cmd.file, cmd.line, cmd.method, op.Path, op.OperationID)
		}
	}
	// Every -d of the sh blocks belongs to a curl that was read; the walk-throughs' writes
	// are all among them.
	if withBody != dataFlags {
		t.Errorf("%d curl -d examples validated, but the sh blocks have %d -d flags", withBody, dataFlags)
	}
	for _, id := range []string{"createPayment", "lockCheckout", "verifyPayment", "createinvoices", "postPaymentIntents",
		"postPaymentIntentsIntentidVerifyTransaction", "createpaymentlinks", "postPublicDocumentsToken",
		"createRefund", "reviewRefund", "approveRefund", "reportRefundReturned", "cancelRefund"} {
		if !ops[id] {
			t.Errorf("no curl example of README.md or docs/ sends a body to %s any more", id)
		}
	}
	var covered []string
	for id := range ops {
		covered = append(covered, id)
	}
	sort.Strings(covered)
	t.Logf("%d request bodies validated, for %v", withBody, covered)
}

// The validator rejects what it should: a README-shaped example with a wrong member fails.
func TestRequestBodyRejects(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/payment/create", `{"amount": 150.505}`},
		{"POST", "/v1/payment/create", `{"amount": 1, "colour": "red"}`},
		{"POST", "/v1/payment-intents", `{"document_id": "` + exampleUUID + `", "amount": 1}`},
		{"POST", "/v1/public/checkout/" + exampleToken + "/lock", `{"route": "paypal", "payer": "x"}`},
		{"POST", "/v1/workspaces/" + exampleUUID + "/documents/invoices", `{"items": []}`},
	} {
		if problems := c.RequestBody(tc.method, tc.path, "application/json", []byte(tc.body)); len(problems) == 0 {
			t.Errorf("%s %s accepted %s", tc.method, tc.path, tc.body)
		}
	}
}

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// readmeCurls returns the curl commands of the sh blocks of a markdown file (README.md or one of
// docs/), and how many -d '...' flags the blocks hold.
func readmeCurls(t *testing.T, file, readme string) ([]curlCommand, int) {
	t.Helper()
	var cmds []curlCommand
	flags := 0
	for _, m := range shBlock.FindAllStringSubmatchIndex(readme, -1) {
		block := readme[m[2]:m[3]]
		firstLine := strings.Count(readme[:m[2]], "\n") + 1
		flags += len(regexp.MustCompile(`(^|\s)-d\s+'`).FindAllString(block, -1))
		for _, at := range curlStarts(block) {
			line := firstLine + strings.Count(block[:at], "\n")
			words, err := shellWords(block[at:])
			if err != nil {
				t.Errorf("%s:%d: %v", file, line, err)
				continue
			}
			cmd, err := parseCurl(words[1:])
			if err != nil {
				t.Errorf("%s:%d: %v", file, line, err)
				continue
			}
			cmd.file, cmd.line = file, line
			cmds = append(cmds, cmd)
		}
	}
	return cmds, flags
}

// curlStarts returns the offsets of the word curl in a shell text, outside quotes and
// comments.
func curlStarts(s string) []int {
	var out []int
	var quote byte
	wordStart := true
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\\' && quote == '"' {
				i++
			}
			wordStart = false
			continue
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '#' && wordStart:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			wordStart = true
			continue
		case ch == '\\':
			i++
		case wordStart && strings.HasPrefix(s[i:], "curl ") && (i == 0 || strings.ContainsRune(" \t\n($;|&", rune(s[i-1]))):
			out = append(out, i)
		}
		wordStart = strings.ContainsRune(" \t\n($;|&", rune(ch))
	}
	return out
}

// shellWords splits a shell command into its words, expanding variables, up to the end of the
// command: an unquoted newline, |, ;, &, > or an unbalanced ).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++
			flush()
		case ch == ' ' || ch == '\t':
			flush()
		case strings.ContainsRune("\n|;&>)", rune(ch)):
			flush()
			return words, nil
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case ch == '"' && arrayRef.MatchString(s[i:]):
			// "${H[@]}": the array's words, each its own word.
			m := arrayRef.FindStringSubmatch(s[i:])
			arr, ok := shellArrays[m[1]]
			if !ok {
				return nil, fmt.Errorf("unknown shell array %s", m[1])
			}
			flush()
			words = append(words, arr...)
			i += len(m[0]) - 1
		case ch == '#' && !inWord:
			return words, nil
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s) && strings.ContainsRune("\"\\$`", rune(s[i+1])):
					i++
					cur.WriteByte(s[i])
				case s[i] == '$':
					v, n, err := expand(s[i:])
					if err != nil {
						return nil, err
					}
					cur.WriteString(v)
					i += n - 1
				default:
					cur.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated double quote")
			}
			inWord = true
		case ch == '$':
			v, n, err := expand(s[i:])
			if err != nil {
				return nil, err
			}
			cur.WriteString(v)
			inWord = true
			i += n - 1
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return words, nil
}

var arrayRef = regexp.MustCompile(`^"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}"`)

var varName = regexp.MustCompile(`^\$(\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expand returns the value of the $NAME, ${NAME} or $(...) at the start of s and its length.
func expand(s string) (string, int, error) {
	if strings.HasPrefix(s, "$(") {
		depth := 0
		var quote byte
		for i := 1; i < len(s); i++ {
			switch ch := s[i]; {
			case quote != 0:
				if ch == quote {
					quote = 0
				}
			case ch == '\'' || ch == '"':
				quote = ch
			case ch == '(':
				depth++
			case ch == ')':
				depth--
				if depth == 0 {
					inner := s[2:i]
					v, ok := shellSubstitutions[inner]
					if !ok {
						return "", 0, fmt.Errorf("unknown command substitution $(%s)", inner)
					}
					return v, i + 1, nil
				}
			}
		}
		return "", 0, fmt.Errorf("unterminated $(")
	}
	m := varName.FindStringSubmatch(s)
	if m == nil {
		return "", 0, fmt.Errorf("unsupported expansion at %.20q", s)
	}
	name := m[2] + m[3]
	v, ok := shellVars[name]
	if !ok {
		return "", 0, fmt.Errorf("shell variable $%s has no example value in readme_test.go", name)
	}
	return v, len(m[0]), nil
}

// parseCurl reads curl's arguments: the URL, -X, -d (and skips -H, -s, output and retry options).
func parseCurl(args []string) (curlCommand, error) {
	var cmd curlCommand
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-s" || a == "-i" || a == "-v" || a == "-sS" || a == "--retry-connrefused":
		case a == "-o" || a == "-w" || a == "-D" || a == "--retry" || a == "--retry-delay": // output (-D: the headers) and retry options
			i++
		case a == "-X" || a == "-H" || a == "-d" || a == "--data" || a == "--data-raw":
			if i+1 >= len(args) {
				return cmd, fmt.Errorf("curl %s without its argument", a)
			}
			i++
			switch a {
			case "-X":
				cmd.method = args[i]
			case "-H":
			default:
				if cmd.body != nil {
					return cmd, fmt.Errorf("curl with two bodies")
				}
				b := args[i]
				cmd.body = &b
			}
		case strings.HasPrefix(a, "-"):
			return cmd, fmt.Errorf("curl flag %s is not understood by readme_test.go", a)
		default:
			if cmd.url != "" {
				return cmd, fmt.Errorf("curl with two URLs: %s and %s", cmd.url, a)
			}
			cmd.url = a
		}
	}
	if cmd.url == "" {
		return cmd, fmt.Errorf("curl without a URL")
	}
	if cmd.method == "" {
		cmd.method = "GET"
		if cmd.body != nil {
			cmd.method = "POST"
		}
	}
	if !slices.Contains([]string{"GET", "POST", "PATCH", "PUT", "DELETE"}, cmd.method) {
		return cmd, fmt.Errorf("curl -X %s", cmd.method)
	}
	return cmd, nil
}
