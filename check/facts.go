package check

import (
	"slices"
	"strconv"
	"strings"
)

// The facts of the feasibility search (see feasible.go): what the branch
// decisions taken on a path say of the values their conditions read. A
// fact is a literal (a condition taken as a whole, decided true or
// false), a domain (the values one operand may still hold, from its
// comparisons with constants) or a clause (a disjunction none of whose
// parts is decided yet). The reasoning is sound but incomplete: it only
// ever answers "contradiction" when no run can make every fact true
// (NaN aside: no JSON value is NaN), and "unknown" when in doubt.

// literal is an atomic condition with the truth a path gives it.
type literal struct {
	// key names what the literal is about: for a comparison, its operand
	// ("=" and the operand's canonical spelling); else the whole atom
	// ("?" atom, "has " field, "ran " name). "" for a literal that tells
	// nothing (it could not be read, or its value may change by itself).
	key   string
	cmp   bool // a comparison of the operand with vals by op
	op    string
	vals  []constVal
	truth bool
	// root is the variable of a "has " or "ran " literal.
	root  string
	reads []string // the variables the literal reads
}

// spell writes l canonically.
func (l *literal) spell(b *strings.Builder) {
	if !l.truth {
		b.WriteByte('~')
	}
	b.WriteString(l.key)
	if l.cmp {
		b.WriteString(" " + l.op + " ")
		for i, v := range l.vals {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(v.String())
		}
	}
}

// The kinds of cond.
const (
	condLit = iota
	condAnd
	condOr
)

// cond is a condition in negation normal form: and and or of literals.
type cond struct {
	kind int
	kids []*cond
	lit  *literal
	text string   // canonical spelling
	keys []string // the keys of its literals, sorted, each once
	read []string // the variables its literals read, sorted, each once
	// falsifiable reports that facts can make c false: a literal that
	// tells something, an and with such a part, an or of only such parts.
	falsifiable bool
}

// newCond returns the cond of kind over kids (or of lit), with its
// spelling, keys and reads worked out.
func newCond(kind int, kids []*cond, lit *literal) *cond {
	c := &cond{kind: kind, kids: kids, lit: lit}
	var b strings.Builder
	if kind == condLit {
		lit.spell(&b)
		if lit.key != "" {
			c.keys = []string{lit.key}
		}
		c.read = lit.reads
		c.falsifiable = lit.key != ""
	} else {
		c.falsifiable = kind == condOr
		b.WriteString(map[int]string{condAnd: "&(", condOr: "|("}[kind])
		for i, k := range kids {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k.text)
			c.keys = append(c.keys, k.keys...)
			c.read = append(c.read, k.read...)
			if kind == condAnd {
				c.falsifiable = c.falsifiable || k.falsifiable
			} else {
				c.falsifiable = c.falsifiable && k.falsifiable
			}
		}
		b.WriteByte(')')
		slices.Sort(c.keys)
		c.keys = slices.Compact(c.keys)
		c.read = slices.Compact(slices.Sorted(slices.Values(c.read)))
	}
	c.text = b.String()
	return c
}

// tri is a three-valued truth.
type tri int8

const (
	triUnknown tri = iota
	triTrue
	triFalse
)

// facts is what the branch decisions of a path say, each list sorted by
// key. A facts value is never modified once built: every change makes a
// new one.
type facts struct {
	lits    []litFact
	doms    []domFact
	clauses []*cond
}

type litFact struct {
	key   string
	val   bool
	reads []string
}

type domFact struct {
	key   string
	d     *domain // never modified
	reads []string
}

// size returns how many facts f holds.
func (f facts) size() int { return len(f.lits) + len(f.doms) + len(f.clauses) }

// spell writes f canonically.
func (f facts) spell(b *strings.Builder) {
	for _, l := range f.lits {
		b.WriteString(l.key + "=" + strconv.FormatBool(l.val) + ";")
	}
	for _, d := range f.doms {
		b.WriteString(d.key + ":" + d.d.String() + ";")
	}
	for _, c := range f.clauses {
		b.WriteString(c.text + ";")
	}
}

// lit returns the value f gives the atom key.
func (f facts) lit(key string) (val, ok bool) {
	i, found := slices.BinarySearchFunc(f.lits, key, func(l litFact, k string) int { return strings.Compare(l.key, k) })
	if !found {
		return false, false
	}
	return f.lits[i].val, true
}

