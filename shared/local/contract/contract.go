// Package contract checks HTTP traffic against the service's OpenAPI 3.1 contract
// (shared/openapi/openapi.yaml) with pb33f/libopenapi-validator: a response's status must be
// one its operation documents, its Content-Type one that status documents, its JSON body must
// satisfy that content's schema (JSON Schema 2020-12, formats asserted) and its documented
// headers their schemas. Requests no operation takes are the $default fallback's: 404
// NOT_FOUND, or 405 METHOD_NOT_ALLOWED with Allow for a published path with another method,
// in the Error envelope.
//
// It is local tooling for the integration tests (localapi.TestAPI checks every response with
// it): no Lambda binary may link it, which is why it is not part of shared/openapi.
package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/takapay/payments/shared/openapi"
)

// Contract is the parsed contract with its validators. Safe for concurrent use.
type Contract struct {
	mu        sync.Mutex
	model     *v3.Document
	validator validator.Validator
	schemas   schema_validation.SchemaValidator
	opts      []config.Option
	version   float32
}

var (
	loadOnce sync.Once
	loaded   *Contract
	loadErr  error
)

// Load returns the contract embedded in shared/openapi, parsed once per process.
func Load() (*Contract, error) {
	loadOnce.Do(func() { loaded, loadErr = New(openapi.Document) })
	return loaded, loadErr
}

// New parses an OpenAPI 3.1 document.
func New(doc []byte) (*Contract, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	// Formats (uuid, date-time, uri, email) are assertions here, not annotations: the
	// contract's formats are promises the service keeps.
	opts := []config.Option{config.WithFormatAssertions()}
	v := validator.NewValidatorFromV3Model(&m.Model, opts...)
	return &Contract{
		model:     &m.Model,
		validator: v,
		schemas:   schema_validation.NewSchemaValidator(opts...),
		opts:      opts,
		version:   helpers.VersionToFloat(m.Model.Version),
	}, nil
}

// Response checks one response to method and path (the request's URL path, without the
// query) against the contract. It returns what is wrong, nothing when the response conforms.
func (c *Contract) Response(method, path string, status int, header http.Header, body []byte) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	op, allowed, err := openapi.Lookup(method, path)
	if err != nil {
		return []string{err.Error()}
	}
	if op == nil {
		return c.fallback(method, path, allowed, status, header, body)
	}
	item := c.model.Paths.PathItems.GetOrZero(op.Path)
	if item == nil {
		return []string{fmt.Sprintf("openapi.yaml has no path item %s", op.Path)}
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{}}
	resp := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	var problems []string
	_, errs := c.validator.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(req, resp, item, op.Path)
	problems = append(problems, describe(errs)...)

	// What the library leaves out: a documented response without content has no body (303,
	// 304), and an operation of a later release answers only NOT_DEPLOYED.
	if r := documented(helpers.ExtractOperation(req, item), status); r != nil && orderedmap.Len(r.Content) == 0 && len(bytes.TrimSpace(body)) > 0 {
		problems = append(problems, fmt.Sprintf("status %d is documented without content, but the response has a %d-byte body", status, len(body)))
	}
	if !op.Deployed {
		problems = append(problems, errorCode(body, "NOT_DEPLOYED")...)
	}
	return problems
}

// documented returns the operation's response for status (exact code, then its range, then
// default), or nil.
func documented(op *v3.Operation, status int) *v3.Response {
	if op == nil || op.Responses == nil {
		return nil
	}
	if op.Responses.Codes != nil {
		if r := op.Responses.Codes.GetOrZero(strconv.Itoa(status)); r != nil {
			return r
		}
		if r := op.Responses.Codes.GetOrZero(fmt.Sprintf("%dXX", status/100)); r != nil {
			return r
		}
	}
	return op.Responses.Default
}

// fallback checks a response to a request no published operation takes: the info section's
// 404 NOT_FOUND, or 405 METHOD_NOT_ALLOWED (with Allow) for a published path.
func (c *Contract) fallback(method, path string, allowed []string, status int, header http.Header, body []byte) []string {
	want, code := http.StatusNotFound, "NOT_FOUND"
	if len(allowed) > 0 {
		want, code = http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"
	}
	var problems []string
	if status != want {
		problems = append(problems, fmt.Sprintf("%s %s: no published operation; the fallback answers %d %s, not %d", method, path, want, code, status))
	}
	name := "Error"
	if status == http.StatusMethodNotAllowed {
		name = "MethodNotAllowed"
	}
	problems = append(problems, c.errorResponse(name, method, path, status, header, body)...)
	problems = append(problems, errorCode(body, code)...)
	if len(allowed) > 0 {
		sort.Strings(allowed)
		got := strings.Split(strings.ReplaceAll(header.Get("Allow"), " ", ""), ",")
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(allowed, ",") {
			problems = append(problems, fmt.Sprintf("Allow %q, want the published methods %v", header.Get("Allow"), allowed))
		}
	}
	return problems
}

