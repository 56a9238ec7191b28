package lang

import (
	"errors"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"
	"github.com/expr-lang/expr/file"
)

// wordCase is an expression error and its exact wording.
type wordCase struct {
	lang     string // "cel" or "expr"
	src      string
	wantBool bool
	want     string
	offset   int // of the compile error; -1 to skip the check
}

// compileWordings are compile errors in the flow's terms, at the columns
// the languages have always reported them.
var compileWordings = []wordCase{
	// Comparisons.
	{"cel", `input.n == "3"`, false, `cannot compare an integer (input.n) with a string ("3"): convert one side, like string(input.n) or int("3")`, 8},
	{"expr", `input.n == "3"`, false, `cannot compare an integer (input.n) with a string ("3"): convert one side, like string(input.n) or int("3")`, 8},
	{"cel", `input.n > "3"`, false, `cannot compare an integer (input.n) with a string ("3"): convert one side, like string(input.n) or int("3")`, 8},
	{"expr", `input.n > "3"`, false, `cannot compare an integer (input.n) with a string ("3"): convert one side, like string(input.n) or int("3")`, 8},
	{"cel", `input.amount < input.tags`, false, `cannot compare a number (input.amount) with a list of strings (input.tags)`, 13},
	{"cel", `input.tags < input.tags`, false, `cannot order lists of strings with <`, 11},
	{"expr", `input.tags < input.tags`, false, `cannot order lists of strings with <`, 11},
	{"cel", `input.address == 1`, false, `cannot compare an object (input.address) with an integer (1)`, 14},

	// Arithmetic, and strings joined with numbers.
	{"cel", `input.n + input.amount`, false, `cannot add an integer (input.n) and a number (input.amount): integers and numbers do not mix in arithmetic; convert one side, like double(input.n) or int(input.amount)`, 8},
	{"cel", `input.amount * input.n`, false, `cannot multiply a number (input.amount) by an integer (input.n): integers and numbers do not mix in arithmetic; convert one side, like int(input.amount) or double(input.n)`, 13},
	{"cel", `'n=' + input.n`, false, `cannot add a string ("n=") and an integer (input.n): to join them as text, convert the other side, like string(input.n)`, 5},
	{"expr", `"n=" + input.n`, false, `cannot add a string ("n=") and an integer (input.n): to join them as text, convert the other side, like string(input.n)`, 5},
	{"cel", `input.amount + '!'`, false, `cannot add a number (input.amount) and a string ("!"): to join them as text, convert the other side, like string(input.amount)`, 13},
	{"cel", `input.tags + 1`, false, `cannot add a list of strings (input.tags) and an integer (1): + joins two lists`, 11},
	{"cel", `input.tags + 'x'`, false, `cannot add a list of strings (input.tags) and a string ("x"): + joins two lists; to add an item, put it in a list, like input.tags + ["x"]`, 11},
	{"expr", `input.tags + "x"`, false, `cannot add a list of strings (input.tags) and a string ("x"): concat() joins lists; to add an item, put it in a list, like concat(input.tags, ["x"])`, 11},
	{"expr", `input.tags + ["a"]`, false, `cannot add a list of strings (input.tags) and a list of strings (["a"]): join lists with concat(input.tags, ["a"])`, 11},
	{"cel", `-input.tags`, false, `cannot negate a list of strings (input.tags): - applies to numbers`, 0},

	// Membership.
	{"cel", `input.n in input.tags`, false, `cannot look for an integer (input.n) in a list of strings (input.tags)`, 8},
	{"expr", `input.n in input.tags`, false, `cannot look for an integer (input.n) in a list of strings (input.tags)`, 8},
	{"cel", `'a' in input.n`, false, `in needs a list or a map on its right, not an integer (input.n)`, 4},
	{"expr", `"a" in input.n`, false, `in needs a list or a map on its right, not an integer (input.n)`, 4},
	{"cel", `1 in input.extra`, false, `cannot look for an integer (1) among the keys of a map of integers (input.extra), which are strings`, 2},

	// Indexing and fields.
	{"cel", `input.tags['a']`, false, `cannot index a list of strings (input.tags) with a string ("a"): a list's index is an integer: convert it, like int("a")`, 10},
	{"expr", `input.tags["a"]`, false, `cannot index a list of strings (input.tags) with a string ("a"): a list's index is an integer: convert it, like int("a")`, 11},
	{"cel", `input.extra[1]`, false, `cannot index a map of integers (input.extra) with an integer (1): its keys are strings: convert it, like string(1)`, 11},
	{"expr", `input.extra[1]`, false, `cannot index a map of integers (input.extra) with an integer (1): its keys are strings: convert it, like string(1)`, 12},
	{"cel", `input.address['city']`, false, `cannot index an object (input.address): select its fields with a dot, or convert it to a map with dyn(input.address)`, 13},
	{"cel", `input.n.x`, false, `cannot select field 'x' from an integer (input.n): only objects and maps have fields`, 7},
	{"expr", `input.n.x`, false, `cannot select field 'x' from an integer (input.n): only objects and maps have fields`, 8},
	{"cel", `input.adress.city`, false, `undefined field 'adress' (did you mean "address"?)`, 6},
	{"expr", `input.adress.city`, false, `undefined field 'adress' (did you mean "address"?)`, 6},
	{"cel", `input.tags.map(t, input.address)[0].cty`, false, `undefined field 'cty' (did you mean "city"?)`, 36},

	// has() and size().
	{"cel", `has(input.n.x)`, false, `has() tests a field of an object or a map, not of an integer (input.n)`, 3},
	{"cel", `has(input.adress)`, false, `undefined field 'adress' (did you mean "address"?)`, 3},
	{"cel", `size(input.n)`, false, `cannot call size() with an integer (input.n): it takes a string, a list, a map or a bytes value`, 4},
	{"cel", `size(input.address)`, false, `cannot call size() with an object (input.address): it takes a string, a list, a map or a bytes value; an object is not a map: convert it with dyn(...), like size(dyn(input.address))`, 4},
	{"expr", `len(input.n)`, false, `cannot call len() with an integer (input.n)`, 0},

	// Functions, conversions and names.
	{"cel", `sise(input.tags)`, false, `undefined function 'sise' (did you mean "size"?)`, 0},
	{"cel", `input.tags.sise()`, false, `undefined function 'sise' (did you mean "size"?)`, 11},
	{"cel", `'x'.upperAsci()`, false, `undefined function 'upperAsci' (did you mean "upperAscii"?)`, 4},
	{"expr", `lenn(input.tags)`, false, `undefined function 'lenn' (did you mean "len"?)`, 0},
	{"expr", `upper(input.n)`, false, `cannot call upper() with an integer (input.n): it takes a string`, 12},
	{"cel", `int(input.tags)`, false, `cannot convert a list of strings (input.tags) to an integer`, 3},
	{"expr", `int(input.tags)`, false, `cannot convert a list of strings (input.tags) to an integer`, 0},
	{"cel", `input.n.upperAscii()`, false, `cannot call upperAscii() on an integer (input.n): it is called on a string`, 18},
	{"cel", `confrm.accepted`, false, `undefined name 'confrm' (did you mean "confirm"?)`, 0},
	{"expr", `confrm.accepted`, false, `undefined name 'confrm' (did you mean "confirm"?)`, 0},

	// Booleans.
	{"cel", `input.n && true`, false, `&& needs a boolean on each side, not an integer (input.n): compare it, like input.n > 0`, 5},
	{"expr", `input.n && true`, false, `&& needs a boolean on each side, not an integer (input.n): compare it, like input.n > 0`, 8},
	{"cel", `!input.tags`, false, `! needs a boolean, not a list of strings (input.tags): test its size, like size(input.tags) > 0`, 0},
	{"expr", `not input.tags`, false, `not needs a boolean, not a list of strings (input.tags): test its size, like len(input.tags) > 0`, 0},
	{"cel", `input.n ? 1 : 2`, false, `the condition of ?: must be a boolean, not an integer (input.n): compare it, like input.n > 0`, 8},
	{"expr", `input.n ? 1 : 2`, false, `the condition of ?: must be a boolean, not an integer (input.n): compare it, like input.n > 0`, 6},
	{"cel", `input.tags.all(t, t)`, false, `the predicate of all() must be a boolean, not a string (t): compare it, like t != ""`, 18},
	{"expr", `all(input.tags, #)`, false, `the predicate of all() must be a boolean, not a string (#): compare it, like # != ""`, 16},
	{"cel", `input.n.map(x, x)`, false, `map() needs a list or a map, not an integer (input.n)`, 5},
	{"expr", `all(input.n, # > 1)`, false, `all() needs a list, not an integer (input.n)`, 10},
	{"cel", `input.address.city`, true, `a condition must be a boolean, not a string: compare it, like input.address.city != ""`, 0},
	{"expr", `input.tags`, true, `a condition must be a boolean, not a list of strings: test its size, like len(input.tags) > 0`, 0},
}

