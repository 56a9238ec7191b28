package lang

import (
	"reflect"
	"strings"
	"testing"

	"cel.dev/cel-go/cel"
)

func TestCELSyntax(t *testing.T) {
	l, _ := Lookup("cel")
	tests := []struct {
		src    string
		offset int // -1: no error
	}{
		{"a.b && c", -1},
		{"a +", 3},
		{"x == 1 &&\n  y ==", 16},
		{"'unterminated", 0},
	}
	for _, tc := range tests {
		errs := l.Syntax(tc.src)
		if tc.offset < 0 {
			if len(errs) > 0 {
				t.Errorf("%q: unexpected errors %v", tc.src, errs)
			}
			continue
		}
		if len(errs) == 0 || errs[0].Offset != tc.offset {
			t.Errorf("%q: got %v, want an error at offset %d", tc.src, errs, tc.offset)
		}
	}
}

// TestCELEval evaluates with dynamically typed variables.
func TestCELEval(t *testing.T) {
	l, _ := Lookup("")
	env, err := l.NewEnv([]Var{{Name: "input"}, {Name: "q"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{
		"input": map[string]any{"n": int64(3), "amount": 1500.5, "tags": []any{"a", "b"}},
		"q":     map[string]any{"accepted": true, "content": map[string]any{"ok": true}},
	}
	tests := []struct {
		src      string
		wantBool bool
		want     any
		err      string
	}{
		{src: "input.n + 1", want: int64(4)},
		{src: "input.amount > 1000", wantBool: true, want: true},
		{src: "input.n < 3.5", wantBool: true, want: true}, // int and double compare
		{src: "q.accepted && q.content.ok", wantBool: true, want: true},
		{src: "input.tags.map(t, t + '!')", want: []any{"a!", "b!"}},
		{src: "{'a': input.n, 'b': [1, 2.5, null]}", want: map[string]any{"a": int64(3), "b": []any{int64(1), 2.5, nil}}},
		{src: "'x'.upperAscii()", want: "X"},
		{src: "input.missing", err: "input has no field 'missing': test it with has(input.missing) first"},
		{src: "input.n", wantBool: true, err: "the condition produced an integer, not a boolean"},
	}
	for _, tc := range tests {
		prg, errs := env.Compile(tc.src, tc.wantBool)
		if len(errs) > 0 {
			t.Errorf("%q: compile: %v", tc.src, errs)
			continue
		}
		got, err := prg.Eval(vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got error %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, %v; want %#v", tc.src, got, err, tc.want)
		}
	}
}

func TestCELCompileErrors(t *testing.T) {
	l, _ := Lookup("cel")
	env, err := l.NewEnv([]Var{{Name: "input"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src      string
		wantBool bool
		want     string
	}{
		{"nope.x", false, "undefined name 'nope'"},
		{"1 + 'a'", false, `cannot add an integer (1) and a string ("a")`},
		{"'text'", true, "a condition must be a boolean, not a string"},
	}
	for _, tc := range tests {
		_, errs := env.Compile(tc.src, tc.wantBool)
		if len(errs) == 0 || !strings.Contains(errs[0].Message, tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, errs, tc.want)
		}
	}
}

func TestCELCostLimit(t *testing.T) {
	l, _ := Lookup("cel")
	env, err := l.NewEnv(nil, Options{CostLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	prg, errs := env.Compile("[1,2,3,4,5,6,7,8,9,10].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x*y))", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := prg.Eval(map[string]any{}); err == nil || !strings.Contains(err.Error(), "cost limit") {
		t.Fatalf("got %v, want a cost limit error", err)
	}
}

func TestLookup(t *testing.T) {
	if _, ok := Lookup("cobol"); ok {
		t.Error("Lookup(cobol) succeeded")
	}
	if got := Names(); !reflect.DeepEqual(got, []string{"cel", "expr"}) {
		t.Errorf("Names() = %v", got)
	}
}

// TestCELCheapExpressionsUntracked checks which expressions go without
// cost tracking: those whose worst case the checker bounds far below the
// limit, and no others. For each cheap one, a tracked evaluation costs no
// more than the estimate.
func TestCELCheapExpressionsUntracked(t *testing.T) {
	l, _ := Lookup("cel")
	vars := []Var{
		{Name: "meeting", Schema: map[string]any{"type": "object", "properties": map[string]any{
			"accepted": map[string]any{"type": "boolean"},
			"content": map[string]any{"type": "object", "properties": map[string]any{
				"topic": map[string]any{"type": "string"}, "attendees": map[string]any{"type": "integer"},
				"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}}}},
		{Name: "i", Schema: map[string]any{"type": "integer"}},
		{Name: "x", Schema: map[string]any{"type": "number"}},
		{Name: "d"},
	}
	values := map[string]any{
		"meeting": map[string]any{"accepted": true, "content": map[string]any{
			"topic": strings.Repeat("long topic ", 1000), "attendees": int64(4), "tags": []any{"a", "b"}}},
		"i": int64(7), "x": 2.5, "d": map[string]any{"k": []any{int64(1), int64(2)}},
	}
	env, err := l.NewEnv(vars, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src   string
		cheap bool
	}{
		{"meeting.accepted", true},
		{"!meeting.accepted && meeting.content.attendees <= 4", true},
		{"meeting.content.topic", true},
		{"i + 1", true},
		{"i < 1000 || x > 1.5", true},
		{"size(meeting.content.tags)", true},
		{"meeting.content.topic == 'small'", true}, // bounded by the literal's size
		{"meeting.content.topic + '!'", false},
		{"meeting.content.topic.contains('x')", false},
		{"meeting.content.tags.exists(t, t == 'a')", false},
		{"meeting.content.tags.map(t, t + t)", false},
		{"[1,2,3].map(a, [1,2,3].map(b, a*b))", true},
		{"d.k", true},
	}
	for _, tc := range tests {
		prg, errs := env.Compile(tc.src, false)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.src, errs)
		}
		cp := prg.(*celProgram)
		_, det, err := cp.prg.Eval(values)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if untracked := det.ActualCost() == nil; untracked != tc.cheap {
			t.Errorf("%s: untracked %v, want %v", tc.src, untracked, tc.cheap)
		}
		if !tc.cheap {
			continue
		}
		ce := env.(*celEnv)
		ast, _ := ce.env.Compile(tc.src)
		est, err := ce.env.EstimateCost(ast, unknownSizes{})
		if err != nil {
			t.Fatal(err)
		}
		tracked, err := ce.env.Program(ast, cel.CostLimit(ce.costLimit))
		if err != nil {
			t.Fatal(err)
		}
		_, det, err = tracked.Eval(values)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := *det.ActualCost(); got > est.Max {
			t.Errorf("%s: cost %d, above its estimate %d", tc.src, got, est.Max)
		}
	}
}
