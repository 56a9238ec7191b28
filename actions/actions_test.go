package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func nop(context.Context, map[string]any) (any, error) { return map[string]any{}, nil }

func validSpec(name string) Spec {
	return Spec{Name: name, Summary: "Does a thing.", Input: obj(nil), Output: obj(nil), Func: nop}
}

func TestRegisterRejectsBadSpecs(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Spec)
		wantErr string
	}{
		{"empty name", func(s *Spec) { s.Name = "" }, `register action "": name is required`},
		{"one segment", func(s *Spec) { s.Name = "stat" }, `register action "stat": name must be lower-case segments joined by dots`},
		{"upper case", func(s *Spec) { s.Name = "fs.Stat" }, `register action "fs.Stat": name must be`},
		{"dash", func(s *Spec) { s.Name = "fs.read-all" }, `register action "fs.read-all": name must be`},
		{"leading digit", func(s *Spec) { s.Name = "fs.2read" }, `name must be`},
		{"trailing dot", func(s *Spec) { s.Name = "fs." }, `name must be`},
		{"empty segment", func(s *Spec) { s.Name = "fs..stat" }, `name must be`},
		{"no summary", func(s *Spec) { s.Summary = "  " }, `register action "x.y": summary is required`},
		{"two-line summary", func(s *Spec) { s.Summary = "one\ntwo" }, `summary must be one line`},
		{"no func", func(s *Spec) { s.Func = nil }, `register action "x.y": func is required`},
		{"no input", func(s *Spec) { s.Input = nil }, `register action "x.y": input schema is required`},
		{"no output", func(s *Spec) { s.Output = nil }, `register action "x.y": output schema is required`},
		{"input not object", func(s *Spec) { s.Input = map[string]any{"type": "string"} }, `input schema must have "type": "object"`},
		{"input without type", func(s *Spec) { s.Input = map[string]any{} }, `input schema must have "type": "object"`},
		{"input bad keyword value", func(s *Spec) { s.Input = map[string]any{"type": "object", "minProperties": "two"} }, `register action "x.y": input schema does not compile`},
		{"output bad type", func(s *Spec) { s.Output = map[string]any{"type": "thing"} }, `register action "x.y": output schema does not compile`},
		{"output bad pattern", func(s *Spec) { s.Output = map[string]any{"type": "string", "pattern": "("} }, `output schema does not compile`},
		{"external ref", func(s *Spec) { s.Output = map[string]any{"$ref": "https://example.com/s.json"} }, `output schema does not compile`},
		{"schema with NaN", func(s *Spec) { s.Output = map[string]any{"maximum": math.NaN()} }, `output schema: invalid value at maximum`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSpec("x.y")
			tt.edit(&s)
			err := NewRegistry().Register(s)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Register error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestRegisterAcceptsNames(t *testing.T) {
	r := NewRegistry()
	for _, name := range []string{"a.b", "http.request", "acme.crm.create_contact", "x1.y_2.z3"} {
		if err := r.Register(validSpec(name)); err != nil {
			t.Errorf("Register(%q): %v", name, err)
		}
	}
}

func TestRegisterDuplicate(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(validSpec("a.b")); err != nil {
		t.Fatal(err)
	}
	err := r.Register(validSpec("a.b"))
	if err == nil || err.Error() != `register action "a.b": already registered` {
		t.Fatalf("duplicate Register error = %v", err)
	}
}

func TestRegistryLookupActionsClone(t *testing.T) {
	r := NewRegistry()
	if got := r.Actions(); len(got) != 0 {
		t.Fatalf("new registry has %d actions", len(got))
	}
	for _, n := range []string{"m.b", "a.z", "z.a", "m.a"} {
		if err := r.Register(validSpec(n)); err != nil {
			t.Fatal(err)
		}
	}
	if got := names(r.Actions()); got != "a.z m.a m.b z.a" {
		t.Fatalf("Actions() = %s", got)
	}
	if a, ok := r.Lookup("m.a"); !ok || a.Name != "m.a" {
		t.Fatalf("Lookup(m.a) = %v, %v", a, ok)
	}
	if _, ok := r.Lookup("m.c"); ok {
		t.Fatal("Lookup(m.c) found something")
	}

	c := r.Clone()
	if err := c.Register(validSpec("c.only")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(validSpec("r.only")); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("c.only"); ok {
		t.Error("clone's registration leaked into the original")
	}
	if _, ok := c.Lookup("r.only"); ok {
		t.Error("original's registration leaked into the clone")
	}
	if got := names(c.Actions()); got != "a.z c.only m.a m.b z.a" {
		t.Errorf("clone Actions() = %s", got)
	}

	// The returned slice is the caller's.
	as := r.Actions()
	as[0] = nil
	if r.Actions()[0] == nil {
		t.Error("modifying Actions() changed the registry")
	}
}

func names(as []*Action) string {
	var b []string
	for _, a := range as {
		b = append(b, a.Name)
	}
	return strings.Join(b, " ")
}

func TestZeroRegistry(t *testing.T) {
	var r Registry
	if _, ok := r.Lookup("a.b"); ok || len(r.Actions()) != 0 || len(r.Clone().Actions()) != 0 {
		t.Fatal("zero Registry is not empty")
	}
	if err := r.Register(validSpec("a.b")); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("a.b"); !ok {
		t.Fatal("zero Registry did not register")
	}
}

func BenchmarkLookup(b *testing.B) {
	r := NewRegistry()
	for i := range 50 {
		if err := r.Register(validSpec(fmt.Sprintf("bench.a%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok := r.Lookup("bench.a25"); !ok {
				b.Fatal("not found")
			}
		}
	})
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := r.Register(validSpec(fmt.Sprintf("w.a%d", i))); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			for range 100 {
				r.Lookup("w.a0")
				r.Actions()
			}
		})
	}
	wg.Wait()
	if n := len(r.Actions()); n != 8 {
		t.Fatalf("registered %d actions, want 8", n)
	}
}

