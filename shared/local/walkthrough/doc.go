// Package walkthrough runs README.md's curl walk-throughs against a fresh local stack (`make
// walkthrough`, and `make test`), so the README cannot drift from the code. Local tooling: no
// Lambda links it.
package walkthrough