func TestCompileWording(t *testing.T) {
	envs := testEnvs(t)
	for _, tc := range compileWordings {
		_, errs := envs[tc.lang].Compile(tc.src, tc.wantBool)
		if len(errs) != 1 {
			t.Errorf("%s %q: got %v, want one error", tc.lang, tc.src, errs)
			continue
		}
		if errs[0].Message != tc.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tc.lang, tc.src, errs[0].Message, tc.want)
		}
		if tc.offset >= 0 && errs[0].Offset != tc.offset {
			t.Errorf("%s %q: offset %d, want %d", tc.lang, tc.src, errs[0].Offset, tc.offset)
		}
	}
}

// runtimeWordings are evaluation errors, mostly of dynamically typed
// values (free) and absent optional fields (input.opt), evaluated with
// testValues.
var runtimeWordings = []wordCase{
	{"cel", `free.deep[0] == 1 && free.deep[0] < 'x'`, false, `cannot compare an integer (free.deep[0]) with a string ("x"): convert one side, like string(free.deep[0]) or int("x")`, 34},
	{"expr", `free.deep[0] < "x"`, false, `cannot compare an integer (free.deep[0]) with a string ("x"): convert one side, like string(free.deep[0]) or int("x")`, 13},
	{"cel", `free.deep[0] + 'x'`, false, `cannot add an integer (free.deep[0]) and a string ("x"): to join them as text, convert the other side, like string(free.deep[0])`, 13},
	{"expr", `free.deep[0] + "x"`, false, `cannot add an integer (free.deep[0]) and a string ("x"): to join them as text, convert the other side, like string(free.deep[0])`, 13},
	{"cel", `free.deep + 1`, false, `cannot add a list of integers (free.deep) and an integer (1): + joins two lists; to add an item, put it in a list, like free.deep + [1]`, 10},
	{"cel", `'a' in free.deep[0]`, false, `in needs a list or a map on its right, not an integer (free.deep[0])`, 4},
	{"expr", `"a" in free.deep[0]`, false, `in needs a list or a map on its right, not an integer (free.deep[0])`, 4},
	{"cel", `free.deep[5]`, false, `index 5 is out of range: free.deep has 1 item`, 9},
	{"expr", `free.deep[5]`, false, `index 5 is out of range: free.deep has 1 item`, 9},
	{"cel", `free.deep['a']`, false, `cannot index a list of integers (free.deep) with a string ("a"): a list's index is an integer: convert it, like int("a")`, 9},
	{"expr", `free.deep["a"]`, false, `cannot index a list of integers (free.deep) with a string ("a"): a list's index is an integer: convert it, like int("a")`, 9},
	{"cel", `free.nope`, false, `free has no field 'nope': test it with has(free.nope) first`, 4},
	{"cel", `free['nope']`, false, `free has no key 'nope': test it with 'nope' in free first`, 4},
	{"expr", `free.nope.x`, false, `cannot select field 'x' from null (free.nope): only objects and maps have fields; to read it only when free.nope is set, write free.nope?.x`, 10},
	{"cel", `free.deep[0].x`, false, `cannot select field 'x' from an integer (free.deep[0]): only objects and maps have fields`, 12},
	{"cel", `has(free.deep.x)`, false, `has() tests a field of an object or a map, not of a list of integers (free.deep)`, 3},
	{"cel", `size(free.deep[0])`, false, `cannot call size() with an integer (free.deep[0]): it takes a string, a list, a map or a bytes value`, 4},
	{"expr", `upper(free.deep[0])`, false, `cannot call upper() with an integer (free.deep[0]): it takes a string`, 0},
	{"cel", `input.opt + 'x'`, false, `input has no field 'opt' (an optional field left out, or an answer not given?): test it with has(input.opt), or read it with input.?opt.orValue(...)`, 5},
	{"expr", `input.opt + "x"`, false, `cannot add null (input.opt) and a string ("x"): is an optional field absent? test it with input.opt != nil, or give a default with input.opt ?? ""`, 10},
	{"cel", `free.deep[0] && true`, false, `&& needs a boolean on each side, not an integer (free.deep[0]): compare it, like free.deep[0] > 0`, 13},
	{"expr", `free.deep[0] % 0`, false, `division by zero: the right side of % is 0`, 13},
	{"cel", `free.deep`, true, `the condition produced a list of integers, not a boolean`, 0},
	{"expr", `free.nope`, true, `the condition produced null, not a boolean: is an optional field absent? test it with free.nope != nil, or give a default with free.nope ?? false`, 0},

	// Failures the types do not explain keep the library's message.
	{"cel", `free.deep[0] / 0`, false, `division by zero`, -1},
	{"expr", `len(free.deep[0])`, false, `invalid argument for len (type int64)`, -1},
	{"expr", `map(free.deep, # + "x")`, false, `invalid operation: int64 + string`, -1},
}

