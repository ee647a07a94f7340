// Package samtemplate reads the AWS SAM template (template.yaml) so that the
// local stack and the integration tests take routes, the DynamoDB table and
// the SQS queues from the same file that is deployed.
//
// Only the parts of the template the local tooling needs are modelled:
// AWS::Serverless::Function (HttpApi, SQS and Schedule/ScheduleV2 events, environment
// variables, timeout and memory),
// AWS::DynamoDB::Table, AWS::SQS::Queue, the logical ids of AWS::KMS::Key
// resources, Parameters and Globals.Function.Environment. CloudFormation intrinsic functions (!Ref,
// !GetAtt, !Sub, ... and their long Fn:: forms) are tolerated everywhere and
// represented as Ref values where the model needs them.
package samtemplate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Resource type names recognised by the parser.
const (
	TypeFunction = "AWS::Serverless::Function"
	TypeTable    = "AWS::DynamoDB::Table"
	TypeQueue    = "AWS::SQS::Queue"
	TypeKMSKey   = "AWS::KMS::Key"
)

// Template is the parsed subset of a SAM template; every slice is sorted by logical id.
type Template struct {
	// Functions are the AWS::Serverless::Function resources.
	Functions []Function
	// Tables are the AWS::DynamoDB::Table resources.
	Tables []Table
	// Queues are the AWS::SQS::Queue resources.
	Queues []Queue
	// KMSKeys are the logical ids of the AWS::KMS::Key resources (the local stack has no KMS).
	KMSKeys []string
	// GlobalEnvironment is Globals.Function.Environment.Variables.
	GlobalEnvironment map[string]Value
	globalTimeout     time.Duration
	globalMemoryMB    int
	// Parameters are the template parameters keyed by name.
	Parameters map[string]Parameter
	// conditions are the Conditions section's nodes, evaluated on demand (ReservedConcurrency)
	// against the parameters' values as overridden.
	conditions map[string]*yaml.Node
}

// Parameter is one entry of the template's Parameters section.
type Parameter struct {
	// Name is the parameter's logical name.
	Name string
	// Type is the CloudFormation parameter type, e.g. "String".
	Type string
	// Default is the declared default (lists are joined with commas).
	Default string
	// HasDefault reports whether the template declares a Default (it may be "").
	HasDefault bool
	// NoEcho marks a secret parameter.
	NoEcho bool
	// The constraints CloudFormation checks a value against ("" / nil when not declared).
	MinValue, MaxValue, MinLength, MaxLength, AllowedPattern string
	AllowedValues                                            []string
}

// Check reports whether v is a value CloudFormation would accept for the parameter: a number
// for Number, within MinValue/MaxValue; a length within MinLength/MaxLength; one of
// AllowedValues (each item of a CommaDelimitedList); a whole match of AllowedPattern.
func (p Parameter) Check(v string) error {
	items := []string{v}
	if p.Type == "CommaDelimitedList" {
		items = strings.Split(v, ",")
	}
	for _, it := range items {
		if p.Type == "Number" {
			n, err := strconv.ParseFloat(it, 64)
			if err != nil {
				return fmt.Errorf("parameter %s: %q is not a number", p.Name, it)
			}
			if m, err := strconv.ParseFloat(p.MinValue, 64); err == nil && n < m {
				return fmt.Errorf("parameter %s: %s is under MinValue %s", p.Name, it, p.MinValue)
			}
			if m, err := strconv.ParseFloat(p.MaxValue, 64); err == nil && n > m {
				return fmt.Errorf("parameter %s: %s is over MaxValue %s", p.Name, it, p.MaxValue)
			}
		}
		if len(p.AllowedValues) > 0 && !slices.Contains(p.AllowedValues, it) {
			return fmt.Errorf("parameter %s: %q is not one of %s", p.Name, it, strings.Join(p.AllowedValues, ", "))
		}
	}
	if m, err := strconv.Atoi(p.MinLength); err == nil && len(v) < m {
		return fmt.Errorf("parameter %s: shorter than MinLength %d", p.Name, m)
	}
	if m, err := strconv.Atoi(p.MaxLength); err == nil && len(v) > m {
		return fmt.Errorf("parameter %s: longer than MaxLength %d", p.Name, m)
	}
	if p.AllowedPattern != "" {
		re, err := regexp.Compile(`^(?:` + p.AllowedPattern + `)$`)
		if err != nil {
			return fmt.Errorf("parameter %s: AllowedPattern: %w", p.Name, err)
		}
		if !re.MatchString(v) {
			return fmt.Errorf("parameter %s: %q does not match AllowedPattern %s", p.Name, v, p.AllowedPattern)
		}
	}
	return nil
}