func TestDefaultRegister(t *testing.T) {
	if Default() != Default() {
		t.Fatal("Default() is not one registry")
	}
	name := "test_only.default_register"
	Register(validSpec(name))
	if _, ok := Default().Lookup(name); !ok {
		t.Fatal("Register did not fill Default()")
	}
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !strings.Contains(err.Error(), `"test_only.default_register": already registered`) {
			t.Fatalf("duplicate Register panicked with %v", r)
		}
	}()
	Register(validSpec(name))
	t.Fatal("duplicate Register did not panic")
}

func TestSchemasAreNormalized(t *testing.T) {
	a, err := NewAction(Spec{
		Name: "n.s", Summary: "s", Func: nop,
		Input: map[string]any{
			"type":       "object",
			"properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1, "maximum": uint8(9), "multipleOf": 0.5}},
			"required":   []string{"n"},
		},
		Output: map[string]any{"type": "object"},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Input["properties"].(map[string]any)["n"].(map[string]any)
	if _, ok := n["minimum"].(int64); !ok {
		t.Errorf("minimum is %T, want int64", n["minimum"])
	}
	if _, ok := n["maximum"].(int64); !ok {
		t.Errorf("maximum is %T, want int64", n["maximum"])
	}
	if _, ok := n["multipleOf"].(float64); !ok {
		t.Errorf("multipleOf is %T, want float64", n["multipleOf"])
	}
	if req, ok := a.Input["required"].([]any); !ok || len(req) != 1 || req[0] != "n" {
		t.Errorf("required = %#v, want []any{\"n\"}", a.Input["required"])
	}
	// []string "required" is honoured by validation (the raw jsonschema
	// compiler would silently ignore it).
	if err := a.ValidateInput(map[string]any{}); err == nil {
		t.Error("missing required n validated")
	}
}

func numberAction(t *testing.T) *Action {
	t.Helper()
	a, err := NewAction(Spec{
		Name: "num.check", Summary: "s", Func: nop,
		Input: obj(map[string]any{
			"i":    map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
			"n":    map[string]any{"type": "number", "exclusiveMaximum": 1.5},
			"e":    map[string]any{"enum": []any{1, "two"}},
			"list": map[string]any{"type": "array", "items": obj(map[string]any{"name": map[string]any{"type": "string", "minLength": 2}}, "name"), "maxItems": 3},
			"tags": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"when": map[string]any{"type": "string", "format": "date-time"},
		}),
		Output: map[string]any{"type": "integer"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestValidateNumbers(t *testing.T) {
	a := numberAction(t)
	tests := []struct {
		name string
		in   map[string]any
		want string // "" = valid
	}{
		{"int64 as integer", map[string]any{"i": int64(3)}, ""},
		{"int as integer", map[string]any{"i": 3}, ""},
		{"integral float64 as integer", map[string]any{"i": 3.0}, ""},
		{"fraction as integer", map[string]any{"i": 2.5}, "i: must be an integer, not a fractional number"},
		{"string as integer", map[string]any{"i": "3"}, "i: must be an integer, not a string"},
		{"int64 below minimum", map[string]any{"i": int64(-1)}, "i: must be at least 0"},
		{"int64 above maximum", map[string]any{"i": int64(11)}, "i: must be at most 10"},
		{"large int64 above maximum", map[string]any{"i": int64(math.MaxInt64)}, "i: must be at most 10"},
		{"int64 as number", map[string]any{"n": int64(1)}, ""},
		{"float64 as number", map[string]any{"n": 1.25}, ""},
		{"exclusive maximum", map[string]any{"n": 1.5}, "n: must be less than 1.5"},
		{"NaN", map[string]any{"n": math.NaN()}, "n: must be a JSON number, not NaN"},
		{"infinity", map[string]any{"n": math.Inf(1)}, "n: must be a JSON number, not +Inf"},
		{"enum int64 matches 1", map[string]any{"e": int64(1)}, ""},
		{"enum float64 matches 1", map[string]any{"e": 1.0}, ""},
		{"enum miss", map[string]any{"e": int64(2)}, `e: must be one of 1, "two"`},
		{"array item path", map[string]any{"list": []any{map[string]any{"name": "ok"}, map[string]any{"name": "x"}, map[string]any{}}},
			"list[1].name: must be at least 2 characters long; list[2].name: is required"},
		{"max items", map[string]any{"list": []any{map[string]any{"name": "aa"}, map[string]any{"name": "aa"}, map[string]any{"name": "aa"}, map[string]any{"name": "aa"}}}, "list: must have at most 3 items"},
		{"keys with dots", map[string]any{"tags": map[string]any{"a.b": int64(1), "plain": int64(2)}}, `tags["a.b"]: must be a string, not an integer; tags.plain: must be a string, not an integer`},
		{"format asserted", map[string]any{"when": "yesterday"}, "when: is not a valid date-time (like 2026-07-28T10:00:00Z)"},
		{"format ok", map[string]any{"when": "2026-07-28T10:00:00Z"}, ""},
		{"go type outside the API", map[string]any{"list": []string{"a"}}, "list: is not a JSON value (Go type []string)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.ValidateInput(tt.in)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ValidateInput: %v", err)
				}
				return
			}
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("ValidateInput error = %v (%T), want *ValidationError", err, err)
			}
			if verr.Action != "num.check" || verr.Output {
				t.Errorf("error names %q output=%v", verr.Action, verr.Output)
			}
			want := `input of action "num.check": ` + tt.want
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error =\n  %s\nwant prefix\n  %s", err, want)
			}
		})
	}
}