// dom returns the domain f gives the operand key, and whether it gives one.
func (f facts) dom(key string) (domain, bool) {
	i, found := slices.BinarySearchFunc(f.doms, key, func(d domFact, k string) int { return strings.Compare(d.key, k) })
	if !found {
		return anyValue, false
	}
	return *f.doms[i].d, true
}

// withLit returns f with the atom key set to val.
func (f facts) withLit(key string, val bool, reads []string) facts {
	i, found := slices.BinarySearchFunc(f.lits, key, func(l litFact, k string) int { return strings.Compare(l.key, k) })
	f.lits = with(f.lits, i, found, litFact{key: key, val: val, reads: reads})
	return f
}

// withDom returns f with the operand key's domain set to d.
func (f facts) withDom(key string, d domain, reads []string) facts {
	i, found := slices.BinarySearchFunc(f.doms, key, func(d domFact, k string) int { return strings.Compare(d.key, k) })
	f.doms = with(f.doms, i, found, domFact{key: key, d: &d, reads: reads})
	return f
}

// with returns a copy of xs with x at i: in place of xs[i] when found,
// inserted there otherwise.
func with[T any](xs []T, i int, found bool, x T) []T {
	n := len(xs)
	if !found {
		n++
	}
	out := make([]T, n)
	copy(out, xs[:i])
	out[i] = x
	if found {
		copy(out[i+1:], xs[i+1:])
	} else {
		copy(out[i+1:], xs[i:])
	}
	return out
}

// withClause returns f holding the clause c too.
func (f facts) withClause(c *cond) facts {
	i, found := slices.BinarySearchFunc(f.clauses, c.text, func(x *cond, t string) int { return strings.Compare(x.text, t) })
	if !found {
		f.clauses = slices.Insert(slices.Clone(f.clauses), i, c)
	}
	return f
}

// keep returns the facts of f that keepRead accepts every variable of
// and keepKey every key of: f itself when it keeps them all.
func (f facts) keep(keepRead, keepKey func(string) bool) facts {
	all := func(xs []string, ok func(string) bool) bool {
		for _, x := range xs {
			if !ok(x) {
				return false
			}
		}
		return true
	}
	keepLit := func(l litFact) bool { return all(l.reads, keepRead) && keepKey(l.key) }
	keepDom := func(d domFact) bool { return all(d.reads, keepRead) && keepKey(d.key) }
	keepClause := func(c *cond) bool { return all(c.read, keepRead) && all(c.keys, keepKey) }
	if !slices.ContainsFunc(f.lits, func(l litFact) bool { return !keepLit(l) }) &&
		!slices.ContainsFunc(f.doms, func(d domFact) bool { return !keepDom(d) }) &&
		!slices.ContainsFunc(f.clauses, func(c *cond) bool { return !keepClause(c) }) {
		return f
	}
	var out facts
	for _, l := range f.lits {
		if keepLit(l) {
			out.lits = append(out.lits, l)
		}
	}
	for _, d := range f.doms {
		if keepDom(d) {
			out.doms = append(out.doms, d)
		}
	}
	for _, c := range f.clauses {
		if keepClause(c) {
			out.clauses = append(out.clauses, c)
		}
	}
	return out
}

// reasoner decides conditions against facts for one search: a search
// looks for paths on which the variable unbound is never bound, so that
// has() of it is false (and, in expr, it is nil).
type reasoner struct {
	unbound    string
	nilUnbound bool
	maxFacts   int
}

// domOf returns the domain f gives the operand key.
func (r *reasoner) domOf(f facts, key string) domain {
	d, ok := f.dom(key)
	if !ok && r.nilUnbound && key == "="+r.unbound {
		d.in = []constVal{{kind: 'z'}}
	}
	return d
}

// evalLit decides l against f.
func (r *reasoner) evalLit(f facts, l *literal) tri {
	if l.key == "" {
		return triUnknown
	}
	if !l.cmp {
		val, ok := f.lit(l.key)
		if l.root != "" && l.root == r.unbound {
			val, ok = false, true
		}
		switch {
		case !ok:
			return triUnknown
		case val == l.truth:
			return triTrue
		}
		return triFalse
	}
	d := r.domOf(f, l.key)
	yes, ok := d.restrict(l.op, l.vals, l.truth)
	if !ok {
		return triUnknown
	}
	if yes.empty() {
		return triFalse
	}
	if no, _ := d.restrict(l.op, l.vals, !l.truth); no.empty() {
		return triTrue
	}
	return triUnknown
}

