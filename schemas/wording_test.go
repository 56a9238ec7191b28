package schemas

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// wordingCase is a schema, a value that fails it (JSON text, or a Go
// value when value is set) and the violations, joined by "; ".
type wordingCase struct {
	name   string
	schema string
	json   string
	value  any
	want   string
}

// checkWording validates each case's value against its schema and
// compares the violations.
func checkWording(t *testing.T, tests []wordingCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := jsonx.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			s := compileForm(t, doc.(map[string]any))
			v := tt.value
			if tt.json != "" {
				var err error
				if v, err = jsonx.Parse([]byte(tt.json)); err != nil {
					t.Fatal(err)
				}
			}
			vs := s.Validate(v)
			parts := make([]string, len(vs))
			for i, x := range vs {
				parts[i] = x.String()
			}
			if got := strings.Join(parts, "; "); got != tt.want {
				t.Errorf("Validate(%s)\n got %s\nwant %s", tt.json, got, tt.want)
			}
		})
	}
}

func TestWordingTypes(t *testing.T) {
	checkWording(t, []wordingCase{
		{"string", `{"type":"string"}`, `3`, nil, "must be a string, not an integer"},
		{"integer", `{"type":"integer"}`, `"3"`, nil, "must be an integer, not a string"},
		{"fraction as integer", `{"type":"integer"}`, `2.5`, nil, "must be an integer, not a fractional number"},
		{"fraction as string", `{"type":"string"}`, `2.5`, nil, "must be a string, not a number"},
		{"boolean", `{"type":"boolean"}`, `"yes"`, nil, "must be a boolean, not a string"},
		{"object", `{"type":"object"}`, `[]`, nil, "must be an object, not an array"},
		{"array", `{"type":"array"}`, `{}`, nil, "must be an array, not an object"},
		{"null", `{"type":"null"}`, `false`, nil, "must be null, not a boolean"},
		{"nullable", `{"type":["string","null"]}`, `1`, nil, "must be a string or null, not an integer"},
		{"three types", `{"type":["string","number","null"]}`, `[]`, nil, "must be a string, a number or null, not an array"},
		{"NaN", `{"type":"number"}`, "", math.NaN(), "must be a JSON number, not NaN"},
		{"infinity", `{"type":"number"}`, "", math.Inf(-1), "must be a JSON number, not -Inf"},
		{"Go type", `{"type":"array"}`, "", []string{"secret"}, "is not a JSON value (Go type []string)"},
	})
}

func TestWordingValues(t *testing.T) {
	checkWording(t, []wordingCase{
		{"enum of words", `{"enum":["dev","staging","production"]}`, `"prod"`, nil, "must be one of dev, staging, production"},
		{"enum mixed", `{"enum":[1,"two"]}`, `2`, nil, `must be one of 1, "two"`},
		{"enum of phrases", `{"enum":["a b","c"]}`, `"x"`, nil, `must be one of "a b", "c"`},
		{"enum of number-like strings", `{"enum":["1","2"]}`, `1`, nil, `must be one of "1", "2"`},
		{"enum of one", `{"enum":["fast"]}`, `"slow"`, nil, `must be "fast"`},
		{"enum of objects", `{"enum":[{"a":1},[1]]}`, `1`, nil, `must be one of {"a":1}, [1]`},
		{"enum keeps <&>", `{"enum":["<a>","&"]}`, `1`, nil, `must be one of "<a>", "&"`},
		{"const string", `{"const":"fast"}`, `"slow"`, nil, `must be "fast"`},
		{"const number", `{"const":3}`, `4`, nil, "must be 3"},
		{"const object", `{"const":{"a":[1,null]}}`, `{}`, nil, `must be {"a":[1,null]}`},
		{"many choices", `{"enum":["a0","a1","a2","a3","a4","a5","a6","a7","a8","a9","b0","b1","b2","b3","b4","b5","b6","b7","b8","b9","c0","c1"]}`, `"z"`, nil,
			"must be one of a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 (and 2 more)"},
	})
}

