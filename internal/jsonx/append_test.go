package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// stdEncode encodes like flow's encoder: encoding/json without HTML
// escaping.
func stdEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func TestAppend(t *testing.T) {
	values := []any{
		nil, true, false, int64(-3), 7, 0.0, -0.5, 1e-7, 1e21, 123456789.125, 1e20, 3e-6, 2.5e-300,
		"", "<a&b>", "q\"\\\n\t\b\f\x01\x7f", "é😀\xff\u2028",
		[]any{}, []any{int64(1), "x", nil, []any{true}},
		map[string]any{}, map[string]any{"b": 1.5, "a": map[string]any{"z": []any{}, "y": "<"}},
		struct{ A int }{3},
	}
	for _, v := range values {
		want, _ := stdEncode(v)
		got, err := Append(nil, v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%#v: got %s, %v; want %s", v, got, err, want)
		}
	}
	if _, err := Append(nil, math.NaN()); err == nil {
		t.Error("NaN encoded")
	}
	for _, s := range []string{"<>&", "a\u2029"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s, true); string(got) != string(want) {
			t.Errorf("html %q: got %s, want %s", s, got, want)
		}
	}
}

// FuzzAppend checks Append against encoding/json on every value Parse
// produces from the fuzzed input.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-9,"<x>"],"b":null}`, `"\u00e9\ufffd"`, `1e300`, `-0.000001`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil {
			return
		}
		want, err := stdEncode(v)
		if err != nil {
			return
		}
		got, err := Append(nil, v)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%q: got %s, %v; want %s", b, got, err, want)
		}
		if s, ok := v.(string); ok {
			want, _ := json.Marshal(s)
			if got := AppendString(nil, s, true); string(got) != string(want) {
				t.Fatalf("html %q: got %s, want %s", s, got, want)
			}
		}
	})
}
