package yamlx

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// readValue reads src as a file with Read and Value and returns the value
// as JSON (with int64 and float64 told apart: 1 and 1.0) and the problems
// as "line:col code: message".
func readValue(src string) (string, []string) {
	var got []string
	r := Reader{Report: func(p Problem) {
		got = append(got, fmt.Sprintf("%d:%d %s: %s", p.Pos.Line, p.Pos.Col, p.Code, p.Message))
	}}
	root, ok := r.Read([]byte(src), "a test file")
	if !ok || root == nil {
		return "", got
	}
	v, _ := r.Value(root)
	return typedJSON(v), got
}

// typedJSON writes v as JSON with sorted keys, unescaped, and floats with
// a decimal point so that they differ from integers.
func typedJSON(v any) string {
	switch v := v.(type) {
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = typedJSON(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, strconv.Quote(k)+":"+typedJSON(v[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// bomb returns a file of nested aliases that expand to 10^levels values.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// readTests cover the rules of the reader: merge keys, aliases, duplicate
// and non-string keys, tags, integer and number forms, and positions in
// runes.
var readTests = []struct {
	name, src string
	want      string   // the value as typed JSON; "" when there is none, "*" not compared
	problems  []string // "line:col code: message"
}{
	// Merge keys.
	{"merge a mapping", "b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
		`{"b":{"x":1,"y":2},"m":{"x":1,"y":3}}`, nil},
	{"own keys win wherever the merge is", "b: &b {x: 1}\nm: {x: 2, <<: *b}\n",
		`{"b":{"x":1},"m":{"x":2}}`, nil},
	{"earlier mappings win", "m: {<<: [{a: 1}, {a: 2, b: 2}], c: 3}\n",
		`{"m":{"a":1,"b":2,"c":3}}`, nil},
	{"merged mappings merge too", "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b}\n",
		`{"a":{"x":1},"b":{"x":1,"y":2},"c":{"x":1,"y":2}}`, nil},
	{"a quoted << is a key", "m: {\"<<\": {a: 1}}\n", `{"m":{"<<":{"a":1}}}`, nil},
	{"<< merges mappings only", "m: {<<: [1, {a: 1}]}\nn: {<<: x}\n", `{"m":{"a":1},"n":{}}`, []string{
		"1:10 bad-type: << merges mappings, not an integer",
		"2:5 bad-type: << merges a mapping or a list of mappings, not a string",
	}},
	{"duplicates inside a merged mapping", "a: &a {x: 1, x: 2}\nb: {<<: *a}\n", `{"a":{"x":1},"b":{"x":1}}`, []string{
		"1:14 duplicate-key: duplicate key \"x\" (first at line 1)",
		"1:14 duplicate-key: duplicate key \"x\" (first at line 1)", // read twice; callers drop repeats
	}},

	// Aliases.
	{"aliases", "a: &a [1, {k: v}]\nb: *a\nc: &s str\nd: *s\n",
		`{"a":[1,{"k":"v"}],"b":[1,{"k":"v"}],"c":"str","d":"str"}`, nil},
	{"an alias inside its own anchor", "r: &r [1, *r]\n", `{"r":[1,null]}`, []string{
		"1:11 bad-alias: alias *r is inside its own anchor &r, which would make the value infinite",
	}},
	{"aliases that expand too much", bomb(5), "*", []string{
		"2:10 bad-alias: aliases expand the file to more than 100000 values; write the values out instead",
	}},
	{"an unknown anchor", "a: 1\nb: [x, *nope]\n", "", []string{
		"2:8 bad-yaml: unknown anchor &nope: define it before its alias *nope",
	}},

	// Keys.
	{"duplicate keys", "a: 1\nb: 2\na: 3\n", `{"a":1,"b":2}`, []string{
		"3:1 duplicate-key: duplicate key \"a\" (first at line 1)",
	}},
	{"non-string keys", "1: one\ntrue: yes\n[a]: b\nok: 1\n", `{"ok":1}`, []string{
		"1:1 bad-type: mapping keys must be strings, not an integer",
		"2:1 bad-type: mapping keys must be strings, not a boolean",
		"3:1 bad-type: mapping keys must be strings, not a list",
	}},

	// Integers and numbers.
	{"integer forms", "dec: 12\nhex: 0x1F\noct: 0o17\nold: 017\nsep: 1_000\nneg: -0x10\nplus: +5\nzero: -0\n",
		`{"dec":12,"hex":31,"neg":-16,"oct":15,"old":15,"plus":5,"sep":1000,"zero":0}`, nil},
	{"floats, integral or not", "one: 1.0\nexp: 1e3\nhalf: .5\ntagged: !!float 2\n",
		`{"exp":1000.0,"half":0.5,"one":1.0,"tagged":2.0}`, nil},
	{"an integer too large for int64 is a float, unless tagged", "big: 99999999999999999999\n",
		`{"big":100000000000000000000.0}`, nil},
	{"integers out of range", "tagged: !!int 99999999999999999999\nuint: 18446744073709551615\nok: 9223372036854775807\n",
		`{"ok":9223372036854775807,"tagged":null,"uint":null}`, []string{
			"1:9 bad-value: integer 99999999999999999999 is out of range or malformed",
			"2:7 bad-value: integer 18446744073709551615 is out of range or malformed",
		}},
	{"numbers JSON cannot hold", "inf: .inf\nnan: .NaN\n", `{"inf":null,"nan":null}`, []string{
		"1:6 bad-value: .inf is not a JSON number",
		"2:6 bad-value: .NaN is not a JSON number",
	}},

	// Tags and strings.
	{"core tags", "ts: 2026-11-30\nbin: !!binary aGk=\nstr: !!str 3\nb: TRUE\nn: ~\n",
		`{"b":true,"bin":"aGk=","n":null,"str":"3","ts":"2026-11-30"}`, nil},
	{"other tags", "a: !custom x\nb: !!set {x: ~}\nc: !!str [1]\n", `{"a":null,"b":{"x":null},"c":[1]}`, []string{
		"1:4 bad-yaml: unsupported YAML tag !custom",
		"2:4 bad-yaml: unsupported YAML tag !!set",
		"3:4 bad-yaml: unsupported YAML tag !!str",
	}},

	// Positions count runes, not bytes.
	{"runes", "é: 1\n\"日本\": x\n日本: y\nm: {ü: 1, ü: 2}\n", `{"m":{"ü":1},"é":1,"日本":"x"}`, []string{
		"3:1 duplicate-key: duplicate key \"日本\" (first at line 2)",
		"4:11 duplicate-key: duplicate key \"ü\" (first at line 4)",
	}},
	{"a syntax error at the line of the mistake", "a: \"日本語\"\nb: [x\nc: 1\n", "", []string{
		"2:1 bad-yaml: did not find expected ',' or ']'",
	}},
	{"a control character after non-ASCII text", "a: 1\nb: 日本\x07x\n", "", []string{
		"2:6 bad-yaml: control characters are not allowed",
	}},

	// Documents.
	{"empty", "# nothing\n", "", nil},
	{"two documents", "a: 1\n---\nb: 2\n", `{"a":1}`, []string{
		"2:1 multiple-documents: a test file holds one YAML document; remove this second one",
	}},
	{"an empty second document", "a: 1\n---\n", `{"a":1}`, nil},
}

// TestRead reads each of readTests.
func TestRead(t *testing.T) {
	for _, tt := range readTests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := readValue(tt.src)
			if got != tt.want && tt.want != "*" {
				t.Errorf("value %s, want %s", got, tt.want)
			}
			if strings.Join(problems, "\n") != strings.Join(tt.problems, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(tt.problems, "\n"))
			}
		})
	}
}

// TestFields covers the typed reads of a file's fields.
func TestFields(t *testing.T) {
	tests := []struct {
		src  string
		read func(Reader, *yaml.Node) any
		want any
		prob string
	}{
		{"3", func(r Reader, n *yaml.Node) any { v, _ := r.Int(n, "retries"); return v }, int64(3), ""},
		{"0x10", func(r Reader, n *yaml.Node) any { v, _ := r.Int(n, "retries"); return v }, int64(16), ""},
		{"3.0", func(r Reader, n *yaml.Node) any { v, _ := r.Int(n, "retries"); return v }, int64(0),
			"1:1 bad-type: retries must be an integer, not a number"},
		{"!!int 99999999999999999999", func(r Reader, n *yaml.Node) any { v, _ := r.Int(n, "retries"); return v }, int64(0),
			"1:1 bad-value: retries 99999999999999999999 is out of range"},
		{"yes", func(r Reader, n *yaml.Node) any { v, _ := r.Bool(n, "form"); return v }, false,
			"1:1 bad-type: form must be true or false, not a string"},
		{"False", func(r Reader, n *yaml.Node) any { v, _ := r.Bool(n, "form"); return v }, false, ""},
		{"!!bool maybe", func(r Reader, n *yaml.Node) any { v, _ := r.Bool(n, "form"); return v }, false,
			`1:1 bad-value: "maybe" is not a boolean`},
		{"42", func(r Reader, n *yaml.Node) any { v, _ := r.String(n, "text"); return v }, "",
			"1:1 bad-type: text must be a string, not an integer"},
		{"2026-11-30", func(r Reader, n *yaml.Node) any { v, _ := r.String(n, "text"); return v }, "2026-11-30", ""},
		{"{a: 1}", func(r Reader, n *yaml.Node) any { v, _ := r.List(n, "path"); return len(v) }, 0,
			"1:1 bad-type: path must be a list, not a mapping"},
		{"[a]", func(r Reader, n *yaml.Node) any { v, _ := r.Mapping(n, "client"); return len(v) }, 0,
			"1:1 bad-type: client must be a mapping, not a list"},
	}
	for _, tt := range tests {
		var prob []string
		r := Reader{Report: func(p Problem) {
			prob = append(prob, fmt.Sprintf("%d:%d %s: %s", p.Pos.Line, p.Pos.Col, p.Code, p.Message))
		}}
		root, _ := r.Read([]byte(tt.src), "")
		if got := tt.read(r, root); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.src, got, tt.want)
		}
		if got := strings.Join(prob, "\n"); got != tt.prob {
			t.Errorf("%q: problems %q, want %q", tt.src, got, tt.prob)
		}
	}
}

// TestIsZero checks that every way of writing a zero is one.
func TestIsZero(t *testing.T) {
	for src, want := range map[string]bool{
		"0": true, "0x0": true, "0o0": true, "-0": true, "0.0": true, "00": true,
		"1": false, "0.5": false, `"0"`: false, "~": false, "[0]": false, "!custom 0": false,
	} {
		root, _ := Reader{}.Read([]byte(src), "")
		if got := IsZero(root); got != want {
			t.Errorf("IsZero(%s) = %v, want %v", src, got, want)
		}
	}
}
