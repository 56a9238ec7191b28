package lang

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestExprSyntax(t *testing.T) {
	l, _ := Lookup("expr")
	tests := []struct {
		src    string
		offset int // -1: no error
	}{
		{"a.b && c", -1},
		{"a?.b ?? 'x'", -1},
		{"a +", 3},
		{"x == 1 &&\n  y ==", 16},
		{"'unterminated", 13},
		{"a.?b", 3},
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

func TestExprLimits(t *testing.T) {
	l, _ := Lookup("expr")
	env, err := l.NewEnv(nil, Options{CostLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	prg, errs := env.Compile("map(1..100, map(1..100, # * 2))", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := prg.Eval(nil); err == nil || !strings.Contains(err.Error(), "operation limit of 1000 exceeded") {
		t.Errorf("got %v, want an operation limit error", err)
	}
	prg, errs = env.Compile("len(map(1..10, # * 2))", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if v, err := prg.Eval(nil); err != nil || v != int64(10) {
		t.Errorf("got %v, %v", v, err)
	}

	big := strings.Repeat("1 + ", ExprMaxNodes) + "1"
	if _, errs := env.Compile(big, false); len(errs) == 0 || !strings.Contains(errs[0].Message, "exceeds maximum allowed nodes") {
		t.Errorf("got %v, want a node limit error", errs)
	}
}

func TestExprDeterministic(t *testing.T) {
	l, _ := Lookup("expr")
	env, err := l.NewEnv(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := env.Compile("now()", false); len(errs) == 0 || !strings.Contains(errs[0].Message, "undefined function 'now'") {
		t.Errorf("now(): got %v, want an undefined function", errs)
	}
	prg, errs := env.Compile(`date("2026-01-02 03:04:05", "2006-01-02 15:04:05")`, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v, err := prg.Eval(nil)
	if err != nil || v != "2026-01-02T03:04:05Z" {
		t.Errorf("date: got %v, %v", v, err)
	}
	prg, errs = env.Compile(`duration("90s")`, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if v, err := prg.Eval(nil); err != nil || v != (90*time.Second).String() {
		t.Errorf("duration: got %v, %v", v, err)
	}
}

// TestExprDates: date() reads a date without a zone as UTC, in every
// form, and a method on its result works (with expr.Timezone it failed at
// run time: the zone reached date() dereferenced).
func TestExprDates(t *testing.T) {
	l, _ := Lookup("expr")
	env, err := l.NewEnv(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]any{
		`date("2026-07-28 10:00:00").Hour()`:                          int64(10),
		`date("2026-07-28").Year()`:                                   int64(2026),
		`date("2026-07-28", "2006-01-02").Format("Jan 2")`:            "Jul 28",
		`date("2026-07-28 10:00", "2006-01-02 15:04", "UTC").Hour()`:  int64(10),
		`date("2026-07-28T10:00:00Z") == date("2026-07-28 10:00:00")`: true,
	} {
		prg, errs := env.Compile(src, false)
		if len(errs) > 0 {
			t.Errorf("%s: %v", src, errs)
			continue
		}
		v, err := prg.Eval(nil)
		if err != nil || fmt.Sprint(v) != fmt.Sprint(want) {
			t.Errorf("%s = %v, %v; want %v", src, v, err, want)
		}
	}
	prg, _ := env.Compile(`date("yesterday")`, false)
	if _, err := prg.Eval(nil); err == nil || !strings.Contains(err.Error(), "invalid date yesterday") {
		t.Errorf("an invalid date: %v", err)
	}
}

func TestExprNative(t *testing.T) {
	in := map[string]any{"a": []any{int64(1)}}
	out, err := exprNative(in)
	if err != nil {
		t.Fatal(err)
	}
	if !same(out, in) {
		t.Error("a JSON-like map was copied")
	}
	out, err = exprNative(map[string]any{"a": []any{1, float32(0.5), []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	l := out.(map[string]any)["a"].([]any)
	if l[0] != int64(1) || l[1] != 0.5 || l[2].([]any)[0] != "x" {
		t.Errorf("got %#v", out)
	}
	if _, err := exprNative(map[int]any{1: 1}); err == nil || !strings.Contains(err.Error(), "is not a string") {
		t.Errorf("got %v, want a key error", err)
	}
}

func TestExprRuntimeErrors(t *testing.T) {
	l, _ := Lookup("expr")
	env, err := l.NewEnv(testVars, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prg, errs := env.Compile("input.opt + 'x'", false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, err = prg.Eval(testValues())
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %q, want a one-line error", err)
	}
}

func TestExprNilConversion(t *testing.T) {
	l, _ := Lookup("expr")
	env, err := l.NewEnv(testVars, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prg, errs := env.Compile("!confirm.content.proceed", true)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	vals := testValues()
	vals["confirm"] = map[string]any{"action": "decline", "accepted": false, "content": map[string]any{}}
	_, err = prg.Eval(vals)
	want := "! needs a boolean, not null (confirm.content.proceed): is an optional field absent? " +
		"test it with confirm.content.proceed != nil, or give a default with confirm.content.proceed ?? false"
	if err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
}
