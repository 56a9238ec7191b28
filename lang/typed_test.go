package lang

import (
	"reflect"
	"strings"
	"testing"
)

func obj(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

func ty(t string) map[string]any { return map[string]any{"type": t} }

// testVars is a typed scope like the one flows get: an input and a
// form-mode ask.
var testVars = []Var{
	{Name: "input", Schema: obj(map[string]any{
		"n":       ty("integer"),
		"amount":  ty("number"),
		"tags":    map[string]any{"type": "array", "items": ty("string")},
		"extra":   map[string]any{"type": "object", "additionalProperties": ty("integer")},
		"address": obj(map[string]any{"city": ty("string")}),
		"opt":     ty("string"),
		"kind":    map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"any":     map[string]any{"anyOf": []any{ty("string"), ty("integer")}},
	})},
	{Name: "confirm", Schema: obj(map[string]any{
		"action":   ty("string"),
		"accepted": ty("boolean"),
		"content":  obj(map[string]any{"proceed": ty("boolean"), "note": ty("string")}),
	})},
	{Name: "free", Schema: nil},
}

// testValues are run-time values of testVars: input.opt and
// confirm.content.note are absent.
func testValues() map[string]any {
	return map[string]any{
		"input": map[string]any{
			"n": int64(3), "amount": 1500.5, "tags": []any{"a", "b"},
			"extra": map[string]any{"x": int64(1)}, "address": map[string]any{"city": "Oslo"},
			"kind": "a", "any": "s",
		},
		"confirm": map[string]any{"action": "accept", "accepted": true, "content": map[string]any{"proceed": true}},
		"free":    map[string]any{"deep": []any{int64(1)}},
	}
}

type evalCase struct {
	cel, expr string // "" skips the language
	wantBool  bool
	want      any
	schema    map[string]any // checked when set
	compile   string         // a compile error containing this
	offset    int            // of the compile error, when compile is set and offset >= 0
	runtime   string         // a run-time error containing this
}

var evalCases = []evalCase{
	// Typed access and numbers.
	{cel: "input.n + 1", expr: "input.n + 1", want: int64(4), schema: ty("integer")},
	{cel: "input.amount > 1000", expr: "input.amount > 1000", wantBool: true, want: true, schema: ty("boolean")},
	{cel: "input.n < 3.5", expr: "input.n < 3.5", wantBool: true, want: true},
	{cel: "input.amount * 2.0", expr: "input.amount * 2", want: 3001.0, schema: ty("number")},
	{cel: "double(input.n) + input.amount", expr: "input.n + input.amount", want: 1503.5, schema: ty("number")},
	{cel: "input.n + input.amount", compile: "integers and numbers do not mix in arithmetic; convert one side, like double(input.n)", offset: 8},
	{cel: "10 / 4", want: int64(2)},
	{expr: "10 / 4", want: 2.5}, // expr's / always divides as doubles
	{cel: "input.kind == 'a'", expr: `input.kind == "a"`, want: true},
	{cel: "input.any", expr: "input.any", want: "s"}, // mixed anyOf is dyn
	{cel: "free.deep[0] + 1", expr: "free.deep[0] + 1", want: int64(2)},

	// Unknown names and fields.
	{cel: "confirm.content.procede", expr: "confirm.content.procede",
		compile: `(did you mean "proceed"?)`, offset: 16},
	{cel: "confirm.accepted && confirm.content.procede", expr: "confirm.accepted && confirm.content.procede",
		compile: `(did you mean "proceed"?)`, offset: 36},
	{cel: "confrm.accepted", expr: "confrm.accepted", compile: `(did you mean "confirm"?)`, offset: 0},
	{cel: "input.adress.city", expr: "input.adress.city", compile: `(did you mean "address"?)`, offset: 6},
	{cel: "input.address.cty", expr: "input.address.cty", compile: `(did you mean "city"?)`, offset: 14},
	{cel: "input.tags.map(t, input.address)[0].cty", compile: "undefined field 'cty'", offset: 36},
	{cel: "input.zzzzzz", expr: "input.zzzzzz", compile: "zzzzzz", offset: 6},

	// Mismatches and conditions.
	{cel: `input.n > "3"`, expr: `input.n > "3"`, compile: "string", offset: -1},
	{cel: "input.n", expr: "input.n", wantBool: true, compile: "a condition must be a boolean, not an integer", offset: 0},
	{cel: "confirm.content", expr: "confirm.content", wantBool: true, compile: "a condition must be a boolean, not an object", offset: 0},
	{cel: "free.deep", expr: "free.deep", wantBool: true, runtime: "the condition produced a list of integers, not a boolean"},
	{cel: "input.tags.size() > 'x'", expr: `len(input.tags) > "x"`, compile: "string", offset: -1},

	// Lists, maps and strings.
	{cel: "input.tags.map(t, t + '!')", expr: `map(input.tags, # + "!")`, want: []any{"a!", "b!"},
		schema: map[string]any{"type": "array", "items": ty("string")}},
	{cel: "input.tags.join(', ')", expr: `join(input.tags, ", ")`, want: "a, b"},
	{cel: "input.extra.x + 1", expr: "input.extra.x + 1", want: int64(2), schema: ty("integer")},
	{cel: "input.extra['x']", expr: `input.extra["x"]`, want: int64(1)},
	{cel: "input.address.city.upperAscii()", expr: "upper(input.address.city)", want: "OSLO"},
	{cel: "input.address", expr: "input.address", want: map[string]any{"city": "Oslo"},
		schema: obj(map[string]any{"city": ty("string")})},
	{cel: "{'a': input.n, 'b': [1, 2.5, null]}", expr: "{a: input.n, b: [1, 2.5, nil]}",
		want: map[string]any{"a": int64(3), "b": []any{int64(1), 2.5, nil}}},
	{cel: "[input.n, 2]", expr: "[input.n, 2]", want: []any{int64(3), int64(2)}},
	{cel: "size(dyn(input.address))", expr: "len(input.address)", want: int64(1)},
	{cel: "dyn(input.address).all(k, k == 'city')", expr: `all(keys(input.address), # == "city")`, want: true},
	{cel: "size(input.address)", compile: "convert it with dyn(...), like size(dyn(input.address))", offset: 4},

	// Optional fields absent at run time.
	{cel: "input.opt", runtime: "input has no field 'opt'"},
	{cel: "confirm.content.note", runtime: "confirm.content has no field 'note'"},
	{expr: "input.opt", want: nil},
	{cel: "has(input.opt)", expr: "input.opt != nil", wantBool: true, want: false},
	{cel: "has(input.address)", expr: "input.address != nil", wantBool: true, want: true},
	{cel: "input.?opt.orValue('none')", expr: `input.opt ?? "none"`, want: "none"},
	{expr: "confirm.content?.note", want: nil},
	{cel: "has(input.nope)", expr: "input.nope != nil", compile: "nope", offset: -1},
}

func TestTypedEval(t *testing.T) {
	for _, name := range []string{"cel", "expr"} {
		t.Run(name, func(t *testing.T) {
			l, ok := Lookup(name)
			if !ok {
				t.Fatal("no language")
			}
			env, err := l.NewEnv(testVars, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range evalCases {
				src := tc.cel
				if name == "expr" {
					src = tc.expr
				}
				if src == "" {
					continue
				}
				prg, errs := env.Compile(src, tc.wantBool)
				if tc.compile != "" {
					if len(errs) == 0 || !strings.Contains(errs[0].Message, tc.compile) {
						t.Errorf("%q: got %v, want a compile error containing %q", src, errs, tc.compile)
					} else if tc.offset >= 0 && errs[0].Offset != tc.offset {
						t.Errorf("%q: error %v at offset %d, want %d", src, errs[0].Message, errs[0].Offset, tc.offset)
					}
					continue
				}
				if len(errs) > 0 {
					t.Errorf("%q: compile: %v", src, errs)
					continue
				}
				if tc.schema != nil && !reflect.DeepEqual(prg.Schema(), tc.schema) {
					t.Errorf("%q: schema %v, want %v", src, prg.Schema(), tc.schema)
				}
				got, err := prg.Eval(testValues())
				if tc.runtime != "" {
					if err == nil || !strings.Contains(err.Error(), tc.runtime) {
						t.Errorf("%q: got %#v, %v; want a run-time error containing %q", src, got, err, tc.runtime)
					}
					continue
				}
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%q: got %#v, %v; want %#v", src, got, err, tc.want)
				}
			}
		})
	}
}

func TestTypeMapping(t *testing.T) {
	tests := []struct {
		schema map[string]any
		want   string
	}{
		{nil, "dyn"},
		{map[string]any{}, "dyn"},
		{ty("string"), "string"},
		{map[string]any{"type": "string", "format": "email"}, "string"},
		{map[string]any{"enum": []any{"a", "b"}}, "string"},
		{map[string]any{"oneOf": []any{map[string]any{"const": "a"}, map[string]any{"const": "b"}}}, "string"},
		{ty("integer"), "int"},
		{ty("number"), "double"},
		{map[string]any{"type": []any{"integer", "null"}}, "int"},
		{map[string]any{"type": []any{"string", "integer"}}, "dyn"},
		{ty("boolean"), "bool"},
		{ty("object"), "map(string, dyn)"},
		{map[string]any{"type": "object", "additionalProperties": ty("number")}, "map(string, double)"},
		{obj(map[string]any{"a": ty("integer")}), "object(v)"},
		{ty("array"), "list(dyn)"},
		{map[string]any{"type": "array", "items": obj(map[string]any{"a": ty("integer")})}, "list(object(v[]))"},
		{map[string]any{"anyOf": []any{ty("string"), ty("integer")}}, "dyn"},
		{map[string]any{"$ref": "#/x"}, "dyn"},
		{map[string]any{"anyOf": []any{ty("integer"), ty("null")}}, "int"},
		{map[string]any{"type": []any{"integer", "number"}}, "dyn"},
	}
	for _, tc := range tests {
		if got := fromSchema(tc.schema, "v").String(); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.schema, got, tc.want)
		}
	}
}