// ParseOverrides reads parameter overrides as `sam deploy --parameter-overrides` takes them:
// "Name=Value Name2=Value2" (a value may be quoted with "" to hold spaces).
func ParseOverrides(text string) (map[string]string, error) {
	out := map[string]string{}
	rest := strings.TrimSpace(text)
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 || strings.ContainsAny(rest[:eq], " \t") {
			return nil, fmt.Errorf("parameter overrides: %q is not Name=Value", rest)
		}
		name := rest[:eq]
		rest = rest[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("parameter overrides: %s: unterminated quote", name)
			}
			val, rest = rest[1:end+1], rest[end+2:]
		} else if sp := strings.IndexAny(rest, " \t"); sp >= 0 {
			val, rest = rest[:sp], rest[sp:]
		} else {
			val, rest = rest, ""
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("parameter overrides: %s given twice", name)
		}
		out[name] = val
		rest = strings.TrimSpace(rest)
	}
	return out, nil
}

// Override replaces parameters' defaults with the given values, each checked (Check); a name
// the template does not declare is an error.
func (t *Template) Override(values map[string]string) error {
	var errs []error
	for name, v := range values {
		p, ok := t.Parameters[name]
		if !ok {
			errs = append(errs, fmt.Errorf("template.yaml has no parameter %s", name))
			continue
		}
		if err := p.Check(v); err != nil {
			errs = append(errs, err)
			continue
		}
		p.Default, p.HasDefault = v, true
		t.Parameters[name] = p
	}
	return errors.Join(errs...)
}

// Ref is a CloudFormation intrinsic function call such as !Ref Table or !GetAtt Queue.Arn.
type Ref struct {
	// Func is the function name without "!" or "Fn::": "Ref", "GetAtt", "Sub", ...
	Func string
	// Arg is the scalar argument; list forms of GetAtt are joined with ".",
	// for Sub only the template string is kept, and other non-scalar
	// arguments (e.g. of Join or If) are left empty.
	Arg string
}

// String renders the reference in YAML short form, e.g. "!Ref Table".
func (r Ref) String() string { return "!" + r.Func + " " + r.Arg }

// Value is a template scalar that is either a literal string or an intrinsic function reference.
type Value struct {
	// Literal is the string value when Ref is nil.
	Literal string
	// Ref is the intrinsic function call, or nil for a literal.
	Ref *Ref
}

// String renders the literal or the reference in YAML short form.
func (v Value) String() string {
	if v.Ref != nil {
		return v.Ref.String()
	}
	return v.Literal
}

// Function is an AWS::Serverless::Function resource.
type Function struct {
	// LogicalID is the resource's key under Resources.
	LogicalID string
	// Dir is the conventional source directory relative to the repository root,
	// e.g. "functions/payment-create" for PaymentCreateFunction.
	Dir string
	// Routes are the function's HttpApi events, sorted by path then method.
	Routes []Route
	// Environment is Globals.Function.Environment.Variables merged with the
	// function's own variables (the function wins).
	Environment map[string]Value
	// Timeout is the function's Timeout, else Globals.Function.Timeout, else Lambda's
	// default of 3 seconds.
	Timeout time.Duration
	// MemoryMB is the function's MemorySize, else Globals.Function.MemorySize, else Lambda's
	// default of 128.
	MemoryMB int
	// SQS is the function's SQS event (its event source mapping), or nil.
	SQS *SQSEvent
	// Schedule is the expression of the function's Schedule or ScheduleV2 event, e.g.
	// "rate(1 minute)", or "" (see ScheduleInterval).
	Schedule string
	// reserved is the ReservedConcurrentExecutions node, nil when absent (see
	// Template.ReservedConcurrency).
	reserved *yaml.Node
}

