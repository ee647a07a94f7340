package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/takapay/payments/shared/local/samtemplate"
)

func testCtx(t *testing.T) context.Context {
	RequireServers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestStack(t *testing.T) {
	t.Parallel()
	s := StartTestStack(t)
	ctx := testCtx(t)

	table := s.TableName("Table")
	if table == "" || !strings.HasSuffix(table, "Table") {
		t.Fatalf("table name = %q", table)
	}

	t.Run("table schema", func(t *testing.T) {
		out, err := s.DDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.Table
		if d.TableStatus != ddbtypes.TableStatusActive {
			t.Errorf("status = %s", d.TableStatus)
		}
		if got := keys(d.KeySchema); got != "pk:HASH,sk:RANGE" {
			t.Errorf("key schema = %s", got)
		}
		if len(d.GlobalSecondaryIndexes) != 3 {
			t.Fatalf("GSIs = %+v", d.GlobalSecondaryIndexes)
		}
		g := d.GlobalSecondaryIndexes[0]
		if aws.ToString(g.IndexName) != "gsi1" || keys(g.KeySchema) != "gsi1pk:HASH,gsi1sk:RANGE" ||
			g.Projection.ProjectionType != ddbtypes.ProjectionTypeAll {
			t.Errorf("gsi = %s %s %s", aws.ToString(g.IndexName), keys(g.KeySchema), g.Projection.ProjectionType)
		}
		g3 := d.GlobalSecondaryIndexes[2]
		if aws.ToString(g3.IndexName) != "gsi3" || keys(g3.KeySchema) != "gsi3pk:HASH,created_at:RANGE" ||
			g3.Projection.ProjectionType != ddbtypes.ProjectionTypeInclude ||
			strings.Join(g3.Projection.NonKeyAttributes, ",") != "document_id,snap" {
			t.Errorf("gsi3 = %s %s %s %v", aws.ToString(g3.IndexName), keys(g3.KeySchema), g3.Projection.ProjectionType, g3.Projection.NonKeyAttributes)
		}
		if s.Resources.TableARNs["Table"] != aws.ToString(d.TableArn) || d.TableArn == nil {
			t.Errorf("table ARN %q vs %q", s.Resources.TableARNs["Table"], aws.ToString(d.TableArn))
		}
	})

	t.Run("conditional put", func(t *testing.T) {
		// A client built only from s.Config must reach dynalite too.
		ddb := dynamodb.NewFromConfig(s.Config)
		put := &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]ddbtypes.AttributeValue{
				"pk":     &ddbtypes.AttributeValueMemberS{Value: "PAY#1"},
				"sk":     &ddbtypes.AttributeValueMemberS{Value: "PAY#1"},
				"gsi1pk": &ddbtypes.AttributeValueMemberS{Value: "WS#1"},
				"gsi1sk": &ddbtypes.AttributeValueMemberS{Value: "2024"},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}
		if _, err := ddb.PutItem(ctx, put); err != nil {
			t.Fatal(err)
		}
		_, err := ddb.PutItem(ctx, put)
		var ccf *ddbtypes.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Fatalf("second put: err = %v, want ConditionalCheckFailedException", err)
		}
		q, err := s.DDB.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			IndexName:                 aws.String("gsi1"),
			KeyConditionExpression:    aws.String("gsi1pk = :p"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":p": &ddbtypes.AttributeValueMemberS{Value: "WS#1"}},
		})
		if err != nil || len(q.Items) != 1 {
			t.Fatalf("gsi query: %v items, err %v", q, err)
		}
	})

	t.Run("queues", func(t *testing.T) {
		qURL, dlqURL := s.QueueURL("WebhookQueue"), s.QueueURL("WebhookDeadLetterQueue")
		for _, u := range []string{qURL, dlqURL} {
			if !strings.HasPrefix(u, s.SQS.Endpoint+"/") {
				t.Errorf("queue URL %q does not point at %s", u, s.SQS.Endpoint)
			}
		}
		list, err := s.Queue.ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if !contains(list.QueueUrls, qURL) || !contains(list.QueueUrls, dlqURL) {
			t.Errorf("ListQueues = %v, want %s and %s", list.QueueUrls, qURL, dlqURL)
		}
		attrs, err := s.Queue.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(qURL),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
		})
		if err != nil {
			t.Fatal(err)
		}
		var policy struct {
			DeadLetterTargetArn string          `json:"deadLetterTargetArn"`
			MaxReceiveCount     json.RawMessage `json:"maxReceiveCount"`
		}
		if err := json.Unmarshal([]byte(attrs.Attributes["RedrivePolicy"]), &policy); err != nil {
			t.Fatalf("RedrivePolicy %q: %v", attrs.Attributes["RedrivePolicy"], err)
		}
		if policy.DeadLetterTargetArn != s.Resources.QueueARNs["WebhookDeadLetterQueue"] || policy.DeadLetterTargetArn == "" {
			t.Errorf("RedrivePolicy DLQ = %q, want %q", policy.DeadLetterTargetArn, s.Resources.QueueARNs["WebhookDeadLetterQueue"])
		}
		if n, _ := strconv.Unquote(string(policy.MaxReceiveCount)); n != "12" && string(policy.MaxReceiveCount) != "12" {
			t.Errorf("maxReceiveCount = %s", policy.MaxReceiveCount)
		}
		if attrs.Attributes["VisibilityTimeout"] != "180" {
			t.Errorf("VisibilityTimeout = %q", attrs.Attributes["VisibilityTimeout"])
		}

		q := sqs.NewFromConfig(s.Config) // endpoint from s.Config's service options
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(qURL), MessageBody: aws.String(`{"hello":"world"}`)}); err != nil {
			t.Fatal(err)
		}
		got, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(qURL), MaxNumberOfMessages: 1, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 1 || aws.ToString(got.Messages[0].Body) != `{"hello":"world"}` {
			t.Fatalf("received %+v", got.Messages)
		}
	})

	t.Run("env", func(t *testing.T) {
		env := s.Env()
		want := map[string]string{
			"TABLE_NAME":        table,
			"WEBHOOK_QUEUE_URL": s.QueueURL("WebhookQueue"),
			"PUBLIC_BASE_URL":   "",
			"LOG_LEVEL":         "INFO",
		}
		for k, v := range want {
			if got, ok := env[k]; !ok || got != v {
				t.Errorf("env[%s] = %q (present %v), want %q", k, got, ok, v)
			}
		}
		fenv, err := s.Resources.FunctionEnv("PaymentCreateFunction")
		if err != nil || fenv["TABLE_NAME"] != table {
			t.Errorf("FunctionEnv = %v, %v", fenv, err)
		}
		// The sender's KMS key has no local counterpart: its id is empty, and the stack holds a
		// random local sealing key instead.
		senv, err := s.Resources.FunctionEnv("WebhookSenderFunction")
		if v, ok := senv["WEBHOOK_SECRETS_KEY_ID"]; err != nil || !ok || v != "" {
			t.Errorf("sender WEBHOOK_SECRETS_KEY_ID = %q (present %v), %v; want present and empty", v, ok, err)
		}
		if _, ok := fenv["WEBHOOK_SECRETS_KEY_ID"]; ok {
			t.Error("PaymentCreateFunction has a KMS key id")
		}
		if len(s.SealingKey) != SealingKeySize || bytes.Equal(s.SealingKey, make([]byte, SealingKeySize)) {
			t.Errorf("sealing key = %d bytes", len(s.SealingKey))
		}
	})

	t.Run("provision is idempotent", func(t *testing.T) {
		prefix := strings.TrimSuffix(table, "Table")
		again, err := Provision(ctx, s.DDB, s.Queue, s.Template, Names{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		if again.Tables["Table"] != table || again.QueueURLs["WebhookQueue"] != s.QueueURL("WebhookQueue") ||
			again.QueueARNs["WebhookDeadLetterQueue"] != s.Resources.QueueARNs["WebhookDeadLetterQueue"] {
			t.Errorf("second Provision = %+v, first %+v", again, s.Resources)
		}
	})
}

func TestSealingKeySize(t *testing.T) {
	_, err := StartStack(context.Background(), StackOptions{SealingKey: make([]byte, 16)})
	if err == nil || !strings.Contains(err.Error(), "32 bytes") {
		t.Errorf("StartStack with a 16-byte sealing key = %v", err)
	}
}

func TestStopKillsServers(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	for _, start := range []func() (*Server, error){
		func() (*Server, error) { return StartDynalite(ctx, DynaliteOptions{}) },
		func() (*Server, error) { return StartFauxqs(ctx, FauxqsOptions{}) },
	} {
		srv, err := start()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(srv.Endpoint, "http://127.0.0.1:") {
			t.Errorf("%s endpoint = %q", srv.Name, srv.Endpoint)
		}
		if err := dialOnce(srv.Port); err != nil {
			t.Fatalf("%s not listening: %v", srv.Name, err)
		}
		pid := srv.PID()
		srv.Stop()
		srv.Stop() // idempotent
		select {
		case <-srv.Done():
		default:
			t.Errorf("%s: Done not closed after Stop", srv.Name)
		}
		if err := dialOnce(srv.Port); err == nil {
			t.Errorf("%s: port %d still accepts connections after Stop", srv.Name, srv.Port)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s: process %d still exists after Stop (kill 0: %v)", srv.Name, pid, err)
		}
	}
}

func TestFixedPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if _, err := StartFauxqs(testCtx(t), FauxqsOptions{Port: port}); err == nil || !strings.Contains(err.Error(), "EADDRINUSE") {
		t.Errorf("fauxqs: err = %v, want an EADDRINUSE explanation", err)
	}
	_, err = StartDynalite(testCtx(t), DynaliteOptions{Port: port})
	if err == nil || !strings.Contains(err.Error(), "EADDRINUSE") {
		t.Errorf("dynalite: err = %v, want an EADDRINUSE explanation", err)
	}
	// The one failure for which another port is the remedy is told apart (make dev's hint).
	var taken *PortInUseError
	if !errors.As(err, &taken) || taken.Server != "dynalite" || taken.Port != port {
		t.Errorf("dynalite: err = %#v, want a *PortInUseError for port %d", err, port)
	}
}

