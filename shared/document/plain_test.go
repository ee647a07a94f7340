package document

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layering rule of the documents side (decision 56): the rule packages document and
// publicdoc take and return Go values; what speaks HTTP — the request, its headers and
// query, the response — is shared/edge/documentapi's and shared/edge/publicdocapi's, and the
// dashboard calls the rules, never the other way round. Their production files import none
// of these.
func TestDocumentRulesImportNoHTTP(t *testing.T) {
	forbidden := []string{"net/http", "github.com/takapay/payments/shared/foundation/web", "github.com/takapay/payments/shared/edge/httpapi",
		"github.com/takapay/payments/shared/edge/dashboard", "github.com/takapay/payments/shared/edge/"}
	for _, dir := range []string{".", "../publicdoc"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range forbidden {
					if path == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(path, bad) || strings.HasPrefix(path, bad+"/") {
						t.Errorf("%s imports %s", f, path)
					}
				}
			}
		}
	}
}
