// Package bench holds the benchmarks behind `make bench`: payment create and verify, invoked
// as API Gateway events on the real handlers against dynalite, each interleaved with a raw
// PutItem or GetItem of the same size on the same server, reporting DynamoDB requests per
// call (counted on the wire) and p50 latencies side by side.
package bench
