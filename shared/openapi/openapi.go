// Package openapi embeds the service's OpenAPI contract (openapi.yaml) and answers which
// published operation a method and path name, so the fallback route and the contract tests
// read the same document the merchants do.
package openapi

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Document is the raw contract.
//
//go:embed openapi.yaml
var Document []byte

// Operation is one published method and path.
type Operation struct {
	Method      string
	Path        string
	OperationID string
	Deployed    bool
}

var (
	once    sync.Once
	ops     []Operation
	loadErr error
)

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Operations returns every operation in the contract, sorted by path then method.
func Operations() ([]Operation, error) {
	once.Do(func() { ops, loadErr = parse(Document) })
	return ops, loadErr
}

func parse(doc []byte) ([]Operation, error) {
	var d struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var out []Operation
	for path, item := range d.Paths {
		for _, m := range methods {
			node, ok := item[m]
			if !ok {
				continue
			}
			var op struct {
				OperationID string `yaml:"operationId"`
				Deployed    *bool  `yaml:"x-deployed"`
			}
			if err := node.Decode(&op); err != nil {
				return nil, fmt.Errorf("openapi.yaml %s %s: %w", m, path, err)
			}
			if op.Deployed == nil {
				return nil, fmt.Errorf("openapi.yaml %s %s: x-deployed is missing", m, path)
			}
			out = append(out, Operation{Method: strings.ToUpper(m), Path: path, OperationID: op.OperationID, Deployed: *op.Deployed})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, nil
}

// PathMatches reports whether a concrete request path fits a contract path template, where
// each {name} segment matches one non-empty segment.
func PathMatches(template, path string) bool {
	ts := strings.Split(template, "/")
	ps := strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}") {
			if ps[i] == "" {
				return false
			}
			continue
		}
		if ts[i] != ps[i] {
			return false
		}
	}
	return true
}

// Lookup finds the published operation for method and path. When the path is published but
// not for that method, op is nil and allowed lists the methods it has.
func Lookup(method, path string) (op *Operation, allowed []string, err error) {
	all, err := Operations()
	if err != nil {
		return nil, nil, err
	}
	for i := range all {
		if !PathMatches(all[i].Path, path) {
			continue
		}
		if all[i].Method == method {
			return &all[i], nil, nil
		}
		allowed = append(allowed, all[i].Method)
	}
	return nil, allowed, nil
}
