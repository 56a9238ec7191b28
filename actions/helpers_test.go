package actions

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestSchemaHelpers(t *testing.T) {
	tests := []struct {
		name string
		got  map[string]any
		want string
	}{
		{"closed object", ObjectSchema("A thing.", map[string]any{"n": PropSchema("integer", "How many.", "minimum", 1)}, "n"),
			`{"additionalProperties":false,"description":"A thing.","properties":{"n":{"description":"How many.","minimum":1,"type":"integer"}},"required":["n"],"type":"object"}`},
		{"no description, nothing required", ObjectSchema("", nil),
			`{"additionalProperties":false,"properties":{},"type":"object"}`},
		{"any JSON value", PropSchema("", "Anything."), `{"description":"Anything."}`},
		{"string map", StringMapSchema("Headers."), `{"additionalProperties":{"type":"string"},"description":"Headers.","type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, _ := json.Marshal(tt.got); string(b) != tt.want {
				t.Errorf("schema\n  %s\nwant\n  %s", b, tt.want)
			}
		})
	}
	// The shorthands make schemas that register.
	err := NewRegistry().Register(Spec{Name: "h.s", Summary: "s", Func: nop, Input: tests[0].got, Output: StringMapSchema("Out.")})
	if err != nil {
		t.Fatal(err)
	}
	for _, kw := range [][]any{{"minimum"}, {1, 2}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "actions.PropSchema: keyword") {
					t.Errorf("PropSchema(%v) panicked with %v", kw, r)
				}
			}()
			PropSchema("integer", "d", kw...)
		}()
	}
}

func TestArgReaders(t *testing.T) {
	in := map[string]any{
		"s": "text", "b": true, "i": int64(3), "i32": int32(-4), "f": 5.0, "frac": 2.5, "num": json.Number("6"),
		"big": uint64(math.MaxUint64), "null": nil, "m": map[string]any{"a": "x"}, "bad": map[string]any{"a": int64(1)},
	}
	if ArgString(in, "s", "d") != "text" || ArgString(in, "i", "d") != "d" || ArgString(in, "none", "d") != "d" {
		t.Error("ArgString")
	}
	if !ArgBool(in, "b", false) || ArgBool(in, "s", false) || !ArgBool(in, "none", true) {
		t.Error("ArgBool")
	}
	ints := []struct {
		key     string
		want    int64
		wantErr string
	}{
		{"i", 3, ""}, {"i32", -4, ""}, {"f", 5, ""}, {"num", 6, ""}, {"none", 9, ""}, {"null", 9, ""},
		{"frac", 0, "frac: want an integer, got 2.5"},
		{"s", 0, "s: want an integer, got text"},
		{"big", 0, "big: want an integer, got 18446744073709551615"},
	}
	for _, tt := range ints {
		got, err := ArgInt(in, tt.key, 9)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ArgInt(%s) error = %v, want %q", tt.key, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ArgInt(%s) = %d, %v; want %d", tt.key, got, err, tt.want)
		}
	}
	if m, err := ArgStringMap(in, "m"); err != nil || !reflect.DeepEqual(m, map[string]string{"a": "x"}) {
		t.Errorf("ArgStringMap(m) = %v, %v", m, err)
	}
	if m, err := ArgStringMap(in, "none"); err != nil || m != nil {
		t.Errorf("ArgStringMap(none) = %v, %v", m, err)
	}
	if _, err := ArgStringMap(in, "bad"); err == nil || err.Error() != "bad.a: want a string, got int64" {
		t.Errorf("ArgStringMap(bad) error = %v", err)
	}
	if _, err := ArgStringMap(in, "s"); err == nil || err.Error() != "s: want an object of strings, got string" {
		t.Errorf("ArgStringMap(s) error = %v", err)
	}
}
