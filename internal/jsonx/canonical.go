package jsonx

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendCanonical appends to b what Append appends for the value Parse
// decodes from raw (members sorted by key, the last of a repeated key,
// strings and numbers re-encoded, no white space), without building the
// value: the canonical form of answers, for digests. It fails when Parse
// fails, and then b's contents are unchanged up to len(b).
func AppendCanonical(b, raw []byte) ([]byte, error) {
	c := canonicalizer{p: jsonParser{b: raw}}
	c.p.space()
	out, err := c.value(b, 0)
	if err == nil {
		err = c.p.end()
	}
	if errors.Is(err, errDeep) {
		// Nested deeper than answers are: build the value. (Each level of
		// the single pass copies what it holds, which would grow with
		// the square of the depth.)
		v, err := Parse(raw)
		if err != nil {
			return b, err
		}
		return Append(b, v)
	}
	if err != nil {
		return b, err
	}
	return out, nil
}

// canonicalDepth is the deepest nesting AppendCanonical handles in one
// pass; deeper values are decoded and encoded.
const canonicalDepth = 8

var errDeep = errors.New("nested deeper than the canonical pass goes")

type canonicalizer struct {
	p jsonParser
}

// member is a member of an object being canonicalized: its key, and
// where its canonical value starts and ends in the output.
type member struct {
	key        []byte
	start, end int
}

func (c *canonicalizer) value(out []byte, depth int) ([]byte, error) {
	p := &c.p
	if depth > canonicalDepth {
		return nil, errDeep
	}
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end")
	}
	switch ch := p.b[p.i]; {
	case ch == '{':
		return c.object(out, depth)
	case ch == '[':
		return c.array(out, depth)
	case ch == '"':
		s, err := p.strBytes()
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(s) {
			return AppendString(out, validString(s), false), nil
		}
		return appendString(out, s, false), nil
	case ch == 't':
		return append(out, "true"...), p.literal("true")
	case ch == 'f':
		return append(out, "false"...), p.literal("false")
	case ch == 'n':
		return append(out, "null"...), p.literal("null")
	case ch == '-' || (ch >= '0' && ch <= '9'):
		n, f, isInt, err := p.num()
		if err != nil {
			return nil, err
		}
		if isInt {
			return strconv.AppendInt(out, n, 10), nil
		}
		return appendFloat(out, f)
	}
	return nil, p.errorf("unexpected %q", p.b[p.i])
}

// object appends the members' values in the order they come, then the
// members in key order after them, and moves those in place of the
// values.
func (c *canonicalizer) object(out []byte, depth int) ([]byte, error) {
	var buf [8]member
	ms := buf[:0]
	base := len(out)
	err := c.p.members(func(k []byte) error {
		if !utf8.Valid(k) {
			k = []byte(validString(k))
		}
		start := len(out)
		var err error
		out, err = c.value(out, depth+1)
		if err != nil {
			return err
		}
		ms = append(ms, member{key: k, start: start - base, end: len(out) - base})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	sorted := len(out)
	out = append(out, '{')
	first := true
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(m.key, ms[i+1].key) {
			continue // a later value of the same key wins
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendString(out, m.key, false)
		out = append(out, ':')
		out = append(out, out[base+m.start:base+m.end]...)
	}
	out = append(out, '}')
	n := copy(out[base:], out[sorted:])
	return out[:base+n], nil
}

func (c *canonicalizer) array(out []byte, depth int) ([]byte, error) {
	p := &c.p
	p.i++ // [
	out = append(out, '[')
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return append(out, ']'), nil
	}
	for first := true; ; first = false {
		p.space()
		if !first {
			out = append(out, ',')
		}
		var err error
		if out, err = c.value(out, depth+1); err != nil {
			return nil, err
		}
		done, err := p.next(']', " in array")
		if err != nil {
			return nil, err
		}
		if done {
			return append(out, ']'), nil
		}
	}
}