// eval decides c against f, in Kleene's three-valued logic.
func (r *reasoner) eval(f facts, c *cond) tri {
	switch c.kind {
	case condLit:
		return r.evalLit(f, c.lit)
	case condAnd:
		return r.evalAll(f, c.kids, triFalse)
	}
	out := r.evalAll(f, c.kids, triTrue)
	if out == triUnknown && slices.ContainsFunc(f.clauses, func(x *cond) bool { return x.text == c.text }) {
		return triTrue
	}
	return out
}

// evalAll decides kids against f together: a conjunction when decisive is
// triFalse, a disjunction when it is triTrue. The first kid that is
// decisive decides; otherwise any unknown kid leaves it unknown.
func (r *reasoner) evalAll(f facts, kids []*cond, decisive tri) tri {
	out := triTrue
	if decisive == triTrue {
		out = triFalse
	}
	for _, k := range kids {
		switch r.eval(f, k) {
		case decisive:
			return decisive
		case triUnknown:
			out = triUnknown
		}
	}
	return out
}

// assume returns f with c true; ok is false when f contradicts it.
func (r *reasoner) assume(f facts, c *cond) (facts, bool) {
	switch c.kind {
	case condLit:
		return r.assumeLit(f, c.lit)
	case condAnd:
		ok := true
		for _, k := range c.kids {
			if f, ok = r.assume(f, k); !ok {
				return f, false
			}
		}
		return f, true
	}
	v, open := r.evalOr(f, c.kids)
	switch {
	case v == triTrue:
		return f, true
	case v == triFalse:
		return f, false
	case len(open) == 1:
		return r.assume(f, open[0])
	case f.size() < r.maxFacts && !slices.ContainsFunc(open, func(k *cond) bool { return !k.falsifiable }):
		return f.withClause(newCond(condOr, open, nil)), true
	}
	return f, true
}

// assumeLit returns f with l true; ok is false when f contradicts it.
func (r *reasoner) assumeLit(f facts, l *literal) (facts, bool) {
	switch r.evalLit(f, l) {
	case triFalse:
		return f, false
	case triTrue:
		return f, true
	}
	if l.key == "" {
		return f, true
	}
	if l.cmp {
		d, has := f.dom(l.key)
		if !has && f.size() >= r.maxFacts {
			return f, true
		}
		d, _ = r.domOf(f, l.key).restrict(l.op, l.vals, l.truth)
		f = f.withDom(l.key, d, l.reads)
	} else {
		if f.size() >= r.maxFacts {
			return f, true
		}
		f = f.withLit(l.key, l.truth, l.reads)
	}
	return r.propagate(f, l.key)
}

// propagate re-decides the clauses of f about key once a fact about it
// was learnt: a clause now false is a contradiction, one now true goes,
// and one with a single part left undecided goes and makes that part a
// fact. Each round takes a clause away, so it ends.
func (r *reasoner) propagate(f facts, key string) (facts, bool) {
	for i, c := range f.clauses {
		if !slices.Contains(c.keys, key) {
			continue
		}
		v, open := r.evalOr(f, c.kids)
		if v == triUnknown && len(open) > 1 {
			continue
		}
		rest := f
		rest.clauses = slices.Delete(slices.Clone(f.clauses), i, i+1)
		switch v {
		case triTrue:
			return r.propagate(rest, key)
		case triFalse:
			return f, false
		}
		rest, ok := r.assume(rest, open[0])
		if !ok {
			return f, false
		}
		return r.propagate(rest, key)
	}
	return f, true
}

// evalOr decides the disjunction of kids against f, and returns those it
// leaves undecided.
func (r *reasoner) evalOr(f facts, kids []*cond) (tri, []*cond) {
	var open []*cond
	for _, k := range kids {
		switch r.eval(f, k) {
		case triTrue:
			return triTrue, nil
		case triUnknown:
			open = append(open, k)
		}
	}
	if len(open) == 0 {
		return triFalse, nil
	}
	return triUnknown, open
}