// SQSEvent is a function's SQS event: how Lambda's event source mapping batches the queue's
// messages into invocations.
type SQSEvent struct {
	// Queue is the Queue property, e.g. !GetAtt WebhookQueue.Arn.
	Queue Value
	// BatchSize is the most messages in one invocation (SAM's default: 10).
	BatchSize int
	// Window is MaximumBatchingWindowInSeconds: how long the event source gathers messages
	// before it invokes with a batch that is not full (default 0).
	Window time.Duration
	// ReportBatchItemFailures is set when FunctionResponseTypes holds ReportBatchItemFailures:
	// the function's batchItemFailures answer names the messages to keep; without it Lambda
	// ignores the answer and deletes the whole batch unless the invocation failed.
	ReportBatchItemFailures bool
}

// ScheduleInterval returns the period of the function's schedule (see RateInterval); 0 and no
// error when the function has no schedule.
func (f Function) ScheduleInterval() (time.Duration, error) {
	if f.Schedule == "" {
		return 0, nil
	}
	d, err := RateInterval(f.Schedule)
	if err != nil {
		return 0, fmt.Errorf("function %s: %w", f.LogicalID, err)
	}
	return d, nil
}

var rateExpr = regexp.MustCompile(`^rate\(\s*(\d+)\s+([a-z]+)\s*\)$`)

// RateInterval turns an EventBridge rate expression, "rate(N unit)" with unit minute(s),
// hour(s) or day(s) (singular exactly when N is 1, as EventBridge requires), into its period.
// cron() and at() expressions, and rates in any other unit, are errors: the local stack
// only runs fixed-rate schedules.
func RateInterval(expr string) (time.Duration, error) {
	expr = strings.TrimSpace(expr)
	m := rateExpr.FindStringSubmatch(expr)
	if m == nil {
		if strings.HasPrefix(expr, "cron(") || strings.HasPrefix(expr, "at(") {
			return 0, fmt.Errorf("schedule %q: only rate() expressions are supported locally, not cron() or at()", expr)
		}
		return 0, fmt.Errorf("schedule %q is not a rate(N unit) expression", expr)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return 0, fmt.Errorf("schedule %q: the rate must be a positive integer", expr)
	}
	unit := m[2]
	var per time.Duration
	switch strings.TrimSuffix(unit, "s") {
	case "minute":
		per = time.Minute
	case "hour":
		per = time.Hour
	case "day":
		per = 24 * time.Hour
	default:
		return 0, fmt.Errorf("schedule %q: unit %q is not minute(s), hour(s) or day(s)", expr, unit)
	}
	if plural := strings.HasSuffix(unit, "s"); plural != (n > 1) {
		return 0, fmt.Errorf("schedule %q: EventBridge wants the unit singular for 1 and plural otherwise", expr)
	}
	return time.Duration(n) * per, nil
}

// Route is one HttpApi event of a function.
type Route struct {
	// Method is upper-cased; "ANY" matches every method.
	Method string
	// Path is as written in the template: it may be "$default" and may contain
	// {param} and {proxy+} segments.
	Path string
}

// String renders the route as API Gateway route keys are written, e.g. "POST /v1/x".
func (r Route) String() string {
	if r.Path == "$default" {
		return "$default"
	}
	return r.Method + " " + r.Path
}

// AttributeDefinition is one DynamoDB attribute definition.
type AttributeDefinition struct {
	// Name is the attribute name.
	Name string
	// Type is the scalar type: "S", "N" or "B".
	Type string
}

// KeyElement is one element of a DynamoDB key schema.
type KeyElement struct {
	// Name is the key attribute name.
	Name string
	// KeyType is "HASH" or "RANGE".
	KeyType string
}

// Index is a DynamoDB secondary index.
type Index struct {
	// Name is the index name.
	Name string
	// KeySchema is the index key.
	KeySchema []KeyElement
	// ProjectionType is "ALL", "KEYS_ONLY" or "INCLUDE".
	ProjectionType string
	// NonKeyAttributes are the projected attributes of an INCLUDE projection.
	NonKeyAttributes []string
}

