package project_test

import (
	"strings"
	"testing"
	"testing/fstest"

	_ "github.com/flowserve/flowserve/actions/std" // the built-in actions, for with checks
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
)

// textOf returns the text of src from a to b (exclusive), lines joined
// with "\n", or "<bad>" when the positions are not in order in src.
func textOf(src string, a, b dsl.Pos) string {
	text, ok := dsl.TextBetween([]byte(src), a, b)
	if !ok {
		return "<bad>"
	}
	return text
}

// loadOne loads src as flow.yaml and returns its diagnostics.
func loadOne(t *testing.T, src string) dsl.Diagnostics {
	t.Helper()
	fsys := fstest.MapFS{"flow.yaml": {Data: []byte(src)}}
	_, ds := project.Load([]string{"flow.yaml"}, project.Options{FS: fsys})
	return ds
}

// endCase is a flow whose first diagnostic of code has the range of the
// text span, and whose fix, when fix is set, replaces that text with fix.
type endCase struct {
	name string
	src  string
	code string
	span string
	fix  string
}

// checkEnds loads each case and checks the range and fixes of its
// diagnostic of the code.
func checkEnds(t *testing.T, cases []endCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := loadOne(t, tc.src)
			var found []dsl.Diagnostic
			for _, d := range ds {
				if d.Code == tc.code {
					found = append(found, d)
				}
			}
			if len(found) == 0 {
				t.Fatalf("no %s diagnostic:\n%v", tc.code, ds)
			}
			d := found[0]
			if d.End.File != d.Pos.File || !d.End.IsValid() {
				t.Errorf("end %v of %v", d.End, d)
			}
			if got := textOf(tc.src, d.Pos, d.End); got != tc.span {
				t.Errorf("spans %q, want %q (%v-%v)", got, tc.span, d.Pos, d.End)
			}
			if tc.fix == "" {
				if d.Fixes != nil {
					t.Errorf("fixes %+v, want none", d.Fixes)
				}
				return
			}
			if len(d.Fixes) != 1 {
				t.Fatalf("fixes %+v, want one", d.Fixes)
			}
			f := d.Fixes[0]
			if f.Pos != d.Pos || f.End != d.End || f.NewText != tc.fix {
				t.Errorf("fix %+v, want %q over the diagnostic's range %v-%v", f, tc.fix, d.Pos, d.End)
			}
			if !strings.HasPrefix(f.Title, "replace ") || !strings.Contains(f.Title, strings.Trim(tc.fix, `'"`)) {
				t.Errorf("fix title %q", f.Title)
			}
		})
	}
}

// TestDiagnosticEnds checks the end of each kind of diagnostic site: a
// key, a value, a quoted value, an expression identifier, text over
// several lines, and the token rule for the rest.
func TestDiagnosticEnds(t *testing.T) {
	checkEnds(t, []endCase{
		{"key", "description: d\nnodes:\n  - return: ok\n    colour: red\n", codes.UnknownKey, "colour", ""},
		{"value", "description: d\ntask: sometimes\nnodes:\n  - return: ok\n", codes.BadValue, "sometimes", ""},
		{"quoted value", "description: d\ntask: \"sometimes\"\nnodes:\n  - return: ok\n", codes.BadValue, `"sometimes"`, ""},
		{"plain value with blanks", "description: d\nname: two words\nnodes:\n  - return: ok\n", codes.BadToolName, "two words", ""},
		{"expression identifier", "description: d\nnodes:\n  - return: \"{{ nobody_knows_this }}\"\n",
			codes.BadExpression, "nobody_knows_this", ""},
		{"expression identifier on a later line", "description: d\ninput:\n  type: object\n  properties:\n    n: {type: integer}\nnodes:\n  - branch:\n      - if: >-\n          input.n > 1 &&\n          input.m > 2\n        then: done\n  - id: done\n    return: ok\n",
			codes.BadExpression, "m", ""},
		{"multi-line quoted value", "description: d\nname: \"two\n  lines\"\nnodes:\n  - return: ok\n", codes.BadToolName, "\"two\n  lines\"", ""},
		{"multi-line flow mapping", "description: d\nnodes:\n  - return:\n      content:\n        - {type: text,\n           txt: hi}\n",
			codes.BadContent, "{type: text,\n           txt: hi}", ""},
		{"secret read", "description: d\nsecrets:\n  token: {description: t}\nnodes:\n  - return: \"{{ secrets.token }}\"\n",
			codes.SecretOutsideWith, "secrets.token", ""},
		{"the token rule", "description: d\nnodes:\n  - branch:\n      - if: \"input.a >\"\n        then: done\n  - id: done\n    return: ok\n",
			codes.BadExpression, `"`, ""},
	})
}

