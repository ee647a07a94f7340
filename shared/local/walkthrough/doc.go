// Package walkthrough runs the curl walk-throughs of README.md, docs/getting-started-curl.md and docs/refunds.md
// against a fresh local stack (`make walkthrough`, and `make test`), so the documentation cannot
// drift from the code. Local tooling: no Lambda links it.
package walkthrough
