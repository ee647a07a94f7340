package registry

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// node walks mapping keys of a YAML node (nil when a step is missing).
func node(n *yaml.Node, keys ...string) *yaml.Node {
	for n != nil && n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// scalars returns a scalar or a sequence of scalars as strings.
func scalars(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

// render prints a node in flow style, tags included ("!If [A, !Ref B, !Ref C]").
func render(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	tag := ""
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		tag = n.Tag + " "
	}
	if n.Kind == yaml.SequenceNode {
		parts := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			parts = append(parts, render(c))
		}
		return tag + "[" + strings.Join(parts, ", ") + "]"
	}
	return tag + n.Value
}

// grants reports whether a function's inline policies allow action on keys leading with prefix.
func grants(fn *yaml.Node, action, prefix string) bool {
	policies := node(fn, "Properties", "Policies")
	if policies == nil {
		return false
	}
	for _, p := range policies.Content {
		statements := node(p, "Statement")
		if statements == nil {
			continue
		}
		for _, st := range statements.Content {
			keys := scalars(node(st, "Condition", "ForAllValues:StringLike", "dynamodb:LeadingKeys"))
			if slices.Contains(scalars(node(st, "Action")), action) && slices.Contains(keys, prefix) {
				return true
			}
		}
	}
	return false
}

// The limits are wired in the template: every function that reads API keys (so authenticates)
// may write its rate-limit leases; every HTTP function has the reserved concurrency parameter
// behind its condition; the functions get the workspace rate from parameters; the stage
// throttle comes from parameters.
func TestTemplateLimits(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(readTemplateText(t), &doc); err != nil {
		t.Fatal(err)
	}
	tpl, _ := loadTemplate(t)
	authenticating := 0
	for _, f := range tpl.Functions {
		fn := node(&doc, "Resources", f.LogicalID)
		// DashboardFunction reads keys to list and manage them, never to authenticate a request.
		if grants(fn, "dynamodb:GetItem", "APIKEY#*") && f.LogicalID != "DashboardFunction" {
			authenticating++
			if !grants(fn, "dynamodb:UpdateItem", "RATE#*") {
				t.Errorf("%s authenticates but may not UpdateItem RATE#* (the rate limit's leases)", f.LogicalID)
			}
		}
		reserved := render(node(fn, "Properties", "ReservedConcurrentExecutions"))
		want := "!If [ReserveConcurrency, !Ref FunctionReservedConcurrency, !Ref AWS::NoValue]"
		if f.LogicalID == "DashboardPublicFunction" {
			// Its own reservation: a flood of the public forms is throttled there alone.
			want = "!If [ReserveConcurrency, !Ref DashboardPublicReservedConcurrency, !Ref AWS::NoValue]"
		}
		if len(f.Routes) > 0 && reserved != want {
			t.Errorf("%s: ReservedConcurrentExecutions %q, want %q", f.LogicalID, reserved, want)
		}
		if len(f.Routes) == 0 && reserved != "" {
			t.Errorf("%s (not behind the HTTP API) reserves concurrency %q", f.LogicalID, reserved)
		}
		for name, param := range map[string]string{"WORKSPACE_RATE_LIMIT": "WorkspaceRateLimit", "WORKSPACE_RATE_BURST": "WorkspaceRateBurst"} {
			if v := f.Environment[name]; v.Ref == nil || v.Ref.Func != "Ref" || v.Ref.Arg != param {
				t.Errorf("%s: %s = %q, want !Ref %s", f.LogicalID, name, v.String(), param)
			}
		}
	}
	// The functions that serve a limited form (dashboard.FormLimits) get its limits from
	// parameters and may write its counters.
	for _, id := range []string{"DashboardFunction", "DashboardPublicFunction", "DashboardPasskeysFunction"} {
		fn := node(&doc, "Resources", id)
		if !grants(fn, "dynamodb:UpdateItem", "LIMIT#*") {
			t.Errorf("%s serves a limited form but may not UpdateItem LIMIT#*", id)
		}
		for name, param := range map[string]string{"DASHBOARD_FORM_LIMIT_PER_CLIENT": "DashboardFormLimitPerClient", "DASHBOARD_FORM_LIMIT_GLOBAL": "DashboardFormLimitGlobal"} {
			if got := render(node(fn, "Properties", "Environment", "Variables", name)); got != "!Ref "+param {
				t.Errorf("%s: %s = %q, want !Ref %s", id, name, got, param)
			}
		}
	}
	if authenticating != 7 {
		t.Errorf("%d functions read API keys, want 7 (payment create, verify, documents, merchant, payment intents, intent cancel, refunds)", authenticating)
	}
	if got := render(node(&doc, "Conditions", "ReserveConcurrency")); got != `!Not [!Equals [!Ref FunctionReservedConcurrency, 0]]` {
		t.Errorf("Conditions.ReserveConcurrency = %q", got)
	}
	settings := node(&doc, "Resources", "HttpApi", "Properties", "DefaultRouteSettings")
	for prop, param := range map[string]string{"ThrottlingRateLimit": "StageThrottleRate", "ThrottlingBurstLimit": "StageThrottleBurst"} {
		if got := render(node(settings, prop)); got != "!Ref "+param {
			t.Errorf("HttpApi DefaultRouteSettings.%s = %q, want !Ref %s", prop, got, param)
		}
	}
	for _, p := range []string{"WorkspaceRateLimit", "WorkspaceRateBurst", "StageThrottleRate", "StageThrottleBurst", "FunctionReservedConcurrency",
		"DashboardPublicReservedConcurrency", "DashboardFormLimitPerClient", "DashboardFormLimitGlobal"} {
		if prm, ok := tpl.Parameters[p]; !ok || prm.Type != "Number" || !prm.HasDefault {
			t.Errorf("parameter %s: %+v, want a Number with a default", p, prm)
		}
	}
}