func TestValidateOutput(t *testing.T) {
	a := numberAction(t)
	if err := a.ValidateOutput(int64(4)); err != nil {
		t.Fatal(err)
	}
	if err := a.ValidateOutput(4.0); err != nil {
		t.Fatal(err)
	}
	err := a.ValidateOutput("4")
	var verr *ValidationError
	if !errors.As(err, &verr) || !verr.Output || len(verr.Violations) != 1 || verr.Violations[0] != (Violation{Reason: "must be an integer, not a string"}) {
		t.Fatalf("ValidateOutput(\"4\") = %#v", err)
	}
	if got, want := err.Error(), `output of action "num.check": must be an integer, not a string`; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}

func TestValidationErrorListsEveryViolation(t *testing.T) {
	a, err := NewAction(Spec{
		Name: "fs.stat", Summary: "s", Func: nop,
		Input: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"path": map[string]any{"type": "string"}, "mode": map[string]any{"const": "fast"}},
			"required":             []string{"path", "root"},
			"additionalProperties": false,
		},
		Output: obj(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	err = a.ValidateInput(map[string]any{"mode": "slow", "extra": true})
	want := `input of action "fs.stat": extra: is not allowed; mode: must be "fast"; path: is required; root: is required`
	if err == nil || err.Error() != want {
		t.Fatalf("error =\n  %v\nwant\n  %s", err, want)
	}
}

func TestRun(t *testing.T) {
	type result struct {
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
	}
	var got map[string]any
	a, err := NewAction(Spec{
		Name: "run.it", Summary: "s",
		Input: obj(map[string]any{
			"n":    map[string]any{"type": "integer", "default": 2},
			"opts": map[string]any{"type": "object", "default": map[string]any{"deep": true}},
			"mode": map[string]any{"type": "string"},
		}),
		Output: obj(map[string]any{"count": map[string]any{"type": "integer"}, "tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, "count"),
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			got = in
			switch in["mode"] {
			case "panic":
				panic("boom")
			case "fail":
				return nil, errors.New("it failed")
			case "bad":
				return map[string]any{"count": "many"}, nil
			case "nan":
				return map[string]any{"count": math.NaN()}, nil
			}
			in["opts"].(map[string]any)["deep"] = false // must not change the schema's default
			return result{Count: int(in["n"].(int64)), Tags: []string{"a"}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	in := map[string]any{}
	out, err := a.Run(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(out); string(b) != `{"count":2,"tags":["a"]}` {
		t.Errorf("Run output = %s", b)
	}
	if _, ok := out.(map[string]any)["count"].(int64); !ok {
		t.Errorf("count is %T, want int64", out.(map[string]any)["count"])
	}
	if len(in) != 0 {
		t.Errorf("Run modified its input: %v", in)
	}
	if got["n"] != int64(2) {
		t.Errorf("default n = %#v", got["n"])
	}
	// The default object was copied.
	if _, err := a.Run(ctx, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if got["opts"].(map[string]any)["deep"] != false || a.Input["properties"].(map[string]any)["opts"].(map[string]any)["default"].(map[string]any)["deep"] != true {
		t.Error("the default value is shared with Func")
	}

	tests := []struct {
		mode string
		want string
	}{
		{"fail", "it failed"},
		{"bad", `output of action "run.it": count: must be an integer, not a string`},
		{"nan", `output of action "run.it": invalid value at count: NaN is not a JSON number`},
		{"panic", `action "run.it" panicked: boom`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			_, err := a.Run(ctx, map[string]any{"mode": tt.mode})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Run error = %v, want %q", err, tt.want)
			}
		})
	}
	_, err = a.Run(ctx, map[string]any{"mode": "panic"})
	var perr *PanicError
	if !errors.As(err, &perr) || len(perr.Stack) == 0 || perr.Value != "boom" {
		t.Errorf("panic error = %#v", err)
	}
	_, err = a.Run(ctx, map[string]any{"n": "x"})
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Output {
		t.Errorf("bad input error = %v", err)
	}
}

func TestNormalize(t *testing.T) {
	type inner struct {
		When time.Time `json:"when"`
		N    uint16    `json:"n"`
	}
	when := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      any
		want    string // %#v of the result
		wantErr string
	}{
		{"nil", nil, "<nil>", ""},
		{"int", 3, "3", ""},
		{"uint8", uint8(3), "3", ""},
		{"uint64 max", uint64(math.MaxUint64), "", "invalid value: integer 18446744073709551615 does not fit in int64"},
		{"float32", float32(1.5), "1.5", ""},
		{"json integer", json.Number("12"), "12", ""},
		{"json fraction", json.Number("1.5"), "1.5", ""},
		{"json huge", json.Number("1e400"), "", `"1e400" is not a number`},
		{"strings", []string{"a", "b"}, `[]interface {}{"a", "b"}`, ""},
		{"nested", map[string]any{"a": []any{int32(1), map[string]int{"b": 2}}}, `map[string]interface {}{"a":[]interface {}{1, map[string]interface {}{"b":2}}}`, ""},
		{"struct", inner{When: when, N: 7}, `map[string]interface {}{"n":7, "when":"2026-07-28T10:00:00Z"}`, ""},
		{"nan in map", map[string]any{"a": []any{math.Inf(-1)}}, "", "invalid value at a[0]: -Inf is not a JSON number"},
		{"channel", make(chan int), "", "cannot convert chan int to JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Normalize error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprintf("%#v", got); s != tt.want && fmt.Sprint(got) != tt.want {
				t.Fatalf("Normalize = %s, want %s", s, tt.want)
			}
			checkJSONLike(t, got)
		})
	}
}

func checkJSONLike(t *testing.T, v any) {
	t.Helper()
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
	case []any:
		for _, e := range v {
			checkJSONLike(t, e)
		}
	case map[string]any:
		for _, e := range v {
			checkJSONLike(t, e)
		}
	default:
		t.Errorf("%T is not JSON-like", v)
	}
}

func TestCallAndHost(t *testing.T) {
	ctx := context.Background()
	if _, ok := CallFrom(ctx); ok {
		t.Fatal("CallFrom found a call in an empty context")
	}
	c := Call{RunID: "r1", Node: "delete", Position: 3}
	got, ok := CallFrom(WithCall(ctx, c))
	if !ok || got != c {
		t.Fatalf("CallFrom = %v, %v", got, ok)
	}
	if k := c.IdempotencyKey(); k != "r1/delete/3" {
		t.Fatalf("IdempotencyKey = %q", k)
	}
	if c.IdempotencyKey() == (Call{RunID: "r1", Node: "delete", Position: 4}).IdempotencyKey() {
		t.Fatal("different positions share a key")
	}

	h := HostFrom(ctx)
	if h == nil || h.FSRoot != "" || h.Log() != slog.Default() || h.Entropy() == nil {
		t.Fatalf("HostFrom(empty) = %#v", h)
	}
	if d := time.Since(h.Time()); d < 0 || d > time.Minute {
		t.Fatalf("zero Host clock is off by %v", d)
	}
	if HostFrom(WithHost(ctx, nil)) == nil {
		t.Fatal("HostFrom(nil host) = nil")
	}
	fixed := time.Unix(100, 0)
	mine := &Host{FSRoot: "/srv", Now: func() time.Time { return fixed }, Rand: strings.NewReader("x")}
	if got := HostFrom(WithHost(ctx, mine)); got != mine || !got.Time().Equal(fixed) || got.Entropy() != mine.Rand {
		t.Fatalf("HostFrom = %#v", got)
	}
}
