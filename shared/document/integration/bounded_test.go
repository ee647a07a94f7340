package integration_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/takapay/payments/shared/aws/dynamo"
	"github.com/takapay/payments/shared/document"
	"github.com/takapay/payments/shared/local/apitest"
	"github.com/takapay/payments/shared/local/localapi"
)

// errorCode returns the envelope's code ("" for a success).
func errorCode(res *localapi.Result) string {
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(res.Body, &env)
	return env.Error.Code
}

// documentItem reads a document's raw item from the table.
func documentItem(t *testing.T, a *localapi.TestAPI, kind, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := a.Store.DB.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName: aws.String(a.Store.Table),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "DOC#" + a.Creds.WorkspaceID + "#sandbox#" + kind},
			"sk": &types.AttributeValueMemberS{Value: id},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil || len(out.Item) == 0 {
		t.Fatalf("GetItem of the document: %v (%d attributes)", err, len(out.Item))
	}
	return out.Item
}

type historyRecord struct {
	Version int64 `json:"version"`
	History []struct {
		Version int64  `json:"version"`
		Status  string `json:"status"`
		Action  string `json:"action"`
	} `json:"history"`
	HistoryNextCursor *string `json:"history_next_cursor"`
}

// walkHistory pages a document's history through get's history_cursor, newest page first,
// and returns every version seen (in the order seen, each page oldest first).
func walkHistory(t *testing.T, a *localapi.TestAPI, one string, maxPages int) []int64 {
	t.Helper()
	var pages [][]int64
	cursor := ""
	for range maxPages {
		url := one + "?environment=sandbox"
		if cursor != "" {
			url += "&history_cursor=" + cursor
		}
		res := a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("history page %q: %d %s", cursor, res.Status, res.Body)
		}
		var page struct {
			Items []historyRecord `json:"items"`
		}
		if err := json.Unmarshal(res.Body, &page); err != nil || len(page.Items) != 1 {
			t.Fatalf("history page %q: %v %s", cursor, err, res.Body)
		}
		rec := page.Items[0]
		if len(rec.History) == 0 || len(rec.History) > document.HistoryWindow {
			t.Fatalf("history page %q has %d entries, want 1..%d", cursor, len(rec.History), document.HistoryWindow)
		}
		var versions []int64
		for _, h := range rec.History {
			versions = append(versions, h.Version)
		}
		pages = append(pages, versions)
		if rec.HistoryNextCursor == nil {
			var all []int64
			for i := len(pages) - 1; i >= 0; i-- {
				all = append(all, pages[i]...)
			}
			return all
		}
		if want := strconv.FormatInt(rec.History[0].Version, 10); *rec.HistoryNextCursor != want {
			t.Fatalf("history_next_cursor %q, want the oldest version shown (%s)", *rec.HistoryNextCursor, want)
		}
		if len(rec.History) != document.HistoryWindow {
			t.Fatalf("a history page with a next cursor has %d entries, want %d", len(rec.History), document.HistoryWindow)
		}
		cursor = *rec.HistoryNextCursor
	}
	t.Fatalf("history walk did not end within %d pages", maxPages)
	return nil
}