// Table is an AWS::DynamoDB::Table resource.
type Table struct {
	// LogicalID is the resource's key under Resources.
	LogicalID string
	// AttributeDefinitions are the typed key attributes of the table and its indexes.
	AttributeDefinitions []AttributeDefinition
	// KeySchema is the table's primary key.
	KeySchema []KeyElement
	// GSIs are the global secondary indexes.
	GSIs []Index
	// LSIs are the local secondary indexes.
	LSIs []Index
	// TTLAttribute is TimeToLiveSpecification.AttributeName when enabled, else "".
	TTLAttribute string
	// BillingMode defaults to "PROVISIONED" as in CloudFormation.
	BillingMode string
}

// Queue is an AWS::SQS::Queue resource.
type Queue struct {
	// LogicalID is the resource's key under Resources.
	LogicalID string
	// Attributes holds the SQS attributes the template sets (VisibilityTimeout,
	// MessageRetentionPeriod, DelaySeconds, ReceiveMessageWaitTimeSeconds,
	// MaximumMessageSize) as decimal strings.
	Attributes map[string]string
	// DeadLetterTarget is the logical id of the dead-letter queue, or "".
	DeadLetterTarget string
	// MaxReceiveCount is RedrivePolicy.maxReceiveCount (0 without a redrive policy).
	MaxReceiveCount int
}

// queueAttributeProps are the AWS::SQS::Queue properties copied into Queue.Attributes.
var queueAttributeProps = []string{
	"VisibilityTimeout",
	"MessageRetentionPeriod",
	"DelaySeconds",
	"ReceiveMessageWaitTimeSeconds",
	"MaximumMessageSize",
}

// Function returns the function with the given logical id.
func (t *Template) Function(logicalID string) (Function, bool) {
	for _, f := range t.Functions {
		if f.LogicalID == logicalID {
			return f, true
		}
	}
	return Function{}, false
}

// Table returns the table with the given logical id.
func (t *Template) Table(logicalID string) (Table, bool) {
	for _, tb := range t.Tables {
		if tb.LogicalID == logicalID {
			return tb, true
		}
	}
	return Table{}, false
}

// Queue returns the queue with the given logical id.
func (t *Template) Queue(logicalID string) (Queue, bool) {
	for _, q := range t.Queues {
		if q.LogicalID == logicalID {
			return q, true
		}
	}
	return Queue{}, false
}

// Routes returns every route of every function, keyed by the owning function's logical id.
func (t *Template) Routes() map[Route]string {
	out := make(map[Route]string)
	for _, f := range t.Functions {
		for _, r := range f.Routes {
			out[r] = f.LogicalID
		}
	}
	return out
}

// FindRepoRoot walks up from the working directory to the directory containing go.mod.
func FindRepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("samtemplate: no go.mod found in %s or any parent directory", wd)
		}
		dir = parent
	}
}

// LoadRepoTemplate loads template.yaml from the repository root found by FindRepoRoot.
func LoadRepoTemplate() (*Template, error) {
	root, err := FindRepoRoot()
	if err != nil {
		return nil, err
	}
	return Load(filepath.Join(root, "template.yaml"))
}

