// Package jsonx decodes JSON fast for flowserve's hot paths: whole values
// into JSON-like Go values (Parse), and the members of an object as raw
// slices of the input (Members), with the same grammar encoding/json
// accepts.
package jsonx

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Parse decodes one JSON value into nil, bool, int64 (integer literals
// that fit), float64, string, []any or map[string]any. It is the engine's
// decoder for journaled values and answers: several times faster than
// encoding/json into interfaces, which matters because every round
// decodes the whole journal.
func Parse(b []byte) (any, error) {
	p := jsonParser{b: b}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.errorf("trailing data")
	}
	return v, nil
}

// maxJSONDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxJSONDepth = 1000

type jsonParser struct {
	b []byte
	i int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errorf("unexpected %q", p.b[p.i])
}

func (p *jsonParser) literal(word string) error {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return p.errorf("expected %s", word)
	}
	p.i += len(word)
	return nil
}

func (p *jsonParser) object(depth int) (any, error) {
	m := map[string]any{}
	err := p.members(func(k []byte) error {
		v, err := p.value(depth + 1)
		m[validString(k)] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// members reads an object at p.i, calling value for each member with its
// key (unescaped, not yet checked as UTF-8: see validString) once p.i is at the
// member's value; value must consume the value.
func (p *jsonParser) members(value func(key []byte) error) error {
	p.i++ // {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.errorf("expected a string key")
		}
		k, err := p.strBytes()
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.errorf("expected ':'")
		}
		p.i++
		p.space()
		if err := value(k); err != nil {
			return err
		}
		if done, err := p.next('}', " in object"); done || err != nil {
			return err
		}
	}
}

// next passes over what follows an element of an array or an object: a
// comma, when more follow, or closing, which ends it (done). in says, for
// the message, where the input ends when it ends there.
func (p *jsonParser) next(closing byte, in string) (done bool, err error) {
	p.space()
	if p.i >= len(p.b) {
		return false, p.errorf("unexpected end%s", in)
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	}
	return false, p.errorf("expected ',' or %q", closing)
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	l := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return l, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		done, err := p.next(']', " in array")
		if err != nil {
			return nil, err
		}
		if done {
			return l, nil
		}
	}
}

func (p *jsonParser) str() (string, error) {
	s, err := p.strBytes()
	if err != nil {
		return "", err
	}
	return validString(s), nil
}

// validString turns bytes strBytes read into a string, with each byte
// that is not part of valid UTF-8 replaced by U+FFFD, as encoding/json
// decodes it.
func validString(s []byte) string {
	if !utf8.Valid(s) {
		return string([]rune(string(s)))
	}
	return string(s)
}

// strBytes reads a string and returns its bytes, unescaped but not
// checked as UTF-8: a slice of the input when it has no escapes, a new
// buffer when it has.
func (p *jsonParser) strBytes() ([]byte, error) {
	p.i++ // "
	start := p.i
	// Fast path: no escapes.
	for p.i+8 <= len(p.b) && stringEnd(load64(p.b, p.i)) == 0 {
		p.i += 8
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			p.i++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, p.errorf("control character in string")
		}
		p.i++
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return buf, nil
		case c < 0x20:
			return nil, p.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, p.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; anything else is U+FFFD, as
				// encoding/json decodes it.
				pair := utf8.RuneError
				if save := p.i; p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					if r2, ok := p.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						pair = utf16.DecodeRune(r, r2)
					} else {
						p.i = save
					}
				}
				r = pair
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, p.errorf("bad escape \\%c", e)
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

var errBadNumber = errors.New("bad number")

func (p *jsonParser) number() (any, error) {
	n, f, isInt, err := p.num()
	if err != nil {
		return nil, err
	}
	if isInt {
		return n, nil
	}
	return f, nil
}

// num reads a number: an int64 when it is an integer literal that fits,
// else a float64 (isInt false).
func (p *jsonParser) num() (n int64, f float64, isInt bool, err error) {
	start := p.i
	if isInt, err = p.scanNumber(); err != nil {
		return 0, 0, false, err
	}
	// Converted where it is used, so that the common case does not
	// allocate the text.
	text := p.b[start:p.i]
	if isInt {
		if n, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return n, 0, true, nil
		}
	}
	f, err = strconv.ParseFloat(string(text), 64)
	if err != nil {
		return 0, 0, false, p.errorf("number %s is out of range", text)
	}
	return 0, f, false, nil
}

