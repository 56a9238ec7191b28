package check

import (
	"context"
	"github.com/flowserve/flowserve/dsl"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/schemas"
)

// testRegistry returns a registry with one action, text.shout, whose
// input has a required field, a defaulted field and a closed schema.
func testRegistry(t testing.TB) *actions.Registry {
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name:    "text.shout",
		Summary: "Shouts.",
		Input: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text":  map[string]any{"type": "string", "minLength": 1},
				"marks": map[string]any{"type": "integer", "minimum": 0, "maximum": 5, "default": 1},
				"style": map[string]any{"type": "string", "enum": []string{"caps", "bold"}},
				"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 2},
				"extra": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
				"any":   map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}},
			},
			"required":             []string{"text", "marks"},
			"additionalProperties": false,
		},
		Output: map[string]any{"type": "object"},
		Func:   func(context.Context, map[string]any) (any, error) { return map[string]any{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// check parses src, requires Parse to find no errors, and returns Check's
// diagnostics as "line:col code: message" strings.
func check(t *testing.T, src string) []string {
	t.Helper()
	f, ds := dsl.Parse("flow.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatalf("parse errors:\n%v", ds.Err())
	}
	var out []string
	for _, d := range File(f, testRegistry(t)) {
		out = append(out, strings.TrimPrefix(d.Pos.String(), "flow.yaml:")+" "+d.Code+": "+d.Message)
	}
	return out
}

// codesOf returns the codes of check's output.
func codesOf(lines []string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		out = append(out, strings.TrimSuffix(f[1], ":"))
	}
	return out
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"password", "password"},
		{"apiKey", "api key"},
		{"APIKey", "api key"},
		{"api_key", "api key"},
		{"card-number", "card number"},
		{"cvv2Code", "cvv2 code"},
		{"What's your PIN?", "whats your pin ."},
		{"Token count: 5", "token count . 5"},
		{"OAuthToken", "o auth token"},
		{"", ""},
	}
	for _, tc := range tests {
		var got []string
		for _, w := range splitWords(tc.in) {
			got = append(got, w.lower)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("splitWords(%q) = %q, want %q", tc.in, strings.Join(got, " "), tc.want)
		}
	}
	if ws := splitWords("Your PIN"); !ws[1].caps || ws[0].caps {
		t.Errorf("caps not kept: %+v", ws)
	}
}

func TestSensitiveText(t *testing.T) {
	tests := []struct {
		text string
		name bool
		want string
	}{
		// Asks for a secret.
		{"password", true, "a password"},
		{"new_password", true, "a password"},
		{"Password", false, "a password"},
		{"passphrase", true, "a password"},
		{"client_secret", true, "a secret"},
		{"apiKey", true, "an API key"},
		{"OPENAI_API_KEY", true, "an API key"},
		{"Your GitHub access token", false, "a token"},
		{"token", true, "a token"},
		{"refresh_token", true, "a token"},
		{"Private key (PEM)", false, "an API key"},
		{"credentials", true, "credentials"},
		{"card_number", true, "a card number"},
		{"Credit card", false, "a card number"},
		{"cardNumber", true, "a card number"},
		{"cvv", true, "a card security code"},
		{"CVC2", true, "a card security code"},
		{"pin", true, "a PIN"},
		{"user_pin", true, "a PIN"},
		{"Your PIN", false, "a PIN"},
		{"PIN code", false, "a PIN"},
		{"ssn", true, "a social security number"},
		{"Social security number", false, "a social security number"},
		{"otp", true, "a one-time code"},
		{"The 2FA code from your app", false, "a one-time code"},
		{"Seed phrase", false, "a recovery phrase"},
		{"Your name and password", false, "a password"},
		// Does not.
		{"secretary", true, ""},
		{"Your secretary", false, ""},
		{"token_count", true, ""},
		{"Token count", false, ""},
		{"max_tokens", true, ""},
		{"Maximum number of tokens", false, ""},
		{"tokens per minute", false, ""},
		{"token budget", false, ""},
		{"password_policy", true, ""},
		{"Password strength", false, ""},
		{"Name of the new API key", false, ""},
		{"api_key_name", true, ""},
		{"Label for the token", false, ""},
		{"Pin the issue", false, ""},
		{"pinned", true, ""},
		{"spinner", true, ""},
		{"keyboard layout", false, ""},
		{"Sort key", false, ""},
		{"Gift card message", false, ""},
		{"Business card", false, ""},
		{"Forgot password", false, ""},
		{"Code review", false, ""},
		{"Postal code", false, ""},
		{"Username", false, ""},
		{"email", true, ""},
		{"", false, ""},
	}
	for _, tc := range tests {
		if got := sensitiveText(tc.text, tc.name); got != tc.want {
			t.Errorf("sensitiveText(%q, %v) = %q, want %q", tc.text, tc.name, got, tc.want)
		}
	}
}

