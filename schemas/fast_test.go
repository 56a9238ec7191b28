package schemas

import (
	"testing"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// fastForms are form schemas of every primitive shape, each eligible for
// the fast validator.
var fastForms = []map[string]any{
	{"type": "object", "properties": map[string]any{
		"name":  map[string]any{"type": "string", "title": "Name", "minLength": int64(2), "maxLength": int64(5)},
		"n":     map[string]any{"type": "integer", "minimum": int64(1), "maximum": int64(10), "default": int64(3)},
		"x":     map[string]any{"type": "number", "minimum": -1.5, "maximum": 2.5},
		"ok":    map[string]any{"type": "boolean"},
		"pick":  map[string]any{"type": "string", "enum": []any{"a", "b"}, "enumNames": []any{"A", "B"}},
		"one":   map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "x", "title": "X"}}},
		"many":  map[string]any{"type": "array", "minItems": int64(1), "maxItems": int64(2), "items": map[string]any{"type": "string", "enum": []any{"p", "q"}}},
		"tmany": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "v", "title": "V"}}}},
	}, "required": []any{"name", "n"}},
	{"type": "object"},
}

func TestFastFormEligibility(t *testing.T) {
	for i, doc := range fastForms {
		if newFastForm(doc) == nil {
			t.Errorf("form %d: not eligible", i)
		}
	}
	for _, doc := range []map[string]any{
		{"type": "object", "properties": map[string]any{"e": map[string]any{"type": "string", "format": "email"}}},
		{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "pattern": "x"}}},
		{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object"}}},
		{"type": "object", "additionalProperties": false},
		{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "enum": []any{int64(1)}}}},
	} {
		if newFastForm(doc) != nil {
			t.Errorf("%v: eligible, want the full validator", doc)
		}
	}
}

func TestFastFormAgrees(t *testing.T) {
	values := []string{
		`{"name":"ab","n":3}`, `{"name":"abcdef","n":3}`, `{"name":"é中","n":1}`, `{"n":3}`, `{"name":"ab","n":3.0}`,
		`{"name":"ab","n":3.5}`, `{"name":"ab","n":11}`, `{"name":"ab","n":2,"x":2.5}`, `{"name":"ab","n":2,"x":3}`,
		`{"name":"ab","n":2,"pick":"c"}`, `{"name":"ab","n":2,"one":"x","ok":true}`, `{"name":"ab","n":2,"ok":"yes"}`,
		`{"name":"ab","n":2,"many":[]}`, `{"name":"ab","n":2,"many":["p","q"]}`, `{"name":"ab","n":2,"many":["p","z"]}`,
		`{"name":"ab","n":2,"tmany":["v","v"]}`, `{"name":"ab","n":2,"extra":{"any":1}}`, `[]`, `null`, `{"name":null,"n":2}`,
	}
	for i, doc := range fastForms {
		s, err := Compile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range values {
			v, err := jsonx.Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			fast := s.fast.valid(v)
			full := s.sch.Validate(v) == nil
			if fast && !full {
				t.Errorf("form %d, %s: the fast path accepts what the full validator refuses", i, raw)
			}
			if !fast && full && i == 0 {
				t.Logf("form %d, %s: left to the full validator", i, raw)
			}
		}
	}
}

// FuzzFastForm checks that the fast path never accepts a value the full
// validator refuses.
func FuzzFastForm(f *testing.F) {
	for _, s := range []string{`{"name":"ab","n":3}`, `{"name":"abc","n":10,"x":-1.5,"many":["q"]}`, `{"n":1e0,"name":"\u00e9\u00e9"}`} {
		f.Add([]byte(s))
	}
	compiled := make([]*Schema, len(fastForms))
	for i, doc := range fastForms {
		s, err := Compile(doc)
		if err != nil {
			f.Fatal(err)
		}
		compiled[i] = s
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := jsonx.Parse(b)
		if err != nil {
			return
		}
		for i, s := range compiled {
			if s.fast.valid(v) && s.sch.Validate(v) != nil {
				t.Fatalf("form %d, %s: the fast path accepts what the full validator refuses", i, b)
			}
		}
	})
}