// Load reads and parses the template at path.
func Load(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("samtemplate: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse parses and validates a SAM template.
func Parse(data []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("samtemplate: %w", err)
	}
	root := deref(&doc)
	if root == nil || root.Kind == 0 {
		return nil, errors.New("samtemplate: empty template")
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("samtemplate: line %d: template root is not a mapping", root.Line)
	}
	t := &Template{
		GlobalEnvironment: map[string]Value{},
		Parameters:        map[string]Parameter{},
	}
	if err := t.parseParameters(get(root, "Parameters")); err != nil {
		return nil, err
	}
	t.conditions = map[string]*yaml.Node{}
	if conds := get(root, "Conditions"); conds != nil && conds.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(conds.Content); i += 2 {
			t.conditions[conds.Content[i].Value] = deref(conds.Content[i+1])
		}
	}
	globalEnv, err := envVariables(get(root, "Globals", "Function"))
	if err != nil {
		return nil, fmt.Errorf("samtemplate: Globals.Function: %w", err)
	}
	t.GlobalEnvironment = globalEnv
	t.globalTimeout = 3 * time.Second
	t.globalMemoryMB = 128
	if v := scalar(get(root, "Globals", "Function", "MemorySize")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 128 || n > 10240 {
			return nil, fmt.Errorf("samtemplate: Globals.Function.MemorySize %q is not 128-10240", v)
		}
		t.globalMemoryMB = n
	}
	if v := scalar(get(root, "Globals", "Function", "Timeout")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("samtemplate: Globals.Function.Timeout %q is not a positive integer", v)
		}
		t.globalTimeout = time.Duration(n) * time.Second
	}

	resources := get(root, "Resources")
	if resources == nil {
		return nil, errors.New("samtemplate: template has no Resources")
	}
	if resources.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("samtemplate: line %d: Resources is not a mapping", resources.Line)
	}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		id := resources.Content[i].Value
		res := deref(resources.Content[i+1])
		typ := scalar(get(res, "Type"))
		props := get(res, "Properties")
		var err error
		switch typ {
		case TypeFunction:
			err = t.parseFunction(id, props)
		case TypeTable:
			err = t.parseTable(id, props)
		case TypeQueue:
			err = t.parseQueue(id, props)
		case TypeKMSKey:
			t.KMSKeys = append(t.KMSKeys, id)
		}
		if err != nil {
			return nil, fmt.Errorf("samtemplate: resource %s (line %d): %w", id, resources.Content[i].Line, err)
		}
	}
	sort.Slice(t.Functions, func(i, j int) bool { return t.Functions[i].LogicalID < t.Functions[j].LogicalID })
	sort.Slice(t.Tables, func(i, j int) bool { return t.Tables[i].LogicalID < t.Tables[j].LogicalID })
	sort.Slice(t.Queues, func(i, j int) bool { return t.Queues[i].LogicalID < t.Queues[j].LogicalID })
	sort.Strings(t.KMSKeys)
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Template) parseParameters(n *yaml.Node) error {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("samtemplate: line %d: Parameters is not a mapping", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		def := deref(get(n.Content[i+1], "Default"))
		p := Parameter{Name: name, Type: scalar(get(n.Content[i+1], "Type")), NoEcho: scalar(get(n.Content[i+1], "NoEcho")) == "true",
			MinValue: scalar(get(n.Content[i+1], "MinValue")), MaxValue: scalar(get(n.Content[i+1], "MaxValue")),
			MinLength: scalar(get(n.Content[i+1], "MinLength")), MaxLength: scalar(get(n.Content[i+1], "MaxLength")),
			AllowedPattern: scalar(get(n.Content[i+1], "AllowedPattern"))}
		if av := deref(get(n.Content[i+1], "AllowedValues")); av != nil && av.Kind == yaml.SequenceNode {
			for _, c := range av.Content {
				p.AllowedValues = append(p.AllowedValues, scalar(c))
			}
		}
		if def != nil {
			if def.Kind == yaml.SequenceNode { // CommaDelimitedList defaults may be lists
				parts := make([]string, 0, len(def.Content))
				for _, c := range def.Content {
					parts = append(parts, scalar(c))
				}
				p.Default = strings.Join(parts, ",")
			} else {
				p.Default = scalar(def)
			}
			p.HasDefault = true
		}
		t.Parameters[name] = p
	}
	return nil
}

