package dynamo

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/aws/awsx"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/edge/httpapi"
	"github.com/takapay/payments/shared/foundation/apierr"
)

// testDocument stores a fresh customer at version 1 (through CreateDocument) and returns it.
func testDocument(t *testing.T, s *Store, at time.Time) *document.Record {
	t.Helper()
	id, _ := uuid.NewV7()
	rec := &document.Record{ID: id.String(), WorkspaceID: uuid.NewString(), Environment: auth.Sandbox, Kind: document.Customers,
		Reference: "r", Status: document.StatusActive, Version: 1, Body: json.RawMessage(`{"reference":"r"}`),
		CreatedAt: at, UpdatedAt: at, Payments: []document.PaymentRef{}}
	rec.SetHistory([]document.HistoryEntry{{Version: 1, Status: document.StatusActive, OccurredAt: at, Action: "create"}})
	if _, _, err := s.CreateDocument(t.Context(), "create-key-"+rec.ID, "hash", rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetDocument(t.Context(), rec.WorkspaceID, rec.Environment, rec.Kind, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// editDocument writes the next version of cur as an edit under key, applied at at, the way
// the document service does.
func editDocument(t *testing.T, s *Store, cur *document.Record, key string, at time.Time) *document.Record {
	t.Helper()
	next := *cur
	next.Version, next.UpdatedAt = cur.Version+1, at
	h := append(append([]document.HistoryEntry(nil), cur.History...),
		document.HistoryEntry{Version: next.Version, Status: cur.Status, OccurredAt: at, Action: "edit"})
	next.SetHistory(h[max(0, len(h)-document.HistoryWindow):])
	next.LastEdit = &document.AppliedEdit{Key: key, RequestHash: "hash-" + key, Version: next.Version, AppliedAt: at}
	if err := s.UpdateDocument(t.Context(), cur, &next, next.LastEdit); err != nil {
		t.Fatalf("edit to version %d: %v", next.Version, err)
	}
	got, err := s.GetDocument(t.Context(), cur.WorkspaceID, cur.Environment, cur.Kind, cur.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Edit keys are kept 24 hours after their edit, in the document while it is the latest and
// in their own item after that; an expired key counts as absent wherever it is.
func TestEditKeyRetention(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	now := time.Now().UTC()
	doc := testDocument(t, s, now.Add(-30*time.Hour))
	doc = editDocument(t, s, doc, "key-old", now.Add(-25*time.Hour)) // expired
	doc = editDocument(t, s, doc, "key-fresh", now.Add(-23*time.Hour))
	if e, err := s.FindEdit(t.Context(), doc, "key-fresh"); err != nil || e == nil || e.Version != 3 || e.RequestHash != "hash-key-fresh" {
		t.Fatalf("FindEdit(latest edit's key) = %+v, %v", e, err)
	}
	// The expired key was not copied out: nothing to read, and keys_until stays unset.
	if !doc.EditKeysUntil.IsZero() {
		t.Fatalf("keys_until = %v after moving out only an expired key", doc.EditKeysUntil)
	}
	if item, err := s.get(t.Context(), editKeyPK(doc, "key-old"), "EDIT"); err != nil || item != nil {
		t.Fatalf("an expired edit key was copied out of the document: %v %v", item, err)
	}
	doc = editDocument(t, s, doc, "key-new", now)
	// key-fresh now lives in its own item, found until 24 h after its edit.
	if want := now.Add(-23 * time.Hour).Add(EditKeyRetention).Unix(); doc.EditKeysUntil.Unix() != want {
		t.Fatalf("keys_until = %v, want %v", doc.EditKeysUntil.Unix(), want)
	}
	if e, err := s.FindEdit(t.Context(), doc, "key-fresh"); err != nil || e == nil || e.Version != 3 || e.RequestHash != "hash-key-fresh" {
		t.Fatalf("FindEdit(moved-out key) = %+v, %v", e, err)
	}
	for _, k := range []string{"key-old", "never-used"} {
		if e, err := s.FindEdit(t.Context(), doc, k); err != nil || e != nil {
			t.Errorf("FindEdit(%s) = %+v, %v; want absent", k, e, err)
		}
	}
	// Once its ttl passes, a stored key item counts as absent even though it is still there.
	item, err := s.get(t.Context(), editKeyPK(doc, "key-fresh"), "EDIT")
	if err != nil || item == nil {
		t.Fatalf("edit key item: %v %v", item, err)
	}
	item["ttl"] = &types.AttributeValueMemberN{Value: fmt.Sprint(now.Add(-time.Minute).Unix())}
	if _, err := s.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: item}); err != nil {
		t.Fatal(err)
	}
	if e, err := s.FindEdit(t.Context(), doc, "key-fresh"); err != nil || e != nil {
		t.Errorf("FindEdit(expired key item) = %+v, %v; want absent", e, err)
	}
	// An expired key in the document itself counts as absent too.
	stale := *doc
	stale.LastEdit = &document.AppliedEdit{Key: "key-new", RequestHash: "h", Version: doc.Version, AppliedAt: now.Add(-25 * time.Hour)}
	if e, err := s.FindEdit(t.Context(), &stale, "key-new"); err != nil || e != nil {
		t.Errorf("FindEdit(expired last edit) = %+v, %v; want absent", e, err)
	}
}

// A crash between the copies and the document write (simulated by a writer that copies and
// then loses the version race) leaves the document as it was and nothing to repair; the
// winner's write and every later one still page every version exactly once.
func TestUpdateDocumentLoserCopiesAreHarmless(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	now := time.Now().UTC()
	doc := testDocument(t, s, now)
	for i := range document.HistoryWindow + 5 {
		doc = editDocument(t, s, doc, fmt.Sprintf("key-%d", i), now.Add(time.Duration(i+1)*time.Millisecond))
	}
	// A writer that read this version copies out, then loses: version moved on under it.
	stale := doc
	doc = editDocument(t, s, doc, "winner", now.Add(time.Second))
	next := *stale
	next.Version = stale.Version + 1
	next.SetHistory(append(append([]document.HistoryEntry(nil), stale.History[1:]...),
		document.HistoryEntry{Version: next.Version, Status: "active", OccurredAt: now.Add(2 * time.Second), Action: "edit"}))
	loser := &document.AppliedEdit{Key: "loser", RequestHash: "h", Version: next.Version, AppliedAt: now}
	if err := s.UpdateDocument(t.Context(), stale, &next, loser); !errors.Is(err, document.ErrConflict) {
		t.Fatalf("stale write = %v, want ErrConflict", err)
	}
	if e, err := s.FindEdit(t.Context(), doc, "loser"); err != nil || e != nil {
		t.Fatalf("the losing edit's key is recorded: %+v %v", e, err)
	}
	if e, err := s.FindEdit(t.Context(), doc, "winner"); err != nil || e == nil || e.Version != stale.Version+1 {
		t.Fatalf("the winning edit's key: %+v %v", e, err)
	}
	older, err := s.History(t.Context(), doc, 1, doc.History[0].Version-1)
	if err != nil {
		t.Fatal(err)
	}
	all := append(older, doc.History...)
	if int64(len(all)) != doc.Version {
		t.Fatalf("%d history entries for version %d", len(all), doc.Version)
	}
	for i, h := range all {
		if h.Version != int64(i+1) || (i == int(doc.Version)-1) != (h.OccurredAt.Equal(now.Add(time.Second))) {
			t.Fatalf("entry %d: %+v", i, h)
		}
	}
}

// DynamoDB's (and dynalite's) refusal of an item over 400 KB is a non-retryable 413 at the
// edge, never a 500: whatever write path meets it.
func TestItemOverTheLimitIsRequestTooLarge(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	doc := testDocument(t, s, time.Now().UTC())
	next := *doc
	next.Version, next.UpdatedAt = doc.Version+1, time.Now().UTC()
	next.SetHistory(append(append([]document.HistoryEntry(nil), doc.History...),
		document.HistoryEntry{Version: 2, Status: doc.Status, OccurredAt: next.UpdatedAt, Action: "edit"}))
	next.Body = json.RawMessage(`{"reference":"r","notes":"` + strings.Repeat("x", 410*1024) + `"}`)
	err := s.UpdateDocument(t.Context(), doc, &next, nil)
	if err == nil || !awsx.IsItemTooLarge(err) {
		t.Fatalf("UpdateItem of a 410 KB document = %v, want DynamoDB's item size ValidationException", err)
	}
	av := key("LIMIT#"+uuid.NewString(), "X")
	av["blob"] = &types.AttributeValueMemberS{Value: strings.Repeat("y", 401*1024)}
	_, perr := s.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(s.Table), Item: av})
	for name, err := range map[string]error{"UpdateItem": err, "PutItem": perr} {
		e := httpapi.Classify(fmt.Errorf("store: %w", err))
		if e.Code != apierr.RequestTooLarge || e.Status() != http.StatusRequestEntityTooLarge || e.Code.Retryable() ||
			!strings.Contains(e.Message, "400 KB") {
			t.Errorf("%s over the item limit classified as %s %d (retryable %v): %s", name, e.Code, e.Status(), e.Code.Retryable(), e.Message)
		}
	}
	if got, err := s.GetDocument(t.Context(), doc.WorkspaceID, doc.Environment, doc.Kind, doc.ID); err != nil || got.Version != 1 {
		t.Fatalf("the refused write changed the document: %+v %v", got, err)
	}
}
