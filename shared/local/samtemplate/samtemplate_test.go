package samtemplate

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func loadRepoTemplate(t *testing.T) *Template {
	t.Helper()
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestRepoTemplateFunctions(t *testing.T) {
	tpl := loadRepoTemplate(t)

	var ids []string
	for _, f := range tpl.Functions {
		ids = append(ids, f.LogicalID)
	}
	want := []string{"CheckoutFunction", "DashboardCustomersFunction", "DashboardDocumentsFunction", "DashboardExportFunction", "DashboardFunction", "DashboardPasskeysFunction", "DashboardPaymentsFunction", "DashboardPublicFunction", "DashboardWebhooksFunction", "DocumentsFunction", "MerchantFunction", "PaymentCreateFunction", "PaymentIntentCancelFunction", "PaymentIntentsFunction", "PaymentVerifyFunction", "ProbesFunction", "PublicDocumentsFunction", "RefundsFunction", "WebhookRedriveFunction", "WebhookSenderFunction"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("functions = %v, want %v", ids, want)
	}

	cases := map[string]struct {
		dir    string
		routes []Route
	}{
		"PaymentCreateFunction": {"functions/payment-create", []Route{{"POST", "/v1/payment/create"}}},
		"PaymentVerifyFunction": {"functions/payment-verify", []Route{{"POST", "/v1/payment/verify"}}},
		"MerchantFunction":      {"functions/merchant", []Route{{"GET", "/v1/merchant/context"}}},
		"ProbesFunction": {"functions/probes", []Route{
			{"ANY", "$default"},
			{"GET", "/healthz"},
			{"GET", "/readyz"},
		}},
	}
	for id, c := range cases {
		f, ok := tpl.Function(id)
		if !ok {
			t.Fatalf("function %s missing", id)
		}
		if f.Dir != c.dir {
			t.Errorf("%s.Dir = %q, want %q", id, f.Dir, c.dir)
		}
		if !reflect.DeepEqual(f.Routes, c.routes) {
			t.Errorf("%s.Routes = %v, want %v", id, f.Routes, c.routes)
		}
		if got := f.Environment["TABLE_NAME"]; !reflect.DeepEqual(got, RefTo("Ref", "Table")) {
			t.Errorf("%s TABLE_NAME = %v, want !Ref Table", id, got)
		}
		if got := f.Environment["WEBHOOK_QUEUE_URL"]; !reflect.DeepEqual(got, RefTo("Ref", "WebhookQueue")) {
			t.Errorf("%s WEBHOOK_QUEUE_URL = %v, want !Ref WebhookQueue", id, got)
		}
	}
	if got := tpl.GlobalEnvironment["LOG_LEVEL"]; !reflect.DeepEqual(got, RefTo("Ref", "LogLevel")) {
		t.Errorf("global LOG_LEVEL = %v", got)
	}
	if p := tpl.Parameters["LogLevel"]; p.Default != "INFO" || !p.HasDefault {
		t.Errorf("LogLevel parameter = %+v", p)
	}
	if p := tpl.Parameters["PublicBaseUrl"]; p.Default != "" || !p.HasDefault {
		t.Errorf("PublicBaseUrl parameter = %+v", p)
	}
	if owner := tpl.Routes()[Route{"GET", "/healthz"}]; owner != "ProbesFunction" {
		t.Errorf("GET /healthz owned by %q", owner)
	}
}

func TestRepoTemplateTable(t *testing.T) {
	tpl := loadRepoTemplate(t)
	if len(tpl.Tables) != 1 {
		t.Fatalf("tables = %+v, want one", tpl.Tables)
	}
	tb := tpl.Tables[0]
	if tb.LogicalID != "Table" {
		t.Errorf("table id = %q", tb.LogicalID)
	}
	if want := []KeyElement{{"pk", "HASH"}, {"sk", "RANGE"}}; !reflect.DeepEqual(tb.KeySchema, want) {
		t.Errorf("key schema = %v, want %v", tb.KeySchema, want)
	}
	wantAttrs := []AttributeDefinition{{"pk", "S"}, {"sk", "S"}, {"gsi1pk", "S"}, {"gsi1sk", "S"}, {"gsi2pk", "S"}, {"gsi2sk", "S"}, {"gsi3pk", "S"}, {"created_at", "S"}}
	if !reflect.DeepEqual(tb.AttributeDefinitions, wantAttrs) {
		t.Errorf("attributes = %v, want %v", tb.AttributeDefinitions, wantAttrs)
	}
	wantGSI := []Index{{Name: "gsi1", KeySchema: []KeyElement{{"gsi1pk", "HASH"}, {"gsi1sk", "RANGE"}}, ProjectionType: "ALL"},
		{Name: "gsi2", KeySchema: []KeyElement{{"gsi2pk", "HASH"}, {"gsi2sk", "RANGE"}}, ProjectionType: "KEYS_ONLY"},
		{Name: "gsi3", KeySchema: []KeyElement{{"gsi3pk", "HASH"}, {"created_at", "RANGE"}}, ProjectionType: "INCLUDE",
			NonKeyAttributes: []string{"document_id", "snap"}}}
	if !reflect.DeepEqual(tb.GSIs, wantGSI) {
		t.Errorf("GSIs = %+v, want %+v", tb.GSIs, wantGSI)
	}
	if tb.TTLAttribute != "ttl" {
		t.Errorf("TTL attribute = %q, want ttl", tb.TTLAttribute)
	}
	if tb.BillingMode != "PAY_PER_REQUEST" {
		t.Errorf("billing mode = %q", tb.BillingMode)
	}
}

func TestRepoTemplateQueues(t *testing.T) {
	tpl := loadRepoTemplate(t)
	var ids []string
	for _, q := range tpl.Queues {
		ids = append(ids, q.LogicalID)
	}
	if want := []string{"WebhookDeadLetterQueue", "WebhookQueue"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("queues = %v, want %v", ids, want)
	}
	q, _ := tpl.Queue("WebhookQueue")
	if q.DeadLetterTarget != "WebhookDeadLetterQueue" || q.MaxReceiveCount != 12 {
		t.Errorf("WebhookQueue redrive = %q/%d", q.DeadLetterTarget, q.MaxReceiveCount)
	}
	if want := map[string]string{"VisibilityTimeout": "180", "MessageRetentionPeriod": "345600"}; !reflect.DeepEqual(q.Attributes, want) {
		t.Errorf("WebhookQueue attributes = %v, want %v", q.Attributes, want)
	}
	dlq, _ := tpl.Queue("WebhookDeadLetterQueue")
	if dlq.DeadLetterTarget != "" || dlq.Attributes["MessageRetentionPeriod"] != "1209600" {
		t.Errorf("DLQ = %+v", dlq)
	}
}

const baseTemplate = `
Resources:
  Q:
    Type: AWS::SQS::Queue
`

func TestValidationErrors(t *testing.T) {
	cases := map[string]struct {
		yaml string
		want string
	}{
		"duplicate route across functions": {`
Resources:
  AFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {Path: /x, Method: post}}
  BFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {Path: /x, Method: POST}}
`, "route POST /x is declared by both AFunction and BFunction"},
		"duplicate default route": {`
Resources:
  AFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {Path: $default, Method: ANY}}
  BFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {Path: $default, Method: GET}}
`, "declared by both"},
		"event without path": {`
Resources:
  AFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        NoPath: {Type: HttpApi, Properties: {Method: GET}}
`, "HttpApi event NoPath"},
		"event without method": {`
Resources:
  AFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        NoMethod:
          Type: HttpApi
          Properties:
            Path: /a
`, "must set both Path and Method"},
		"unknown dead letter queue": {`
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt Missing.Arn
        maxReceiveCount: 3
`, `RedrivePolicy names unknown queue "Missing"`},
		"redrive cycle": {`
Resources:
  A:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt B.Arn, maxReceiveCount: 3}
  B:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt A.Arn, maxReceiveCount: 3}
`, "cyclic"},
		"not a mapping": {"- a\n- b\n", "not a mapping"},
		"no resources":  {"Parameters: {}\n", "no Resources"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := Parse([]byte(baseTemplate)); err != nil {
		t.Fatalf("minimal template: %v", err)
	}
}

func TestIntrinsicForms(t *testing.T) {
	tpl, err := Parse([]byte(`
Globals:
  Function:
    Environment:
      Variables:
        A: plain
        B: !Ref Table
        C: 42
Resources:
  ZFunction:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          A: own
          D: {Ref: Q}
          E: {"Fn::GetAtt": [Q, Arn]}
          F: !Sub "arn:${AWS::Partition}:x"
          G: !Join [":", [a, b]]
  AFunction:
    Type: AWS::Serverless::Function
  Q:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy:
        deadLetterTargetArn: {"Fn::GetAtt": [D, Arn]}
        maxReceiveCount: "5"
  D:
    Type: AWS::SQS::Queue
`))
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Functions[0].LogicalID != "AFunction" || tpl.Functions[1].LogicalID != "ZFunction" {
		t.Fatalf("functions not sorted: %+v", tpl.Functions)
	}
	z := tpl.Functions[1]
	want := map[string]Value{
		"A": Lit("own"),
		"B": RefTo("Ref", "Table"),
		"C": Lit("42"),
		"D": RefTo("Ref", "Q"),
		"E": RefTo("GetAtt", "Q.Arn"),
		"F": RefTo("Sub", "arn:${AWS::Partition}:x"),
		"G": {Ref: &Ref{Func: "Join"}},
	}
	if !reflect.DeepEqual(z.Environment, want) {
		t.Errorf("environment = %v, want %v", z.Environment, want)
	}
	if a := tpl.Functions[0]; a.Environment["A"] != Lit("plain") || len(a.Routes) != 0 {
		t.Errorf("AFunction = %+v", a)
	}
	q, _ := tpl.Queue("Q")
	if q.DeadLetterTarget != "D" || q.MaxReceiveCount != 5 {
		t.Errorf("Q = %+v", q)
	}
}

func TestKebabCase(t *testing.T) {
	cases := map[string]string{
		"PaymentCreateFunction": "functions/payment-create",
		"ProbesFunction":        "functions/probes",
		"HTTPProbesFunction":    "functions/http-probes",
		"WebhookSenderFunction": "functions/webhook-sender",
		"S3UploadFunction":      "functions/s3-upload",
		"ApiV2Function":         "functions/api-v2",
		"Reconcile":             "functions/reconcile",
	}
	for in, want := range cases {
		if got := FunctionDir(in); got != want {
			t.Errorf("FunctionDir(%q) = %q, want %q", in, got, want)
		}
	}
}

func Lit(s string) Value { return Value{Literal: s} }

func RefTo(fn, arg string) Value { return Value{Ref: &Ref{Func: fn, Arg: arg}} }

// make dev's PARAMS: parsed as sam deploy --parameter-overrides, each value checked against the
// parameter's type and constraints in template.yaml.
func TestParameterOverrides(t *testing.T) {
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseOverrides(` WorkspaceRateLimit=500  AlarmEmail="ops@example.com.bd" `)
	if err != nil || len(got) != 2 || got["WorkspaceRateLimit"] != "500" || got["AlarmEmail"] != "ops@example.com.bd" {
		t.Fatalf("%v %v", got, err)
	}
	if err := tpl.Override(got); err != nil {
		t.Fatal(err)
	}
	if p := tpl.Parameters["WorkspaceRateLimit"]; p.Default != "500" {
		t.Errorf("override not applied: %+v", p)
	}
	for _, bad := range []string{"WorkspaceRateLimit=fast", "WorkspaceRateLimit=-1", "LogLevel=TRACE", "NoSuchParameter=1",
		"AlarmEmail=not-an-email", "LogRetentionDays=2"} {
		o, err := ParseOverrides(bad)
		if err != nil {
			t.Fatal(err)
		}
		if err := tpl.Override(o); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, bad := range []string{"=1", "A", `A="open`, "A=1 A=2"} {
		if _, err := ParseOverrides(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The webhook sender's event source mapping and the re-drive's schedule, as template.yaml
// declares them.
func TestRepoTemplateTriggers(t *testing.T) {
	tpl := loadRepoTemplate(t)
	sender, _ := tpl.Function("WebhookSenderFunction")
	want := &SQSEvent{Queue: RefTo("GetAtt", "WebhookQueue.Arn"), BatchSize: 10, Window: time.Second, ReportBatchItemFailures: true}
	if !reflect.DeepEqual(sender.SQS, want) {
		t.Errorf("WebhookSenderFunction.SQS = %+v, want %+v", sender.SQS, want)
	}
	if sender.Schedule != "" {
		t.Errorf("WebhookSenderFunction.Schedule = %q", sender.Schedule)
	}
	redrive, _ := tpl.Function("WebhookRedriveFunction")
	if redrive.Schedule != "rate(1 minute)" || redrive.SQS != nil {
		t.Errorf("WebhookRedriveFunction: Schedule %q, SQS %+v", redrive.Schedule, redrive.SQS)
	}
	if d, err := redrive.ScheduleInterval(); err != nil || d != time.Minute {
		t.Errorf("WebhookRedriveFunction.ScheduleInterval() = %v, %v; want 1m", d, err)
	}
	for _, f := range tpl.Functions {
		if f.LogicalID != "WebhookSenderFunction" && f.SQS != nil || f.LogicalID != "WebhookRedriveFunction" && f.Schedule != "" {
			t.Errorf("%s: unexpected trigger: SQS %+v, Schedule %q", f.LogicalID, f.SQS, f.Schedule)
		}
	}
}

func TestTriggerDefaults(t *testing.T) {
	tpl, err := Parse([]byte(`
Resources:
  Q:
    Type: AWS::SQS::Queue
  AFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Q:
          Type: SQS
          Properties:
            Queue: !GetAtt Q.Arn
        Hourly:
          Type: Schedule
          Properties:
            Schedule: rate(2 hours)
  BFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Q:
          Type: SQS
          Properties: {Queue: !GetAtt Q.Arn, BatchSize: 100, MaximumBatchingWindowInSeconds: 5, FunctionResponseTypes: []}
  CFunction:
    Type: AWS::Serverless::Function
`))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tpl.Function("AFunction")
	if want := (&SQSEvent{Queue: RefTo("GetAtt", "Q.Arn"), BatchSize: 10}); !reflect.DeepEqual(a.SQS, want) {
		t.Errorf("AFunction.SQS = %+v, want SAM's defaults %+v", a.SQS, want)
	}
	if d, err := a.ScheduleInterval(); a.Schedule != "rate(2 hours)" || d != 2*time.Hour || err != nil {
		t.Errorf("AFunction schedule %q = %v, %v", a.Schedule, d, err)
	}
	b, _ := tpl.Function("BFunction")
	if want := (&SQSEvent{Queue: RefTo("GetAtt", "Q.Arn"), BatchSize: 100, Window: 5 * time.Second}); !reflect.DeepEqual(b.SQS, want) {
		t.Errorf("BFunction.SQS = %+v, want %+v", b.SQS, want)
	}
	c, _ := tpl.Function("CFunction")
	if d, err := c.ScheduleInterval(); c.SQS != nil || c.Schedule != "" || d != 0 || err != nil {
		t.Errorf("CFunction: SQS %+v, Schedule %q, interval %v, %v", c.SQS, c.Schedule, d, err)
	}
}

func TestTriggerErrors(t *testing.T) {
	fn := func(events string) string {
		return "Resources:\n  AFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events:\n" + events
	}
	cases := map[string]struct{ yaml, want string }{
		"no queue":            {fn("        Q: {Type: SQS, Properties: {BatchSize: 5}}\n"), "SQS event Q (line 6) has no Queue"},
		"batch size zero":     {fn("        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn, BatchSize: 0}}\n"), "BatchSize must be a literal integer 1-10000"},
		"batch size ref":      {fn("        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn, BatchSize: !Ref Size}}\n"), "BatchSize must be a literal integer"},
		"window too long":     {fn("        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn, MaximumBatchingWindowInSeconds: 301}}\n"), "MaximumBatchingWindowInSeconds must be a literal integer 0-300"},
		"big batch no window": {fn("        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn, BatchSize: 11}}\n"), "needs MaximumBatchingWindowInSeconds"},
		"two SQS events":      {fn("        Q: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn}}\n        R: {Type: SQS, Properties: {Queue: !GetAtt Q.Arn}}\n"), "a second SQS event"},
		"no expression":       {fn("        S: {Type: ScheduleV2, Properties: {Schedule: rate(1 minute)}}\n"), "has no literal ScheduleExpression"},
		"two schedules":       {fn("        S: {Type: ScheduleV2, Properties: {ScheduleExpression: rate(1 minute)}}\n        T: {Type: Schedule, Properties: {Schedule: rate(1 minute)}}\n"), "a second schedule"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestRateInterval(t *testing.T) {
	for expr, want := range map[string]time.Duration{
		"rate(1 minute)": time.Minute, "rate(5 minutes)": 5 * time.Minute, "rate(1 hour)": time.Hour,
		"rate(12 hours)": 12 * time.Hour, "rate(1 day)": 24 * time.Hour, " rate( 3 days ) ": 72 * time.Hour,
	} {
		if got, err := RateInterval(expr); got != want || err != nil {
			t.Errorf("RateInterval(%q) = %v, %v; want %v", expr, got, err, want)
		}
	}
	for expr, want := range map[string]string{
		"cron(0 12 * * ? *)":      "only rate() expressions are supported locally, not cron() or at()",
		"at(2026-11-27T12:00:00)": "not cron() or at()",
		"rate(30 seconds)":        `unit "seconds" is not minute(s), hour(s) or day(s)`,
		"rate(5 minute)":          "singular for 1 and plural otherwise",
		"rate(1 minutes)":         "singular for 1 and plural otherwise",
		"rate(0 minutes)":         "positive integer",
		"rate(1.5 hours)":         "not a rate(N unit) expression",
		"every minute":            "not a rate(N unit) expression",
		"":                        "not a rate(N unit) expression",
	} {
		if got, err := RateInterval(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("RateInterval(%q) = %v, %v; want an error containing %q", expr, got, err, want)
		}
	}
	f := Function{LogicalID: "XFunction", Schedule: "cron(0 * * * ? *)"}
	if _, err := f.ScheduleInterval(); err == nil || !strings.Contains(err.Error(), "function XFunction: ") {
		t.Errorf("ScheduleInterval = %v, want the function named", err)
	}
}