func (t *Template) parseFunction(id string, props *yaml.Node) error {
	f := Function{LogicalID: id, Dir: FunctionDir(id), Environment: map[string]Value{}}
	for k, v := range t.GlobalEnvironment {
		f.Environment[k] = v
	}
	f.Timeout = t.globalTimeout
	if v := scalar(get(props, "Timeout")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("function %s: Timeout %q is not a positive integer", id, v)
		}
		f.Timeout = time.Duration(n) * time.Second
	}
	f.reserved = get(props, "ReservedConcurrentExecutions")
	f.MemoryMB = t.globalMemoryMB
	if v := scalar(get(props, "MemorySize")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 128 || n > 10240 {
			return fmt.Errorf("function %s: MemorySize %q is not 128-10240", id, v)
		}
		f.MemoryMB = n
	}
	own, err := envVariables(props)
	if err != nil {
		return err
	}
	for k, v := range own {
		f.Environment[k] = v
	}
	events := deref(get(props, "Events"))
	if events != nil && events.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(events.Content); i += 2 {
			name := events.Content[i].Value
			ev := events.Content[i+1]
			line := events.Content[i].Line
			switch scalar(get(ev, "Type")) {
			case "SQS":
				if f.SQS != nil {
					return fmt.Errorf("SQS event %s (line %d): a second SQS event (the local stack models one)", name, line)
				}
				if f.SQS, err = sqsEvent(name, line, get(ev, "Properties")); err != nil {
					return err
				}
				continue
			case "Schedule", "ScheduleV2":
				// A Schedule event (an EventBridge rule) names it Schedule, a ScheduleV2 event
				// (EventBridge Scheduler) ScheduleExpression.
				prop := "ScheduleExpression"
				if scalar(get(ev, "Type")) == "Schedule" {
					prop = "Schedule"
				}
				if f.Schedule != "" {
					return fmt.Errorf("schedule event %s (line %d): a second schedule (the local stack models one)", name, line)
				}
				if f.Schedule = scalar(get(ev, "Properties", prop)); f.Schedule == "" {
					return fmt.Errorf("schedule event %s (line %d) has no literal %s", name, line, prop)
				}
				continue
			case "HttpApi":
			default:
				continue
			}
			path := scalar(get(ev, "Properties", "Path"))
			method := scalar(get(ev, "Properties", "Method"))
			if path == "" || method == "" {
				return fmt.Errorf("HttpApi event %s (line %d) must set both Path and Method", name, line)
			}
			f.Routes = append(f.Routes, Route{Method: strings.ToUpper(method), Path: path})
		}
	}
	sort.Slice(f.Routes, func(i, j int) bool {
		if f.Routes[i].Path != f.Routes[j].Path {
			return f.Routes[i].Path < f.Routes[j].Path
		}
		return f.Routes[i].Method < f.Routes[j].Method
	})
	t.Functions = append(t.Functions, f)
	return nil
}

// sqsEvent reads an SQS event's Properties with SAM's defaults.
func sqsEvent(name string, line int, props *yaml.Node) (*SQSEvent, error) {
	e := &SQSEvent{Queue: value(get(props, "Queue")), BatchSize: 10}
	if e.Queue == (Value{}) {
		return nil, fmt.Errorf("SQS event %s (line %d) has no Queue", name, line)
	}
	num := func(prop string, lo, hi int) (int, bool, error) {
		n := deref(get(props, prop))
		if n == nil {
			return 0, false, nil
		}
		v, err := strconv.Atoi(n.Value)
		if n.Kind != yaml.ScalarNode || intrinsicName(n.Tag) != "" || err != nil || v < lo || v > hi {
			return 0, false, fmt.Errorf("SQS event %s (line %d): %s must be a literal integer %d-%d", name, n.Line, prop, lo, hi)
		}
		return v, true, nil
	}
	if v, ok, err := num("BatchSize", 1, 10000); err != nil {
		return nil, err
	} else if ok {
		e.BatchSize = v
	}
	v, _, err := num("MaximumBatchingWindowInSeconds", 0, 300)
	if err != nil {
		return nil, err
	}
	e.Window = time.Duration(v) * time.Second
	if e.BatchSize > 10 && e.Window == 0 {
		// Lambda refuses the mapping: above 10 messages a batching window is required.
		return nil, fmt.Errorf("SQS event %s (line %d): BatchSize %d needs MaximumBatchingWindowInSeconds of at least 1", name, line, e.BatchSize)
	}
	for _, rt := range seq(get(props, "FunctionResponseTypes")) {
		if scalar(rt) == "ReportBatchItemFailures" {
			e.ReportBatchItemFailures = true
		}
	}
	return e, nil
}