func TestWordingNumbers(t *testing.T) {
	checkWording(t, []wordingCase{
		{"minimum", `{"minimum":0}`, `-1`, nil, "must be at least 0"},
		{"maximum", `{"maximum":67108864}`, `67108865`, nil, "must be at most 67108864"},
		{"maximum of a fraction", `{"maximum":1.5}`, `2`, nil, "must be at most 1.5"},
		{"huge maximum", `{"maximum":10}`, "", int64(math.MaxInt64), "must be at most 10"},
		{"exclusive minimum", `{"exclusiveMinimum":0}`, `0`, nil, "must be greater than 0"},
		{"exclusive maximum", `{"exclusiveMaximum":1.5}`, `1.5`, nil, "must be less than 1.5"},
		{"multiple of", `{"multipleOf":0.5}`, `0.7`, nil, "must be a multiple of 0.5"},
		{"small bound", `{"minimum":0.000001}`, `0`, nil, "must be at least 0.000001"},
		{"tiny bound", `{"minimum":1e-9}`, `0`, nil, "must be at least 1e-9"},
		{"big integer bound", `{"maximum":9223372036854775806}`, "", int64(math.MaxInt64), "must be at most 9223372036854775806"},
		{"huge bound", `{"minimum":1e300}`, `1`, nil, "must be at least 1e+300"},
	})
}

func TestWordingStrings(t *testing.T) {
	checkWording(t, []wordingCase{
		{"empty", `{"minLength":1}`, `""`, nil, "must not be empty"},
		{"min length", `{"minLength":2}`, `"x"`, nil, "must be at least 2 characters long"},
		{"max length", `{"maxLength":1}`, `"xy"`, nil, "must be at most 1 character long"},
		{"max length 0", `{"maxLength":0}`, `"x"`, nil, "must be empty"},
		{"pattern", `{"pattern":"^\\d+$"}`, `"x"`, nil, `must match the pattern "^\d+$"`},
		{"pattern with a quote", `{"pattern":"^\"$"}`, `"x"`, nil, `must match the pattern "^\"$"`},
		{"email", `{"format":"email"}`, `"no-at"`, nil, "is not a valid email address"},
		{"date", `{"format":"date"}`, `"tomorrow"`, nil, "is not a valid date (like 2026-07-28)"},
		{"date-time", `{"format":"date-time"}`, `"yesterday"`, nil, "is not a valid date-time (like 2026-07-28T10:00:00Z)"},
		{"time", `{"format":"time"}`, `"noon"`, nil, "is not a valid time (like 10:00:00Z)"},
		{"uri", `{"format":"uri"}`, `"/relative"`, nil, "is not a valid absolute URI (like https://example.com/page)"},
		{"uuid", `{"format":"uuid"}`, `"x"`, nil, "is not a valid UUID (like 123e4567-e89b-12d3-a456-426614174000)"},
		{"ipv4", `{"format":"ipv4"}`, `"1.2.3"`, nil, "is not a valid IPv4 address (like 192.0.2.1)"},
		{"hostname", `{"format":"hostname"}`, `"-x-"`, nil, "is not a valid host name"},
		{"duration", `{"format":"duration"}`, `"3 days"`, nil, "is not a valid duration (like P3DT4H)"},
		{"regex", `{"format":"regex"}`, `"("`, nil, "is not a valid regular expression"},
		{"value never echoed", `{"minLength":40,"pattern":"^[0-9]+$"}`, `"hunter2"`, nil,
			`must be at least 40 characters long; must match the pattern "^[0-9]+$"`},
	})
}