func TestSensitiveRequest(t *testing.T) {
	tests := []struct {
		msg  string
		want string
	}{
		{"Enter your password", "a password"},
		{"Please provide your API key to continue.", "an API key"},
		{"What is your card number?", "a card number"},
		{"What's the CVV?", "a card security code"},
		{"Paste the access token from the settings page", "a token"},
		{"We need your SSN for the tax form", "a social security number"},
		{"Sign in. Enter your password below.", "a password"},
		// Not requests.
		{"Reset the password for x?", ""},
		{"Enter the name for your new API key", ""},
		{"Name your API token", ""},
		{"Your API key expires soon. Renew it?", ""},
		{"How many tokens may the summary use?", ""},
		{"Password changed. Enter a nickname", ""},
		{"Enter the token count", ""},
		{"Create an API key: what should it be called?", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := sensitiveRequest(tc.msg); got != tc.want {
			t.Errorf("sensitiveRequest(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

func TestFreeEntry(t *testing.T) {
	tests := []struct {
		schema map[string]any
		want   bool
	}{
		{map[string]any{"type": "string"}, true},
		{map[string]any{"type": "integer"}, true},
		{map[string]any{"type": "number"}, true},
		{map[string]any{"type": "boolean"}, false},
		{map[string]any{"type": "string", "enum": []any{"a"}}, false},
		{map[string]any{"type": "string", "oneOf": []any{}}, false},
		{map[string]any{"type": "array"}, false},
		{map[string]any{}, false},
	}
	for _, tc := range tests {
		if got := freeEntry(tc.schema); got != tc.want {
			t.Errorf("freeEntry(%v) = %v, want %v", tc.schema, got, tc.want)
		}
	}
}

func TestSchemaHelpers(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "null"}, {true, "boolean"}, {int64(1), "integer"}, {2.0, "integer"}, {2.5, "number"},
		{"x", "string"}, {[]any{}, "array"}, {map[string]any{}, "object"},
	} {
		if got := jsonType(tc.v); got != tc.want {
			t.Errorf("jsonType(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		field string
		steps []any
		ok    bool
	}{
		{"", nil, true},
		{"a", []any{"a"}, true},
		{"list[1].name", []any{"list", 1, "name"}, true},
		{`headers["x.y"][0]`, []any{"headers", "x.y", 0}, true},
		{`["a b"]`, []any{"a b"}, true},
		{"[x]", nil, false},
		{`["a`, nil, false},
	} {
		steps, ok := fieldSteps(tc.field)
		if ok != tc.ok || !reflect.DeepEqual(steps, tc.steps) {
			t.Errorf("fieldSteps(%q) = %v, %v; want %v, %v", tc.field, steps, ok, tc.steps, tc.ok)
		}
	}
	if got := schemas.KeyField("with", "a b") + " " + schemas.KeyField("with", "url") + " " + joinField("default", "[1]"); got != `with["a b"] with.url default[1]` {
		t.Errorf("schemas.KeyField, joinField = %q", got)
	}
}

func TestCheckWith(t *testing.T) {
	tests := []struct {
		with string
		want []string
	}{
		{`{text: hi}`, nil}, // marks has a default
		{`{text: "{{ input.t }}", marks: "{{ input.n }}", style: caps, tags: [a, "{{ input.b }}"]}`, nil},
		{`{text: "n = {{ input.n }}"}`, nil},
		{`{marks: 2}`, []string{`5:5 with-missing: with.text is required by action text.shout`}},
		{`{text: hi, txet: ho}`, []string{`5:22 with-unknown: with.txet is not allowed by action text.shout (it takes any, extra, marks, style, tags, text); did you mean "text"?`}},
		{`{text: 5}`, []string{`5:18 with-value: with.text must be a string, not an integer`}},
		{`{text: ""}`, []string{`5:18 with-value: with.text must not be empty`}},
		{`{text: hi, marks: "{{ 1 }} marks"}`, []string{`5:29 with-value: with.marks must be an integer, not a string`}},
		{`{text: hi, marks: 9}`, []string{`5:29 with-value: with.marks must be at most 5`}},
		{`{text: hi, marks: 2.0}`, nil},
		{`{text: hi, style: bld}`, []string{`5:29 with-value: with.style must be one of caps, bold; did you mean "bold"?`}},
		{`{text: hi, tags: [a, b, c]}`, []string{`5:28 with-value: with.tags must have at most 2 items`}},
		{`{text: hi, tags: [a, 1]}`, []string{`5:32 with-value: with.tags[1] must be a string, not an integer`}},
		{`{text: hi, extra: {a: 1, b: x}}`, []string{`5:39 with-value: with.extra.b must be a number, not a string`}},
		{`{text: hi, any: true}`, nil}, // anyOf: not checked
		{`{text: hi, tags: "{{ input.tags }}"}`, nil},
	}
	for _, tc := range tests {
		src := "description: d\nnodes:\n  - id: s\n    step: text.shout\n    with: " + tc.with + "\n  - return: ok\n"
		if got := check(t, src); !slices.Equal(got, tc.want) {
			t.Errorf("with %s:\n got %q\nwant %q", tc.with, got, tc.want)
		}
	}
	// No with at all: reported at the step key.
	got := check(t, "description: d\nnodes:\n  - id: s\n    step: text.shout\n  - return: ok\n")
	if want := []string{`4:5 with-missing: with.text is required by action text.shout`}; !slices.Equal(got, want) {
		t.Errorf("no with: got %q", got)
	}
}

func TestCheckToolName(t *testing.T) {
	tests := []struct {
		name string
		code string
	}{
		{"delete_file", ""},
		{"Delete-File.v2", ""},
		{"a", ""},
		{strings.Repeat("x", 64), ""},
		{strings.Repeat("x", 65), codes.BadToolName},
		{"files/delete", codes.ToolNameSlash},
		{"delete file", codes.BadToolName},
		{"löschen", codes.BadToolName},
		{"a:b", codes.BadToolName},
	}
	for _, tc := range tests {
		got := codesOf(check(t, "name: \""+tc.name+"\"\ndescription: d\nnodes:\n  - return: ok\n"))
		var want []string
		if tc.code != "" {
			want = []string{tc.code}
		}
		if !slices.Equal(got, want) {
			t.Errorf("name %q: codes %v, want %v", tc.name, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url  string
		code string
	}{
		{"https://example.com/x", ""},
		{"HTTPS://example.com/x", ""},
		{"https://example.com/x?run={{ run.id }}", ""},
		{"{{ input.url }}", ""},
		{"https://{{ input.host }}/x", ""},
		{"http://localhost:8080/x", ""},
		{"http://127.0.0.1/x", ""},
		{"http://example.com/x", codes.InsecureURL},
		{"http://{{ input.host }}/x", ""},
		{"ftp://example.com/x", codes.BadURL},
		{"example.com/x", codes.BadURL},
		{"/relative/path", codes.BadURL},
		{"https://user:pw@example.com/", codes.BadURL},
		{"https://token@{{ input.host }}/", codes.BadURL},
		{"https://example.com/@user", ""},
	}
	for _, tc := range tests {
		src := "description: d\nnodes:\n  - id: a\n    ask: Open\n    url: \"" + tc.url + "\"\n  - return: ok\n"
		got := codesOf(check(t, src))
		var want []string
		if tc.code != "" {
			want = []string{tc.code}
		}
		if !slices.Equal(got, want) {
			t.Errorf("url %q: codes %v, want %v", tc.url, got, want)
		}
	}
}

func TestCheckGraph(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		want  []string
	}{
		{"straight", "  - set: {a: 1}\n  - return: ok\n", nil},
		{"fall off after set", "  - set: {a: 1}\n", []string{codes.FallsOffEnd}},
		{"branch with else", "  - branch:\n      - if: \"true\"\n        then: a\n      - else: a\n  - id: a\n    return: ok\n", nil},
		{"loop with ask", "  - id: q\n    ask: Again?\n    form: {ok: {type: boolean}}\n  - branch:\n      - if: q.content.ok\n        then: q\n  - return: ok\n", []string{codes.UnboundedLoop}},
		{"self loop", "  - id: a\n    set: {x: 1}\n    next: a\n", []string{codes.EndlessLoop}},
		{"busy loop", "  - id: a\n    set: {x: 1}\n  - branch:\n      - if: x < 3\n        then: a\n  - return: ok\n", []string{codes.BusyLoop}},
		{"on_error exits a loop", "  - id: s\n    step: text.shout\n    with: {text: x}\n    on_error: out\n    next: s\n  - id: out\n    fail: no\n", nil},
		{"unavailable is an edge", "  - id: q\n    ask: Sure?\n    form: {ok: {type: boolean}}\n    unavailable: no\n  - return: ok\n  - id: no\n    fail: cannot ask\n", nil},
		{"unreachable region", "  - return: ok\n  - id: a\n    set: {x: 1}\n    next: b\n  - id: b\n    set: {y: 1}\n    next: a\n", []string{codes.UnreachableNode}},
	}
	for _, tc := range tests {
		got := codesOf(check(t, "description: d\nnodes:\n"+tc.nodes))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: codes %v, want %v\n%q", tc.name, got, tc.want, check(t, "description: d\nnodes:\n"+tc.nodes))
		}
	}
}

func TestLoops(t *testing.T) {
	// 0 → 1 → 2 → 1, 2 → 3 → 3, 4 unreachable → 4.
	g := &flowGraph{nodes: make([]*dsl.Node, 5), succ: [][]int{{1}, {2}, {1, 3}, {3}, {4}}}
	reachable := make([]bool, 5)
	g.reach(0, reachable)
	if !slices.Equal(reachable, []bool{true, true, true, true, false}) {
		t.Fatalf("reach = %v", reachable)
	}
	got := g.loops(reachable)
	if len(got) != 2 || !slices.Equal(got[0], []int{1, 2}) || !slices.Equal(got[1], []int{3}) {
		t.Errorf("loops = %v", got)
	}
}

func TestCheckNil(t *testing.T) {
	if ds := File(nil, nil); ds != nil {
		t.Errorf("Check(nil) = %v", ds)
	}
	// A nil registry is actions.Default(), empty in this package's tests.
	f, _ := dsl.Parse("flow.yaml", []byte("description: d\nnodes:\n  - id: s\n    step: text.shout\n  - return: ok\n"))
	if ds := File(f, nil); len(ds) != 1 || ds[0].Code != codes.UnknownAction {
		t.Errorf("Check with the default registry: %v", ds)
	}
}

// TestCheckPartialFiles runs Check on every Parse golden, most of which
// have errors: Check must not panic on a partial File, and every
// diagnostic needs a position in the file.
func TestCheckPartialFiles(t *testing.T) {
	reg := testRegistry(t)
	for file, src := range parseGoldens(t) {
		f, _ := dsl.Parse("flow.yaml", src)
		for _, d := range File(f, reg) {
			if d.Pos.Line < 1 || d.Pos.Col < 1 || d.Pos.File != "flow.yaml" || d.Code == "" || d.Message == "" {
				t.Errorf("%s: bad diagnostic %#v", file, d)
			}
		}
	}
}

// FuzzCheck checks that Check never panics on what Parse returns. It is
// seeded with every flow of dsl/testdata/parse.
func FuzzCheck(f *testing.F) {
	for _, src := range parseGoldens(f) {
		f.Add(src)
	}
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, _ := dsl.Parse("flow.yaml", src)
		for _, d := range File(file, reg) {
			if d.Pos.Line < 1 || d.Pos.Col < 1 {
				t.Errorf("diagnostic without position: %v", d)
			}
		}
	})
}

// TestCheckTask checks the task key and long steps: a long step warns
// where it can never run as a task (task: never, a prompt flow), at its
// long key, and a prompt cannot say task: required.
func TestCheckTask(t *testing.T) {
	step := "nodes:\n  - id: s\n    step: text.shout\n    long: true\n    with: {text: hi}\n  - return: ok\n"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"default", "description: d\n" + step, nil},
		{"auto", "description: d\ntask: auto\n" + step, nil},
		{"required", "description: d\ntask: required\n" + step, nil},
		{"never", "description: d\ntask: never\n" + step,
			[]string{"6:5 " + codes.LongNoTask + ": step s is long, but the flow says task: never: it runs inside the call, never as a task"}},
		{"never, not long", "description: d\ntask: never\n" + strings.Replace(step, "long: true", "long: false", 1), nil},
		{"prompt long", "kind: prompt\ndescription: d\n" + step,
			[]string{"6:5 " + codes.LongNoTask + ": step s is long, but a prompt never runs as a task: it runs inside the prompts/get call"}},
		{"prompt required", "kind: prompt\ndescription: d\ntask: required\nnodes:\n  - return: hi\n",
			[]string{"3:7 " + codes.ToolOnly + ": task: required belongs to tool flows: a prompt cannot run as an MCP task"}},
		{"prompt auto", "kind: prompt\ndescription: d\ntask: auto\nnodes:\n  - return: hi\n", nil},
		{"prompt never", "kind: prompt\ndescription: d\ntask: never\nnodes:\n  - return: hi\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, tc.src); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTaskMode checks File.TaskMode and Step.Long as Parse reads them.
func TestTaskMode(t *testing.T) {
	tests := []struct {
		task string
		want dsl.TaskMode
		long bool
	}{
		{"", dsl.TaskAuto, false},
		{"task:\n", dsl.TaskAuto, false},
		{"task: auto\n", dsl.TaskAuto, true},
		{"task: never\n", dsl.TaskNever, false},
		{"task: required\n", dsl.TaskRequired, true},
	}
	for _, tc := range tests {
		long := "long: false"
		if tc.long {
			long = "long: true"
		}
		src := "description: d\nnodes:\n  - id: s\n    step: text.shout\n    " + long + "\n  - return: ok\n" + tc.task
		f, ds := dsl.Parse("flow.yaml", []byte(src))
		if ds.HasErrors() {
			t.Fatalf("%q: %v", tc.task, ds.Err())
		}
		if got := f.TaskMode(); got != tc.want {
			t.Errorf("%q: TaskMode() = %q, want %q", tc.task, got, tc.want)
		}
		if s := f.Nodes[0].Step; s.Long != tc.long || s.LongPos != (dsl.Pos{File: "flow.yaml", Line: 5, Col: 5}) {
			t.Errorf("%q: Long %v at %v, want %v at 5:5", tc.task, s.Long, s.LongPos, tc.long)
		}
	}
}