func (t *Template) parseTable(id string, props *yaml.Node) error {
	tb := Table{LogicalID: id, BillingMode: scalar(get(props, "BillingMode"))}
	if tb.BillingMode == "" {
		tb.BillingMode = "PROVISIONED"
	}
	for _, a := range seq(get(props, "AttributeDefinitions")) {
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, AttributeDefinition{
			Name: scalar(get(a, "AttributeName")),
			Type: scalar(get(a, "AttributeType")),
		})
	}
	tb.KeySchema = keySchema(get(props, "KeySchema"))
	if len(tb.KeySchema) == 0 {
		return errors.New("table has no KeySchema")
	}
	tb.GSIs = indexes(get(props, "GlobalSecondaryIndexes"))
	tb.LSIs = indexes(get(props, "LocalSecondaryIndexes"))
	if ttl := get(props, "TimeToLiveSpecification"); ttl != nil {
		enabled := scalar(get(ttl, "Enabled"))
		if enabled == "" || strings.EqualFold(enabled, "true") {
			tb.TTLAttribute = scalar(get(ttl, "AttributeName"))
		}
	}
	defined := map[string]bool{}
	for _, a := range tb.AttributeDefinitions {
		defined[a.Name] = true
	}
	check := func(where string, ks []KeyElement) error {
		for _, k := range ks {
			if !defined[k.Name] {
				return fmt.Errorf("%s key attribute %q has no AttributeDefinition", where, k.Name)
			}
		}
		return nil
	}
	if err := check("table", tb.KeySchema); err != nil {
		return err
	}
	for _, ix := range append(append([]Index(nil), tb.GSIs...), tb.LSIs...) {
		if err := check("index "+ix.Name, ix.KeySchema); err != nil {
			return err
		}
	}
	t.Tables = append(t.Tables, tb)
	return nil
}

func (t *Template) parseQueue(id string, props *yaml.Node) error {
	q := Queue{LogicalID: id, Attributes: map[string]string{}}
	for _, name := range queueAttributeProps {
		n := deref(get(props, name))
		if n == nil {
			continue
		}
		if n.Kind != yaml.ScalarNode || intrinsicName(n.Tag) != "" {
			return fmt.Errorf("%s (line %d) must be a literal number", name, n.Line)
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return fmt.Errorf("%s (line %d): %q is not an integer", name, n.Line, n.Value)
		}
		q.Attributes[name] = strconv.FormatInt(v, 10)
	}
	if rp := deref(get(props, "RedrivePolicy")); rp != nil {
		target := value(get(rp, "deadLetterTargetArn"))
		if target.Ref == nil || target.Ref.Func != "GetAtt" || !strings.HasSuffix(target.Ref.Arg, ".Arn") {
			return fmt.Errorf("RedrivePolicy (line %d): deadLetterTargetArn must be !GetAtt <Queue>.Arn, got %q", rp.Line, target.String())
		}
		q.DeadLetterTarget = strings.TrimSuffix(target.Ref.Arg, ".Arn")
		mrc := scalar(get(rp, "maxReceiveCount"))
		n, err := strconv.Atoi(mrc)
		if err != nil || n < 1 {
			return fmt.Errorf("RedrivePolicy (line %d): maxReceiveCount %q is not a positive integer", rp.Line, mrc)
		}
		q.MaxReceiveCount = n
	}
	t.Queues = append(t.Queues, q)
	return nil
}

func (t *Template) validate() error {
	seen := map[string]string{} // route key -> function
	for _, f := range t.Functions {
		for _, r := range f.Routes {
			if other, dup := seen[r.String()]; dup {
				if other == f.LogicalID {
					return fmt.Errorf("samtemplate: route %s is declared twice by %s", r, f.LogicalID)
				}
				return fmt.Errorf("samtemplate: route %s is declared by both %s and %s", r, other, f.LogicalID)
			}
			seen[r.String()] = f.LogicalID
		}
	}
	queues := map[string]Queue{}
	for _, q := range t.Queues {
		queues[q.LogicalID] = q
	}
	for _, q := range t.Queues {
		if q.DeadLetterTarget == "" {
			continue
		}
		if _, ok := queues[q.DeadLetterTarget]; !ok {
			return fmt.Errorf("samtemplate: queue %s: RedrivePolicy names unknown queue %q", q.LogicalID, q.DeadLetterTarget)
		}
		// A redrive chain must end; a cycle could never be created.
		cur, steps := q, 0
		for cur.DeadLetterTarget != "" {
			cur = queues[cur.DeadLetterTarget]
			if steps++; steps > len(queues) {
				return fmt.Errorf("samtemplate: queue %s: RedrivePolicy chain is cyclic", q.LogicalID)
			}
		}
	}
	return nil
}

