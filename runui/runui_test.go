package runui_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/flowserve/flowserve/actions/std" // uuid.new for the test flows
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/runui"
)

// compile compiles a flow from its source.
func compile(t testing.TB, src string) *flow.Program {
	t.Helper()
	f, diags := dsl.Parse("test.yaml", []byte(src))
	if diags.HasErrors() || f == nil {
		t.Fatalf("parse:\n%v", diags)
	}
	p, diags := flow.Compile(f, flow.Env{})
	if p == nil || diags.HasErrors() {
		t.Fatalf("compile:\n%v", diags)
	}
	return p
}

var allClients = flow.Client{Name: "test", Form: true, URL: true}

// kindsFlow asks one question with a field of every kind, and one with
// a validate rule the form cannot check.
const kindsFlow = `name: kinds
description: Asks one of each kind of field.
nodes:
  - id: q
    ask: "Tell me things."
    form:
      name: {type: string, title: Name, description: Your full name., minLength: 2, maxLength: 10}
      email: {type: string, title: Email, format: email}
      age: {type: integer, title: Age, minimum: 0, maximum: 150, default: 30}
      ratio: {type: number, title: Ratio}
      colour:
        type: string
        title: Colour
        enum: [red, green]
        enumNames: [Red, Green]
      size:
        type: string
        title: Size
        oneOf:
          - {const: s, title: Small}
          - {const: l, title: Large}
        default: l
      tags:
        type: array
        title: Tags
        items: {type: string, enum: [a, b, c]}
        minItems: 1
        maxItems: 2
      ok: {type: boolean, title: OK, default: true}
    required: [name, tags]
    validate:
      - rule: q.content.name != "Bob"
        message: "Bob is taken"
  - branch:
      - if: "!q.accepted"
        then: refused
  - return: "{{ q.content.name }} {{ q.content.age }} {{ q.content.tags.join(',') }} {{ q.content.ok }}"
  - id: refused
    return: "refused: {{ q.action }}"
`

// signinFlow asks a URL question.
const signinFlow = `name: signin
description: Signs in, then asks a name.
nodes:
  - id: signin
    ask: Sign in first.
    url: "https://example.com/login?run={{ run.id }}"
    unavailable: no_browser
  - branch:
      - if: "!signin.accepted"
        then: out
  - return: signed in
  - id: out
    return: "not signed in: {{ signin.action }}"
  - id: no_browser
    fail: no browser
`

// loopFlow asks the same question until the answer is "stop".
const loopFlow = `name: loop
description: Asks until told to stop.
nodes:
  - set: {n: 0}
  - id: word
    ask: "Word {{ n + 1 }}?"
    form:
      w: {type: string, title: Word}
    required: [w]
  - set: {n: "{{ n + 1 }}"}
  - branch:
      - if: word.accepted && word.content.w != "stop"
        then: word
  - return: "{{ n }} words"
`