// scanNumber passes over a number, checking its syntax (RFC 8259) but not
// its range: isInt reports an integer literal (no fraction or exponent).
func (p *jsonParser) scanNumber() (isInt bool, err error) {
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	if n := digits(); n == 0 || (n > 1 && p.b[intStart] == '0') {
		return false, p.errorf("%v", errBadNumber)
	}
	isInt = true
	if p.i < len(p.b) && p.b[p.i] == '.' {
		isInt = false
		p.i++
		if digits() == 0 {
			return false, p.errorf("%v", errBadNumber)
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		isInt = false
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false, p.errorf("%v", errBadNumber)
		}
	}
	return isInt, nil
}

// Members calls fn with the key and the raw value (a slice of b) of each
// member of the JSON object b, in order. It fails, without calling fn
// further, when b is not exactly one well-formed object or fn fails. As
// with encoding/json's RawMessage, a raw value is checked for syntax
// only: a number out of float64's range is left to whoever decodes it.
func Members(b []byte, fn func(key string, raw []byte) error) error {
	return Fields(b, func(k, raw []byte) error {
		return fn(validString(k), raw)
	})
}

// Fields is Members for callers that only compare keys (switch
// string(key) does not allocate): fn gets each key unescaped but as
// bytes, which it must not keep or modify, and not yet checked as UTF-8
// (Members turns bytes that are not into U+FFFD; either way such a key
// equals no string without U+FFFD).
func Fields(b []byte, fn func(key, raw []byte) error) error {
	p := jsonParser{b: b}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return p.errorf("expected an object")
	}
	err := p.members(func(k []byte) error {
		start := p.i
		if err := p.skip(1); err != nil {
			return err
		}
		return fn(k, p.b[start:p.i])
	})
	if err != nil {
		return err
	}
	return p.end()
}

// Key returns a key Fields handed to its callback as the string Members
// hands to its own.
func Key(k []byte) string { return validString(k) }

// end checks that only white space follows.
func (p *jsonParser) end() error {
	p.space()
	if p.i != len(p.b) {
		return p.errorf("trailing data")
	}
	return nil
}

// skip passes over one value, checking its syntax as value would, without
// building it (and so without checking that its numbers fit a float64).
func (p *jsonParser) skip(depth int) error {
	if depth > maxJSONDepth {
		return p.errorf("nested too deeply")
	}
	if p.i >= len(p.b) {
		return p.errorf("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == closing {
			p.i++
			return nil
		}
		for {
			p.space()
			if c == '{' {
				if p.i >= len(p.b) || p.b[p.i] != '"' {
					return p.errorf("expected a string key")
				}
				if err := p.skipString(); err != nil {
					return err
				}
				p.space()
				if p.i >= len(p.b) || p.b[p.i] != ':' {
					return p.errorf("expected ':'")
				}
				p.i++
				p.space()
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			if done, err := p.next(closing, ""); done || err != nil {
				return err
			}
		}
	case c == '"':
		return p.skipString()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		// Syntax only: the value is not decoded here. A number out of
		// float64's range is valid JSON that Parse refuses when it
		// decodes the value, saying so.
		_, err := p.scanNumber()
		return err
	}
	return p.errorf("unexpected %q", p.b[p.i])
}

// skipString passes over a string, checking its escapes.
func (p *jsonParser) skipString() error {
	p.i++ // "
	for p.i < len(p.b) {
		for p.i+8 <= len(p.b) && stringEnd(load64(p.b, p.i)) == 0 {
			p.i += 8
		}
		if p.i >= len(p.b) {
			break
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c < 0x20:
			return p.errorf("control character in string")
		case c == '\\':
			p.i++
			if p.i >= len(p.b) {
				return p.errorf("unterminated string")
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				p.i++
				if _, ok := p.hex4(); !ok {
					return p.errorf("bad \\u escape")
				}
			default:
				return p.errorf("bad escape \\%c", p.b[p.i])
			}
		default:
			p.i++
		}
	}
	return p.errorf("unterminated string")
}