// FunctionDir returns the conventional source directory of a function:
// the logical id without the "Function" suffix in kebab-case under functions/.
func FunctionDir(logicalID string) string {
	return "functions/" + KebabCase(strings.TrimSuffix(logicalID, "Function"))
}

// KebabCase converts a CamelCase identifier to kebab-case, keeping acronyms
// together ("PaymentCreate" → "payment-create", "HTTPProbes" → "http-probes").
func KebabCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func envVariables(props *yaml.Node) (map[string]Value, error) {
	out := map[string]Value{}
	vars := deref(get(props, "Environment", "Variables"))
	if vars == nil {
		return out, nil
	}
	if vars.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: Environment.Variables is not a mapping", vars.Line)
	}
	for i := 0; i+1 < len(vars.Content); i += 2 {
		out[vars.Content[i].Value] = value(vars.Content[i+1])
	}
	return out, nil
}

func keySchema(n *yaml.Node) []KeyElement {
	var out []KeyElement
	for _, k := range seq(n) {
		out = append(out, KeyElement{Name: scalar(get(k, "AttributeName")), KeyType: scalar(get(k, "KeyType"))})
	}
	return out
}

func indexes(n *yaml.Node) []Index {
	var out []Index
	for _, ix := range seq(n) {
		idx := Index{
			Name:           scalar(get(ix, "IndexName")),
			KeySchema:      keySchema(get(ix, "KeySchema")),
			ProjectionType: scalar(get(ix, "Projection", "ProjectionType")),
		}
		for _, a := range seq(get(ix, "Projection", "NonKeyAttributes")) {
			idx.NonKeyAttributes = append(idx.NonKeyAttributes, scalar(a))
		}
		out = append(out, idx)
	}
	return out
}

// deref follows document and alias nodes.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

// get walks mapping keys; it returns nil when any step is missing or not a mapping.
func get(n *yaml.Node, keys ...string) *yaml.Node {
	n = deref(n)
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = deref(n.Content[i+1])
				break
			}
		}
		n = next
	}
	return n
}

func seq(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, deref(c))
	}
	return out
}

// scalar returns the text of a scalar node ("" for anything else).
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// intrinsicName maps a short-form tag such as "!GetAtt" to "GetAtt"; it
// returns "" for standard YAML tags.
func intrinsicName(tag string) string {
	if strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") {
		return strings.TrimPrefix(tag, "!")
	}
	return ""
}

// value converts a node to a Value, understanding the short (!Ref X) and long
// ({Ref: X}, {"Fn::GetAtt": [X, Arn]}) intrinsic forms.
func value(n *yaml.Node) Value {
	n = deref(n)
	if n == nil {
		return Value{}
	}
	if fn := intrinsicName(n.Tag); fn != "" {
		return Value{Ref: &Ref{Func: fn, Arg: intrinsicArg(fn, n)}}
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		key := n.Content[0].Value
		if key == "Ref" || strings.HasPrefix(key, "Fn::") {
			fn := strings.TrimPrefix(key, "Fn::")
			return Value{Ref: &Ref{Func: fn, Arg: intrinsicArg(fn, deref(n.Content[1]))}}
		}
	}
	return Value{Literal: scalar(n)}
}

func intrinsicArg(fn string, n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return ""
		}
		if fn == "GetAtt" {
			parts := make([]string, 0, len(n.Content))
			for _, c := range n.Content {
				parts = append(parts, scalar(c))
			}
			return strings.Join(parts, ".")
		}
		if fn == "Sub" {
			// Sub's list form is [template, {vars}]; keep the template string.
			return scalar(n.Content[0])
		}
	}
	return ""
}