// A document edited thousands of times with 4,000-character notes stays editable and small:
// its history and applied edit keys live in their own items, the record carries only the
// latest entries, paging returns every version once, and old edit keys still replay.
func TestThousandsOfEditsStayBounded(t *testing.T) {
	t.Parallel()
	a := start(t)
	rec := create(t, a, "invoices", `{"reference": "busy-1", "name": "Busy"}`)
	one := docs(a, "invoices") + "/" + rec.ID
	url := one + "?environment=sandbox"

	// Sequential: dynalite is one process, so parallel edits of one document only add lost
	// races (TestConcurrentEditsWithOneExpectedVersion and the burst below cover those).
	const edits = 3000
	keys := make([]string, edits)
	bodies := make([]string, edits)
	for i := range edits {
		keys[i] = idemKey()
		bodies[i] = fmt.Sprintf(`{"notes": "%05d %s"}`, i, strings.Repeat("n", document.MaxNotes-6))
		res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, bodies[i], "Idempotency-Key", keys[i])
		if res.Status != http.StatusOK {
			t.Fatalf("edit %d: %d %s", i, res.Status, res.Body)
		}
	}
	version := int64(1 + edits)

	// Still editable; every edit applied exactly once.
	res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"name": "Still editable"}`, "Idempotency-Key", idemKey())
	if res.Status != http.StatusOK {
		t.Fatalf("edit after %d edits: %d %s", edits, res.Status, res.Body)
	}
	version++
	got := decode[historyRecord](t, res)
	if got.Version != version {
		t.Fatalf("version %d after %d edits and one more, want %d (each edit exactly once)", got.Version, edits, version)
	}
	if n := apitest.DDBRequests(t, a, res); n != 5 {
		t.Errorf("an edit of a long-lived document made %d DynamoDB requests, want 5 "+
			"(key, GetItem, edit-key GetItem, BatchWriteItem, UpdateItem)", n)
	}
	if len(got.History) != document.HistoryWindow || got.History[document.HistoryWindow-1].Version != version ||
		got.History[0].Version != version-document.HistoryWindow+1 || got.HistoryNextCursor == nil {
		t.Fatalf("edit response history: %+v", got)
	}

	// Racing edits of a long-lived document (each copies out before its conditional write):
	// exactly one wins, and the losers' copies leave no trace in the history below.
	const racers = 20
	statuses := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, fmt.Sprintf(`{"name": "racer %d", "expected_version": %d}`, i, version), "Idempotency-Key", idemKey())
			statuses[i] = res.Status
			if res.Status != http.StatusOK && errorCode(res) != "VERSION_CONFLICT" {
				t.Errorf("racer %d: %d %s", i, res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	if won := slices.Index(statuses, 200); won < 0 || slices.Index(statuses[won+1:], 200) >= 0 {
		t.Fatalf("racing edits at version %d: statuses %v, want exactly one 200", version, statuses)
	}
	version++

	// The stored item stays small: the body plus a bounded overhead.
	item := documentItem(t, a, "invoices", rec.ID)
	size := apitest.ItemSize(item)
	body := len(item["body"].(*types.AttributeValueMemberS).Value)
	t.Logf("document item after %d edits: %d bytes (body %d)", version, size, body)
	if size > 8*1024 || size-body > 3*1024 {
		t.Errorf("document item is %d bytes (body %d) after %d versions; want under 8 KiB, at most 3 KiB besides the body", size, body, version)
	}

	// Lifecycle commands still record history (and move the last edit's key out too).
	res = a.Do(t, "POST", one+"/issue?environment=sandbox", a.Creds.SandboxKey, "")
	issued := decode[historyRecord](t, res)
	version++
	if last := issued.History[len(issued.History)-1]; res.Status != http.StatusOK || issued.Version != version || last.Version != version || last.Action != "issue" || last.Status != "issued" {
		t.Fatalf("issue: %d %.300s", res.Status, res.Body)
	}
	if n := apitest.DDBRequests(t, a, res); n != 4 {
		t.Errorf("issue of a long-lived document made %d DynamoDB requests, want 4 (key, GetItem, BatchWriteItem, UpdateItem)", n)
	}

	// Get and list carry the latest entries; paging returns every version exactly once.
	res = a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")
	if n := apitest.DDBRequests(t, a, res); n != 2 {
		t.Errorf("get made %d DynamoDB requests, want 2", n)
	}
	res = a.Do(t, "GET", url+"&history_cursor="+*got.HistoryNextCursor, a.Creds.ReadonlyKey, "")
	if n := apitest.DDBRequests(t, a, res); res.Status != http.StatusOK || n != 3 {
		t.Errorf("a history page below the record's window: %d, %d DynamoDB requests, want 200 and 3 (key, GetItem, Query)", res.Status, n)
	}
	versions := walkHistory(t, a, one, int(version)/document.HistoryWindow+2)
	if int64(len(versions)) != version {
		t.Fatalf("history walk returned %d entries, want %d", len(versions), version)
	}
	for i, v := range versions {
		if v != int64(i+1) {
			t.Fatalf("history walk entry %d is version %d, want %d (every version once, in order)", i, v, i+1)
		}
	}
	list := a.Do(t, "GET", docs(a, "invoices")+"?environment=sandbox&limit=100", a.Creds.ReadonlyKey, "")
	var page struct {
		Items []historyRecord `json:"items"`
	}
	if err := json.Unmarshal(list.Body, &page); err != nil || len(page.Items) != 1 || len(page.Items[0].History) != document.HistoryWindow {
		t.Fatalf("list: %v %.300s", err, list.Body)
	}
	if n := apitest.DDBRequests(t, a, list); n != 2 {
		t.Errorf("list made %d DynamoDB requests, want 2", n)
	}

	// Old edit keys are still replays (the current record, no new version); another patch
	// under one of them is 409.
	for _, i := range []int{0, 1, 777, edits / 2, edits - 25, edits - 1} {
		res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, bodies[i], "Idempotency-Key", keys[i])
		if res.Status != http.StatusOK || res.Header.Get("Idempotent-Replayed") != "true" || decode[historyRecord](t, res).Version != version {
			t.Fatalf("replay of edit %d: %d %.200s (replayed %q)", i, res.Status, res.Body, res.Header.Get("Idempotent-Replayed"))
		}
	}
	apitest.Envelope(t, a.Do(t, "PATCH", url, a.Creds.SandboxKey, `{"notes": "other"}`, "Idempotency-Key", keys[3]), 409, "IDEMPOTENCY_KEY_REUSED")
	if v := decode[listResult](t, a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")).Items[0].Version; v != version {
		t.Fatalf("replays changed the version: %d, want %d", v, version)
	}
}

// largeBody returns a body just under the 64 KiB request limit that is stored at about twice
// its size: custom field options made of U+2028, which canonical JSON escapes as \u2028.
func largeBody(ref string) string {
	var fields []string
	for f := range 6 {
		var opts []string
		for o := range 28 {
			opts = append(opts, fmt.Sprintf(`"%03d%s"`, o, strings.Repeat("\u2028", document.MaxOption-3)))
		}
		fields = append(fields, fmt.Sprintf(`{"id": "f%d", "label": "Field %d", "type": "select", "options": [%s]}`, f, f, strings.Join(opts, ",")))
	}
	return fmt.Sprintf(`{"reference": %q, "fields": [%s]}`, ref, strings.Join(fields, ","))
}

// A page of large records stops at dynamo.MaxPageBytes with a next_cursor, so no list
// response can pass Lambda's 6 MB limit; the walk still returns every record once.
func TestListPagesAreBoundedBySize(t *testing.T) {
	t.Parallel()
	a := start(t)
	const total = 24
	want := map[string]bool{}
	for i := range total {
		body := largeBody(fmt.Sprintf("big-%02d", i))
		if len(body) > 64*1024 {
			t.Fatalf("test body is %d bytes, over the request limit", len(body))
		}
		res := a.Do(t, "POST", docs(a, "payment-links")+"?environment=sandbox", a.Creds.SandboxKey, body, "Idempotency-Key", idemKey())
		if res.Status != http.StatusCreated {
			t.Fatalf("create %d: %d %.300s", i, res.Status, res.Body)
		}
		want[decode[record](t, res).ID] = true
	}
	item := documentItem(t, a, "payment-links", func() string {
		for id := range want {
			return id
		}
		return ""
	}())
	stored := len(item["body"].(*types.AttributeValueMemberS).Value)
	if stored*total <= dynamo.MaxPageBytes {
		t.Fatalf("stored bodies of %d bytes are too small to test the page bound", stored)
	}
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		if pages > total {
			t.Fatal("the walk does not end")
		}
		url := docs(a, "payment-links") + "?environment=sandbox&limit=100"
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		res := a.Do(t, "GET", url, a.Creds.ReadonlyKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("page %d: %d %.300s", pages, res.Status, res.Body)
		}
		if len(res.Body) > dynamo.MaxPageBytes+dynamo.MaxPageBytes/4 {
			t.Fatalf("page %d is %d bytes", pages, len(res.Body))
		}
		page := decode[listResult](t, res)
		for _, r := range page.Items {
			if seen[r.ID] || !want[r.ID] {
				t.Fatalf("page %d: %s listed twice or not ours", pages, r.ID)
			}
			seen[r.ID] = true
		}
		if pages == 1 && (page.NextCursor == nil || len(page.Items) >= total) {
			t.Fatalf("first page: %d of %d records of %d bytes each and next_cursor %v; want a page cut by size", len(page.Items), total, stored, page.NextCursor)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	if len(seen) != total {
		t.Fatalf("the walk listed %d of %d records", len(seen), total)
	}
}

// history_cursor pages from the record's own window without a Query, below it with one;
// anything but a version of the document is a 422 naming the parameter.
func TestHistoryCursor(t *testing.T) {
	t.Parallel()
	a := start(t)
	link := create(t, a, "payment-links", `{"reference": "hist-1"}`)
	one := docs(a, "payment-links") + "/" + link.ID
	url := one + "?environment=sandbox"
	get := func(query string) (historyRecord, int) {
		t.Helper()
		res := a.Do(t, "GET", url+query, a.Creds.ReadonlyKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("get%s: %d %s", query, res.Status, res.Body)
		}
		return decode[listResultOf[historyRecord]](t, res).Items[0], apitest.DDBRequests(t, a, res)
	}
	versions := func(r historyRecord) string {
		var vs []string
		for _, h := range r.History {
			vs = append(vs, strconv.FormatInt(h.Version, 10))
		}
		return strings.Join(vs, ",")
	}
	for i := range 3 {
		if res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, fmt.Sprintf(`{"name": "n%d"}`, i), "Idempotency-Key", idemKey()); res.Status != 200 {
			t.Fatalf("edit: %d %s", res.Status, res.Body)
		}
	}
	if r, _ := get(""); versions(r) != "1,2,3,4" || r.HistoryNextCursor != nil {
		t.Fatalf("history of a 4-version document: %s, next %v", versions(r), r.HistoryNextCursor)
	}
	if r, n := get("&history_cursor=3"); versions(r) != "1,2" || r.HistoryNextCursor != nil || n != 2 {
		t.Fatalf("history before version 3: %s, next %v, %d DynamoDB requests (want 1,2, null, 2)", versions(r), r.HistoryNextCursor, n)
	}
	for _, bad := range []string{"abc", "1", "0", "-3", "03", "5", "1e3", ""} {
		msg := apitest.Envelope(t, a.Do(t, "GET", url+"&history_cursor="+bad, a.Creds.ReadonlyKey, ""), 422, "VALIDATION_FAILED")
		if !strings.Contains(msg, "query.history_cursor") {
			t.Errorf("history_cursor=%q: %q", bad, msg)
		}
	}
	for i := range 22 {
		if res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, fmt.Sprintf(`{"name": "m%d"}`, i), "Idempotency-Key", idemKey()); res.Status != 200 {
			t.Fatalf("edit: %d %s", res.Status, res.Body)
		}
	}
	res := a.Do(t, "POST", one+"/publish?environment=sandbox", a.Creds.SandboxKey, "")
	if res.Status != 200 {
		t.Fatalf("publish: %d %s", res.Status, res.Body)
	}
	r, _ := get("")
	if r.Version != 27 || versions(r) != "8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27" || r.HistoryNextCursor == nil || *r.HistoryNextCursor != "8" {
		t.Fatalf("history of a 27-version document: %s, next %v", versions(r), r.HistoryNextCursor)
	}
	if r.History[19].Action != "publish" || r.History[18].Action != "edit" {
		t.Fatalf("latest entries %+v", r.History[18:])
	}
	if r, n := get("&history_cursor=8"); versions(r) != "1,2,3,4,5,6,7" || r.HistoryNextCursor != nil || n != 3 {
		t.Fatalf("history before version 8: %s, next %v, %d DynamoDB requests (want 1..7, null, 3)", versions(r), r.HistoryNextCursor, n)
	}
	p, n := get("&history_cursor=12")
	if versions(p) != "1,2,3,4,5,6,7,8,9,10,11" || n != 3 || p.HistoryNextCursor != nil {
		t.Fatalf("history before version 12 (stored entries and the window): %s, next %v, %d DynamoDB requests", versions(p), p.HistoryNextCursor, n)
	}
	if p.History[0].Action != "create" || p.History[0].Status != "draft" {
		t.Fatalf("first entry %+v", p.History[0])
	}
}

type listResultOf[T any] struct {
	Items []T `json:"items"`
}

// The largest body the bounds and the 64 KiB request limit allow — built up by several
// patches, every text made of U+2028 (stored escaped, twice its size) — plus a full history
// window and an edit key still fits one DynamoDB item with room to spare, so an edit never
// meets the 400 KB item limit.
func TestMaximalBodyFitsOneItem(t *testing.T) {
	t.Parallel()
	a := start(t)
	// sep is a JSON string of n characters, U+2028 written raw (3 bytes; stored as 6).
	sep := func(n int) string { return `"a` + strings.Repeat("\u2028", n-2) + `z"` }
	inv := create(t, a, "invoices", fmt.Sprintf(`{"reference": %s}`, sep(document.MaxReference)))
	url := docs(a, "invoices") + "/" + inv.ID + "?environment=sandbox"
	var items []string
	for i := range document.MaxItems {
		items = append(items, fmt.Sprintf(`{"title": %s, "quantity": %d, "unit_amount_minor": 1}`, sep(document.MaxTitle), i+1))
	}
	var tags []string
	for i := range document.MaxTags {
		tags = append(tags, `"`+fmt.Sprintf("%02d", i)+sep(document.MaxTag - 2)[1:])
	}
	longURL := "https://example.com/" + strings.Repeat("p", document.MaxURL-len("https://example.com/"))
	patches := []string{
		largeBody("ignored")[len(`{"reference": "ignored", `)-1:],
		`{"items": [` + strings.Join(items, ",") + `]}`,
		fmt.Sprintf(`{"notes": %s, "private_notes": %s, "description": %s, "name": %s, "tags": [%s]}`,
			sep(document.MaxNotes), sep(document.MaxNotes), sep(document.MaxDescription), sep(document.MaxName), strings.Join(tags, ",")),
		fmt.Sprintf(`{"image_url": "%s", "return_url": "%s", "phone": "+8801712345678", "tax_minor": 1}`, longURL, longURL),
	}
	patches[0] = "{" + patches[0]
	for i, p := range patches {
		if len(p) > 64*1024 {
			t.Fatalf("patch %d is %d bytes, over the request limit", i, len(p))
		}
		res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, p, "Idempotency-Key", idemKey())
		if res.Status != http.StatusOK {
			t.Fatalf("patch %d: %d %.300s", i, res.Status, res.Body)
		}
	}
	for i := range document.HistoryWindow + 2 {
		res := a.Do(t, "PATCH", url, a.Creds.SandboxKey, fmt.Sprintf(`{"tax_minor": %d}`, 100+i), "Idempotency-Key", idemKey())
		if res.Status != http.StatusOK {
			t.Fatalf("small edit %d of the large document: %d %.300s", i, res.Status, res.Body)
		}
	}
	item := documentItem(t, a, "invoices", inv.ID)
	size, body := apitest.ItemSize(item), len(item["body"].(*types.AttributeValueMemberS).Value)
	t.Logf("largest document item: %d bytes (body %d)", size, body)
	if body < 250*1024 {
		t.Fatalf("the body is only %d bytes stored; the test does not build the largest body", body)
	}
	if size > 350*1024 {
		t.Fatalf("the largest document item is %d bytes: too close to DynamoDB's 400 KB", size)
	}
}
