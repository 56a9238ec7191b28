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
	{"type": "object", "properties": map[string]any{
		"day":   map[string]any{"type": "string", "title": "Day", "format": "date"},
		"at":    map[string]any{"type": "string", "format": "date-time", "default": "2026-01-02T03:04:05Z"},
		"email": map[string]any{"type": "string", "format": "email", "maxLength": int64(20)},
		"site":  map[string]any{"type": "string", "format": "uri"},
	}, "required": []any{"day"}},
}

// compileForm compiles a form, failing the test if it does not compile.
func compileForm(t testing.TB, doc map[string]any) *Schema {
	t.Helper()
	s, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFastFormEligibility(t *testing.T) {
	for i, doc := range fastForms {
		if compileForm(t, doc).fast == nil {
			t.Errorf("form %d: not eligible", i)
		}
	}
	for _, doc := range []map[string]any{
		{"type": "object", "properties": map[string]any{"e": map[string]any{"type": "integer", "format": "email"}}},
		{"type": "object", "properties": map[string]any{"e": map[string]any{"type": "string", "format": "regex"}}},
		{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "pattern": "x"}}},
		{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object"}}},
		{"type": "object", "additionalProperties": false},
		{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "enum": []any{int64(1)}}}},
	} {
		if compileForm(t, doc).fast != nil {
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
		`{"day":"2026-01-02"}`, `{"day":"2026-02-30"}`, `{"day":"2026-1-2"}`, `{"day":"tomorrow"}`, `{"day":5}`,
		`{"day":"2026-01-02","at":"2026-01-02T03:04:05Z","email":"a@example.com","site":"https://example.com/x"}`,
		`{"day":"2026-01-02","at":"2026-01-02 03:04:05"}`, `{"day":"2026-01-02","at":"2026-01-02T25:04:05Z"}`,
		`{"day":"2026-01-02","email":"no-at"}`, `{"day":"2026-01-02","email":"someone.much.too.long@example.com"}`,
		`{"day":"2026-01-02","site":"/relative"}`, `{"day":"2026-01-02","site":"http://[::1"}`,
	}
	for i, doc := range fastForms {
		s := compileForm(t, doc)
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
			if !fast && full {
				// Not wrong, but slow: every valid value here is one the
				// fast path should vouch for.
				t.Errorf("form %d, %s: valid, but left to the full validator", i, raw)
			}
		}
	}
}

// FuzzFastForm checks that the fast path never accepts a value the full
// validator refuses.
func FuzzFastForm(f *testing.F) {
	for _, s := range []string{`{"name":"ab","n":3}`, `{"name":"abc","n":10,"x":-1.5,"many":["q"]}`, `{"n":1e0,"name":"\u00e9\u00e9"}`,
		`{"day":"2026-01-02","at":"2026-01-02T03:04:05.5+01:00","email":"a@b.c","site":"mailto:x"}`} {
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

// BenchmarkValidateForm validates an answer to book_meeting's first
// form (a date format among limits) by the fast path and by the full
// validator.
func BenchmarkValidateForm(b *testing.B) {
	s := compileForm(b, map[string]any{"type": "object", "properties": map[string]any{
		"topic":     map[string]any{"type": "string", "title": "Topic", "minLength": int64(3), "maxLength": int64(100)},
		"attendees": map[string]any{"type": "integer", "minimum": int64(2), "maximum": int64(40), "default": int64(4)},
		"day":       map[string]any{"type": "string", "format": "date"},
	}, "required": []any{"topic", "day"}})
	v := map[string]any{"topic": "Planning", "attendees": int64(4), "day": "2026-01-02"}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !s.fast.valid(v) {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if s.sch.Validate(v) != nil {
				b.Fatal("not valid")
			}
		}
	})
}