// errorResponse checks a response against components.responses.<name> (Error,
// MethodNotAllowed): its JSON body and its headers.
func (c *Contract) errorResponse(name, method, path string, status int, header http.Header, body []byte) []string {
	r := c.model.Components.Responses.GetOrZero(name)
	if r == nil {
		return []string{"openapi.yaml has no components.responses." + name}
	}
	mt, ok := helpers.FindMediaType(r.Content, header.Get("Content-Type"))
	if !ok {
		return []string{fmt.Sprintf("Content-Type %q is not one of components.responses.%s's", header.Get("Content-Type"), name)}
	}
	var problems []string
	if _, errs := c.schemas.ValidateSchemaBytesWithVersion(mt.Schema.Schema(), body, c.version); len(errs) > 0 {
		problems = append(problems, describe(errs)...)
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{}}
	resp := &http.Response{StatusCode: status, Header: header, Request: req}
	if _, errs := responses.ValidateResponseHeaders(req, resp, r.Headers, path, strconv.Itoa(status), c.opts...); len(errs) > 0 {
		problems = append(problems, describe(errs)...)
	}
	return problems
}

// errorCode checks the Error envelope carries code.
func errorCode(body []byte, code string) []string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error.Code != code {
		return []string{fmt.Sprintf("error code %q, want %s", env.Error.Code, code)}
	}
	return nil
}

// Request checks a whole request a client sent (method, URL with its query, headers, body)
// against the contract: a published operation, its parameters, its security and its request
// body. It returns what is wrong, nothing when the request conforms.
func (c *Contract) Request(method, rawURL string, header http.Header, body []byte) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return []string{err.Error()}
	}
	op, allowed, err := openapi.Lookup(method, u.Path)
	if err != nil {
		return []string{err.Error()}
	}
	if op == nil {
		return []string{fmt.Sprintf("%s %s is not a published operation (published methods: %v)", method, u.Path, allowed)}
	}
	req, err := http.NewRequest(method, "http://contract.invalid"+u.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return []string{err.Error()}
	}
	req.Header = header.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	_, errs := c.validator.ValidateHttpRequest(req)
	return describe(errs)
}

// RequestBody checks a request body sent with contentType to method and path against the
// operation's request body schema for that content type.
func (c *Contract) RequestBody(method, path, contentType string, body []byte) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	op, _, err := openapi.Lookup(method, path)
	if err != nil {
		return []string{err.Error()}
	}
	if op == nil {
		return []string{fmt.Sprintf("%s %s is not a published operation", method, path)}
	}
	item := c.model.Paths.PathItems.GetOrZero(op.Path)
	o := helpers.ExtractOperation(&http.Request{Method: method}, item)
	if o == nil || o.RequestBody == nil {
		return []string{fmt.Sprintf("%s %s (%s) takes no request body", method, op.Path, op.OperationID)}
	}
	req, err := http.NewRequest(method, "http://contract.invalid"+path, bytes.NewReader(body))
	if err != nil {
		return []string{err.Error()}
	}
	req.Header.Set("Content-Type", contentType)
	_, errs := c.validator.GetRequestBodyValidator().ValidateRequestBodyWithPathItem(req, item, op.Path)
	return describe(errs)
}

// describe renders validation errors, one line each, with the schema failures' locations.
func describe(errs []*verrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		if e == nil {
			continue
		}
		s := e.Message
		if e.Reason != "" && e.Reason != e.Message {
			s += ": " + e.Reason
		}
		for _, f := range e.SchemaValidationErrors {
			loc := f.FieldPath
			if loc == "" {
				loc = "/" + strings.Join(f.InstancePath, "/")
			}
			s += fmt.Sprintf("\n\t\tat %s: %s (%s)", loc, f.Reason, f.KeywordLocation)
		}
		out = append(out, s)
	}
	return out
}