func TestRuntimeWording(t *testing.T) {
	envs := testEnvs(t)
	for _, tc := range runtimeWordings {
		prg, errs := envs[tc.lang].Compile(tc.src, tc.wantBool)
		if len(errs) > 0 {
			t.Errorf("%s %q: compile: %v", tc.lang, tc.src, errs)
			continue
		}
		_, err := prg.Eval(testValues())
		var ev *EvalError
		if !errors.As(err, &ev) {
			t.Errorf("%s %q: got %v, want an *EvalError", tc.lang, tc.src, err)
			continue
		}
		if ev.Message != tc.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tc.lang, tc.src, ev.Message, tc.want)
		}
		if tc.offset >= 0 && ev.Offset != tc.offset {
			t.Errorf("%s %q: offset %d, want %d", tc.lang, tc.src, ev.Offset, tc.offset)
		}
	}
}

// TestEvalErrorKeepsTheLibraryError checks that an EvalError unwraps to
// the language's own error.
func TestEvalErrorKeepsTheLibraryError(t *testing.T) {
	envs := testEnvs(t)
	prg, _ := envs["cel"].Compile("free.deep[0] + 'x'", false)
	_, err := prg.Eval(testValues())
	var te *types.Err
	if !errors.As(err, &te) {
		t.Errorf("cel: %v does not unwrap to a *types.Err", err)
	}
	prg, _ = envs["expr"].Compile(`free.deep[0] + "x"`, false)
	_, err = prg.Eval(testValues())
	var fe *file.Error
	if !errors.As(err, &fe) {
		t.Errorf("expr: %v does not unwrap to a *file.Error", err)
	}
}

