package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/local/samtemplate"
	"github.com/takapay/payments/shared/webhook"
)

// alarmTopic is how every alarm names the SNS topic it notifies.
const alarmTopic = "!If [CreateAlarmTopic, !Ref AlarmTopic, !Ref AlarmTopicArn]"

// alarm is one AWS::CloudWatch::Alarm of template.yaml, its values rendered as written.
type alarm struct {
	id, namespace, metric, statistic, comparison, threshold, missing string
	dimensions                                                       map[string]string
	actions, insufficient                                            []string
}

// templateAlarms returns every AWS::CloudWatch::Alarm of the template.
func templateAlarms(doc *yaml.Node) []alarm {
	resources := node(doc, "Resources")
	var out []alarm
	for i := 0; i+1 < len(resources.Content); i += 2 {
		r := resources.Content[i+1]
		if render(node(r, "Type")) != "AWS::CloudWatch::Alarm" {
			continue
		}
		p := node(r, "Properties")
		a := alarm{id: resources.Content[i].Value, namespace: render(node(p, "Namespace")), metric: render(node(p, "MetricName")),
			statistic: render(node(p, "Statistic")), comparison: render(node(p, "ComparisonOperator")),
			threshold: render(node(p, "Threshold")), missing: render(node(p, "TreatMissingData")), dimensions: map[string]string{}}
		if d := node(p, "Dimensions"); d != nil {
			for _, dim := range d.Content {
				a.dimensions[render(node(dim, "Name"))] = render(node(dim, "Value"))
			}
		}
		for _, list := range []struct {
			key string
			to  *[]string
		}{{"AlarmActions", &a.actions}, {"InsufficientDataActions", &a.insufficient}} {
			if n := node(p, list.key); n != nil {
				for _, c := range n.Content {
					*list.to = append(*list.to, render(c))
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// find returns the alarms on one metric whose dimensions are exactly dims.
func find(alarms []alarm, namespace, metric string, dims map[string]string) []alarm {
	var out []alarm
	for _, a := range alarms {
		if a.namespace == namespace && a.metric == metric && len(a.dimensions) == len(dims) {
			same := true
			for k, v := range dims {
				same = same && a.dimensions[k] == v
			}
			if same {
				out = append(out, a)
			}
		}
	}
	return out
}

// refTarget returns X of "!Ref X" ("" for anything else).
func refTarget(s string) string {
	if x, ok := strings.CutPrefix(s, "!Ref "); ok {
		return x
	}
	return ""
}

// Issue 13, item 1: the template's operations. Every function has its log group (retention
// from LogRetentionDays), its Errors and Throttles alarms and a DeploymentPreference that rolls
// back on its Errors alarm; the webhook DLQ, the HTTP API's 5xx and the re-drive's
// oldest-pending-age metric have alarms; every alarm notifies the one topic (a parameter's, or
// the stack's own with an optional email subscription); access logs are JSON without the
// path; tracing, the alias, the deployment type and the log levels come from parameters.
func TestTemplateOperations(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(readTemplateText(t), &doc); err != nil {
		t.Fatal(err)
	}
	tpl, _ := loadTemplate(t)
	if len(tpl.Functions) != 20 {
		t.Errorf("template has %d functions; this test and docs/operations.md \"Operations\" count 20", len(tpl.Functions))
	}
	resourceType := func(id string) string { return render(node(&doc, "Resources", id, "Type")) }
	logGroupOK := func(where, ref string) {
		t.Helper()
		id := refTarget(ref)
		if id == "" || resourceType(id) != "AWS::Logs::LogGroup" {
			t.Errorf("%s: log group %q is not !Ref of an AWS::Logs::LogGroup", where, ref)
			return
		}
		if got := render(node(&doc, "Resources", id, "Properties", "RetentionInDays")); got != "!Ref LogRetentionDays" {
			t.Errorf("%s: log group %s keeps logs %q, want !Ref LogRetentionDays", where, id, got)
		}
	}

	// Parameters, each with a default.
	for name, want := range map[string]string{"AlarmEmail": "", "AlarmTopicArn": "", "LogRetentionDays": "30", "Tracing": "PassThrough",
		"DeploymentType": "Canary10Percent5Minutes", "LogLevel": "INFO", "SystemLogLevel": "WARN"} {
		if p, ok := tpl.Parameters[name]; !ok || !p.HasDefault || p.Default != want {
			t.Errorf("parameter %s: %+v, want default %q", name, p, want)
		}
	}
	allowed := func(name string) []string { return scalars(node(&doc, "Parameters", name, "AllowedValues")) }
	if got := allowed("Tracing"); !slices.Equal(got, []string{"Active", "PassThrough"}) {
		t.Errorf("Tracing AllowedValues %v", got)
	}
	// SAM's predefined deployment preference types.
	samTypes := []string{"AllAtOnce", "Canary10Percent10Minutes", "Canary10Percent15Minutes", "Canary10Percent30Minutes", "Canary10Percent5Minutes",
		"Linear10PercentEvery10Minutes", "Linear10PercentEvery1Minute", "Linear10PercentEvery2Minutes", "Linear10PercentEvery3Minutes"}
	if got := slices.Sorted(slices.Values(allowed("DeploymentType"))); !slices.Equal(got, samTypes) {
		t.Errorf("DeploymentType AllowedValues %v, want %v", got, samTypes)
	}
	// The application log level takes LogLevel's values as they are: Lambda accepts TRACE,
	// DEBUG, INFO, WARN, ERROR and FATAL.
	lambdaLevels := []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}
	for _, l := range allowed("LogLevel") {
		if !slices.Contains(lambdaLevels, l) {
			t.Errorf("LogLevel allows %s, which Lambda's ApplicationLogLevel does not", l)
		}
	}
	if got := allowed("LogRetentionDays"); !slices.Contains(got, "30") || len(got) < 10 {
		t.Errorf("LogRetentionDays AllowedValues %v, want CloudWatch Logs' retention values", got)
	}

	// The topic: an existing one when AlarmTopicArn is set, else the stack's own; an email
	// subscription only with AlarmEmail.
	for name, want := range map[string]string{"CreateAlarmTopic": "!Equals [!Ref AlarmTopicArn, ]",
		"SubscribeAlarmEmail": "!Not [!Equals [!Ref AlarmEmail, ]]"} {
		if got := render(node(&doc, "Conditions", name)); got != want {
			t.Errorf("Conditions.%s = %q, want %q", name, got, want)
		}
	}
	if resourceType("AlarmTopic") != "AWS::SNS::Topic" || render(node(&doc, "Resources", "AlarmTopic", "Condition")) != "CreateAlarmTopic" {
		t.Error("AlarmTopic is not an AWS::SNS::Topic under Condition CreateAlarmTopic")
	}
	sub := node(&doc, "Resources", "AlarmEmailSubscription")
	if render(node(sub, "Type")) != "AWS::SNS::Subscription" || render(node(sub, "Condition")) != "SubscribeAlarmEmail" ||
		render(node(sub, "Properties", "Protocol")) != "email" || render(node(sub, "Properties", "Endpoint")) != "!Ref AlarmEmail" ||
		render(node(sub, "Properties", "TopicArn")) != alarmTopic {
		t.Error("AlarmEmailSubscription is not an email subscription of AlarmEmail to the alarm topic under SubscribeAlarmEmail")
	}

	alarms := templateAlarms(&doc)
	for _, a := range alarms {
		if !slices.Equal(a.actions, []string{alarmTopic}) {
			t.Errorf("alarm %s notifies %v, want [%s]", a.id, a.actions, alarmTopic)
		}
	}
	// one returns the single alarm on a metric, or reports its absence.
	one := func(what, namespace, metric string, dims map[string]string) (alarm, bool) {
		t.Helper()
		found := find(alarms, namespace, metric, dims)
		if len(found) != 1 {
			t.Errorf("%s: %d alarms on %s %s %v, want 1", what, len(found), namespace, metric, dims)
			return alarm{}, false
		}
		return found[0], true
	}

	// Per function: log group, Errors and Throttles alarms, deployment preference, build.
	g := node(&doc, "Globals", "Function")
	for _, f := range tpl.Functions {
		fn := node(&doc, "Resources", f.LogicalID)
		logGroupOK(f.LogicalID, render(node(fn, "Properties", "LoggingConfig", "LogGroup")))
		dims := map[string]string{"FunctionName": "!Ref " + f.LogicalID}
		errs, ok := one(f.LogicalID+" Errors", "AWS/Lambda", "Errors", dims)
		if ok && (errs.statistic != "Sum" || errs.comparison != "GreaterThanThreshold" || errs.threshold != "0") {
			t.Errorf("%s: Errors alarm %+v, want Sum > 0", f.LogicalID, errs)
		}
		if a, ok := one(f.LogicalID+" Throttles", "AWS/Lambda", "Throttles", dims); ok &&
			(a.statistic != "Sum" || a.comparison != "GreaterThanThreshold" || a.threshold != "0") {
			t.Errorf("%s: Throttles alarm %+v, want Sum > 0", f.LogicalID, a)
		}
		if got := render(node(fn, "Properties", "DeploymentPreference", "Alarms")); ok && got != "[!Ref "+errs.id+"]" {
			t.Errorf("%s: DeploymentPreference.Alarms %q, want [!Ref %s]", f.LogicalID, got, errs.id)
		}
		// The rest comes from Globals, never overridden (the re-drive's application log level
		// is the one exception, below).
		for _, k := range [][]string{{"Tracing"}, {"AutoPublishAlias"}, {"DeploymentPreference", "Type"},
			{"LoggingConfig", "LogFormat"}, {"LoggingConfig", "SystemLogLevel"}} {
			if n := node(fn, append([]string{"Properties"}, k...)...); n != nil {
				t.Errorf("%s overrides Globals.Function.%s (line %d)", f.LogicalID, strings.Join(k, "."), n.Line)
			}
		}
		lvl := node(fn, "Properties", "LoggingConfig", "ApplicationLogLevel")
		switch {
		case f.LogicalID == "WebhookRedriveFunction":
			// Its EMF line has no level (Lambda counts it INFO): nothing may filter it out.
			if render(lvl) != "TRACE" {
				t.Errorf("WebhookRedriveFunction ApplicationLogLevel %q, want TRACE: a higher LogLevel would drop its metric line", render(lvl))
			}
		case lvl != nil:
			t.Errorf("%s overrides Globals.Function.LoggingConfig.ApplicationLogLevel (line %d)", f.LogicalID, lvl.Line)
		}
		// sam build --build-in-source (samconfig.toml build_in_source) builds a makefile
		// function in CodeUri instead of a copy of it (node_modules, .build and all).
		if render(node(fn, "Metadata", "BuildMethod")) != "makefile" || render(node(fn, "Properties", "CodeUri")) != "." {
			t.Errorf("%s: want Metadata.BuildMethod makefile and CodeUri . (built in the source tree by make build-%s)", f.LogicalID, f.LogicalID)
		}
	}
	root, err := samtemplate.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(root, "samconfig.toml"))
	if err != nil || !regexp.MustCompile(`(?m)^\[default\.build\.parameters\](?:\n[^\[].*)*\nbuild_in_source = true`).Match(cfg) {
		t.Errorf("samconfig.toml [default.build.parameters] lacks build_in_source = true (sam build would copy node_modules and .build into every function): %v", err)
	}
	if n := len(find(alarms, "AWS/Lambda", "Errors", nil)); n != 0 {
		t.Errorf("%d Errors alarms without a function", n)
	}

	// Globals: tracing, alias, deployment type, log format and levels from parameters.
	for path, want := range map[string]string{"Tracing": "!Ref Tracing", "AutoPublishAlias": "live",
		"DeploymentPreference.Type": "!Ref DeploymentType", "LoggingConfig.LogFormat": "JSON",
		"LoggingConfig.ApplicationLogLevel": "!Ref LogLevel", "LoggingConfig.SystemLogLevel": "!Ref SystemLogLevel"} {
		if got := render(node(g, strings.Split(path, ".")...)); got != want {
			t.Errorf("Globals.Function.%s = %q, want %q", path, got, want)
		}
	}
	// The application's own logger keeps LOG_LEVEL from the same parameter.
	for _, f := range tpl.Functions {
		if v := f.Environment["LOG_LEVEL"]; v.String() != "!Ref LogLevel" {
			t.Errorf("%s: LOG_LEVEL = %q, want !Ref LogLevel", f.LogicalID, v.String())
		}
	}

	// The webhook dead-letter queue, the HTTP API's 5xx, the re-drive's metric.
	if a, ok := one("dead-letter queue", "AWS/SQS", "ApproximateNumberOfMessagesVisible",
		map[string]string{"QueueName": "!GetAtt WebhookDeadLetterQueue.QueueName"}); ok &&
		(a.comparison != "GreaterThanThreshold" || a.threshold != "0") {
		t.Errorf("dead-letter alarm %+v, want > 0", a)
	}
	if q, ok := tpl.Queue("WebhookQueue"); !ok || q.DeadLetterTarget != "WebhookDeadLetterQueue" {
		t.Errorf("WebhookQueue's dead-letter queue is %q, not the one alarmed on", q.DeadLetterTarget)
	}
	if a, ok := one("HTTP API 5xx", "AWS/ApiGateway", "5xx", map[string]string{"ApiId": "!Ref HttpApi", "Stage": "$default"}); ok &&
		(a.statistic != "Sum" || a.comparison != "GreaterThanThreshold" || a.threshold != "0") {
		t.Errorf("5xx alarm %+v, want Sum > 0", a)
	}
	if a, ok := one("oldest pending webhook event", webhook.MetricNamespace, webhook.OldestPendingMetric, nil); ok {
		// The re-drive reports a floor of its Overdue for any overdue event: a higher
		// threshold could never be reached.
		th, err := strconv.ParseFloat(a.threshold, 64)
		if err != nil || th <= 0 || th > webhook.DefaultOverdue.Seconds() || a.statistic != "Maximum" ||
			!strings.HasPrefix(a.comparison, "GreaterThan") {
			t.Errorf("oldest-pending alarm %+v, want Maximum above a threshold in (0, %v]", a, webhook.DefaultOverdue.Seconds())
		}
		if a.missing != "missing" || !slices.Equal(a.insufficient, []string{alarmTopic}) {
			t.Errorf("oldest-pending alarm: TreatMissingData %q, InsufficientDataActions %v; want missing and the topic "+
				"(no data = the re-drive stopped reporting)", a.missing, a.insufficient)
		}
	}

	// Access logs: JSON, their own log group, never the path.
	api := node(&doc, "Resources", "HttpApi", "Properties", "AccessLogSettings")
	if dest := render(node(api, "DestinationArn")); !strings.HasPrefix(dest, "!GetAtt ") || !strings.HasSuffix(dest, ".Arn") {
		t.Errorf("HttpApi AccessLogSettings.DestinationArn %q, want !GetAtt <LogGroup>.Arn", dest)
	} else {
		logGroupOK("HttpApi access logs", "!Ref "+strings.TrimSuffix(strings.TrimPrefix(dest, "!GetAtt "), ".Arn"))
	}
	format := render(node(api, "Format"))
	var fields map[string]string
	if err := json.Unmarshal([]byte(format), &fields); err != nil {
		t.Fatalf("HttpApi access log format is not a JSON object of strings: %v\n%s", err, format)
	}
	for key, want := range map[string]string{"requestId": "$context.requestId", "routeKey": "$context.routeKey",
		"status": "$context.status", "integrationLatency": "$context.integrationLatency",
		"responseLatency": "$context.responseLatency", "protocol": "$context.protocol", "ip": "$context.identity.sourceIp"} {
		if fields[key] != want {
			t.Errorf("access log field %s = %q, want %q", key, fields[key], want)
		}
	}
	// Only variables known to carry no part of the path, which holds checkout and
	// public-document tokens: an allowlist, so a variable added later is looked at first.
	pathFree := []string{"$context.requestId", "$context.requestTime", "$context.requestTimeEpoch", "$context.httpMethod",
		"$context.routeKey", "$context.status", "$context.integrationStatus", "$context.responseLength",
		"$context.responseLatency", "$context.integrationLatency", "$context.protocol", "$context.identity.sourceIp"}
	for _, v := range regexp.MustCompile(`\$[a-zA-Z.]+`).FindAllString(format, -1) {
		if !slices.Contains(pathFree, v) {
			t.Errorf("access log format uses %s, not among the variables known to be free of the path", v)
		}
	}
	if strings.Contains(format, "$context.path") {
		t.Error("access log format logs $context.path")
	}
}

// The alarms' metric names are the ones the code publishes.
func TestOperationsAlarmsWatchPublishedMetrics(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(readTemplateText(t), &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range templateAlarms(&doc) {
		if strings.HasPrefix(a.namespace, "AWS/") {
			continue
		}
		if a.namespace != webhook.MetricNamespace || a.metric != webhook.OldestPendingMetric {
			t.Errorf("alarm %s watches %s %s, which no code publishes", a.id, a.namespace, a.metric)
		}
	}
}
