package docs

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/lang"
)

// TestExpressionExamples evaluates the examples of docs/expressions.md.
// The page shows a flow (the YAML block after <!-- eval: flow -->) whose
// scope the examples use, typed as a flow's expressions are
// (check.Scope), and the values they see (the JSON block after
// <!-- eval: values -->). Each table after <!-- eval: cel --> or
// <!-- eval: expr --> has an expression and its result, as JSON, in its
// first two cells; the expression must compile in that language and
// evaluate to the result.
func TestExpressionExamples(t *testing.T) {
	md := readFile(t, "expressions.md")
	var flowSrc, valuesSrc string
	for _, b := range fencedBlocks(md) {
		switch lastMarker(b.before) {
		case "flow":
			flowSrc = b.text
		case "values":
			valuesSrc = b.text
		}
	}
	if flowSrc == "" || valuesSrc == "" {
		t.Fatal("expressions.md needs a YAML block after <!-- eval: flow --> and a JSON block after <!-- eval: values -->")
	}
	f, diags := dsl.Parse("expressions.md", []byte(flowSrc))
	if diags.HasErrors() {
		t.Fatalf("the example flow of expressions.md: %v", diags)
	}
	vars := check.Scope(f, check.Env{})
	var values map[string]any
	dec := json.NewDecoder(strings.NewReader(valuesSrc))
	dec.UseNumber()
	if err := dec.Decode(&values); err != nil {
		t.Fatalf("the example values of expressions.md: %v", err)
	}
	values = jsonLike(values).(map[string]any)

	tables := evalTables(md)
	if len(tables) == 0 {
		t.Fatal("expressions.md has no <!-- eval: cel|expr --> tables")
	}
	for _, tab := range tables {
		l, ok := lang.Lookup(tab.lang)
		if !ok {
			t.Errorf("expressions.md:%d: no language %q", tab.line, tab.lang)
			continue
		}
		env, err := l.NewEnv(vars, lang.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tab.rows {
			prg, errs := env.Compile(r.expr, false)
			if len(errs) > 0 {
				t.Errorf("expressions.md:%d: %s `%s` does not compile: %v", r.line, tab.lang, r.expr, errs)
				continue
			}
			got, err := prg.Eval(values)
			if err != nil {
				t.Errorf("expressions.md:%d: %s `%s` fails: %v", r.line, tab.lang, r.expr, err)
				continue
			}
			gotJSON, _ := json.Marshal(got)
			var want any
			if err := json.Unmarshal([]byte(r.result), &want); err != nil {
				t.Errorf("expressions.md:%d: the result of `%s`, %s, is not JSON: %v", r.line, r.expr, r.result, err)
				continue
			}
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("expressions.md:%d: %s `%s` is %s, not %s as documented", r.line, tab.lang, r.expr, gotJSON, wantJSON)
			}
		}
	}
}

// jsonLike turns json.Numbers into int64 or float64, as flows see them.
func jsonLike(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = jsonLike(e)
		}
	case []any:
		for i, e := range v {
			v[i] = jsonLike(e)
		}
	}
	return v
}

var evalMarkerRE = regexp.MustCompile(`<!-- eval: (\w+) -->`)

// lastMarker returns the word of the last <!-- eval: WORD --> in text, if
// it is on text's last non-empty line.
func lastMarker(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n "), "\n")
	if m := evalMarkerRE.FindStringSubmatch(lines[len(lines)-1]); m != nil {
		return m[1]
	}
	return ""
}

type evalRow struct {
	line         int
	expr, result string
}

type evalTable struct {
	lang string
	line int
	rows []evalRow
}

// evalTables reads the tables that follow <!-- eval: cel --> and
// <!-- eval: expr --> markers.
func evalTables(md string) []evalTable {
	var out []evalTable
	lines := strings.Split(stripFences(md), "\n")
	for i := 0; i < len(lines); i++ {
		m := evalMarkerRE.FindStringSubmatch(lines[i])
		if m == nil || (m[1] != "cel" && m[1] != "expr") {
			continue
		}
		tab := evalTable{lang: m[1], line: i + 1}
		// The header and separator rows, then the examples.
		for i += 3; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			cells := splitRow(lines[i])
			if len(cells) < 2 {
				continue
			}
			tab.rows = append(tab.rows, evalRow{i + 1, codeSpan(cells[0]), codeSpan(cells[1])})
		}
		out = append(out, tab)
	}
	return out
}

// splitRow splits a table row into its cells, keeping escaped pipes (\|)
// inside a cell as |.
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// codeSpan returns the content of a cell that is one code span (`x`, or
// a longer run of backticks around x when x holds one).
func codeSpan(cell string) string {
	n := len(cell) - len(strings.TrimLeft(cell, "`"))
	s := strings.TrimSuffix(strings.TrimPrefix(cell, cell[:n]), cell[:n])
	if n > 1 {
		s = strings.TrimSpace(s)
	}
	return s
}
