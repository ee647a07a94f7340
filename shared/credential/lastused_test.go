package credential_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/foundation/web"
)

// requests counts the DynamoDB requests a client sends, by operation, through the SDK's
// middleware stack (as shared/local/bench's meter does).
type requests struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *requests) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// instance is one function instance: its own client (counted), key cache and last-used memory.
func (e *env) instance(t *testing.T, counter *requests) *auth.Authenticator {
	t.Helper()
	db := dynamodb.New(e.stack.DDB.Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("countRequests",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					op := "other"
					switch in.Parameters.(type) {
					case *dynamodb.UpdateItemInput:
						op = "UpdateItem"
					case *dynamodb.GetItemInput:
						op = "GetItem"
					}
					counter.mu.Lock()
					if counter.n == nil {
						counter.n = map[string]int{}
					}
					counter.n[op]++
					counter.mu.Unlock()
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	})
	store := &dynamo.Store{DB: db, Table: e.store.Table}
	clock := func() time.Time { return e.now }
	return &auth.Authenticator{Keys: &auth.KeyCache{Store: store, Now: clock}, LastUsed: &auth.LastUsed{Store: store}, Now: clock}
}

func bearer(key string) *web.Request {
	return &web.Request{Headers: map[string]string{"authorization": "Bearer " + key}}
}

// 100 authentications on one instance write last_used_at exactly once; ListKeys shows the day.
func TestLastUsedOneWriteAgainstDynalite(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	k := e.create(t, ws, "k", auth.Sandbox, auth.PaymentsRead)
	if k.Info.LastUsedOn != "" {
		t.Fatalf("a new key was used on %s", k.Info.LastUsedOn)
	}
	var c requests
	a := e.instance(t, &c)
	first := e.now
	for i := range 100 {
		e.now = first.Add(time.Duration(i) * 100 * time.Millisecond) // 10 s: the cache is refreshed twice
		if _, err := a.Authenticate(e.ctx, bearer(k.Key)); err != nil {
			t.Fatalf("authentication %d: %v", i, err)
		}
	}
	if n := c.count("UpdateItem"); n != 1 {
		t.Fatalf("100 authentications made %d UpdateItem requests, want 1", n)
	}
	rec, err := e.store.GetKey(e.ctx, k.Record.Hash)
	if err != nil || rec.LastUsedAt == nil || !rec.LastUsedAt.Equal(first) {
		t.Fatalf("stored last_used_at = %v, %v; want %v", rec.LastUsedAt, err, first)
	}
	list, err := e.svc.ListKeys(e.ctx, ws)
	if err != nil || list[0].LastUsedOn != first.Format(time.DateOnly) {
		t.Fatalf("LastUsedOn = %q, %v", list[0].LastUsedOn, err)
	}
	// Nothing else of the key changed.
	if rec.Name != "k" || rec.RevokedAt != nil || rec.ExpiresAt != nil || rec.CreatedBy != "user-1" {
		t.Errorf("record = %+v", rec)
	}
	// An hour later: one more write, the stored value moves.
	e.now = first.Add(time.Hour + time.Second)
	for range 10 {
		if _, err := a.Authenticate(e.ctx, bearer(k.Key)); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.count("UpdateItem"); n != 2 {
		t.Fatalf("UpdateItem requests after an hour = %d, want 2", n)
	}
	if rec, _ := e.store.GetKey(e.ctx, k.Record.Hash); !rec.LastUsedAt.Equal(first.Add(time.Hour + time.Second)) {
		t.Errorf("stored last_used_at = %v", rec.LastUsedAt)
	}
}

// Two instances authenticating the same key concurrently: at most two writes between them (one
// per instance; the conditional write lets only the first change the item), and the stored
// value is the first use.
func TestLastUsedTwoInstances(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ws := e.workspace(t)
	k := e.create(t, ws, "k", auth.Live, auth.PaymentsWrite)
	var c1, c2 requests
	a1, a2 := e.instance(t, &c1), e.instance(t, &c2)
	first := e.now
	var wg sync.WaitGroup
	for _, a := range []*auth.Authenticator{a1, a2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if _, err := a.Authenticate(e.ctx, bearer(k.Key)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := c1.count("UpdateItem") + c2.count("UpdateItem"); n < 1 || n > 2 {
		t.Fatalf("two instances made %d UpdateItem requests, want 1 or 2", n)
	}
	if c1.count("UpdateItem") > 1 || c2.count("UpdateItem") > 1 {
		t.Fatalf("an instance wrote twice: %d, %d", c1.count("UpdateItem"), c2.count("UpdateItem"))
	}
	rec, err := e.store.GetKey(e.ctx, k.Record.Hash)
	if err != nil || rec.LastUsedAt == nil || !rec.LastUsedAt.Equal(first) {
		t.Fatalf("stored last_used_at = %v, %v; want %v", rec.LastUsedAt, err, first)
	}
	// A third instance that reads the key after the write does not write at all.
	var c3 requests
	a3 := e.instance(t, &c3)
	e.now = first.Add(30 * time.Minute)
	if _, err := a3.Authenticate(e.ctx, bearer(k.Key)); err != nil || c3.count("UpdateItem") != 0 {
		t.Fatalf("a fresh instance: %v, %d writes", err, c3.count("UpdateItem"))
	}
	// A key that no longer exists is not recreated by a late write.
	if err := e.store.TouchKey(e.ctx, "0000000000000000000000000000000000000000000000000000000000000000", e.now, time.Hour); err != nil {
		t.Fatalf("TouchKey of a missing key: %v", err)
	}
	if rec, _ := e.store.GetKey(e.ctx, "0000000000000000000000000000000000000000000000000000000000000000"); rec != nil {
		t.Fatalf("TouchKey created a key item: %+v", rec)
	}
}