// TestDiagnosticFixes checks the fix of each did-you-mean: it replaces the
// misspelt text, and only it, with the suggestion.
func TestDiagnosticFixes(t *testing.T) {
	const form = "description: d\nnodes:\n  - id: q\n    ask: Go?\n    form:\n"
	checkEnds(t, []endCase{
		{"top-level key", "descripton: d\nnodes:\n  - return: ok\n", codes.UnknownKey, "descripton", "description"},
		{"node key", "description: d\nnodes:\n  - id: q\n    ask: Go?\n    from: {ok: {type: boolean}}\n  - return: ok\n", codes.UnknownKey, "from", "form"},
		{"quoted key", "description: d\nnodes:\n  - \"retrun\": ok\n    id: r\n  - return: ok\n", codes.UnknownKey, `"retrun"`, `"return"`},
		{"next", "description: d\nnodes:\n  - set: {x: 1}\n    next: dne\n  - id: done\n    return: ok\n", codes.UnknownTarget, "dne", "done"},
		{"then", "description: d\nnodes:\n  - branch:\n      - if: \"true\"\n        then: dne\n      - else: done\n  - id: done\n    return: ok\n", codes.UnknownTarget, "dne", "done"},
		{"else", "description: d\nnodes:\n  - branch:\n      - if: \"true\"\n        then: done\n      - else: 'dne'\n  - id: done\n    return: ok\n", codes.UnknownTarget, "'dne'", "'done'"},
		{"unavailable", form + "      ok: {type: boolean}\n    unavailable: no_clinet\n  - return: ok\n  - id: no_client\n    fail: no\n", codes.UnknownTarget, "no_clinet", "no_client"},
		{"on_error", "description: d\nnodes:\n  - id: s\n    step: fs.stat\n    with: {path: x}\n    on_error: faild\n  - return: ok\n  - id: failed\n    fail: no\n", codes.UnknownTarget, "faild", "failed"},
		{"on_timeout", "description: d\nnodes:\n  - id: q\n    ask: Approve?\n    to: a@example.com\n    form: {ok: {type: boolean}}\n    timeout: 1h\n    on_timeout: expird\n  - return: ok\n  - id: expired\n    fail: late\n", codes.UnknownTarget, "expird", "expired"},
		{"action", "description: d\nnodes:\n  - id: s\n    step: fs.stt\n    with: {path: x}\n  - return: ok\n", codes.UnknownAction, "fs.stt", "fs.stat"},
		{"language", "description: d\nexpressions: cell\nnodes:\n  - return: ok\n", codes.UnknownLanguage, "cell", "cel"},
		{"kind", "description: d\nkind: promt\nnodes:\n  - return: ok\n", codes.BadValue, "promt", "prompt"},
		{"task", "description: d\ntask: nevr\nnodes:\n  - return: ok\n", codes.BadValue, "nevr", "never"},
		{"content type", "description: d\nnodes:\n  - return:\n      content:\n        - {type: txt, text: hi}\n", codes.BadValue, "txt", "text"},
		{"role", "description: d\nnodes:\n  - id: s\n    sample:\n      messages:\n        - {role: usr, text: hi}\n    unavailable: done\n  - id: done\n    return: ok\n", codes.BadValue, "usr", "user"},
		{"required property", form + "      proceed: {type: boolean}\n    required: [procede]\n  - return: ok\n", codes.UnknownProperty, "procede", "proceed"},
		{"form type", form + "      n: {type: int}\n  - return: ok\n", codes.FormKind, "int", "integer"},
		{"form type misspelt", form + "      n: {type: strng}\n  - return: ok\n", codes.FormKind, "strng", "string"},
		{"form keyword", form + "      s: {type: string, maxLenght: 3}\n  - return: ok\n", codes.FormKeyword, "maxLenght", "maxLength"},
		{"form format", form + "      s: {type: string, format: datetime}\n  - return: ok\n", codes.FormFormat, "datetime", "date-time"},
		{"items keyword", form + "      s: {type: array, items: {type: string, enum: [a], typ: x}}\n  - return: ok\n", codes.FormKeyword, "typ", "type"},
		{"choice key", form + "      s: {type: string, oneOf: [{const: a, title: A, titel: B}]}\n  - return: ok\n", codes.FormEnum, "titel", "title"},
		{"with key", "description: d\nnodes:\n  - id: s\n    step: fs.stat\n    with: {pth: x}\n  - return: ok\n", codes.WithUnknown, "pth", "path"},
		{"with enum value", "description: d\nnodes:\n  - id: s\n    step: http.request\n    with: {url: \"https://example.com\", method: GTE}\n  - return: ok\n", codes.WithValue, "GTE", "GET"},
		{"expression name", "description: d\nnodes:\n  - id: q\n    ask: Go?\n    form: {ok: {type: boolean}}\n  - return: \"{{ q.content.ok }} {{ qq.content.ok }}\"\n", codes.BadExpression, "qq", "q"},
		{"expression field", "description: d\nnodes:\n  - id: q\n    ask: Go?\n    form: {proceed: {type: boolean}}\n  - branch:\n      - if: q.content.procede\n        then: done\n  - id: done\n    return: ok\n", codes.BadExpression, "procede", "proceed"},
		{"expression field in expr", "description: d\nexpressions: expr\nnodes:\n  - id: q\n    ask: Go?\n    form: {proceed: {type: boolean}}\n  - branch:\n      - if: q.content.procede\n        then: done\n  - id: done\n    return: ok\n", codes.BadExpression, "procede", "proceed"},
		{"var name", "description: d\nvars:\n  api_base: {description: b}\nnodes:\n  - return: \"{{ vars.api_bse }}\"\n", codes.BadExpression, "api_bse", "api_base"},
		{"function", "description: d\nnodes:\n  - return: \"{{ sise('ab') }}\"\n", codes.BadExpression, "sise", "size"},
	})
}
