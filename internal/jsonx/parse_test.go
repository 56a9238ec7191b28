package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// stdDecode decodes with encoding/json and types numbers as parseJSON
// does, for comparison.
func stdDecode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.TrimLeft(b[d.InputOffset():], " \t\r\n")) > 0 {
		return nil, errBadNumber // trailing data
	}
	rangeErr := false
	var conv func(any) any
	conv = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if !strings.ContainsAny(v.String(), ".eE") {
				if n, err := v.Int64(); err == nil {
					return n
				}
			}
			f, err := v.Float64()
			if err != nil {
				rangeErr = true // Parse rejects numbers out of float64 range
			}
			return f
		case map[string]any:
			for k, e := range v {
				v[k] = conv(e)
			}
		case []any:
			for i, e := range v {
				v[i] = conv(e)
			}
		}
		return v
	}
	v = conv(v)
	if rangeErr {
		return nil, errBadNumber
	}
	return v, nil
}

func TestParseJSON(t *testing.T) {
	good := []string{
		`null`, `true`, `false`, `0`, `-0`, `12`, `-7`, `1.5`, `1e3`, `2E-2`, `9223372036854775807`, `9223372036854775808`,
		`""`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"héllo"`,
		`[]`, `[1,"a",[true,null]]`, `{}`, ` { "a" : 1 , "b" : { "c" : [ ] } } `,
		`{"action":"accept","content":{"name":"Ann","n":3,"x":2.5,"tags":["a","b"]}}`,
	}
	for _, s := range good {
		got, err := Parse([]byte(s))
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		want, err := stdDecode([]byte(s))
		if err != nil {
			t.Fatalf("%s: encoding/json: %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", s, got, want)
		}
	}
	bad := []string{
		``, ` `, `nul`, `tru`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `"abc`, `"\x"`, `"\u12"`, "\"a\tb\"",
		`[1,]`, `[1 2]`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `1 2`, `{}}`, `[` + strings.Repeat("[", 2000),
	}
	for _, s := range bad {
		if v, err := Parse([]byte(s)); err == nil {
			t.Errorf("%q: accepted as %#v", s, v)
		}
	}
}

// FuzzParseJSON checks that parseJSON accepts exactly what encoding/json
// accepts and decodes it to the same value.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",true,null]}`, `"\ud83d\ude00"`, `-1e-7`, `[[]]`, `{"":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Parse(b)
		want, stdErr := stdDecode(b)
		if (err == nil) != (stdErr == nil) {
			if stdErr != nil && strings.Contains(stdErr.Error(), "exceeded max depth") {
				return
			}
			t.Fatalf("%q: parseJSON error %v, encoding/json error %v", b, err, stdErr)
		}
		if err == nil && !equalJSON(got, want) {
			t.Fatalf("%q: got %#v, want %#v", b, got, want)
		}
	})
}

func equalJSON(a, b any) bool {
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	if ok1 && ok2 {
		return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
	}
	return reflect.DeepEqual(a, b)
}

func TestMembers(t *testing.T) {
	type member struct{ k, v string }
	tests := []struct {
		in   string
		want []member
		err  bool
	}{
		{in: `{}`},
		{in: ` {"a": 1, "b" : {"c": [1, "x"]}, "a\u0021": "s\"q", "n": null} `,
			want: []member{{"a", "1"}, {"b", `{"c": [1, "x"]}`}, {"a!", `"s\"q"`}, {"n", "null"}}},
		{in: `[]`, err: true},
		{in: `{"a": 1,}`, err: true},
		{in: `{"a": 01}`, err: true},
		{in: `{"a": 1} x`, err: true},
		{in: `{"a" 1}`, err: true},
		{in: ``, err: true},
	}
	for _, tc := range tests {
		var got []member
		err := Members([]byte(tc.in), func(k string, raw []byte) error {
			got = append(got, member{k, string(raw)})
			return nil
		})
		if (err != nil) != tc.err || (!tc.err && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: got %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// FuzzMembers checks that Members accepts exactly the objects
// encoding/json accepts and hands out each member's raw value.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null],"c":{"d":"e"}}`, `{}`, `{"a":"\u00e9"}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		stdErr := json.Unmarshal(b, &want)
		got := map[string]json.RawMessage{}
		err := Members(b, func(k string, raw []byte) error {
			got[k] = append(json.RawMessage(nil), raw...)
			return nil
		})
		if stdErr == nil && want == nil {
			stdErr = errBadNumber // null is not an object
		}
		if (err == nil) != (stdErr == nil) {
			if stdErr != nil && strings.Contains(stdErr.Error(), "exceeded max depth") {
				return
			}
			t.Fatalf("%q: Members error %v, encoding/json error %v", b, err, stdErr)
		}
		if err == nil && len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", b, len(got), len(want))
		}
		// Fields hands out the same members, keys as bytes.
		var members, fields []string
		errM := Members(b, func(k string, raw []byte) error {
			members = append(members, k, string(raw))
			return nil
		})
		errF := Fields(b, func(k, raw []byte) error {
			fields = append(fields, validString(k), string(raw))
			return nil
		})
		if (errM == nil) != (errF == nil) || !reflect.DeepEqual(members, fields) {
			t.Fatalf("%q: Fields %q, %v; Members %q, %v", b, fields, errF, members, errM)
		}
	})
}
