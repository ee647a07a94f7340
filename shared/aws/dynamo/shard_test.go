package dynamo

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/google/uuid"
)

// The GSI2 shard of a payment spreads the index writes evenly. A paid checkout with a webhook
// writes its EXPIRY#<shard> key twice (create, then its removal at the outcome) and its
// OUTBOX#<shard> key twice (the outcome, then the delivery): over 10,000 payments no key value
// takes more than 1 % of the 40,000 writes (make bench measures the same over real writes).
func TestShardsSpreadEvenly(t *testing.T) {
	s := &Store{}
	counts := map[string]int{}
	const n = 10000
	for i := range n {
		id := uuid.NewSHA1(uuid.NameSpaceOID, []byte(strconv.Itoa(i))).String()
		counts[s.shard(id)]++
	}
	if len(counts) != DefaultGSI2Shards {
		t.Fatalf("%d shards used, want %d", len(counts), DefaultGSI2Shards)
	}
	hottest := 0
	for _, c := range counts {
		hottest = max(hottest, c)
	}
	if share := float64(2*hottest) / (4 * n); share > 0.01 {
		t.Fatalf("the hottest key value takes %.2f %% of the index writes", 100*share)
	}
	if s.expiryPK("x") != "EXPIRY#"+s.shard("x") || s.outboxPK("x") != "OUTBOX#"+s.shard("x") {
		t.Fatal("expiry and outbox keys of one payment use different shards")
	}
	if got := (&Store{GSI2Shards: 4}).shard("0190a8d2-0000-7000-8000-00000000aaaa"); fmt.Sprint(got) > "3" {
		t.Fatalf("shard %s outside 0..3", got)
	}
}
