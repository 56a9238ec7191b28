package flow

import (
	"slices"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// Link joins the call and link nodes of progs to the programs they run:
// lookup returns the program of a flow by name (nil when there is none:
// a run that reaches such a call fails, saying so). Programs are
// immutable once in use, so Link is for whoever made progs, before any
// of them runs: project.Load links the programs it loads with each
// other, and a server links a version of a flow it compiles from the
// version store to the programs it serves. A program whose callees
// (directly or not) have long steps reports HasLongSteps.
func Link(progs []*Program, lookup func(name string) *Program) {
	for _, p := range progs {
		if p == nil || !p.calls {
			continue
		}
		for _, cn := range p.nodes {
			if cn.n.Kind.IsCall() {
				cn.callee = lookup(cn.calleeName)
			}
		}
	}
	for _, p := range progs {
		if p != nil && p.calls {
			p.long = p.long || callsLong(p, map[*Program]bool{})
			p.scopes = calleeScopes(p, nil, map[*Program]bool{})
		}
	}
}

// calleeScopes appends to out the scopes p and the flows it calls,
// directly or not, require, each once, in the order met.
func calleeScopes(p *Program, out []string, seen map[*Program]bool) []string {
	if seen[p] {
		return out
	}
	seen[p] = true
	for _, s := range p.file.ScopeNames() {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, cn := range p.nodes {
		if cn.callee != nil {
			out = calleeScopes(cn.callee, out, seen)
		}
	}
	return out
}

// callsLong reports whether some flow p calls, directly or not, has a
// long step of its own.
func callsLong(p *Program, seen map[*Program]bool) bool {
	if seen[p] {
		return false
	}
	seen[p] = true
	for _, cn := range p.nodes {
		q := cn.callee
		if q == nil {
			continue
		}
		for _, qn := range q.nodes {
			if qn.long {
				return true
			}
		}
		if callsLong(q, seen) {
			return true
		}
	}
	return false
}

// Callees returns the programs p's call and link nodes run, in node
// order, each once; a callee that Link did not find is left out.
func (p *Program) Callees() []*Program {
	var out []*Program
	seen := map[*Program]bool{}
	for _, cn := range p.nodes {
		if cn.callee != nil && !seen[cn.callee] {
			seen[cn.callee] = true
			out = append(out, cn.callee)
		}
	}
	return out
}

// Private reports whether the flow says expose: false: servers do not
// list or serve it; other flows call it.
func (p *Program) Private() bool { return p.file.Private }

// Node returns the node a key names, and the program of the flow it is
// in: a node id of p, or a call path into the flows p calls, as the
// engine keys a callee's questions, steps and trace ("confirm/ok": node ok
// of the flow that call node confirm runs; "a/b/ok" nested). It returns
// nil when no node has that key (or a callee on the way is not linked).
func (p *Program) Node(key string) (*Program, *dsl.Node) {
	for {
		call, rest, inside := strings.Cut(key, "/")
		if !inside {
			n := p.file.ByID[key]
			if n == nil {
				return nil, nil
			}
			return p, n
		}
		var next *Program
		for _, cn := range p.nodes {
			if cn.n.ID == call && cn.n.Kind.IsCall() {
				next = cn.callee
			}
		}
		if next == nil {
			return nil, nil
		}
		p, key = next, rest
	}
}
