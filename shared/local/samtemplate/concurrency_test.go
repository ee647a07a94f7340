package samtemplate

import (
	"path/filepath"
	"testing"
)

// The local pool's cap per function follows template.yaml's ReservedConcurrentExecutions with
// the parameters as overridden: 20 for the HTTP functions, 5 for DashboardPublicFunction, none
// for the workers, and none at all when FunctionReservedConcurrency=0 (the !If condition).
func TestRepoTemplateReservedConcurrency(t *testing.T) {
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := func(id string, n int, ok bool) {
		t.Helper()
		got, set, err := tpl.ReservedConcurrency(id)
		if err != nil || got != n || set != ok {
			t.Errorf("%s: %d %t %v, want %d %t", id, got, set, err, n, ok)
		}
	}
	want("PaymentCreateFunction", 20, true)
	want("DashboardPublicFunction", 5, true)
	want("WebhookSenderFunction", 0, false)
	want("WebhookRedriveFunction", 0, false)
	if err := tpl.Override(map[string]string{"FunctionReservedConcurrency": "3", "DashboardPublicReservedConcurrency": "2"}); err != nil {
		t.Fatal(err)
	}
	want("PaymentCreateFunction", 3, true)
	want("DashboardPublicFunction", 2, true)
	if err := tpl.Override(map[string]string{"FunctionReservedConcurrency": "0"}); err != nil {
		t.Fatal(err)
	}
	want("PaymentCreateFunction", 0, false)
	want("DashboardPublicFunction", 0, false)
}

func TestReservedConcurrencyForms(t *testing.T) {
	tpl, err := Parse([]byte(`
Parameters:
  N: {Type: Number, Default: 7}
  Mode: {Type: String, Default: on}
Conditions:
  IsOn: !Equals [!Ref Mode, "on"]
  Both: {"Fn::And": [{Condition: IsOn}, !Not [!Equals [!Ref N, "0"]]]}
  Loop: !Condition Loop
Resources:
  LiteralFunction: {Type: AWS::Serverless::Function, Properties: {ReservedConcurrentExecutions: 4}}
  RefFunction: {Type: AWS::Serverless::Function, Properties: {ReservedConcurrentExecutions: !Ref N}}
  LongFunction: {Type: AWS::Serverless::Function, Properties: {ReservedConcurrentExecutions: {"Fn::If": [Both, {Ref: N}, {Ref: "AWS::NoValue"}]}}}
  LoopFunction: {Type: AWS::Serverless::Function, Properties: {ReservedConcurrentExecutions: !If [Loop, 1, 2]}}
  SubFunction: {Type: AWS::Serverless::Function, Properties: {ReservedConcurrentExecutions: !Sub "${N}"}}
  NoneFunction: {Type: AWS::Serverless::Function, Properties: {}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{"LiteralFunction": 4, "RefFunction": 7, "LongFunction": 7} {
		if n, ok, err := tpl.ReservedConcurrency(id); n != want || !ok || err != nil {
			t.Errorf("%s: %d %t %v, want %d", id, n, ok, err, want)
		}
	}
	if _, ok, err := tpl.ReservedConcurrency("NoneFunction"); ok || err != nil {
		t.Errorf("NoneFunction: %t %v", ok, err)
	}
	for _, id := range []string{"LoopFunction", "SubFunction", "MissingFunction"} {
		if _, _, err := tpl.ReservedConcurrency(id); err == nil {
			t.Errorf("%s: no error", id)
		}
	}
	if err := tpl.Override(map[string]string{"Mode": "off"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := tpl.ReservedConcurrency("LongFunction"); ok || err != nil {
		t.Errorf("LongFunction with Mode=off: %t %v, want none", ok, err)
	}
}
