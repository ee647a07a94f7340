package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithDocs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "index.html")
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "api "+r.Method+" "+r.URL.Path)
	})
	h := withDocs(api, file)
	get := func(method, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("GET", "/docs"); code != 404 || !strings.Contains(body, "make docs") {
		t.Errorf("without the file: %d %q", code, body)
	}
	if err := os.WriteFile(file, []byte("<title>Takapay payments API</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/docs", "/docs/", "/docs/other/createpayment"} {
		if code, body := get("GET", p); code != 200 || !strings.Contains(body, "Takapay payments API") {
			t.Errorf("GET %s: %d %q", p, code, body)
		}
	}
	if code, _ := get("POST", "/docs"); code != 405 {
		t.Errorf("POST /docs: %d", code)
	}
	// Everything else reaches the gateway unchanged, unclean paths included.
	for _, p := range []string{"/v1/payment/create", "/docsx", "//v1/../healthz", "/v1/docs/"} {
		if code, body := get("GET", p); code != 200 || body != "api GET "+p {
			t.Errorf("GET %s: %d %q, want the API", p, code, body)
		}
	}
}