func TestRunScript(t *testing.T) {
	tests := []struct {
		name     string
		flow     string
		answers  string
		client   flow.Client
		want     string // the result's text
		isError  bool
		errIs    error
		errHas   string
		unused   []string
		wantOut  []string // lines of the transcript, in order
		notInOut []string
	}{
		{
			name: "accept",
			flow: kindsFlow,
			answers: `q: {action: accept, content: {name: Ada, tags: [a, b]}}
`,
			want:    "Ada 30 a,b true",
			wantOut: []string{"? [q] Tell me things.", `→ accept {"name":"Ada","tags":["a","b"]}`},
		},
		{
			name: "re-asked after an invalid answer",
			flow: kindsFlow,
			answers: `q:
  - {action: accept, content: {name: Bob, tags: [a]}}
  - {action: accept, content: {name: A, tags: [a]}}
  - {action: accept, content: {name: Cy, tags: [c]}}
`,
			want: "Cy 30 c true",
			wantOut: []string{
				"? [q] Tell me things.", `→ accept {"name":"Bob","tags":["a"]}`,
				"✗ Not accepted: Bob is taken",
				"? [q] Tell me things.", `→ accept {"name":"A","tags":["a"]}`,
				"✗ Not accepted: name: " + reason(t, nameProp, "A"),
				"? [q] Tell me things.", `→ accept {"name":"Cy","tags":["c"]}`,
			},
		},
		{
			name:    "invalid until the retries run out",
			flow:    kindsFlow,
			answers: "q: [{action: accept, content: {name: Bob, tags: [a]}}, {action: accept, content: {name: Bob, tags: [a]}}, {action: accept, content: {name: Bob, tags: [a]}}]\n",
			want:    `the answer to "q" was not accepted after 3 tries: Bob is taken`,
			isError: true,
		},
		{
			name:    "decline",
			flow:    kindsFlow,
			answers: "q: {action: decline}\n",
			want:    "refused: decline",
			wantOut: []string{"→ decline"},
		},
		{
			name:    "cancel",
			flow:    kindsFlow,
			answers: "q: {action: cancel}\n",
			want:    "refused: cancel",
			wantOut: []string{"→ cancel"},
		},
		{
			name:    "url accepted",
			flow:    signinFlow,
			answers: "signin: {action: accept}\n",
			want:    "signed in",
			wantOut: []string{"? [signin] Sign in first.", "  Open: https://example.com/login?run=", "→ accept"},
		},
		{
			name:    "url declined",
			flow:    signinFlow,
			answers: "signin: {action: decline}\n",
			want:    "not signed in: decline",
		},
		{
			name:     "url not available",
			flow:     signinFlow,
			answers:  "{}\n",
			client:   flow.Client{Form: true},
			want:     "no browser",
			isError:  true,
			notInOut: []string{"? [signin]"},
		},
		{
			name:    "a loop uses the answers in turn",
			flow:    loopFlow,
			answers: "word: [{action: accept, content: {w: a}}, {action: accept, content: {w: b}}, {action: accept, content: {w: stop}}, {action: decline}]\n",
			want:    "3 words",
			unused:  []string{"word (1)"},
			wantOut: []string{"? [word] Word 1?", "? [word] Word 2?", "? [word] Word 3?"},
		},
		{
			name:    "one answer is used every time",
			flow:    kindsFlow,
			answers: "q: {content: {name: Bob, tags: [a]}}\n",
			want:    `the answer to "q" was not accepted after 3 tries: Bob is taken`,
			isError: true,
			wantOut: []string{"✗ Not accepted: Bob is taken", "✗ Not accepted: Bob is taken"},
		},
		{
			name:    "an action alone",
			flow:    kindsFlow,
			answers: "q: cancel\n",
			want:    "refused: cancel",
		},
		{
			name:    "a list of answers runs out",
			flow:    loopFlow,
			answers: "word: [{action: accept, content: {w: a}}]\n",
			errIs:   runui.ErrNoAnswer,
			errHas:  `"word" was asked 2 times and the answers have 1`,
		},
		{
			name:    "no answer for a question",
			flow:    loopFlow,
			answers: "other: {action: cancel}\n",
			errIs:   runui.ErrNoAnswer,
			errHas:  `the answers have none for "word"`,
			unused:  []string{"other (1)"},
		},
		{
			name:    "client cannot answer forms",
			flow:    loopFlow,
			answers: "{}\n",
			client:  flow.Client{URL: true},
			errHas:  "elicitation in form mode",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			script, err := runui.ParseAnswers("answers.yaml", []byte(tc.answers))
			if err != nil {
				t.Fatal(err)
			}
			client := tc.client
			if client == (flow.Client{}) {
				client = allClients
			}
			var out strings.Builder
			res, err := runui.Run(ctx, compile(t, tc.flow), runui.Config{Client: client, Answerer: script, Out: &out})
			transcript := out.String()
			if tc.errHas != "" || tc.errIs != nil {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || (tc.errIs != nil && !errors.Is(err, tc.errIs)) {
					t.Fatalf("error %v, want one containing %q (is %v)", err, tc.errHas, tc.errIs)
				}
			} else {
				if err != nil {
					t.Fatalf("run: %v\n%s", err, transcript)
				}
				if got := resultText(res.Complete); got != tc.want || res.Complete.IsError != tc.isError {
					t.Errorf("result %q (isError %v), want %q (isError %v)", got, res.Complete.IsError, tc.want, tc.isError)
				}
			}
			if got := strings.Join(script.Unused(), ","); got != strings.Join(tc.unused, ",") {
				t.Errorf("unused answers %q, want %q", got, tc.unused)
			}
			checkInOrder(t, transcript, tc.wantOut)
			for _, s := range tc.notInOut {
				if strings.Contains(transcript, s) {
					t.Errorf("transcript has %q:\n%s", s, transcript)
				}
			}
		})
	}
}

