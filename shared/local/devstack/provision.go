package devstack

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/takapay/payments/shared/local/samtemplate"
)

// tableActiveTimeout bounds the wait for a created table to become ACTIVE.
const tableActiveTimeout = 15 * time.Second

var (
	tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	queueNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,80}$`)
)

// Names decides the physical names of provisioned resources.
type Names struct {
	// Prefix is prepended to each logical id: table name = Prefix+LogicalID,
	// queue name = Prefix+LogicalID.
	Prefix string
}

// Table returns the physical table name for a logical id.
func (n Names) Table(logicalID string) string { return n.Prefix + logicalID }

// Queue returns the physical queue name for a logical id.
func (n Names) Queue(logicalID string) string { return n.Prefix + logicalID }

// Resources are the physical resources Provision created, keyed by logical id.
type Resources struct {
	// Tables maps a table's logical id to its physical name.
	Tables map[string]string
	// TableARNs maps a table's logical id to its ARN as reported by DescribeTable.
	TableARNs map[string]string
	// QueueURLs maps a queue's logical id to its URL.
	QueueURLs map[string]string
	// QueueARNs maps a queue's logical id to its ARN (GetQueueAttributes QueueArn).
	QueueARNs map[string]string

	template *samtemplate.Template
	names    map[string]string // queue logical id -> physical name
	secrets  map[string]string // secret (NoEcho) parameter -> the value this stack made up
	mu       sync.Mutex
}

// Provision creates every table and queue tpl declares (no queues when q is nil: they resolve to
// ""), idempotently: tables and queues that already exist are reused (make dev restarts with a
// persistent dynalite data dir). It fails if an environment variable of a
// function cannot be resolved against the created resources.
func Provision(ctx context.Context, ddb *dynamodb.Client, q *sqs.Client, tpl *samtemplate.Template, names Names) (*Resources, error) {
	r := &Resources{
		Tables:    map[string]string{},
		TableARNs: map[string]string{},
		QueueURLs: map[string]string{},
		QueueARNs: map[string]string{},
		template:  tpl,
		names:     map[string]string{},
	}
	for _, t := range tpl.Tables {
		name := names.Table(t.LogicalID)
		if !tableNameRE.MatchString(name) {
			return nil, fmt.Errorf("devstack: invalid table name %q (prefix %q)", name, names.Prefix)
		}
		arn, err := provisionTable(ctx, ddb, t, name)
		if err != nil {
			return nil, err
		}
		r.Tables[t.LogicalID] = name
		r.TableARNs[t.LogicalID] = arn
	}
	if err := r.provisionQueues(ctx, q, tpl.Queues, names); err != nil {
		return nil, err
	}
	for _, f := range tpl.Functions {
		if _, err := r.FunctionEnv(f.LogicalID); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func provisionTable(ctx context.Context, ddb *dynamodb.Client, t samtemplate.Table, name string) (string, error) {
	in := createTableInput(t, name)
	_, err := ddb.CreateTable(ctx, in)
	if err != nil && in.BillingMode == ddbtypes.BillingModePayPerRequest && isCode(err, "ValidationException") &&
		strings.Contains(strings.ToLower(err.Error()), "capacity") {
		// An emulator without on-demand support: fall back to provisioned capacity.
		withCapacity(in)
		_, err = ddb.CreateTable(ctx, in)
	}
	var inUse *ddbtypes.ResourceInUseException
	existed := errors.As(err, &inUse)
	if err != nil && !existed {
		return "", fmt.Errorf("devstack: create table %s (%s): %w", name, t.LogicalID, err)
	}
	desc, err := waitTableActive(ctx, ddb, name)
	if err != nil {
		return "", err
	}
	if existed {
		if err := sameSchema(t, desc); err != nil {
			return "", fmt.Errorf("devstack: table %s already exists with a different schema than template.yaml (%v); delete the local data directory to recreate it", name, err)
		}
	}
	return aws.ToString(desc.TableArn), nil
}

func createTableInput(t samtemplate.Table, name string) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		KeySchema: keySchema(t.KeySchema),
	}
	for _, a := range t.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, ddbtypes.AttributeDefinition{
			AttributeName: aws.String(a.Name),
			AttributeType: ddbtypes.ScalarAttributeType(a.Type),
		})
	}
	for _, ix := range t.GSIs {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.KeySchema),
			Projection: projection(ix),
		})
	}
	for _, ix := range t.LSIs {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddbtypes.LocalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.KeySchema),
			Projection: projection(ix),
		})
	}
	if t.BillingMode == string(ddbtypes.BillingModePayPerRequest) {
		in.BillingMode = ddbtypes.BillingModePayPerRequest
	} else {
		withCapacity(in)
	}
	return in
}

// withCapacity switches a CreateTable request to provisioned capacity.
func withCapacity(in *dynamodb.CreateTableInput) {
	pt := &ddbtypes.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	in.BillingMode = ddbtypes.BillingModeProvisioned
	in.ProvisionedThroughput = pt
	for i := range in.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes[i].ProvisionedThroughput = pt
	}
}

func keySchema(ks []samtemplate.KeyElement) []ddbtypes.KeySchemaElement {
	out := make([]ddbtypes.KeySchemaElement, 0, len(ks))
	for _, k := range ks {
		out = append(out, ddbtypes.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: ddbtypes.KeyType(k.KeyType)})
	}
	return out
}

func projection(ix samtemplate.Index) *ddbtypes.Projection {
	p := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(ix.ProjectionType)}
	if p.ProjectionType == "" {
		p.ProjectionType = ddbtypes.ProjectionTypeAll
	}
	if len(ix.NonKeyAttributes) > 0 {
		p.NonKeyAttributes = append([]string(nil), ix.NonKeyAttributes...)
	}
	return p
}

func waitTableActive(ctx context.Context, ddb *dynamodb.Client, name string) (*ddbtypes.TableDescription, error) {
	deadline := time.Now().Add(tableActiveTimeout)
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		out, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			return nil, fmt.Errorf("devstack: describe table %s: %w", name, err)
		}
		t := out.Table
		active := t.TableStatus == ddbtypes.TableStatusActive
		for _, g := range t.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == ddbtypes.IndexStatusActive
		}
		if active {
			return t, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("devstack: table %s is still %s after %s", name, t.TableStatus, tableActiveTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// sameSchema compares an existing table's keys and GSIs with the template.
func sameSchema(t samtemplate.Table, d *ddbtypes.TableDescription) error {
	ks := func(in []ddbtypes.KeySchemaElement) string {
		parts := make([]string, 0, len(in))
		for _, k := range in {
			parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
		}
		return strings.Join(parts, ",")
	}
	if got, want := ks(d.KeySchema), ks(keySchema(t.KeySchema)); got != want {
		return fmt.Errorf("key schema %s, template %s", got, want)
	}
	var got, want []string
	for _, g := range d.GlobalSecondaryIndexes {
		got = append(got, aws.ToString(g.IndexName)+"("+ks(g.KeySchema)+")")
	}
	for _, g := range t.GSIs {
		want = append(want, g.Name+"("+ks(keySchema(g.KeySchema))+")")
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		return fmt.Errorf("GSIs %v, template %v", got, want)
	}
	return nil
}

// provisionQueues creates queues so that every dead-letter queue exists
// before the queues that redrive into it.
func (r *Resources) provisionQueues(ctx context.Context, q *sqs.Client, queues []samtemplate.Queue, names Names) error {
	if q == nil {
		// No SQS server (the SAM CLI path with DynamoDB Local only): every queue resolves to ""
		// and the functions send no events.
		for _, sq := range queues {
			r.QueueURLs[sq.LogicalID], r.QueueARNs[sq.LogicalID] = "", ""
		}
		return nil
	}
	pending := append([]samtemplate.Queue(nil), queues...)
	for len(pending) > 0 {
		var next []samtemplate.Queue
		for _, sq := range pending {
			if sq.DeadLetterTarget != "" {
				if _, ok := r.QueueARNs[sq.DeadLetterTarget]; !ok {
					next = append(next, sq)
					continue
				}
			}
			if err := r.provisionQueue(ctx, q, sq, names.Queue(sq.LogicalID)); err != nil {
				return err
			}
		}
		if len(next) == len(pending) {
			return fmt.Errorf("devstack: queue %s redrives to %s, which is not declared or is part of a cycle", next[0].LogicalID, next[0].DeadLetterTarget)
		}
		pending = next
	}
	return nil
}

func (r *Resources) provisionQueue(ctx context.Context, q *sqs.Client, sq samtemplate.Queue, name string) error {
	if !queueNameRE.MatchString(name) {
		return fmt.Errorf("devstack: invalid queue name %q", name)
	}
	attrs := map[string]string{}
	for k, v := range sq.Attributes {
		attrs[k] = v
	}
	if sq.DeadLetterTarget != "" {
		policy, err := json.Marshal(struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     string `json:"maxReceiveCount"`
		}{r.QueueARNs[sq.DeadLetterTarget], strconv.Itoa(sq.MaxReceiveCount)})
		if err != nil {
			return err
		}
		attrs[string(sqstypes.QueueAttributeNameRedrivePolicy)] = string(policy)
	}
	var url string
	out, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	switch {
	case err == nil:
		url = aws.ToString(out.QueueUrl)
	case isCode(err, "QueueNameExists", "QueueAlreadyExists"):
		// The queue exists with other attributes: adopt it and bring them in line.
		got, gerr := q.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if gerr != nil {
			return fmt.Errorf("devstack: queue %s exists but GetQueueUrl failed: %w", name, gerr)
		}
		url = aws.ToString(got.QueueUrl)
		if _, err := q.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: attrs}); err != nil {
			return fmt.Errorf("devstack: update attributes of queue %s: %w", name, err)
		}
	default:
		return fmt.Errorf("devstack: create queue %s (%s): %w", name, sq.LogicalID, err)
	}
	ga, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return fmt.Errorf("devstack: get attributes of queue %s: %w", name, err)
	}
	arn := ga.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	if arn == "" {
		return fmt.Errorf("devstack: queue %s has no QueueArn attribute", name)
	}
	r.QueueURLs[sq.LogicalID] = url
	r.QueueARNs[sq.LogicalID] = arn
	r.names[sq.LogicalID] = name
	return nil
}

func isCode(err error, codes ...string) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	for _, c := range codes {
		if ae.ErrorCode() == c {
			return true
		}
	}
	return false
}

// Env returns the environment variables the functions expect (the union of
// Globals and every function's variables, resolved as in FunctionEnv), e.g.
// TABLE_NAME and WEBHOOK_QUEUE_URL exactly as template.yaml declares them.
// Provision has already checked that every value resolves.
func (r *Resources) Env() map[string]string {
	env := map[string]string{}
	if r == nil || r.template == nil {
		return env
	}
	for k, v := range r.template.GlobalEnvironment {
		if s, err := r.Resolve(v); err == nil {
			env[k] = s
		}
	}
	for _, f := range r.template.Functions {
		for k, v := range f.Environment {
			if s, err := r.Resolve(v); err == nil {
				env[k] = s
			}
		}
	}
	return env
}

// FunctionEnv returns the resolved environment of one function of the template.
func (r *Resources) FunctionEnv(logicalID string) (map[string]string, error) {
	if r.template == nil {
		return nil, errors.New("devstack: Resources were not created by Provision")
	}
	f, ok := r.template.Function(logicalID)
	if !ok {
		return nil, fmt.Errorf("devstack: template has no function %s", logicalID)
	}
	env := make(map[string]string, len(f.Environment))
	for k, v := range f.Environment {
		s, err := r.Resolve(v)
		if err != nil {
			return nil, fmt.Errorf("devstack: %s environment variable %s: %w", logicalID, k, err)
		}
		env[k] = s
	}
	return env, nil
}

// Resolve turns a template value into its local value: literals stay, !Ref of
// a table gives its name, of a queue its URL, of a parameter its Default, of a
// pseudo parameter (AWS::Region, ...) the local stack's value; !GetAtt X.Arn
// gives the ARN and !Sub substitutes ${...} with the same rules. !Ref and
// !GetAtt of a KMS key give "": there is no KMS locally, and a function
// configured with an empty key id uses the stack's local sealing key instead
// (Stack.SealingKey, handed over by package localapi).
func (r *Resources) Resolve(v samtemplate.Value) (string, error) {
	if v.Ref == nil {
		return v.Literal, nil
	}
	switch v.Ref.Func {
	case "Ref":
		return r.resolveRef(v.Ref.Arg)
	case "GetAtt":
		return r.resolveGetAtt(v.Ref.Arg)
	case "Sub":
		return r.resolveSub(v.Ref.Arg)
	}
	return "", fmt.Errorf("cannot resolve %s locally", v.Ref)
}

func (r *Resources) isKMSKey(logicalID string) bool {
	return r.template != nil && slices.Contains(r.template.KMSKeys, logicalID)
}

func (r *Resources) resolveRef(name string) (string, error) {
	if r.isKMSKey(name) {
		return "", nil
	}
	if t, ok := r.Tables[name]; ok {
		return t, nil
	}
	if u, ok := r.QueueURLs[name]; ok {
		return u, nil
	}
	switch name {
	case "AWS::Region":
		return Region, nil
	case "AWS::AccountId":
		return AccountID, nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::StackName":
		return "local", nil
	case "AWS::NoValue":
		return "", nil
	}
	if r.template != nil {
		if p, ok := r.template.Parameters[name]; ok {
			if p.HasDefault {
				return p.Default, nil
			}
			if p.NoEcho {
				return r.secret(name), nil
			}
			return "", fmt.Errorf("parameter %s has no Default", name)
		}
	}
	return "", fmt.Errorf("!Ref %s names no table, queue or parameter of the local stack", name)
}

func (r *Resources) resolveGetAtt(arg string) (string, error) {
	id, attr, _ := strings.Cut(arg, ".")
	if r.isKMSKey(id) && (attr == "Arn" || attr == "KeyId") {
		return "", nil
	}
	switch attr {
	case "Arn":
		if a, ok := r.TableARNs[id]; ok {
			return a, nil
		}
		if a, ok := r.QueueARNs[id]; ok {
			return a, nil
		}
	case "QueueName":
		if n, ok := r.names[id]; ok {
			return n, nil
		}
	case "QueueUrl":
		if u, ok := r.QueueURLs[id]; ok {
			return u, nil
		}
	}
	return "", fmt.Errorf("!GetAtt %s cannot be resolved by the local stack", arg)
}

var subVarRE = regexp.MustCompile(`\$\{([^}]*)\}`)

func (r *Resources) resolveSub(tmpl string) (string, error) {
	var firstErr error
	out := subVarRE.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") { // ${!Literal} is the escape for a literal ${Literal}
			return "${" + name[1:] + "}"
		}
		var s string
		var err error
		if strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::") {
			s, err = r.resolveGetAtt(name)
		} else {
			s, err = r.resolveRef(name)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return s
	})
	if firstErr != nil {
		return "", fmt.Errorf("!Sub %q: %w", tmpl, firstErr)
	}
	return out, nil
}

// secret returns the value this stack made up for a secret parameter without a default (the
// operator supplies one on AWS): 48 random bytes, base64url, the same for every function.
func (r *Resources) secret(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.secrets[name]; ok {
		return v
	}
	var b [48]byte
	_, _ = rand.Read(b[:])
	if r.secrets == nil {
		r.secrets = map[string]string{}
	}
	r.secrets[name] = base64.RawURLEncoding.EncodeToString(b[:])
	return r.secrets[name]
}
