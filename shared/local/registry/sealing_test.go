package registry

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/takapay/payments/shared/app"
	"github.com/takapay/payments/shared/local/samtemplate"
)

// yget walks mapping keys from n (aliases and documents unwrapped); nil when absent.
func yget(n *yaml.Node, path ...string) *yaml.Node {
	for _, k := range path {
		for n != nil && (n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode) {
			if n.Kind == yaml.AliasNode {
				n = n.Alias
			} else {
				n = n.Content[0]
			}
		}
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

// yscalars returns a scalar's value, or a sequence's scalar values.
func yscalars(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		var out []string
		for _, c := range n.Content {
			out = append(out, c.Value)
		}
		return out
	}
	return []string{n.Value}
}

// kmsStatements returns a function's IAM statements that grant a kms: action.
func kmsStatements(fn *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	policies := yget(fn, "Properties", "Policies")
	if policies == nil {
		return nil
	}
	for _, p := range policies.Content {
		st := yget(p, "Statement")
		if st == nil {
			continue
		}
		for _, s := range st.Content {
			for _, a := range yscalars(yget(s, "Action")) {
				if strings.HasPrefix(strings.ToLower(a), "kms:") {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

// Webhook secrets at rest: the template declares a rotating KMS key; only
// WebhookSenderFunction gets its id and may decrypt, and only with the workspace encryption
// context; DashboardFunction (where owners and admins issue and roll secrets, as the
// operator does) gets its id and may only encrypt, with the same context; the local
// sealing key is never configured by the template.
// kmsAction is the one KMS action each function that gets the key may use.
// DashboardWebhooksFunction signs the dashboard's test events as the sender does: decrypt.
var kmsAction = map[string]string{"WebhookSenderFunction": "kms:Decrypt", "DashboardFunction": "kms:Encrypt",
	"DashboardWebhooksFunction": "kms:Decrypt"}

func TestTemplateSealsWebhookSecretsWithKMS(t *testing.T) {
	data := readTemplateText(t)
	if i := strings.Index(strings.ToUpper(string(data)), app.EnvLocalSealingKey); i >= 0 {
		t.Errorf("template.yaml line %d mentions %s (the local stack's key)", strings.Count(string(data[:i]), "\n")+1, app.EnvLocalSealingKey)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tpl, _ := loadTemplate(t)
	if !slices.Equal(tpl.KMSKeys, []string{"WebhookSecretsKey"}) {
		t.Fatalf("KMS keys = %v, want [WebhookSecretsKey]", tpl.KMSKeys)
	}
	key := yget(&doc, "Resources", "WebhookSecretsKey")
	if v := yget(key, "Properties", "EnableKeyRotation"); v == nil || v.Value != "true" {
		t.Error("WebhookSecretsKey: EnableKeyRotation is not true")
	}
	if v := yget(key, "DeletionPolicy"); v == nil || v.Value != "Retain" {
		t.Error("WebhookSecretsKey: not retained (without it no stored secret opens)")
	}
	if v := yget(&doc, "Resources", "WebhookSecretsKeyAlias", "Properties", "TargetKeyId"); v == nil || v.Tag != "!Ref" || v.Value != "WebhookSecretsKey" {
		t.Error("WebhookSecretsKeyAlias does not target the key")
	}
	if v := yget(&doc, "Outputs", "WebhookSecretsKeyArn", "Value"); v == nil || v.Value != "WebhookSecretsKey.Arn" {
		t.Error("no WebhookSecretsKeyArn output for the operator")
	}

	for _, f := range tpl.Functions {
		v, ok := f.Environment[app.EnvWebhookSecretsKeyID]
		action, want := kmsAction[f.LogicalID]
		if ok != want || (ok && (v.Ref == nil || *v.Ref != samtemplate.Ref{Func: "GetAtt", Arg: "WebhookSecretsKey.Arn"})) {
			t.Errorf("%s: %s = %v (set: %v), want !GetAtt WebhookSecretsKey.Arn on the functions of kmsAction only",
				f.LogicalID, app.EnvWebhookSecretsKeyID, v, ok)
		}
		stmts := kmsStatements(yget(&doc, "Resources", f.LogicalID))
		if !want {
			if len(stmts) != 0 {
				t.Errorf("%s has a KMS grant: %d statements", f.LogicalID, len(stmts))
			}
			continue
		}
		if len(stmts) != 1 {
			t.Fatalf("%s: %d KMS statements, want 1", f.LogicalID, len(stmts))
		}
		s := stmts[0]
		if a := yscalars(yget(s, "Action")); !slices.Equal(a, []string{action}) || yget(s, "Effect").Value != "Allow" {
			t.Errorf("%s KMS actions %v, want [%s]", f.LogicalID, a, action)
		}
		if r := yget(s, "Resource"); r == nil || r.Tag != "!GetAtt" || r.Value != "WebhookSecretsKey.Arn" {
			t.Errorf("sender KMS grant is not limited to WebhookSecretsKey")
		}
		keys := yscalars(yget(s, "Condition", "ForAllValues:StringEquals", "kms:EncryptionContextKeys"))
		if slices.Sort(keys); !slices.Equal(keys, []string{"environment", "workspace_id"}) {
			t.Errorf("sender kms:EncryptionContextKeys = %v", keys)
		}
		if v := yget(s, "Condition", "Null", "kms:EncryptionContext:workspace_id"); v == nil || v.Value != "false" {
			t.Error("sender grant does not require a workspace_id encryption context")
		}
	}
}
