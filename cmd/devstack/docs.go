package main

import (
	"net/http"
	"os"
	"strings"
)

// docsPath is where `make docs` writes the API reference (Redocly CLI's build-docs of
// shared/openapi/openapi.yaml), relative to the repository root.
const docsPath = ".build/docs/index.html"

// withDocs serves the API reference file at /docs and under /docs/ (the page routes each
// operation and schema in the browser, at /docs/<section>/<name>: reloading or sharing such a
// URL loads the same page, which shows that route) and every other request to api (the local
// gateway) unchanged. It compares the path itself rather than using an
// http.ServeMux, which would redirect unclean paths before the gateway sees them. Local
// tooling only: the deployed API has no /docs.
func withDocs(api http.Handler, file string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/docs" && !strings.HasPrefix(r.URL.Path, "/docs/") {
			api.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f, err := os.Open(file)
		if err != nil {
			http.Error(w, "the API reference is not built: run make docs (make dev does)", http.StatusNotFound)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || st.IsDir() {
			http.Error(w, "the API reference is not built: run make docs (make dev does)", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "index.html", st.ModTime(), f)
	})
}
