package approve

import (
	"net/url"
	"reflect"
	"testing"
)

// everyKind returns a form schema with a property of every kind.
func everyKind() map[string]any {
	return map[string]any{
		"type":    "object",
		"x-order": []any{"approve", "amount", "nowhere"},
		"properties": map[string]any{
			"approve": map[string]any{"type": "boolean", "title": "Approve the refund", "default": true},
			"amount": map[string]any{"type": "number", "title": "Amount", "description": "In EUR, as refunded.",
				"minimum": 0.0, "maximum": 1000.0},
			"count": map[string]any{"type": "integer", "title": "Count", "minimum": 1, "default": 2},
			"note":  map[string]any{"type": "string", "title": "Note for the requester", "minLength": 2, "maxLength": 500},
			"email": map[string]any{"type": "string", "format": "email", "title": "Email"},
			"site":  map[string]any{"type": "string", "format": "uri"},
			"day":   map[string]any{"type": "string", "format": "date", "title": "Day"},
			"when":  map[string]any{"type": "string", "format": "date-time", "title": "When", "default": "2026-12-03T09:30:00Z"},
			"size": map[string]any{"type": "string", "title": "Size", "enum": []any{"s", "m", "l"},
				"enumNames": []any{"Small", "Medium", "Large"}, "default": "m"},
			"priority": map[string]any{"type": "string", "title": "Priority", "default": "p3", "oneOf": []any{
				map[string]any{"const": "p1", "title": "Urgent"}, map[string]any{"const": "p2", "title": "High"},
				map[string]any{"const": "p3", "title": "Normal"}, map[string]any{"const": "p4", "title": "Low"},
				map[string]any{"const": "p5", "title": "Lower"}, map[string]any{"const": "p6", "title": "Whenever"},
			}},
			"tags": map[string]any{"type": "array", "title": "Tags", "minItems": 1, "maxItems": 2,
				"items": map[string]any{"type": "string", "enum": []any{"a", "b", "c"}}, "default": []any{"b"}},
			"teams": map[string]any{"type": "array", "title": "Teams", "items": map[string]any{"anyOf": []any{
				map[string]any{"const": "ops", "title": "Operations"}, map[string]any{"const": "fin", "title": "Finance"},
			}}},
		},
		"required": []any{"approve", "amount", "size", "tags"},
	}
}

// parseCase is form values of everyKind and what ParseForm makes of them.
type parseCase struct {
	name     string
	vals     url.Values
	want     map[string]any
	problems []FieldProblem
}

// parseCases returns the cases of TestParseForm.
func parseCases() []parseCase {
	return []parseCase{
		{
			name: "every kind",
			vals: url.Values{
				"f.approve": {"true"}, "f.amount": {"12.5"}, "f.count": {"3"}, "f.note": {"  as typed "},
				"f.email": {"a@example.com"}, "f.site": {"https://example.com"}, "f.day": {"2026-12-03"},
				"f.when": {"2026-12-03T09:30"}, "f.size": {"l"}, "f.priority": {"p6"},
				"f.tags": {"a", "c"}, "f.teams": {"fin"},
			},
			want: map[string]any{
				"approve": true, "amount": 12.5, "count": int64(3), "note": "  as typed ",
				"email": "a@example.com", "site": "https://example.com", "day": "2026-12-03",
				"when": "2026-12-03T09:30:00Z", "size": "l", "priority": "p6",
				"tags": []any{"a", "c"}, "teams": []any{"fin"},
			},
		},
		{
			name: "empty fields omitted",
			vals: url.Values{"f.approve": {"false"}, "f.amount": {""}, "f.note": {""}, "f.size": {""}, "f.tags": {""}},
			want: map[string]any{"approve": false},
		},
		{name: "nothing sent", vals: url.Values{}, want: map[string]any{}},
		{
			name: "unknown fields ignored",
			vals: url.Values{"f.other": {"x"}, "amount": {"3"}, "csrf": {"y"}, "f.count": {"4"}},
			want: map[string]any{"count": int64(4)},
		},
		{
			name: "integers and numbers",
			vals: url.Values{"f.count": {" 7.0 "}, "f.amount": {"-3"}},
			want: map[string]any{"count": int64(7), "amount": -3.0},
		},
		{
			name: "date-time with seconds and in RFC 3339",
			vals: url.Values{"f.when": {"2026-12-03T09:30:15"}, "f.day": {"not a date"}},
			want: map[string]any{"when": "2026-12-03T09:30:15Z", "day": "not a date"},
		},
		{
			name: "multi-select once per choice",
			vals: url.Values{"f.tags": {"c", "a", "c"}},
			want: map[string]any{"tags": []any{"c", "a"}},
		},
		{
			name: "bad values",
			vals: url.Values{
				"f.approve": {"maybe"}, "f.amount": {"twelve"}, "f.count": {"2.5"}, "f.size": {"xl"},
				"f.priority": {"Urgent"}, "f.tags": {"a", "z"}, "f.teams": {"ops"},
			},
			want: map[string]any{"teams": []any{"ops"}},
			problems: []FieldProblem{
				{Field: "approve", Reason: "Approve the refund must be Yes or No"},
				{Field: "amount", Reason: "Amount must be a number"},
				{Field: "count", Reason: "Count must be a whole number"},
				{Field: "priority", Reason: `Priority: "Urgent" is not one of the choices`},
				{Field: "size", Reason: `Size: "xl" is not one of the choices`},
				{Field: "tags", Reason: `Tags: "z" is not one of the choices`},
			},
		},
		{
			name:     "not finite",
			vals:     url.Values{"f.amount": {"Inf"}, "f.count": {"1e300"}},
			want:     map[string]any{},
			problems: []FieldProblem{{Field: "amount", Reason: "Amount must be a number"}, {Field: "count", Reason: "Count must be a whole number"}},
		},
		{
			name:     "title or name",
			vals:     url.Values{"f.site": {"x"}, "f.count": {"x"}},
			want:     map[string]any{"site": "x"},
			problems: []FieldProblem{{Field: "count", Reason: "Count must be a whole number"}},
		},
	}
}