func TestAssignable(t *testing.T) {
	ab := obj(map[string]any{"a": ty("integer"), "b": ty("string")})
	a := obj(map[string]any{"a": ty("integer")})
	tests := []struct {
		to, from map[string]any
		want     bool
	}{
		{ty("integer"), ty("integer"), true},
		{ty("number"), ty("integer"), false},
		{ty("integer"), ty("number"), false},
		{nil, ty("string"), true},
		{ty("string"), nil, true},
		{ty("string"), ty("null"), true},
		{a, ab, true},
		{ab, a, false},
		{map[string]any{"type": "array", "items": ty("string")}, map[string]any{"type": "array", "items": ty("string")}, true},
		{map[string]any{"type": "array", "items": ty("string")}, map[string]any{"type": "array", "items": ty("integer")}, false},
	}
	for _, tc := range tests {
		if got := Assignable(tc.to, tc.from); got != tc.want {
			t.Errorf("Assignable(%v, %v) = %v, want %v", tc.to, tc.from, got, tc.want)
		}
	}
	if got := TypeName(ab); got != "an object with fields a, b" {
		t.Errorf("TypeName = %q", got)
	}
}

func TestCELObjectTypeNames(t *testing.T) {
	// A variable named like a type path must not resolve to the type.
	l, _ := Lookup("cel")
	env, err := l.NewEnv([]Var{
		{Name: "a", Schema: obj(map[string]any{"b": obj(map[string]any{"c": ty("integer")})})},
		{Name: "odd", Schema: obj(map[string]any{"first-name": ty("string"), "in": ty("string")})},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prg, errs := env.Compile("a.b.c + 1", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got, err := prg.Eval(map[string]any{"a": map[string]any{"b": map[string]any{"c": int64(1)}}})
	if err != nil || got != int64(2) {
		t.Errorf("a.b.c + 1 = %v, %v", got, err)
	}
	// Objects with fields CEL cannot select are maps of their common type.
	prg, errs = env.Compile("odd['first-name'] + odd['in']", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got, err = prg.Eval(map[string]any{"odd": map[string]any{"first-name": "A", "in": "B"}})
	if err != nil || got != "AB" {
		t.Errorf("got %v, %v", got, err)
	}
}

// TestConcurrentUse builds environments and evaluates programs from many
// goroutines at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	for _, name := range Names() {
		l, _ := Lookup(name)
		done := make(chan error, 8)
		for i := 0; i < 8; i++ {
			go func() {
				env, err := l.NewEnv(testVars, Options{})
				if err != nil {
					done <- err
					return
				}
				prg, errs := env.Compile("input.address.city + '!'", false)
				if len(errs) > 0 {
					done <- errs[0]
					return
				}
				v, err := prg.Eval(testValues())
				if err == nil && v != "Oslo!" {
					err = errorString("got " + v.(string))
				}
				done <- err
			}()
		}
		for i := 0; i < 8; i++ {
			if err := <-done; err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
