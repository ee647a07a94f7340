package registry_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/takapay/payments/shared/auth"
	"github.com/takapay/payments/shared/local/localapi"
)

// iamLike is IAM's StringLike: '*' matches any run of characters, '?' any one.
func iamLike(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if iamLike(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && iamLike(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && iamLike(pattern[1:], s[1:])
}

// ddbRequest is one DynamoDB request as IAM judges it: the action, the index (if any), every
// partition key it names (dynamodb:LeadingKeys) and the attributes it writes.
type ddbRequest struct {
	action, index string
	keys          []string
	attrs         []string
}

// allRecorder keeps every DynamoDB request one function sends (reads too).
type allRecorder struct {
	fn   string
	mu   sync.Mutex
	reqs []ddbRequest
}

var keyValueRE = regexp.MustCompile(`^\s*#?[A-Za-z0-9_]+\s*=\s*(:[A-Za-z0-9_]+)`)

func pkOf(key map[string]types.AttributeValue) string {
	if v, ok := key["pk"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func (r *allRecorder) configure(logicalID string, cfg *aws.Config) {
	if logicalID != r.fn {
		return
	}
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("iamRecorder",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				var req ddbRequest
				switch u := in.Parameters.(type) {
				case *dynamodb.GetItemInput:
					req = ddbRequest{action: "dynamodb:GetItem", keys: []string{pkOf(u.Key)}}
				case *dynamodb.QueryInput:
					req = ddbRequest{action: "dynamodb:Query", index: aws.ToString(u.IndexName)}
					if m := keyValueRE.FindStringSubmatch(aws.ToString(u.KeyConditionExpression)); m != nil {
						if v, ok := u.ExpressionAttributeValues[m[1]].(*types.AttributeValueMemberS); ok {
							req.keys = []string{v.Value}
						}
					}
				case *dynamodb.BatchGetItemInput:
					req = ddbRequest{action: "dynamodb:BatchGetItem"}
					for _, ka := range u.RequestItems {
						for _, k := range ka.Keys {
							req.keys = append(req.keys, pkOf(k))
						}
					}
				case *dynamodb.PutItemInput:
					req = ddbRequest{action: "dynamodb:PutItem", keys: []string{pkOf(u.Item)}, attrs: slices.Collect(maps.Keys(u.Item))}
					req.attrs = append(req.attrs, topLevelAttributes(aws.ToString(u.ConditionExpression), u.ExpressionAttributeNames)...)
				case *dynamodb.UpdateItemInput:
					req = ddbRequest{action: "dynamodb:UpdateItem", keys: []string{pkOf(u.Key)}, attrs: []string{"pk", "sk"}}
					for _, e := range []*string{u.UpdateExpression, u.ConditionExpression} {
						req.attrs = append(req.attrs, topLevelAttributes(aws.ToString(e), u.ExpressionAttributeNames)...)
					}
				case *dynamodb.BatchWriteItemInput:
					req = ddbRequest{action: "dynamodb:BatchWriteItem"}
					for _, ws := range u.RequestItems {
						for _, w := range ws {
							switch {
							case w.PutRequest != nil:
								req.keys = append(req.keys, pkOf(w.PutRequest.Item))
								req.attrs = append(req.attrs, slices.Collect(maps.Keys(w.PutRequest.Item))...)
							case w.DeleteRequest != nil:
								req.keys = append(req.keys, pkOf(w.DeleteRequest.Key))
							}
						}
					}
				default:
					req = ddbRequest{action: fmt.Sprintf("%T", in.Parameters)}
				}
				r.mu.Lock()
				r.reqs = append(r.reqs, req)
				r.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

// allows reports whether one of the statements allows the request: the action, on the table
// or the index it names, every partition key within the statement's dynamodb:LeadingKeys and
// every attribute it writes within its dynamodb:Attributes.
func allows(sts []statement, req ddbRequest) bool {
	for _, s := range sts {
		if s.Effect != "Allow" || !slices.Contains(s.actions(), req.action) {
			continue
		}
		res := fmt.Sprint(s.Resource)
		if onIndex := strings.Contains(res, "/index/"); onIndex != (req.index != "") ||
			onIndex && !strings.HasSuffix(res, "/index/"+req.index) {
			continue
		}
		if len(s.values("ForAllValues:StringLike", "dynamodb:LeadingKeys")) == 0 {
			continue // every statement of these functions names its keys
		}
		ok := len(req.keys) > 0
		for _, k := range req.keys {
			ok = ok && s.reaches(k)
		}
		if list := s.values("ForAllValues:StringEquals", "dynamodb:Attributes"); ok && len(list) > 0 {
			for _, a := range req.attrs {
				ok = ok && slices.Contains(list, a)
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// judge checks every request the function sent against its statements (allows) and against
// check, when given, and returns the kinds of request it sent ("action index prefix") and the
// attributes each kind named.
func (r *allRecorder) judge(t *testing.T, sts []statement, check func(req ddbRequest, prefix string)) (seen map[string]bool, written map[string]map[string]bool) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	seen, written = map[string]bool{}, map[string]map[string]bool{}
	for _, req := range r.reqs {
		prefix := ""
		if len(req.keys) > 0 {
			prefix, _, _ = strings.Cut(req.keys[0], "#")
		}
		what := req.action + " " + req.index + " " + prefix
		seen[what] = true
		if len(req.attrs) > 0 {
			if written[what] == nil {
				written[what] = map[string]bool{}
			}
			for _, a := range req.attrs {
				written[what][a] = true
			}
		}
		if !allows(sts, req) {
			t.Errorf("%s sends %s (index %q) on %v naming %v, which its policy does not allow", r.fn, req.action, req.index, req.keys, req.attrs)
		}
		if check != nil {
			check(req, prefix)
		}
	}
	return seen, written
}

// reaches reports whether a partition key is within the statement's dynamodb:LeadingKeys:
// it matches one of the StringLike patterns and none of the StringNotLike ones.
func (s statement) reaches(k string) bool {
	match := func(p string) bool { return iamLike(p, k) }
	return slices.ContainsFunc(s.values("ForAllValues:StringLike", "dynamodb:LeadingKeys"), match) &&
		!slices.ContainsFunc(s.values("ForAllValues:StringNotLike", "dynamodb:LeadingKeys"), match)
}

func TestIAMLike(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{{"DOC#*#customers", "DOC#ws#sandbox#customers", true}, {"DOC#*#customers", "DOC#ws#sandbox#invoices", false},
		{"DOC#*#customers", "DOC#ws#sandbox#customers#x", false}, {"IDEM#*#customers#*", "IDEM#ws#live#customers#k", true},
		{"IDEM#*#customers#*", "IDEM#ws#live#invoices#id#k", false}, {"a?c", "abc", true}, {"a?c", "ac", false}} {
		if got := iamLike(c.p, c.s); got != c.want {
			t.Errorf("iamLike(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// DashboardCustomersFunction's policy, as run: a journey through every customers page —
// create, the list and a search, a customer with its invoices, more edits than the history
// window holds (so history entries and edit keys are copied out), a version conflict — sends
// only requests its template.yaml statements allow, each key within their LeadingKeys and
// each write within their attribute lists; and those statements reach no other kind's items.
func TestDashboardCustomersStayWithinTheirPolicy(t *testing.T) {
	const fn = "DashboardCustomersFunction"
	sts := functionStatements(t)[fn]
	for _, k := range []string{"DOC#ws#sandbox#invoices", "DOC#ws#live#payment-links", "IDEM#ws#sandbox#invoices#key",
		"IDEM#ws#sandbox#invoices#id#key", "HIST#ws#sandbox#payment-links#id", "PAY#id", "APIKEY#id", "WHSEC#ws#sandbox", "RATE#x",
		"WS#ws#ACTIVITY"} {
		for _, s := range sts {
			if s.reaches(k) {
				t.Errorf("%s statement %s reaches %s", fn, s.Sid, k)
			}
		}
	}
	// Each read is allowed only the action the template's comments name: the sign-in check
	// gets the session and user by GetItem, the memberships by Query, the workspaces' names by
	// BatchGetItem; a customer's keys by GetItem, its older history by Query.
	for _, req := range []ddbRequest{{action: "dynamodb:Query", keys: []string{"SESSION#h"}},
		{action: "dynamodb:BatchGetItem", keys: []string{"USER#u"}}, {action: "dynamodb:GetItem", keys: []string{"WS#ws"}},
		{action: "dynamodb:Query", keys: []string{"WS#ws"}}, {action: "dynamodb:BatchGetItem", keys: []string{"WS#ws#ACTIVITY"}},
		{action: "dynamodb:Query", keys: []string{"IDEM#ws#sandbox#customers#key"}},
		{action: "dynamodb:GetItem", keys: []string{"HIST#ws#sandbox#customers#id"}}} {
		if allows(sts, req) {
			t.Errorf("%s may %s %v, which its comments do not name", fn, req.action, req.keys)
		}
	}

	rec := &allRecorder{fn: fn}
	a := localapi.StartTestAPI(t, localapi.Options{ConfigureAWS: rec.configure})
	ctx := context.Background()
	op := a.Operator(t)
	u, err := op.CreateUser(ctx, "policy@customers.example.com.bd")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Grant(ctx, u.ID, a.Creds.WorkspaceID, auth.RoleDeveloper); err != nil {
		t.Fatal(err)
	}
	sess, err := op.CreateSession(ctx, u.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	base, _ := url.Parse(a.URL)
	jar.SetCookies(base, []*http.Cookie{{Name: auth.SessionCookie, Value: sess.Token, Path: "/"}})
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, form url.Values, want int) (string, http.Header) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, a.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", a.URL)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d\n%.2000s", method, path, resp.StatusCode, want, b)
		}
		return string(b), resp.Header
	}
	formOf := func(page string) url.Values {
		t.Helper()
		f := url.Values{}
		for _, name := range []string{"csrf", "idem", "version"} {
			if m := regexp.MustCompile(`name="` + name + `" value="([^"]+)"`).FindStringSubmatch(page); m != nil {
				f.Set(name, m[1])
			}
		}
		return f
	}

	f := formOf(func() string { p, _ := send("GET", "/dashboard/customers/new", nil, 200); return p }())
	f.Set("reference", "P-1")
	f.Set("name", "Policy")
	_, h := send("POST", "/dashboard/customers", f, 303)
	id := strings.TrimSuffix(strings.TrimPrefix(h.Get("Location"), "/dashboard/customers/"), "?notice=created")
	if r := a.Do(t, "POST", "/v1/workspaces/"+a.Creds.WorkspaceID+"/documents/invoices?environment=sandbox", a.Creds.SandboxKey,
		`{"reference": "P-INV", "customer_id": "`+id+`", "amount_minor": 1000}`, "Idempotency-Key", "policy-customers-invoice"); r.Status != 201 {
		t.Fatalf("invoice: %d %s", r.Status, r.Body)
	}
	send("GET", "/dashboard/customers", nil, 200)
	send("GET", "/dashboard/customers?q=pol", nil, 200)
	send("GET", "/dashboard/customers/"+id, nil, 200)
	for i := range 22 { // past the 20-entry history window
		edit, _ := send("GET", "/dashboard/customers/"+id+"/edit", nil, 200)
		f = formOf(edit)
		f.Set("reference", "P-1")
		f.Set("name", fmt.Sprintf("Policy %d", i))
		send("POST", "/dashboard/customers/"+id+"/edit", f, 303)
	}
	f.Set("name", "stale") // the last form again, at its old version: a conflict
	f.Set("idem", "policy-stale-edit-0001")
	send("POST", "/dashboard/customers/"+id+"/edit", f, 409)

	// A session from the sign-in form (it has an absolute deadline) last seen two minutes
	// ago: the next page moves its idle deadline (the KeepSessionAlive statement).
	signIn, _ := send("GET", "/dashboard/sign-in", nil, 200)
	f = formOf(signIn)
	f.Set("email", a.Creds.DashboardEmail)
	f.Set("password", a.Creds.DashboardPassword)
	send("POST", "/dashboard/sign-in", f, 303)
	var token string
	for _, ck := range jar.Cookies(base) {
		if ck.Name == auth.SessionCookie {
			token = ck.Value
		}
	}
	hash, err := auth.ParseSessionToken(token)
	if err != nil || token == sess.Token {
		t.Fatalf("the sign-in gave no new session (%v)", err)
	}
	ago := func(d time.Duration) types.AttributeValue {
		return &types.AttributeValueMemberS{Value: time.Now().Add(-d).UTC().Format("2006-01-02T15:04:05.000000000Z")}
	}
	if _, err := a.Stack.DDB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(a.Store.Table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "SESSION#" + hash},
			"sk": &types.AttributeValueMemberS{Value: "SESSION"}},
		UpdateExpression:          aws.String("SET seen_at = :seen, expires_at = :exp"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":seen": ago(2 * time.Minute), ":exp": ago(-28 * time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	send("GET", "/dashboard/customers", nil, 200)

	seen, written := rec.judge(t, sts, nil)
	for _, want := range []string{"dynamodb:GetItem  SESSION", "dynamodb:GetItem  USER", "dynamodb:Query  USER", "dynamodb:BatchGetItem  WS",
		"dynamodb:GetItem  DOC", "dynamodb:Query  DOC", "dynamodb:Query gsi1 CUSTINV", "dynamodb:PutItem  DOC", "dynamodb:PutItem  IDEM",
		"dynamodb:UpdateItem  DOC", "dynamodb:BatchWriteItem  IDEM", "dynamodb:BatchWriteItem  HIST", "dynamodb:GetItem  IDEM",
		"dynamodb:UpdateItem  SESSION"} {
		if !seen[want] {
			t.Errorf("the journey made no %q request; the test lost its coverage (made %v)", want, slices.Sorted(maps.Keys(seen)))
		}
	}
	t.Logf("%s requests: %v", fn, slices.Sorted(maps.Keys(seen)))
	for what, attrs := range written {
		t.Logf("%s %s writes %v", fn, what, slices.Sorted(maps.Keys(attrs)))
	}
}