// resultText joins the text blocks of a result.
func resultText(tr *flow.ToolResult) string {
	var parts []string
	for _, b := range tr.Content {
		if t, ok := b.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// checkInOrder checks that each of want is in s, each after the one
// before.
func checkInOrder(t *testing.T, s string, want []string) {
	t.Helper()
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("transcript lacks %q (in order):\n%s", w, s)
			return
		}
		rest = rest[i+len(w):]
	}
}

func TestParseAnswers(t *testing.T) {
	tests := []struct {
		name, src string
		err       string // "" for a good file
	}{
		{"one answer", "q: {action: accept, content: {a: 1}}", ""},
		{"a list", "q: [{action: decline}, {action: cancel}]", ""},
		{"empty file", "", ""},
		{"not a mapping", "- q", "answers.yaml:1:1: answers must be a mapping from ask id to answers"},
		{"action defaults to accept", "q: {content: {a: 1}}", ""},
		{"an action alone", "q: decline\nr: [accept, cancel]", ""},
		{"only comments", "# nothing\n", ""},
		{"bad action", "q:\n  - {action: accept}\n  - {action: maybe}", `answers.yaml:3:5: answer to "q": action must be accept, decline, cancel or timeout, not "maybe"`},
		{"bad action alone", "q: sure", `answers.yaml:1:4: answer to "q": action must be accept, decline, cancel or timeout, not "sure"`},
		{"empty list", "q: []", `answers.yaml:1:4: the list of answers to "q" is empty`},
		{"unknown key", "q: {action: accept, contents: {}}", `answer to "q": unknown key "contents" (an answer has action, content and, for an approval, by)`},
		{"content not a mapping", "q: {action: accept, content: [1]}", "content must be a mapping of the form's fields"},
		{"content on a decline", "q: {action: decline, content: {a: 1}}", "content goes only with action accept, not decline"},
		{"an answer neither action nor mapping", "q: [[accept]]", `answers.yaml:1:5: answer to "q": an answer is accept, decline, cancel, timeout or a mapping {action, content}`},
		{"bad yaml", "q: {action: [", "answers.yaml: "},
		{"an approval's answer with who gave it", "q: [{content: {a: 1}, by: Ana}, {action: decline, by: Bo}, timeout]", ""},
		{"an empty by", "q: {content: {a: 1}, by: ' '}", `answer to "q": by names who answered the approval: a name, not  `},
		{"by on a timeout", "q: {action: timeout, by: Ana}", "by goes only with an answer: nobody answers an approval that times out"},
		{"content on a timeout", "q: {action: timeout, content: {a: 1}}", "content goes only with action accept, not timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runui.ParseAnswers("answers.yaml", []byte(tc.src))
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestPrintResult(t *testing.T) {
	tests := []struct {
		name string
		tr   *flow.ToolResult
		want string
	}{
		{"text", &flow.ToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, "\nResult:\nhi\n"},
		{"error", &flow.ToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no"}}, IsError: true}, "\nResult (isError):\nno\n"},
		{"structured", &flow.ToolResult{
			Content:    []mcp.Content{&mcp.TextContent{Text: "ok"}},
			Structured: map[string]any{"b": 1, "a": []any{"x"}},
		}, "\nResult:\nok\n\nStructured content:\n{\n  \"a\": [\n    \"x\"\n  ],\n  \"b\": 1\n}\n"},
		{"other blocks", &flow.ToolResult{Content: []mcp.Content{
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte{0, 0, 0}},
			&mcp.ResourceLink{Name: "r", URI: "file:///r"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///t", Text: "body"}},
		}}, "\nResult:\n[image image/png, 4 bytes base64]\n[link r: file:///r]\n[resource file:///t]\nbody\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			runui.PrintResult(&b, tc.tr)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestTerminalAccessible drives the terminal's accessible prompts with
// input piped in, line by line.
func TestTerminalAccessible(t *testing.T) {
	tests := []struct {
		name    string
		flow    string
		input   string
		want    string // the result's text
		isError bool
		errIs   error
		wantOut []string
	}{
		{
			name: "every kind of field",
			flow: kindsFlow,
			// respond; name; email; age; ratio; colour (no answer, red,
			// green); size; tags (toggle a, toggle c, confirm); ok.
			input: "\nAda\nada@example.com\n41\n0.5\n3\n\n1\n3\n0\nn\n",
			want:  "Ada 41 a,c false",
			wantOut: []string{
				"How do you respond?", "1. Answer", "2. Decline (say no)", "3. Cancel (dismiss the question)",
				"Your full name.\nName [required; 2 to 10 characters]: Ada\n",
				"Email [an email address]: ada@example.com\n",
				"Age [a whole number; 0 to 150; Enter for 30]: 41\n",
				"Ratio [a number]: 0.5\n",
				"Colour \n1. (no answer)\n2. Red\n3. Green\n",
				"Size [Enter for Large] \n1. Small\n2. Large\n",
				"Tags [required; 1 to 2 choices] \nSelect up to 2 options.\n",
				"OK [Y/n] n\n",
				`→ accept {"age":41,"colour":"green","email":"ada@example.com","name":"Ada","ok":false,"ratio":0.5,"size":"l","tags":["a","c"]}`,
			},
		},
		{
			name:  "defaults kept on empty lines",
			flow:  kindsFlow,
			input: "1\nAda\n\n\n\n\n\n2\n0\n\n",
			want:  "Ada 30 b true",
			wantOut: []string{
				`→ accept {"age":30,"name":"Ada","ok":true,"size":"l","tags":["b"]}`,
			},
		},
		{
			name: "the form checks fields as they are typed",
			flow: kindsFlow,
			// name too short, then too long; a bad email; age not a
			// number, then out of range; no tags, then three.
			input: "\nA\nAdaAdaAdaAda\nAda\nnope\n\nx\n200\n\n\n\n\n0\n1\n2\n3\n0\n\n",
			want:  "Ada 30 a,b true",
			wantOut: []string{
				reason(t, nameProp, "A"), reason(t, nameProp, "AdaAdaAdaAda"),
				reason(t, emailProp, "nope"),
				`"x" is not a whole number`, reason(t, ageProp, int64(200)),
				reason(t, tagsProp, []any{}), "You can't select more than 2 options.",
			},
		},
		{
			name: "asked again after the engine refuses the answer",
			flow: kindsFlow,
			// Bob passes the form's checks but not the flow's rule; the
			// second time the previous answer is filled in.
			input: "\nBob\n\n\n\n\n\n1\n0\n\n" + "\nCy\n\n\n\n\n\n0\n\n",
			want:  "Cy 30 a true",
			wantOut: []string{
				`→ accept {"age":30,"name":"Bob","ok":true,"size":"l","tags":["a"]}`,
				"✗ Not accepted: Bob is taken",
				"? [q] Tell me things.",
				"1. ✓ a",
				`→ accept {"age":30,"name":"Cy","ok":true,"size":"l","tags":["a"]}`,
			},
		},
		{
			name:    "decline",
			flow:    kindsFlow,
			input:   "2\n",
			want:    "refused: decline",
			wantOut: []string{"Enter a number between 1 and 3: 2\n", "→ decline"},
		},
		{
			name:    "cancel",
			flow:    kindsFlow,
			input:   "3\n",
			want:    "refused: cancel",
			wantOut: []string{"→ cancel"},
		},
		{
			name:  "url accepted",
			flow:  signinFlow,
			input: "1\n",
			want:  "signed in",
			wantOut: []string{
				"? [signin] Sign in first.\n  Open: https://example.com/login?run=",
				"Did you open the page? \n1. Yes, I went there (accept)\n2. Decline (say no)\n",
				"→ accept\n",
			},
		},
		{
			name:  "url declined",
			flow:  signinFlow,
			input: "2\n",
			want:  "not signed in: decline",
		},
		{
			name:  "a last line without a line break",
			flow:  signinFlow,
			input: "3",
			want:  "not signed in: cancel",
		},
		{
			name:  "input ends before the question is answered",
			flow:  kindsFlow,
			input: "\nAda\n",
			errIs: runui.ErrInputEnded,
		},
		{
			name:  "input ends at once",
			flow:  kindsFlow,
			input: "",
			errIs: runui.ErrInputEnded,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out strings.Builder
			term := runui.NewTerminal(runui.TerminalOptions{In: strings.NewReader(tc.input), Out: &out, Accessible: true, Echo: true})
			res, err := runui.Run(ctx, compile(t, tc.flow), runui.Config{Client: allClients, Answerer: term, Out: &out})
			transcript := out.String()
			if tc.errIs != nil {
				if !errors.Is(err, tc.errIs) {
					t.Fatalf("error %v, want %v\n%s", err, tc.errIs, transcript)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v\n%s", err, transcript)
			}
			if got := resultText(res.Complete); got != tc.want || res.Complete.IsError != tc.isError {
				t.Errorf("result %q (isError %v), want %q (isError %v)\n%s", got, res.Complete.IsError, tc.want, tc.isError, transcript)
			}
			checkInOrder(t, transcript, tc.wantOut)
		})
	}
}

// TestTerminalInterrupted: a prompt waiting for input gives up when the
// context ends (Ctrl-C), and nothing it prints afterwards reaches the
// output.
func TestTerminalInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in, w := io.Pipe()
	defer w.Close()
	var out syncBuilder
	term := runui.NewTerminal(runui.TerminalOptions{In: in, Out: &out, Accessible: true})
	errc := make(chan error, 1)
	go func() {
		_, err := runui.Run(ctx, compile(t, kindsFlow), runui.Config{Client: allClients, Answerer: term, Out: &out})
		errc <- err
	}()
	// Wait for the first prompt, then interrupt.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Enter a number between 1 and 3") {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the context ended")
	}
	before := out.String()
	// The abandoned prompt reads this line and ends; its output is
	// dropped.
	io.WriteString(w, "1\n")
	w.Close()
	if after := out.String(); after != before {
		t.Errorf("output after the interrupt: %q", strings.TrimPrefix(after, before))
	}
}

// syncBuilder is a strings.Builder safe for concurrent use.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunPrompt runs a prompt flow to its messages and prints them.
func TestRunPrompt(t *testing.T) {
	const src = `name: greet
kind: prompt
description: Greets someone.
nodes:
  - id: who
    ask: Who?
    form: {name: {type: string}}
  - return:
      description: A greeting
      text: "Greet {{ who.content.name }}."
      messages:
        - role: assistant
          content: {type: image, data: AAAA, mimeType: image/png}
`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	script, err := runui.ParseAnswers("answers.yaml", []byte("who: {content: {name: Ada}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := runui.Run(ctx, compile(t, src), runui.Config{Client: allClients, Answerer: script, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompt == nil || res.Complete != nil {
		t.Fatalf("result %+v, want a prompt", res)
	}
	var b strings.Builder
	runui.PrintPrompt(&b, res.Prompt)
	want := "\nPrompt:\n(A greeting)\n[user] Greet Ada.\n[assistant] [image image/png, 4 bytes base64]\n"
	if b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}

func TestRunTaskStatuses(t *testing.T) {
	src := `
name: report
description: builds a report after a question
nodes:
  - id: go
    ask: Build it?
    form:
      ok: {type: boolean}
  - id: build
    step: time.now
    long: true
  - return: "built"
`
	script, err := runui.ParseAnswers("answers.yaml", []byte("go: {action: accept, content: {ok: true}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuilder
	res, err := runui.Run(t.Context(), compile(t, src), runui.Config{Client: allClients, Answerer: script, Out: &out})
	if err != nil || resultText(res.Complete) != "built" {
		t.Fatalf("run: %v, %v\n%s", res, err, out.String())
	}
	checkInOrder(t, out.String(), []string{"? [go] Build it?", "· task working: the call goes on as a task (step build is long)", "· ran step build", "· task completed"})
}
