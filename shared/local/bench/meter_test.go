package bench

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/takapay/payments/shared/local/apitest"
)

// usage is what one step of a journey cost.
type usage struct {
	DDBRequests int
	WRU         float64 // table + index write request units
	IndexWRU    float64 // the index part of WRU
	RRU         float64
	SQS         int // SQS requests sent by the handlers
	MaxItem     int // largest payment item size seen, bytes
}

func (u *usage) add(o usage) {
	u.DDBRequests += o.DDBRequests
	u.WRU += o.WRU
	u.IndexWRU += o.IndexWRU
	u.RRU += o.RRU
	u.SQS += o.SQS
	u.MaxItem = max(u.MaxItem, o.MaxItem)
}

// meter is a client middleware that measures the request units of every DynamoDB request a
// handler sends: the table's units from the server's ConsumedCapacity where it returns them
// (dynalite does for the table), else from the item sizes (DynamoDB's rules: 1 WRU per KB
// written, the larger of the old and new item; 1 RRU per 4 KB read strongly, half for
// eventually consistent); the indexes' units from the item's index keys before and after the
// write (GSI2 projects keys only: a write that keeps its keys costs the index nothing, adding
// or removing an entry costs 1, moving it 2; GSI3 likewise, with its two projected
// attributes; GSI1 projects ALL: any write of an item in it costs its size again). It also records which partition key values each write touched.
type meter struct {
	raw   *dynamodb.Client // uninstrumented: reads the item around each write
	table string

	mu      sync.Mutex
	cur     usage
	keys    map[string]int // "table PAY#…", "gsi2 OUTBOX#17" -> writes
	keepKey bool
	// sizes turns on the item reads around each write that the unit figures need; the
	// latency benchmarks turn it off so that they time only what the handler does.
	sizes bool
}

func (m *meter) take() usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.cur
	m.cur = usage{}
	return u
}

func (m *meter) recordKey(k string) {
	if m.keepKey {
		m.keys[k]++
	}
}

// option installs the meter on a client's configuration.
func (m *meter) option(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("benchMeter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			switch awsmiddleware.GetServiceID(ctx) {
			case "SQS":
				m.mu.Lock()
				m.cur.SQS++
				m.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			case "DynamoDB":
			default:
				return next.HandleInitialize(ctx, in)
			}
			var key map[string]types.AttributeValue
			write := true
			switch p := in.Parameters.(type) {
			case *dynamodb.PutItemInput:
				key = map[string]types.AttributeValue{"pk": p.Item["pk"], "sk": p.Item["sk"]}
			case *dynamodb.UpdateItemInput:
				key = p.Key
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			case *dynamodb.DeleteItemInput:
				key = p.Key
			case *dynamodb.GetItemInput:
				write = false
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			case *dynamodb.QueryInput:
				write = false
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
			default:
				write = false
			}
			m.mu.Lock()
			sizes := m.sizes
			m.mu.Unlock()
			var before map[string]types.AttributeValue
			if write && sizes {
				before = m.get(ctx, key)
			}
			out, md, err := next.HandleInitialize(ctx, in)
			m.mu.Lock()
			defer m.mu.Unlock()
			m.cur.DDBRequests++
			if !write {
				m.cur.RRU += readUnits(in.Parameters, out.Result)
				return out, md, err
			}
			if !sizes {
				return out, md, err
			}
			m.mu.Unlock()
			after := m.get(ctx, key)
			m.mu.Lock()
			size := max(itemSize(before), itemSize(after))
			if pk, ok := key["pk"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "PAY#") {
				m.cur.MaxItem = max(m.cur.MaxItem, size)
			}
			m.cur.WRU += kb(size, 1024)
			m.recordKey("table " + str(key["pk"]))
			idx := indexUnits(before, after, size, m.recordKey)
			m.cur.WRU += idx
			m.cur.IndexWRU += idx
			return out, md, err
		}), middleware.After)
}

func (m *meter) get(ctx context.Context, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	out, err := m.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(m.table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// indexUnits is the index write cost of changing an item from before to after.
func indexUnits(before, after map[string]types.AttributeValue, size int, record func(string)) float64 {
	units := 0.0
	// GSI2, KEYS_ONLY: only key changes write.
	bk, ak := str(before["gsi2pk"])+"\x00"+str(before["gsi2sk"]), str(after["gsi2pk"])+"\x00"+str(after["gsi2sk"])
	hasB, hasA := str(before["gsi2pk"]) != "", str(after["gsi2pk"]) != ""
	if hasB && (!hasA || bk != ak) {
		units++
		record("gsi2 " + str(before["gsi2pk"]))
	}
	if hasA && (!hasB || bk != ak) {
		units++
		record("gsi2 " + str(after["gsi2pk"]))
	}
	// GSI3, INCLUDE document_id and snap: a write changes the index only when it
	// changes its keys or those attributes (intents are written there once, at create).
	g3 := func(it map[string]types.AttributeValue) string {
		return str(it["gsi3pk"]) + "\x00" + str(it["created_at"]) + "\x00" + str(it["document_id"]) + "\x00" + str(it["snap"])
	}
	if b3, a3 := str(before["gsi3pk"]), str(after["gsi3pk"]); (b3 != "" || a3 != "") && g3(before) != g3(after) {
		if b3 != "" && a3 != "" && str(before["created_at"]) == str(after["created_at"]) && b3 == a3 {
			units++ // the entry's projected attributes change in place
		} else {
			if b3 != "" {
				units++
			}
			if a3 != "" {
				units++
			}
		}
		record("gsi3 " + max(a3, b3))
	}
	// GSI1, ALL: every write of an item in it is written to the index too.
	if g1b, g1a := str(before["gsi1pk"]), str(after["gsi1pk"]); g1b != "" || g1a != "" {
		if g1b != "" && g1a != "" && g1b != g1a {
			units += kb(size, 1024)
			record("gsi1 " + g1b)
		}
		units += kb(size, 1024)
		record("gsi1 " + max(g1a, g1b))
	}
	return units
}

// readUnits is a read's cost: the server's figure where it gave one, else from the sizes read.
func readUnits(params, result any) float64 {
	switch r := result.(type) {
	case *dynamodb.GetItemOutput:
		if r.ConsumedCapacity != nil && r.ConsumedCapacity.CapacityUnits != nil {
			return *r.ConsumedCapacity.CapacityUnits
		}
		strong := false
		if p, ok := params.(*dynamodb.GetItemInput); ok {
			strong = aws.ToBool(p.ConsistentRead)
		}
		return readCost(itemSize(r.Item), strong)
	case *dynamodb.QueryOutput:
		if r.ConsumedCapacity != nil && r.ConsumedCapacity.CapacityUnits != nil {
			return *r.ConsumedCapacity.CapacityUnits
		}
		total := 0
		for _, it := range r.Items {
			total += itemSize(it)
		}
		return readCost(total, false)
	}
	return 0
}

func readCost(size int, strong bool) float64 {
	u := kb(size, 4096)
	if !strong {
		u /= 2
	}
	return u
}

// kb is the number of units of unit bytes that size occupies (at least one).
func kb(size, unit int) float64 {
	return math.Max(1, math.Ceil(float64(size)/float64(unit)))
}

// itemSize is DynamoDB's item size.
func itemSize(item map[string]types.AttributeValue) int { return apitest.ItemSize(item) }
