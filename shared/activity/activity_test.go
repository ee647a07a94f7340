package activity_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/activity"
	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/local/devstack"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestBound(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	e := activity.Bound(activity.Event{UserAgent: long, Target: "a\x00b\nc\xff", IP: strings.Repeat("1", 100)})
	if len(e.UserAgent) > activity.MaxUserAgent || !utf8.ValidString(e.UserAgent) || len(e.UserAgent) != 256 {
		t.Fatalf("user agent %d bytes, valid %v", len(e.UserAgent), utf8.ValidString(e.UserAgent))
	}
	if e.Target != "a b c\uFFFD" {
		t.Fatalf("target %q", e.Target)
	}
	if len(e.IP) != activity.MaxIP {
		t.Fatalf("ip %d bytes", len(e.IP))
	}
}

// The log keeps a URL's scheme, host and path: never its query or fragment (a receiver's
// secret token often rides there), nor userinfo.
func TestURLKeepsNoQuery(t *testing.T) {
	for raw, want := range map[string]string{
		"https://hooks.example.com/takapay?token=s3cret&x=1": "https://hooks.example.com/takapay",
		" https://hooks.example.com:8443/a/b?k=s3cret#frag ": "https://hooks.example.com:8443/a/b",
		"https://user:s3cret@hooks.example.com/x":            "https://hooks.example.com/x",
		"https://hooks.example.com?s3cret":                   "https://hooks.example.com",
		"https://hooks.example.com/p%3Fq=s3cret?real=s3cret": "https://hooks.example.com/p%3Fq=s3cret",
		"not a url ?s3cret":                                  "(not a URL)",
		"https://hooks.example.com/%zz?s3cret":               "(not a URL)",
	} {
		got := activity.URL(raw)
		if got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRecordRefuses(t *testing.T) {
	s := activity.New(nil, nil) // never reaches the store
	ctx := context.Background()
	if err := s.Record(ctx, activity.Event{WorkspaceID: "", Action: activity.KeyCreated}); !errors.Is(err, activity.ErrInvalidEvent) {
		t.Fatalf("no workspace: %v", err)
	}
	if err := s.Record(ctx, activity.Event{WorkspaceID: "a#b", Action: activity.KeyCreated}); !errors.Is(err, activity.ErrInvalidEvent) {
		t.Fatalf("# in workspace: %v", err)
	}
	if err := s.Record(ctx, activity.Event{WorkspaceID: uuid.NewString(), Action: "key.stolen"}); !errors.Is(err, activity.ErrUnknownAction) {
		t.Fatalf("unknown action: %v", err)
	}
	if _, err := s.List(ctx, uuid.NewString(), "", 101); !errors.Is(err, activity.ErrInvalidLimit) {
		t.Fatalf("limit 101: %v", err)
	}
	if _, err := s.List(ctx, uuid.NewString(), "%%%", 10); !errors.Is(err, activity.ErrBadCursor) {
		t.Fatalf("cursor: %v", err)
	}
}

func TestActivityOnDynalite(t *testing.T) {
	stack := devstack.StartTestStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store := &dynamo.Store{DB: stack.DDB, Table: stack.TableName("Table")}
	clk := &clock{t: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)}
	svc := activity.New(store, clk.now)

	wsA, wsB := uuid.NewString(), uuid.NewString()
	// 7 events in A, a second apart (the 4th and 5th at the same instant), 1 in B.
	var want []string
	for i := range 7 {
		if i != 4 {
			clk.add(time.Second)
		}
		target := "key " + string(rune('a'+i))
		if err := svc.Record(ctx, activity.Event{WorkspaceID: wsA, ActorUserID: uuid.NewString(), ActorEmail: "ana@example.com",
			Action: activity.KeyCreated, Target: target, IP: "203.0.113.9", UserAgent: "Mozilla/5.0"}); err != nil {
			t.Fatal(err)
		}
		want = append([]string{target}, want...)
	}
	if err := svc.Record(ctx, activity.Event{WorkspaceID: wsB, Action: activity.MemberInvited, Target: "b-only"}); err != nil {
		t.Fatal(err)
	}

	t.Run("newest first, paged", func(t *testing.T) {
		var got []string
		cursor := ""
		pages := 0
		for {
			p, err := svc.List(ctx, wsA, cursor, 3)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range p.Items {
				got = append(got, e.Target)
				if e.WorkspaceID != wsA || e.IP != "203.0.113.9" || e.UserAgent != "Mozilla/5.0" || e.ActorEmail != "ana@example.com" || e.At.IsZero() {
					t.Fatalf("entry %+v", e)
				}
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		// Events 4 and 5 share an instant: their order between them is the random suffix's.
		if len(got) != 7 || pages != 3 || got[0] != want[0] || got[6] != want[6] {
			t.Fatalf("got %v in %d pages, want %v", got, pages, want)
		}
		seen := map[string]bool{}
		for _, g := range got {
			seen[g] = true
		}
		if len(seen) != 7 {
			t.Fatalf("duplicates across pages: %v", got)
		}
	})

	t.Run("another workspace sees nothing of A", func(t *testing.T) {
		p, err := svc.List(ctx, wsB, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 1 || p.Items[0].Target != "b-only" || p.NextCursor != "" {
			t.Fatalf("B lists %+v", p)
		}
		// A's cursor used on B's list positions B's list only.
		pa, _ := svc.List(ctx, wsA, "", 1)
		pb, err := svc.List(ctx, wsB, pa.NextCursor, 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range pb.Items {
			if e.WorkspaceID != wsB || e.Target != "b-only" {
				t.Fatalf("B with A's cursor lists %+v", e)
			}
		}
		p, err = svc.List(ctx, uuid.NewString(), "", 50)
		if err != nil || len(p.Items) != 0 {
			t.Fatalf("an unknown workspace lists %+v, %v", p, err)
		}
	})

	t.Run("a forged cursor is refused", func(t *testing.T) {
		for _, c := range []string{"eA", "V1MjeA", "MjAyNi0xMS0wMVQxMDowMDowMS4wMDAwMDAwMDBaI3p6enp6enp6enp6enp6eno"} {
			if _, err := svc.List(ctx, wsA, c, 10); !errors.Is(err, activity.ErrBadCursor) {
				t.Fatalf("cursor %q: %v", c, err)
			}
		}
	})

	t.Run("expired events are absent", func(t *testing.T) {
		clk.add(activity.Retention - 2*time.Second) // the first 3 of A (at +1s, +2s, +3s) are now past retention
		p, err := svc.List(ctx, wsA, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 4 || p.Items[0].Target != want[0] {
			t.Fatalf("after %s: %d events %+v", activity.Retention, len(p.Items), p.Items)
		}
		clk.add(time.Hour)
		p, err = svc.List(ctx, wsA, "", 50)
		if err != nil || len(p.Items) != 0 {
			t.Fatalf("all expired: %+v, %v", p, err)
		}
	})

	t.Run("item size and ttl", func(t *testing.T) {
		ws := uuid.NewString()
		big := activity.Event{WorkspaceID: ws, ActorUserID: uuid.NewString(), ActorEmail: strings.Repeat("e", 400),
			Action: activity.OwnershipTransferred, Target: strings.Repeat("ট", 400), IP: strings.Repeat("f", 99),
			UserAgent: strings.Repeat("u", 5000), At: clk.now()}
		if err := svc.Record(ctx, big); err != nil {
			t.Fatal(err)
		}
		out, err := stack.DDB.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String(stack.TableName("Table")), KeyConditionExpression: aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "WS#" + ws + "#ACTIVITY"}},
		})
		if err != nil || len(out.Items) != 1 {
			t.Fatalf("query: %v, %d items", err, len(out.Items))
		}
		size := itemSize(out.Items[0])
		t.Logf("largest activity item: %d bytes", size)
		if size >= 1024 {
			t.Fatalf("item is %d bytes, want < 1 KB", size)
		}
		ttl := out.Items[0]["ttl"].(*types.AttributeValueMemberN).Value
		if want := clk.now().Add(activity.Retention).Unix(); ttl != itoa(want) {
			t.Fatalf("ttl %s, want %d", ttl, want)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// itemSize is DynamoDB's item size: attribute names plus values (strings as UTF-8 bytes,
// numbers at most 21 bytes; here their digits plus one).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			n += len(v.Value)
		case *types.AttributeValueMemberN:
			n += len(v.Value) + 1
		default:
			n += 100
		}
	}
	return n
}
