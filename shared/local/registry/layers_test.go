package registry

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// The layers of the tree, by folder (README's layout map; decision 74):
//
//	shared/<rule>      the rules, one folder each (payment, intent, document, ...): every folder
//	                   directly under shared/ that is not one of the layers below
//	shared/foundation  small packages every layer may use: request/response and JSON-reading
//	                   types, log context, exact money, the HTML writer and the pages' kit
//	shared/aws         the AWS adapters (DynamoDB, SQS, SES, KMS, configuration)
//	shared/edge        HTTP and pages: the Lambda event adapter, the API handlers, the
//	                   dashboard, the payer pages' HTTP side
//	shared/app         wiring: configuration, the dependencies a function's Build receives,
//	                   the dashboard's services, the operator's actions
//	shared/local       local tooling (no Lambda links it)
//
// rules names the rule packages' layer in layerRule: every package under a folder directly
// beneath shared/ that is not one of the other layers (isRule).
const rules = "rules"

// layers are the folders under shared/ that are not rules.
var layers = []string{"shared/foundation/", "shared/aws/", "shared/edge/", "shared/app", "shared/local/", "shared/openapi"}

// isRule reports whether the repository-relative package path is a rule package.
func isRule(pkg string) bool {
	if !strings.HasPrefix(pkg, "shared/") {
		return false
	}
	for _, l := range layers {
		if strings.HasPrefix(pkg, l) {
			return false
		}
	}
	return true
}

// layerOf is the layer of a repository-relative package path, as layerRule names it ("" for
// none: functions/, cmd/, the contract).
func layerOf(pkg string) string {
	if isRule(pkg) {
		return rules
	}
	for _, l := range layers {
		if strings.HasPrefix(pkg, l) {
			return l
		}
	}
	return ""
}

// layerRule is what a layer's packages may not depend on, directly or not.
var layerRule = map[string][]string{
	rules:                {"shared/edge/", "shared/aws/", "shared/app", "shared/local/", "github.com/aws/"},
	"shared/foundation/": {rules, "shared/edge/", "shared/aws/", "shared/app", "shared/local/", "github.com/aws/"},
	"shared/aws/":        {"shared/edge/", "shared/app", "shared/local/"},
	"shared/edge/":       {"shared/app", "shared/local/"},
	"shared/app":         {"shared/local/"},
}

// layerExceptions are the dependencies the rule names and allows, each with its reason
// (decision 74): "package -> dependency".
var layerExceptions = map[string]string{
	"shared/aws/dynamo -> shared/edge/dashboard": "the store implements the dashboard's form claims and reads its types (FORM#, once.go); moving those types to a rule package is left",
}

// domainImportsNot are what a rule package may not import itself: HTTP types and the request
// parser (the rules take Go values; the edge parses).
var domainImportsNot = []string{"net/http", module + "/shared/foundation/web", module + "/shared/foundation/jsonbody"}

// domainImportExceptions are the rule packages' named exceptions to domainImportsNot, each
// with its reason (decision 74): "package -> import".
var domainImportExceptions = map[string]string{
	"shared/auth -> " + module + "/shared/foundation/web":           "the Authenticator reads the credential from a request's headers and cookies; its Identity, Scope and Role are the rules' types",
	"shared/webhook -> net/http":                                    "the sender's outbound client delivers to the merchant's URL (SSRF-guarded); it parses no request",
	"shared/document -> " + module + "/shared/foundation/jsonbody":  "a document's body is merchant JSON, checked field by field with the API's paths and rules; the shape check's move to the edge is left (decision 56)",
	"shared/publicdoc -> " + module + "/shared/foundation/jsonbody": "the payer's answers are checked against the document's fields with the same reader (decision 56)",
}

// TestLayers holds the layering rule: a rule package depends on no adapter, edge or tooling
// (directly or through another package), imports no HTTP types itself; an adapter knows no
// edge; nothing but tests and local tooling links shared/local.
func TestLayers(t *testing.T) {
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Deps " "}}|{{join .Imports " "}}`, "./shared/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	domains, used := 0, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkg, deps, imports := strings.TrimPrefix(parts[0], module+"/"), strings.Fields(parts[1]), strings.Fields(parts[2])
		if strings.Contains(pkg, "/integration") { // a rule's integration tests: test-only
			continue
		}
		layer := layerOf(pkg)
		for _, d := range deps {
			short := strings.TrimPrefix(d, module+"/")
			for _, b := range layerRule[layer] {
				if b == rules && !isRule(short) || b != rules && !strings.HasPrefix(short, b) {
					continue
				}
				if used[pkg+" -> "+short] = true; layerExceptions[pkg+" -> "+short] == "" {
					t.Errorf("%s depends on %s (%s packages may not depend on %s)", pkg, d, layer, b)
				}
			}
		}
		if layer != rules {
			continue
		}
		domains++
		for _, i := range imports {
			if !slices.Contains(domainImportsNot, i) {
				continue
			}
			if used[pkg+" -> "+i] = true; domainImportExceptions[pkg+" -> "+i] == "" {
				t.Errorf("rule package %s imports %s: parse and encode at the edge", pkg, i)
			}
		}
	}
	for _, m := range []map[string]string{layerExceptions, domainImportExceptions} {
		for k := range m {
			if !used[k] {
				t.Errorf("the exception %q no longer happens: remove it (and its line in decision 74)", k)
			}
		}
	}
	if domains < 15 {
		t.Fatalf("%d rule packages directly under shared/: the layout moved?", domains)
	}
}
