package check

import (
	"github.com/flowserve/flowserve/dsl"
	"maps"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/check/codes"
)

// Calls checks f's call and link nodes against the flows they name,
// which flows holds: the files loaded with f (project.Load runs it
// once every file is parsed, as it checks names across files): an unknown
// flow (with a suggestion when a name is close), a prompt flow called, a
// with that the callee's input schema rejects (with-missing, with-unknown
// and with-value, as for a step's action), a link from a flow with an
// output schema to one without, a callee that asks someone else from a
// flow that never runs as a task, and a call cycle. It also reports the
// round analysis of a flow with calls, which counts its callees' rounds
// (File leaves such flows to it). The diagnostics are sorted.
func Calls(f *dsl.File, flows dsl.FlowTable) dsl.Diagnostics {
	if f == nil || !f.HasCalls() {
		return nil
	}
	callees := flows.Callees()
	c := &checker{f: f, ix: f.Tree(), sc: schemaCache{}}
	var names []string // the tool flows of the table, for suggestions; listed once needed
	for _, n := range f.Nodes {
		if !n.Kind.IsCall() || n.Call == nil || strings.TrimSpace(n.Call.Flow.Value) == "" {
			continue
		}
		name := n.Call.Flow.Value
		callee := callees(name)
		switch {
		case callee == nil:
			if names == nil {
				names = flows.Names()
			}
			c.unknownf(n.Call.Flow.Pos, name, names, codes.UnknownFlow, "no flow is named %q%s", name)
			continue
		case callee.IsPrompt():
			c.errorf(n.Call.Flow.Pos, codes.BadCallee, "%s is a prompt flow: %s runs tool flows only", name, n.Kind)
			continue
		}
		c.checkCallee(n, callee, callees)
	}
	if f.IsPrompt() {
		for _, n := range f.Nodes {
			if n.Kind == dsl.KindLink {
				c.errorf(n.Pos, codes.ToolOnly, "a prompt flow cannot link to a tool flow: its result must be the prompt's messages; call it and return its result instead")
			}
		}
	}
	c.checkCycles(callees)
	ds := append(c.diags, RoundDiagnosticsWith(f, DefaultRoundBudget, callees)...)
	ds.Sort()
	return ds.Compact()
}

// checkCallee checks call or link node n against its callee.
func (c *checker) checkCallee(n *dsl.Node, callee *dsl.File, callees dsl.Callees) {
	name := callee.Name.Value
	input := map[string]any{"type": "object"}
	if callee.Input != nil && callee.Input.Value != nil {
		input = callee.Input.Value
	}
	if _, says := input["additionalProperties"]; !says {
		if _, has := input["properties"]; has {
			// A with key the callee does not declare is a slip, not an
			// extra argument: callers are flows, and flows are checked.
			input = maps.Clone(input)
			input["additionalProperties"] = false
		}
	}
	with, holder := n.Call.With, c.ix.KeyPos(n.Pos, "with")
	if with == nil {
		with, holder = &dsl.Value{Pos: n.Call.Flow.Pos, Kind: dsl.ValueMap}, c.ix.KeyPos(n.Pos, n.Kind.String())
	}
	vc := &valueChecker{ix: c.ix, sc: c.sc, fillsDefaults: true, by: "flow " + name}
	vc.check(with, input, "with", holder, true)
	for _, is := range vc.issues {
		code := map[valueProblem]string{problemMissing: codes.WithMissing, problemUnknown: codes.WithUnknown, problemValue: codes.WithValue}[is.problem]
		c.issue(is, code)
	}
	if n.Kind == dsl.KindLink && c.f.Output != nil && callee.Output == nil && !c.f.IsPrompt() {
		c.errorf(n.Call.Flow.Pos, codes.LinkOutput, "%s declares an output schema, but %s, which it links to, declares none: the results it hands over have no structured content", c.f.Name.Value, name)
	}
	if c.f.TaskMode() == dsl.TaskNever || c.f.IsPrompt() {
		why := "this flow says task: never"
		if c.f.IsPrompt() {
			why = "a prompt never runs as a task"
		}
		if who := approvalIn(callee, callees, map[*dsl.File]bool{}); who != "" {
			c.errorf(n.Call.Flow.Pos, codes.ApprovalNeedsTask, "%s asks someone else (%s), which needs a task, but %s", name, who, why)
		}
	}
}

// approvalIn returns "flow.node" for an ask with to in f or the flows it
// calls, or "".
func approvalIn(f *dsl.File, callees dsl.Callees, seen map[*dsl.File]bool) string {
	if f == nil || seen[f] {
		return ""
	}
	seen[f] = true
	for n := range f.Walk() {
		if n.Kind == dsl.KindAsk && n.Ask.Approval() {
			return f.Name.Value + "." + n.Name()
		}
		if n.Kind.IsCall() && n.Call != nil {
			if who := approvalIn(callees(n.Call.Flow.Value), callees, seen); who != "" {
				return who
			}
		}
	}
	return ""
}

// checkCycles reports each call or link node of the file through which
// the flow calls itself again, directly or through other flows.
func (c *checker) checkCycles(callees dsl.Callees) {
	for _, n := range c.f.Nodes {
		if !n.Kind.IsCall() || n.Call == nil {
			continue
		}
		callee := callees(n.Call.Flow.Value)
		if callee == nil {
			continue
		}
		if path := cycleFrom(c.f, callee, callees, []string{c.f.Name.Value}, map[*dsl.File]bool{}); path != nil {
			c.errorf(n.Call.Flow.Pos, codes.CallCycle, "the flows call each other in a cycle (%s): a flow may not run itself again, directly or through others; ask again with a loop in one flow instead",
				strings.Join(path, " → "))
		}
	}
}

// cycleFrom returns the names of a chain of calls from f that reaches
// target again, starting with path, or nil when there is none.
func cycleFrom(target, f *dsl.File, callees dsl.Callees, path []string, seen map[*dsl.File]bool) []string {
	path = append(slices.Clip(path), f.Name.Value)
	if f == target {
		return path
	}
	if seen[f] {
		return nil
	}
	seen[f] = true
	for _, n := range f.Nodes {
		if !n.Kind.IsCall() || n.Call == nil {
			continue
		}
		if next := callees(n.Call.Flow.Value); next != nil {
			if p := cycleFrom(target, next, callees, path, seen); p != nil {
				return p
			}
		}
	}
	return nil
}
