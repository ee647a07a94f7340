package samtemplate

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ReservedConcurrency returns the function's ReservedConcurrentExecutions with the parameters'
// current values (their defaults, or Override's): ok is false when the function reserves
// none (no property, or !Ref AWS::NoValue). It understands a literal, !Ref of a parameter,
// and !If over a condition built from !Equals, !Not, !And, !Or and !Condition of literals and
// parameters — what template.yaml writes; anything else is an error.
func (t *Template) ReservedConcurrency(logicalID string) (n int, ok bool, err error) {
	f, found := t.Function(logicalID)
	if !found {
		return 0, false, fmt.Errorf("samtemplate: no function %s", logicalID)
	}
	if f.reserved == nil {
		return 0, false, nil
	}
	v, set, err := t.resolve(f.reserved)
	if err != nil || !set {
		return 0, false, wrapReserved(logicalID, err)
	}
	n, err = strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("samtemplate: function %s: ReservedConcurrentExecutions %q is not a whole number", logicalID, v)
	}
	return n, true, nil
}

func wrapReserved(id string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("samtemplate: function %s: ReservedConcurrentExecutions: %w", id, err)
}

// resolve evaluates a scalar-valued node: set is false for !Ref AWS::NoValue.
func (t *Template) resolve(n *yaml.Node) (v string, set bool, err error) {
	n = deref(n)
	fn, arg := intrinsic(n)
	switch fn {
	case "":
		if n == nil || n.Kind != yaml.ScalarNode {
			return "", false, fmt.Errorf("line %d: not a scalar", line(n))
		}
		return n.Value, true, nil
	case "Ref":
		name := scalar(arg)
		if name == "AWS::NoValue" {
			return "", false, nil
		}
		p, ok := t.Parameters[name]
		if !ok {
			return "", false, fmt.Errorf("line %d: !Ref %s is not a parameter", line(n), name)
		}
		return p.Default, true, nil
	case "If":
		args := seq(arg)
		if len(args) != 3 {
			return "", false, fmt.Errorf("line %d: !If takes [condition, then, else]", line(n))
		}
		c, err := t.condition(scalar(args[0]), 0)
		if err != nil {
			return "", false, err
		}
		if c {
			return t.resolve(args[1])
		}
		return t.resolve(args[2])
	}
	return "", false, fmt.Errorf("line %d: !%s is not understood here", line(n), fn)
}

// condition evaluates the named condition of the Conditions section.
func (t *Template) condition(name string, depth int) (bool, error) {
	c, ok := t.conditions[name]
	if !ok {
		return false, fmt.Errorf("no condition %q", name)
	}
	return t.test(c, depth+1)
}

func (t *Template) test(n *yaml.Node, depth int) (bool, error) {
	if depth > 20 {
		return false, fmt.Errorf("line %d: conditions nest too deep (a cycle?)", line(n))
	}
	fn, arg := intrinsic(n)
	args := seq(arg)
	switch fn {
	case "Condition":
		return t.condition(scalar(arg), depth)
	case "Equals":
		if len(args) != 2 {
			return false, fmt.Errorf("line %d: !Equals takes two values", line(n))
		}
		a, _, err := t.resolve(args[0])
		if err != nil {
			return false, err
		}
		b, _, err := t.resolve(args[1])
		return a == b, err
	case "Not":
		if len(args) != 1 {
			return false, fmt.Errorf("line %d: !Not takes one condition", line(n))
		}
		v, err := t.test(args[0], depth+1)
		return !v, err
	case "And", "Or":
		all := fn == "And"
		for _, a := range args {
			v, err := t.test(a, depth+1)
			if err != nil {
				return false, err
			}
			if v != all {
				return v, nil
			}
		}
		return all, nil
	}
	return false, fmt.Errorf("line %d: !%s is not a condition", line(n), fn)
}

// intrinsic splits a short-form (!If [...]) or long-form ({"Fn::If": [...]}, {Ref: X})
// intrinsic call into its name and argument node; fn is "" for anything else.
func intrinsic(n *yaml.Node) (fn string, arg *yaml.Node) {
	if n == nil {
		return "", nil
	}
	if name := intrinsicName(n.Tag); name != "" {
		untagged := *n
		untagged.Tag = ""
		return name, &untagged
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		key := n.Content[0].Value
		if key == "Ref" || key == "Condition" || len(key) > 4 && key[:4] == "Fn::" {
			if key != "Ref" && key != "Condition" {
				key = key[4:]
			}
			return key, deref(n.Content[1])
		}
	}
	return "", nil
}

func line(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}
