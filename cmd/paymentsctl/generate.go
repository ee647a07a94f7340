package main

// docs/paymentsctl.md, the CLI reference, from the CLI's help (TestReferenceDoc checks it).
//go:generate go test -run ^TestReferenceDoc$ -update .