// TestUnboundVariable checks the wording for a declared variable that
// has no value yet (CEL; expr reads nil).
func TestUnboundVariable(t *testing.T) {
	prg, errs := testEnvs(t)["cel"].Compile("confirm.accepted", true)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	vals := testValues()
	delete(vals, "confirm")
	_, err := prg.Eval(vals)
	if want := "confirm has no value yet: the node that sets it has not run"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func testEnvs(t *testing.T) map[string]Env {
	t.Helper()
	envs := map[string]Env{}
	for _, name := range Names() {
		l, _ := Lookup(name)
		env, err := l.NewEnv(testVars, Options{})
		if err != nil {
			t.Fatal(err)
		}
		envs[name] = env
	}
	return envs
}

func TestTypeNames(t *testing.T) {
	tests := []struct {
		t    *types.Type
		want string
	}{
		{types.IntType, "an integer"},
		{types.UintType, "an integer"},
		{types.DoubleType, "a number"},
		{types.StringType, "a string"},
		{types.BoolType, "a boolean"},
		{types.NullType, "null"},
		{types.DynType, "any value"},
		{types.TimestampType, "a timestamp"},
		{types.DurationType, "a duration"},
		{types.NewListType(types.StringType), "a list of strings"},
		{types.NewListType(types.DynType), "a list"},
		{types.NewListType(types.NewListType(types.IntType)), "a list of lists of integers"},
		{types.NewListType(types.NewMapType(types.StringType, types.DynType)), "a list of maps"},
		{types.NewMapType(types.StringType, types.DynType), "a map"},
		{types.NewMapType(types.StringType, types.IntType), "a map of integers"},
		{types.NewOptionalType(types.StringType), "an optional string"},
		{types.NewObjectType("object(input)"), "an object"},
		{types.NewListType(types.NewObjectType("object(x)")), "a list of objects"},
		{types.NewTypeParamType("A"), "any value"},
	}
	for _, tc := range tests {
		if got := aTypeName(tc.t); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.t, got, tc.want)
		}
	}
}