func TestParseForm(t *testing.T) {
	tests := parseCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseForm(everyKind(), tt.vals)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("content = %#v\nwant %#v", got, tt.want)
			}
			if !reflect.DeepEqual(problems, tt.problems) {
				t.Errorf("problems = %#v\nwant %#v", problems, tt.problems)
			}
		})
	}
}

func TestParseFormSchemas(t *testing.T) {
	tests := []struct {
		name     string
		prop     map[string]any
		vals     []string
		want     any // nil: no value
		problems int
	}{
		{"non-string enum keeps its value", map[string]any{"type": "string", "enum": []any{1.0, 2.0}}, []string{"2"}, 2.0, 0},
		{"legacy enum without type", map[string]any{"enum": []any{"x", "y"}}, []string{"y"}, "y", 0},
		{"oneOf without titles", map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "a"}}}, []string{"a"}, "a", 0},
		{"multi-select without choices", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, []string{"p", "q"}, []any{"p", "q"}, 0},
		{"integer of json numbers", map[string]any{"type": "integer"}, []string{"9007199254740993"}, int64(9007199254740993), 0},
		{"number in exponent form", map[string]any{"type": "number"}, []string{"1e3"}, 1000.0, 0},
		{"untyped string", map[string]any{}, []string{"free"}, "free", 0},
		{"first value only", map[string]any{"type": "string"}, []string{"one", "two"}, "one", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := map[string]any{"type": "object", "properties": map[string]any{"p": tt.prop}}
			got, problems := ParseForm(schema, url.Values{"f.p": tt.vals})
			if len(problems) != tt.problems {
				t.Errorf("problems = %v, want %d", problems, tt.problems)
			}
			if !reflect.DeepEqual(got["p"], tt.want) {
				t.Errorf("p = %#v, want %#v", got["p"], tt.want)
			}
		})
	}
}

func TestPropsOrder(t *testing.T) {
	tests := []struct {
		name  string
		order any
		want  []string
	}{
		{"by name", nil, []string{"a", "b", "c", "d"}},
		{"x-order first", []any{"c", "a"}, []string{"c", "a", "b", "d"}},
		{"x-order of strings", []string{"d"}, []string{"d", "a", "b", "c"}},
		{"unknown and repeated names", []any{"zz", "b", "b", 3}, []string{"b", "a", "c", "d"}},
	}
	for _, tt := range tests {
		schema := map[string]any{"properties": map[string]any{
			"d": map[string]any{}, "b": map[string]any{}, "a": map[string]any{}, "c": map[string]any{},
		}}
		if tt.order != nil {
			schema["x-order"] = tt.order
		}
		var got []string
		for _, p := range props(schema) {
			got = append(got, p.name)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: order %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzParseForm posts arbitrary bodies to the form of every kind:
// ParseForm never panics, and every value it returns has its property's
// type, or the property has a problem instead.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{
		"f.approve=true&f.amount=30&f.tags=a&f.tags=c&f.when=2026-12-03T09:30",
		"f.amount=1e400&f.count=2.5&f.size=xl&f.tags=z",
		"f.count=-9223372036854775809&f.day=&f.priority=p1&f.teams=ops&f.teams=ops",
		"f.note=%ff%fe&f.approve=maybe&f.when=yesterday",
	} {
		f.Add(s)
	}
	schema := everyKind()
	props := schema["properties"].(map[string]any)
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		content, problems := ParseForm(schema, v)
		bad := map[string]bool{}
		for _, p := range problems {
			if p.Reason == "" {
				t.Fatalf("problem without a reason: %+v", p)
			}
			bad[p.Field] = true
		}
		for name, val := range content {
			s, ok := props[name].(map[string]any)
			if !ok {
				t.Fatalf("content has %q, which the form does not", name)
			}
			if bad[name] {
				t.Fatalf("%q has both a value and a problem", name)
			}
			ok = false
			switch s["type"] {
			case "boolean":
				_, ok = val.(bool)
			case "integer":
				_, ok = val.(int64)
			case "number":
				_, ok = val.(float64)
			case "string":
				_, ok = val.(string)
			case "array":
				_, ok = val.([]any)
			}
			if !ok {
				t.Fatalf("%q = %#v (%T), not a %v", name, val, val, s["type"])
			}
		}
	})
}
