// Command funcsize prints every production function over 100 lines or over cyclomatic
// complexity 20 (package shared/local/funcsize), then the counts: `go run ./cmd/funcsize`
// from the repository root; -all prints every function.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/takapay/payments/shared/local/funcsize"
)

func main() {
	all := flag.Bool("all", false, "print every function, not only those over a bound")
	flag.Parse()
	fns, err := funcsize.Measure(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	long, complex := 0, 0
	for _, f := range fns {
		if f.Lines > funcsize.MaxLines {
			long++
		}
		if f.Complexity > funcsize.MaxComplexity {
			complex++
		}
		if *all || f.Over() {
			fmt.Println(f)
		}
	}
	fmt.Printf("%d functions: %d over %d lines, %d over complexity %d\n", len(fns), long, funcsize.MaxLines, complex, funcsize.MaxComplexity)
}