// TestTypeNamesAgree checks that a schema's type reads the same whichever
// language checks it: CEL's types and expr's natures go through one
// naming function.
func TestTypeNamesAgree(t *testing.T) {
	schemas := []map[string]any{
		ty("integer"), ty("number"), ty("string"), ty("boolean"), nil,
		{"type": "array", "items": ty("string")},
		{"type": "array", "items": map[string]any{"type": "array", "items": ty("integer")}},
		{"type": "object", "additionalProperties": ty("integer")},
		ty("object"), ty("array"),
		obj(map[string]any{"a": ty("integer")}),
	}
	prov := &celProvider{objects: map[string]*celObject{}}
	for _, s := range schemas {
		tp := fromSchema(s, "v")
		cel := typeName(prov.celType(tp))
		n := exprType(tp).Nature()
		if got := typeName(natureType(&n)); got != cel {
			t.Errorf("%v: expr says %q, CEL %q", s, got, cel)
		}
	}
}

func TestValueTypeName(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{true, "a boolean"},
		{int64(1), "an integer"},
		{1.5, "a number"},
		{"s", "a string"},
		{[]any{"a", "b"}, "a list of strings"},
		{[]any{"a", int64(1)}, "a list"},
		{[]any{}, "a list"},
		{map[string]any{"a": int64(1)}, "a map of integers"},
		{map[string]any{}, "a map"},
	}
	for _, tc := range tests {
		if got := ValueTypeName(tc.v); got != tc.want {
			t.Errorf("%#v: got %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestConcurrentErrors words compile and run-time errors from many
// goroutines at once (run with -race): the checker, the state-tracking
// program and the function names are built once and shared.
func TestConcurrentErrors(t *testing.T) {
	for _, name := range Names() {
		l, _ := Lookup(name)
		env, err := l.NewEnv(testVars, Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := map[string]string{"cel": "free.deep[0] + 'x'", "expr": `free.deep[0] + "x"`}[name]
		prg, errs := env.Compile(src, false)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		done := make(chan error, 8)
		for i := 0; i < 8; i++ {
			go func() {
				if _, errs := env.Compile(`input.n == "3"`, false); len(errs) != 1 {
					done <- errorString("no compile error")
					return
				}
				_, err := prg.Eval(testValues())
				done <- err
			}()
		}
		for i := 0; i < 8; i++ {
			if err := <-done; err == nil || err.Error()[:10] != "cannot add" {
				t.Errorf("%s: got %v", name, err)
			}
		}
	}
}

// TestTextOnlyErrorsKeepTheirWording checks that errors the libraries
// report only as text (syntax errors, a bad regular expression) keep
// their messages and positions.
func TestTextOnlyErrorsKeepTheirWording(t *testing.T) {
	envs := testEnvs(t)
	tests := []struct {
		lang, src, want string
		offset          int
	}{
		{"cel", "input.n +", "Syntax error: mismatched input '<EOF>' expecting", 9},
		{"expr", "input.n +", "unexpected token EOF", 9},
		{"expr", `input.address.city matches "("`, "error parsing regexp: missing closing ): `(`", 19},
	}
	for _, tc := range tests {
		_, errs := envs[tc.lang].Compile(tc.src, false)
		if len(errs) == 0 || !strings.HasPrefix(errs[0].Message, tc.want) || errs[0].Offset != tc.offset {
			t.Errorf("%s %q: got %v, want %q at %d", tc.lang, tc.src, errs, tc.want, tc.offset)
		}
	}
}

// TestCompileErrorSpan checks the Length and Suggestion of the errors
// about a misspelt name, field or function: the text the error spans, and
// what a mechanical fix replaces it with.
func TestCompileErrorSpan(t *testing.T) {
	envs := testEnvs(t)
	for _, tc := range []struct {
		lang, src          string
		offset, length     int
		suggestion, spells string
	}{
		{"cel", `confrm.accepted`, 0, 6, "confirm", "confrm"},
		{"expr", `confrm.accepted`, 0, 6, "confirm", "confrm"},
		{"cel", `input.adress.city`, 6, 6, "address", "adress"},
		{"expr", `input.adress.city`, 6, 6, "address", "adress"},
		{"cel", "input.address.\n  cty", 17, 3, "city", "cty"},
		{"expr", "input.address.\n  cty", 17, 3, "city", "cty"},
		{"cel", `input.?adress`, 7, 6, "address", "adress"},
		{"cel", `1 + sise(input.tags)`, 4, 4, "size", "sise"},
		{"cel", `input.tags.sise()`, 11, 4, "size", "sise"},
		{"expr", `lenn(input.tags)`, 0, 4, "len", "lenn"},
		{"cel", `input.qqqqqqqq`, 6, 8, "", "qqqqqqqq"},
		{"cel", `input.n.x`, 7, 0, "", ""}, // not a misspelling: no span
	} {
		_, errs := envs[tc.lang].Compile(tc.src, false)
		if len(errs) != 1 {
			t.Errorf("%s %q: got %v, want one error", tc.lang, tc.src, errs)
			continue
		}
		e := errs[0]
		if e.Offset != tc.offset || e.Length != tc.length || e.Suggestion != tc.suggestion {
			t.Errorf("%s %q: offset %d, length %d, suggestion %q; want %d, %d, %q",
				tc.lang, tc.src, e.Offset, e.Length, e.Suggestion, tc.offset, tc.length, tc.suggestion)
		}
		if rs := []rune(tc.src); e.Length > 0 && string(rs[e.Offset:e.Offset+e.Length]) != tc.spells {
			t.Errorf("%s %q: spans %q, want %q", tc.lang, tc.src, string(rs[e.Offset:e.Offset+e.Length]), tc.spells)
		}
	}
}
