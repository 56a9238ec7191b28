package yamlx

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// The tags of collections.
const (
	TagMap = "!!map"
	TagSeq = "!!seq"
)

// Value converts n, resolved, into a JSON-compatible Go value:
// map[string]any, []any, string, bool, int64, float64 or nil. Timestamps
// and binary scalars stay the strings they are written as. ok is false
// when it reported a problem; the value then holds nil in place of what
// could not be read.
func (r Reader) Value(n *yaml.Node) (v any, ok bool) {
	ok = true
	counting := Reader{Report: func(p Problem) {
		ok = false
		if r.Report != nil {
			r.Report(p)
		}
	}}
	return counting.value(Resolve(n)), ok
}

// value converts the resolved node n.
func (r Reader) value(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		r.CheckTag(n, TagMap)
		m := map[string]any{}
		for _, p := range r.Pairs(n) {
			m[p.Name] = r.value(p.Value)
		}
		return m
	case yaml.SequenceNode:
		r.CheckTag(n, TagSeq)
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, r.value(Resolve(c)))
		}
		return l
	}
	if IsString(n) {
		return n.Value
	}
	return r.Scalar(n)
}

// Scalar converts a scalar that is not a string: null, a boolean, an
// integer (int64) or a number (float64). An integer must fit in int64, a
// number must be finite, and the tag must be one of YAML's core tags;
// problems are reported and give nil.
func (r Reader) Scalar(n *yaml.Node) any {
	switch tag := n.ShortTag(); tag {
	case TagNull:
		return nil
	case TagBool:
		var b bool
		if err := n.Decode(&b); err != nil {
			r.report(n, CodeBadValue, "%q is not a boolean", n.Value)
			return nil
		}
		return b
	case TagInt:
		var i int64
		if err := n.Decode(&i); err != nil {
			r.report(n, CodeBadValue, "integer %s is out of range or malformed", n.Value)
			return nil
		}
		return i
	case TagFloat:
		var f float64
		if err := n.Decode(&f); err != nil {
			r.report(n, CodeBadValue, "%q is not a number", n.Value)
			return nil
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			r.report(n, CodeBadValue, "%s is not a JSON number", n.Value)
			return nil
		}
		return f
	default:
		r.report(n, CodeBadYAML, "unsupported YAML tag %s", tag)
		return nil
	}
}

// CheckTag reports a collection with a tag other than want, its standard
// one.
func (r Reader) CheckTag(n *yaml.Node, want string) {
	if tag := n.ShortTag(); tag != want {
		r.report(n, CodeBadYAML, "unsupported YAML tag %s", tag)
	}
}

// String reads n, resolved, as the string a field named what must be.
func (r Reader) String(n *yaml.Node, what string) (string, bool) {
	n = Resolve(n)
	if !IsString(n) {
		r.report(n, CodeBadType, "%s must be a string, not %s", what, TypeName(n))
		return "", false
	}
	return n.Value, true
}

// Bool reads n, resolved, as the boolean a field named what must be.
func (r Reader) Bool(n *yaml.Node, what string) (bool, bool) {
	n = Resolve(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != TagBool {
		r.report(n, CodeBadType, "%s must be true or false, not %s", what, TypeName(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		r.report(n, CodeBadValue, "%q is not a boolean", n.Value)
		return false, false
	}
	return b, true
}

// Int reads n, resolved, as the integer a field named what must be: a
// scalar with the tag !!int (0x, 0o and _ separators as YAML allows) that
// fits in int64.
func (r Reader) Int(n *yaml.Node, what string) (int64, bool) {
	n = Resolve(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != TagInt {
		r.report(n, CodeBadType, "%s must be an integer, not %s", what, TypeName(n))
		return 0, false
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		r.report(n, CodeBadValue, "%s %s is out of range", what, n.Value)
		return 0, false
	}
	return v, true
}

// List returns the items of n, resolved, which must be the list a field
// named what is. The items are not resolved.
func (r Reader) List(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	n = Resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.report(n, CodeBadType, "%s must be a list, not %s", what, TypeName(n))
		return nil, false
	}
	return n.Content, true
}

// Mapping returns the entries of n, resolved, which must be the mapping a
// field named what is (see Pairs).
func (r Reader) Mapping(n *yaml.Node, what string) ([]Pair, bool) {
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		r.report(n, CodeBadType, "%s must be a mapping, not %s", what, TypeName(n))
		return nil, false
	}
	return r.Pairs(n), true
}

// IsZero reports whether n is a number written as zero in any of YAML's
// forms: 0, 0x0, 0o0, 0.0, -0.
func IsZero(n *yaml.Node) bool {
	switch v := (Reader{}).Scalar(Resolve(n)).(type) {
	case int64:
		return v == 0
	case float64:
		return v == 0
	}
	return false
}