func TestWordingObjects(t *testing.T) {
	checkWording(t, []wordingCase{
		{"required", `{"required":["a","b"]}`, `{"a":1}`, nil, "b: is required"},
		{"not allowed", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"z":2}`, nil, "z: is not allowed"},
		{"false property", `{"properties":{"a":false}}`, `{"a":1}`, nil, "a: is not allowed"},
		{"unevaluated", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"z":1}`, nil, "z: is not allowed"},
		{"dependent required", `{"dependentRequired":{"card":["cvv"]}}`, `{"card":"x"}`, nil, "cvv: is required when card is given"},
		{"nested dependent", `{"properties":{"pay":{"dependentRequired":{"card":["cvv"]}}}}`, `{"pay":{"card":1}}`, nil, "pay.cvv: is required when pay.card is given"},
		{"min properties", `{"minProperties":2}`, `{"a":1}`, nil, "must have at least 2 properties"},
		{"max properties", `{"maxProperties":1}`, `{"a":1,"b":2}`, nil, "must have at most 1 property"},
		{"property names", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ok":1,"Not ok":2}`, nil, `["Not ok"]: property name must match the pattern "^[a-z]+$"`},
		{"property names enum", `{"properties":{"h":{"propertyNames":{"enum":["a","b"]}}}}`, `{"h":{"c":1}}`, nil, "h.c: property name must be one of a, b"},
		{"property names false", `{"propertyNames":false}`, `{"a":1}`, nil, "a: property name is not allowed"},
		{"dependent schema", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, nil, "b: is required"},
		{"if then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"a":1}`, nil, "b: is required"},
	})
}

func TestWordingArrays(t *testing.T) {
	checkWording(t, []wordingCase{
		{"min items", `{"minItems":2}`, `[1]`, nil, "must have at least 2 items"},
		{"min items 1", `{"minItems":1}`, `[]`, nil, "must have at least 1 item"},
		{"max items", `{"maxItems":3}`, `[1,2,3,4]`, nil, "must have at most 3 items"},
		{"max items 0", `{"maxItems":0}`, `[1]`, nil, "must be empty"},
		{"unique", `{"uniqueItems":true}`, `[1,2,1]`, nil, "must not contain duplicates ([0] and [2] are equal)"},
		{"items", `{"items":{"type":"string"}}`, `["a",2]`, nil, "[1]: must be a string, not an integer"},
		{"past the prefix", `{"prefixItems":[{}],"items":false}`, `[1,2]`, nil, "[1]: is not allowed"},
		{"contains const", `{"contains":{"const":"x"}}`, `["a"]`, nil, `must contain "x"`},
		{"contains enum", `{"contains":{"enum":["x","y"]}}`, `[]`, nil, "must contain one of x, y"},
		{"contains type", `{"contains":{"type":"integer"}}`, `["a"]`, nil, "must contain an integer"},
		{"contains other", `{"contains":{"minimum":3}}`, `[1]`, nil, `must contain an item that matches its "contains" schema`},
		{"min contains", `{"contains":{"const":1},"minContains":2}`, `[1]`, nil, "must contain 1 at least twice"},
		{"max contains", `{"contains":{"const":1},"maxContains":1}`, `[1,1]`, nil, "must contain 1 at most once"},
		{"max contains other", `{"contains":{"minimum":1},"maxContains":3}`, `[1,1,1,1]`, nil, `must contain at most 3 items that match its "contains" schema`},
		{"draft 7 additional items", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, `[1,2,3]`, nil, "must have at most 1 item"},
	})
}

func TestWordingAlternatives(t *testing.T) {
	checkWording(t, []wordingCase{
		{"titled enum", `{"type":"string","oneOf":[{"const":"dev","title":"Dev"},{"const":"staging","title":"Staging"},{"const":"production","title":"Production"}]}`,
			`"prod"`, nil, "must be one of dev, staging, production"},
		{"titled enum, wrong type", `{"type":"string","oneOf":[{"const":"dev"},{"const":"staging"}]}`, `1`, nil, "must be a string, not an integer"},
		{"titled multi-select", `{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}`,
			`["a","c"]`, nil, "[1]: must be one of a, b"},
		{"enum branches", `{"anyOf":[{"enum":["a","b"]},{"const":"c"},{"enum":["a"]}]}`, `"z"`, nil, "must be one of a, b, c"},
		{"types", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `true`, nil, "must be a string or an integer, not a boolean"},
		{"nullable enum", `{"anyOf":[{"enum":["low","high"]},{"type":"null"}]}`, `"mid"`, nil, "must be one of low, high, or null"},
		{"one value or a type", `{"oneOf":[{"const":"auto"},{"type":"integer"}]}`, `"x"`, nil, `must be "auto" or an integer`},
		{"discriminated", `{"oneOf":[{"properties":{"kind":{"const":"a"}}},{"properties":{"kind":{"const":"b"}}}]}`,
			`{"kind":"c"}`, nil, "kind: must be one of a, b"},
		{"mixed", `{"anyOf":[{"type":"string","minLength":3},{"type":"integer"}]}`, `"ab"`, nil,
			"matches none of its alternatives (must be at least 3 characters long; or must be an integer, not a string)"},
		{"mixed fields", `{"oneOf":[{"required":["a"]},{"required":["b","c"]}]}`, `{}`, nil,
			"matches none of its alternatives (a is required; or b is required and c is required)"},
		{"mixed items", `{"anyOf":[{"items":{"type":"string"}},{"maxItems":0}]}`, `[1]`, nil,
			"matches none of its alternatives (item [0] must be a string, not an integer; or must be empty)"},
		{"nested alternatives", `{"anyOf":[{"anyOf":[{"const":"a"},{"const":"b"}]},{"const":"c"}]}`, `"z"`, nil, "must be one of a, b, c"},
		{"matched twice", `{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `1`, nil,
			"must match exactly one of its alternatives, but matches the 1st and the 2nd"},
		{"all of", `{"allOf":[{"minimum":2},{"multipleOf":2}]}`, `1`, nil, "must be a multiple of 2; must be at least 2"},
		{"not const", `{"not":{"const":"root"}}`, `"root"`, nil, `must not be "root"`},
		{"not enum", `{"properties":{"a b":{"not":{"enum":["x","y"]}}}}`, `{"a b":"x"}`, nil, `["a b"]: must not be one of x, y`},
		{"not type", `{"not":{"type":["string","null"]}}`, `null`, nil, "must not be a string or null"},
		{"not other", `{"not":{"minimum":3}}`, `4`, nil, `must not match its "not" schema`},
		{"ref", `{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":"1"}`, nil, "a: must be an integer, not a string"},
		{"not under a ref", `{"$defs":{"n":{"not":{"const":0}}},"items":{"$ref":"#/$defs/n"}}`, `[1,0]`, nil, "[1]: must not be 0"},
	})
}

func TestWordingPaths(t *testing.T) {
	checkWording(t, []wordingCase{
		{"array item path", `{"properties":{"list":{"items":{"properties":{"name":{"minLength":2}},"required":["name"]}}}}`,
			`{"list":[{"name":"ok"},{"name":"x"},{}]}`, nil, "list[1].name: must be at least 2 characters long; list[2].name: is required"},
		{"odd keys quoted", `{"additionalProperties":{"type":"string"}}`, `{"a.b":1,"plain":2,"":3,"x y":4,"q\"":5}`, nil,
			`[""]: must be a string, not an integer; ["a.b"]: must be a string, not an integer; plain: must be a string, not an integer; ["q\""]: must be a string, not an integer; ["x y"]: must be a string, not an integer`},
		{"nested odd keys", `{"properties":{"headers":{"additionalProperties":{"type":"string"}}}}`, `{"headers":{"x.y":1,"x-n":2}}`, nil,
			`headers.x-n: must be a string, not an integer; headers["x.y"]: must be a string, not an integer`},
		{"key that looks like an index", `{"properties":{"m":{"additionalProperties":{"type":"string"}}}}`, `{"m":{"1":1}}`, nil, "m.1: must be a string, not an integer"},
		{"indexes sort as numbers", `{"items":{"type":"string"}}`, `[1,"a","a","a","a","a","a","a","a","a",2]`, nil,
			"[0]: must be a string, not an integer; [10]: must be a string, not an integer"},
		{"required at the property", `{"properties":{"a":{"required":["b.c"]}}}`, `{"a":{}}`, nil, `a["b.c"]: is required`},
		{"every violation", `{"properties":{"mode":{"const":"fast"},"path":{}},"required":["path","root"],"additionalProperties":false}`,
			`{"mode":"slow","extra":true}`, nil, `extra: is not allowed; mode: must be "fast"; path: is required; root: is required`},
	})
}

func TestRatText(t *testing.T) {
	for _, tt := range []struct {
		r    *big.Rat
		want string
	}{
		{big.NewRat(67108865, 1), "67108865"},
		{big.NewRat(3, 2), "1.5"},
		{big.NewRat(-1, 1000), "-0.001"},
		{big.NewRat(1, 3), "0.3333333333333333"},
		{new(big.Rat).SetFloat64(1e21), "1e+21"},
		{new(big.Rat).SetFloat64(1e-8), "1e-8"},
		{nil, "?"},
	} {
		if got := ratText(tt.r); got != tt.want {
			t.Errorf("ratText(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestWordingWithCompileWith(t *testing.T) {
	s, err := CompileWith(map[string]any{"not": map[string]any{"const": "x"}}, &CompileOptions{SelfContained: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Validate("x"); len(got) != 1 || got[0].String() != `must not be "x"` {
		t.Errorf("Validate = %q", got)
	}
}

// FuzzWording checks that every violation of any value against schemas
// of every kind is worded: a reason in flowserve's words, never the
// validator's own.
func FuzzWording(f *testing.F) {
	docs := []string{
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":1e3,"multipleOf":3},"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]*$","format":"email"},"e":{"oneOf":[{"const":"a"},{"const":"b"}]},"l":{"type":"array","items":{"anyOf":[{"const":1},{"type":"string"}]},"uniqueItems":true,"minItems":1,"maxItems":2,"contains":{"const":1}},"o":{"type":"object","propertyNames":{"maxLength":1},"minProperties":1,"maxProperties":1,"dependentRequired":{"a":["b"]}}},"required":["n"],"additionalProperties":false}`,
		`{"anyOf":[{"type":"string","minLength":3},{"type":"integer"},{"required":["x"]}],"not":{"const":5}}`,
		`{"oneOf":[{"type":"number"},{"type":"integer"}],"exclusiveMinimum":0,"exclusiveMaximum":9.5}`,
	}
	compiled := make([]*Schema, len(docs))
	for i, d := range docs {
		var doc map[string]any
		if err := json.Unmarshal([]byte(d), &doc); err != nil {
			f.Fatal(err)
		}
		compiled[i] = compileForm(f, doc)
	}
	for _, s := range []string{`{"n":2,"s":"A","e":"c","l":[2,2,true],"o":{"ab":1,"a":2},"z":1}`, `5`, `"ab"`, `{}`, `1`, `1e300`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := jsonx.Parse(b)
		if err != nil {
			return
		}
		for i, s := range compiled {
			for _, x := range s.Validate(v) {
				r := x.Reason
				if r == "" || strings.ContainsAny(r, "×⁰¹²³⁴⁵⁶⁷⁸⁹") || strings.Contains(r, "want ") || strings.Contains(r, "failed") ||
					strings.Contains(r, "jsonType") || strings.Contains(r, "value must") {
					t.Fatalf("schema %d, %s: violation %q is not in flowserve's words", i, b, x)
				}
			}
		}
	})
}
