package runui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/schemas"
)

func TestFields(t *testing.T) {
	tests := []struct {
		name     string
		prop     map[string]any
		required bool
		kind     kind
		labels   []string
		hints    string
	}{
		{"text", map[string]any{"type": "string"}, false, kindText, nil, ""},
		{"text with limits", map[string]any{"type": "string", "minLength": int64(1), "maxLength": int64(5)}, true, kindText, nil, "required; 1 to 5 characters"},
		{"one character at most", map[string]any{"type": "string", "maxLength": int64(1)}, false, kindText, nil, "at most 1 character"},
		{"email", map[string]any{"type": "string", "format": "email"}, false, kindText, nil, "an email address"},
		{"uri", map[string]any{"type": "string", "format": "uri"}, false, kindText, nil, "a URI"},
		{"date-time", map[string]any{"type": "string", "format": "date-time"}, false, kindText, nil, "a date and time, YYYY-MM-DDThh:mm:ssZ"},
		{"integer", map[string]any{"type": "integer", "minimum": int64(1), "default": int64(3)}, false, kindInteger, nil, "a whole number; at least 1"},
		{"number", map[string]any{"type": "number", "maximum": 2.5}, false, kindNumber, nil, "a number; at most 2.5"},
		{"boolean", map[string]any{"type": "boolean", "default": true}, true, kindBool, nil, ""},
		{"enum", map[string]any{"type": "string", "enum": []any{"a", "b"}}, true, kindSelect, []string{"a", "b"}, "required"},
		{"enum with a default", map[string]any{"type": "string", "enum": []any{"a", "b"}, "default": "b"}, true, kindSelect, []string{"a", "b"}, ""},
		{"legacy enumNames", map[string]any{"type": "string", "enum": []any{"a", "b"}, "enumNames": []any{"Ay", "Bee"}, "default": "b"}, false, kindSelect, []string{"Ay", "Bee"}, ""},
		{"oneOf", map[string]any{"type": "string", "oneOf": []any{
			map[string]any{"const": "s", "title": "Small"}, map[string]any{"const": "l"},
		}}, false, kindSelect, []string{"Small", "l"}, ""},
		{"array of enum", map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"x", "y"}}, "maxItems": int64(1)}, false, kindMulti, []string{"x", "y"}, "at most 1 choice"},
		{"array of anyOf", map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{
			map[string]any{"const": "x", "title": "Ex"}, map[string]any{"const": "y", "title": "Why"},
		}}, "minItems": int64(1), "default": []any{"y"}}, true, kindMulti, []string{"Ex", "Why"}, "required; at least 1 choice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := map[string]any{"type": "object", "properties": map[string]any{"f": tc.prop}}
			if tc.required {
				schema["required"] = []any{"f"}
			}
			fs := fields(schema, nil)
			if len(fs) != 1 {
				t.Fatalf("%d fields", len(fs))
			}
			f := fs[0]
			var labels []string
			for _, o := range f.options {
				labels = append(labels, o.label)
			}
			if f.kind != tc.kind || !reflect.DeepEqual(labels, tc.labels) {
				t.Errorf("kind %d, options %q; want %d, %q", f.kind, labels, tc.kind, tc.labels)
			}
			if got := strings.Join(f.hints(), "; "); got != tc.hints {
				t.Errorf("hints %q, want %q", got, tc.hints)
			}
		})
	}
}

// TestFieldsOrder: the flow file's order first, then the rest by name.
func TestFieldsOrder(t *testing.T) {
	schema := map[string]any{"properties": map[string]any{
		"b": map[string]any{}, "a": map[string]any{}, "z": map[string]any{}, "c": map[string]any{},
	}}
	var names []string
	for _, f := range fields(schema, []string{"z", "b", "gone"}) {
		names = append(names, f.name)
	}
	if got := strings.Join(names, ","); got != "z,b,a,c" {
		t.Errorf("order %s", got)
	}
}

// schemaErr stands for the schema's own reason in TestParseText: its
// wording is the schemas package's.
const schemaErr = "(the schema's reason)"

func TestParseText(t *testing.T) {
	tests := []struct {
		name     string
		prop     map[string]any
		required bool
		in       string
		want     any
		ok       bool
		err      string // part of the error; schemaErr for the schema's own reason
	}{
		{"text", map[string]any{"type": "string"}, false, " hi ", "hi", true, ""},
		{"empty optional", map[string]any{"type": "string"}, false, "", nil, false, ""},
		{"empty required", map[string]any{"type": "string"}, true, " ", nil, false, "a value is required"},
		{"too long", map[string]any{"type": "string", "maxLength": int64(2)}, false, "abc", "abc", true, schemaErr},
		{"bad date", map[string]any{"type": "string", "format": "date"}, false, "2026-02-30", "2026-02-30", true, schemaErr},
		{"integer", map[string]any{"type": "integer"}, false, "42", int64(42), true, ""},
		{"not an integer", map[string]any{"type": "integer"}, false, "4.2", nil, false, `"4.2" is not a whole number`},
		{"number", map[string]any{"type": "number"}, false, "-1.5e3", -1500.0, true, ""},
		{"not a number", map[string]any{"type": "number"}, false, "NaN", nil, false, `"NaN" is not a number`},
		{"below the minimum", map[string]any{"type": "number", "minimum": int64(0)}, false, "-1", -1.0, true, schemaErr},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := map[string]any{"properties": map[string]any{"f": tc.prop}}
			if tc.required {
				schema["required"] = []any{"f"}
			}
			v, ok, err := fields(schema, nil)[0].parseText(tc.in)
			if !reflect.DeepEqual(v, tc.want) || ok != tc.ok {
				t.Errorf("got %#v, %v; want %#v, %v", v, ok, tc.want, tc.ok)
			}
			want := tc.err
			if want == schemaErr {
				s, err := schemas.Compile(tc.prop)
				if err != nil {
					t.Fatal(err)
				}
				want = s.Validate(tc.want)[0].String()
			}
			if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
}

// TestSelectValue: a select with nothing chosen is left out of the
// answer when optional, and is an error when required (never its first
// option).
func TestSelectValue(t *testing.T) {
	prop := map[string]any{"type": "string", "enum": []any{"a", "b"}}
	tests := []struct {
		name     string
		required bool
		initial  any
		want     any
		ok       bool
		err      error
	}{
		{"optional, nothing chosen", false, nil, nil, false, nil},
		{"required, nothing chosen", true, nil, nil, false, errChoiceRequired},
		{"required, a previous answer", true, "b", "b", true, nil},
		{"required, an answer not among the options", true, "z", nil, false, errChoiceRequired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := map[string]any{"properties": map[string]any{"f": prop}}
			if tc.required {
				schema["required"] = []any{"f"}
			}
			c := newControl(fields(schema, nil)[0], tc.initial)
			v, ok, err := c.value()
			if v != tc.want || ok != tc.ok || err != tc.err {
				t.Errorf("value() = %v, %v, %v; want %v, %v, %v", v, ok, err, tc.want, tc.ok, tc.err)
			}
		})
	}
}
