package check

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// The domains of the feasibility search's facts (facts.go): what the
// comparisons of one operand with constants leave it free to hold.

// constVal is a constant a condition compares an operand with.
type constVal struct {
	kind byte // 'z' null, 'b' bool, 'n' number, 's' string
	s    string
	f    float64
	b    bool
}

// constOf returns v (string, float64, bool or nil, as lang.Cond gives)
// as a constVal.
func constOf(v any) (constVal, bool) {
	switch v := v.(type) {
	case nil:
		return constVal{kind: 'z'}, true
	case bool:
		return constVal{kind: 'b', b: v}, true
	case float64:
		return constVal{kind: 'n', f: v}, true
	case string:
		return constVal{kind: 's', s: v}, true
	}
	return constVal{}, false
}

// String spells c unambiguously, for keys.
func (c constVal) String() string {
	switch c.kind {
	case 'z':
		return "null"
	case 'b':
		return strconv.FormatBool(c.b)
	case 'n':
		return strconv.FormatFloat(c.f, 'g', -1, 64)
	}
	return strconv.Quote(c.s)
}

// domain is what the facts say of one operand's value: one of in (when
// in is not nil), none of out, and, when num is set, a number between lo
// and hi (each bound excluded when its open flag says so).
type domain struct {
	in             []constVal
	out            []constVal
	num            bool
	lo, hi         float64
	loOpen, hiOpen bool
}

// anyValue is the domain of an operand the facts say nothing of.
var anyValue = domain{lo: math.Inf(-1), hi: math.Inf(1)}

// restrict returns d narrowed by the comparison `operand op vals` being
// truth; ok is false when the comparison is not one a domain can hold
// (an order against a value that is not a number).
func (d domain) restrict(op string, vals []constVal, truth bool) (domain, bool) {
	switch op {
	case "!=":
		op, truth = "==", !truth
	case "==", "in":
	case "<", "<=", ">", ">=":
		if len(vals) != 1 || vals[0].kind != 'n' {
			return d, false
		}
		if !truth {
			// The comparison ran, so the operand is a number.
			op = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
		}
		return d.bound(op, vals[0].f), true
	default:
		return d, false
	}
	if op == "==" && len(vals) != 1 {
		return d, false
	}
	if !truth {
		out := slices.Clone(d.out)
		for _, v := range vals {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		d.out = out
		return d, true
	}
	var in []constVal
	for _, v := range vals {
		if (d.in == nil || slices.Contains(d.in, v)) && !slices.Contains(in, v) {
			in = append(in, v)
		}
	}
	if in == nil {
		in = []constVal{}
	}
	d.in = in
	return d, true
}

// bound narrows d to the numbers satisfying `op k`.
func (d domain) bound(op string, k float64) domain {
	d.num = true
	switch op {
	case "<", "<=":
		open := op == "<"
		if k < d.hi || (k == d.hi && open) {
			d.hi, d.hiOpen = k, open
		}
	case ">", ">=":
		open := op == ">"
		if k > d.lo || (k == d.lo && open) {
			d.lo, d.loOpen = k, open
		}
	}
	return d
}

// holds reports whether v is allowed by d's interval.
func (d domain) holds(v constVal) bool {
	if !d.num {
		return true
	}
	if v.kind != 'n' {
		return false
	}
	return (v.f > d.lo || (v.f == d.lo && !d.loOpen)) && (v.f < d.hi || (v.f == d.hi && !d.hiOpen))
}

// empty reports whether no value satisfies d.
func (d domain) empty() bool {
	if d.in != nil {
		for _, v := range d.in {
			if !slices.Contains(d.out, v) && d.holds(v) {
				return false
			}
		}
		return true
	}
	if !d.num {
		return false
	}
	if d.lo > d.hi || (d.lo == d.hi && (d.loOpen || d.hiOpen)) {
		return true
	}
	return d.lo == d.hi && slices.Contains(d.out, constVal{kind: 'n', f: d.lo})
}

// String spells d canonically, for state keys.
func (d domain) String() string {
	var b strings.Builder
	spell := func(vs []constVal) {
		s := make([]string, len(vs))
		for i, v := range vs {
			s[i] = v.String()
		}
		slices.Sort(s)
		b.WriteString(strings.Join(s, ","))
	}
	if d.in != nil {
		b.WriteString("in{")
		spell(d.in)
		b.WriteString("}")
	}
	if len(d.out) > 0 {
		b.WriteString("out{")
		spell(d.out)
		b.WriteString("}")
	}
	if d.num {
		b.WriteString(map[bool]string{true: "(", false: "["}[d.loOpen])
		b.WriteString(strconv.FormatFloat(d.lo, 'g', -1, 64) + ";" + strconv.FormatFloat(d.hi, 'g', -1, 64))
		b.WriteString(map[bool]string{true: ")", false: "]"}[d.hiOpen])
	}
	return b.String()
}