func TestDataDirSurvivesRestart(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	dir := t.TempDir()
	opts := StackOptions{DataDir: dir, Prefix: "dev-"}

	s1, err := StartStack(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	key := map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: "APIKEY#k"},
		"sk": &ddbtypes.AttributeValueMemberS{Value: "APIKEY#k"},
	}
	item := map[string]ddbtypes.AttributeValue{"note": &ddbtypes.AttributeValueMemberS{Value: "kept"}}
	for k, v := range key {
		item[k] = v
	}
	if _, err := s1.DDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("dev-Table"), Item: item}); err != nil {
		t.Fatal(err)
	}
	s1.Close()

	s2, err := StartStack(ctx, opts) // Provision finds the existing table
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.DDB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("dev-Table"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := got.Item["note"].(*ddbtypes.AttributeValueMemberS); !ok || n.Value != "kept" {
		t.Fatalf("item after restart = %v", got.Item)
	}

	// A template whose table schema differs from the persisted table is reported.
	other, err := samtemplate.Parse([]byte(`
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Provision(ctx, s2.DDB, s2.Queue, other, Names{Prefix: "dev-"}); err == nil || !strings.Contains(err.Error(), "different schema") {
		t.Fatalf("Provision with changed schema: err = %v", err)
	}
}

func TestResolve(t *testing.T) {
	tpl, err := samtemplate.Parse([]byte(`
Parameters:
  Stage: {Type: String, Default: dev}
  NoDefault: {Type: String}
Resources:
  Q: {Type: AWS::SQS::Queue}
  K: {Type: AWS::KMS::Key}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := &Resources{
		Tables:    map[string]string{"T": "p-T"},
		TableARNs: map[string]string{"T": "arn:aws:dynamodb:us-east-1:000000000000:table/p-T"},
		QueueURLs: map[string]string{"Q": "http://127.0.0.1:1/000000000000/p-Q"},
		QueueARNs: map[string]string{"Q": "arn:aws:sqs:us-east-1:000000000000:p-Q"},
		template:  tpl,
		names:     map[string]string{"Q": "p-Q"},
	}
	ok := map[samtemplate.Value]string{
		lit("x"):                                     "x",
		refTo("Ref", "T"):                            "p-T",
		refTo("Ref", "Q"):                            "http://127.0.0.1:1/000000000000/p-Q",
		refTo("Ref", "Stage"):                        "dev",
		refTo("Ref", "AWS::Region"):                  "us-east-1",
		refTo("GetAtt", "Q.Arn"):                     "arn:aws:sqs:us-east-1:000000000000:p-Q",
		refTo("GetAtt", "Q.QueueName"):               "p-Q",
		refTo("Sub", "${Stage}/${T}/${Q.Arn}/${!X}"): "dev/p-T/arn:aws:sqs:us-east-1:000000000000:p-Q/${X}",
		// No KMS locally: a key's id and ARN are empty (the functions use the stack's local key).
		refTo("Ref", "K"):        "",
		refTo("GetAtt", "K.Arn"): "",
	}
	for v, want := range ok {
		if got, err := r.Resolve(v); err != nil || got != want {
			t.Errorf("Resolve(%v) = %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []samtemplate.Value{
		refTo("Ref", "Nope"),
		refTo("Ref", "NoDefault"),
		refTo("GetAtt", "T.StreamArn"),
		refTo("GetAtt", "K.Nope"),
		refTo("Sub", "${Nope}"),
		refTo("Join", ""),
	} {
		if got, err := r.Resolve(v); err == nil {
			t.Errorf("Resolve(%v) = %q, want error", v, got)
		}
	}
}

func TestNodeModulesDir(t *testing.T) {
	RequireServers(t) // node_modules is installed by make test, not by a plain go test -short
	dir, err := NodeModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(dir, "node_modules") {
		t.Errorf("NodeModulesDir = %q", dir)
	}
}

func keys(ks []ddbtypes.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(parts, ",")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lit(s string) samtemplate.Value { return samtemplate.Value{Literal: s} }

func refTo(fn, arg string) samtemplate.Value {
	return samtemplate.Value{Ref: &samtemplate.Ref{Func: fn, Arg: arg}}
}

// A client that gives up while sending its request (the SDK's per-attempt timeout on a loaded
// machine) must not take dynalite down: dynalite's cli.js throws on the aborted request and
// the process exits, failing every later request of every test that shares it.
func TestDynaliteSurvivesAnAbortedRequest(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv, err := StartDynalite(ctx, DynaliteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for i := 0; i < 3; i++ {
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(srv.Port))
		if err != nil {
			t.Fatal(err)
		}
		// Half a ListTables request: the body is announced but never finished.
		_, err = conn.Write([]byte("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n" +
			"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{\"Lim"))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // let the server read the head and the partial body
		conn.Close()
	}
	time.Sleep(200 * time.Millisecond) // the abort is handled on the server's next tick
	select {
	case <-srv.Done():
		t.Fatalf("dynalite exited after an aborted request:\n%s", srv.Logs())
	default:
	}
	cfg, err := AWSConfig(ctx, srv.Endpoint, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DynamoClient(cfg, srv.Endpoint).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("dynalite does not answer after an aborted request: %v\n%s", err, srv.Logs())
	}
}
