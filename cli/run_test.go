package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/schemas"
)

// runCLI runs one command line in-process with the given standard input.
func runCLI(t *testing.T, ctx context.Context, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(ctx, args, stdin, &out, &errOut)
	return out.String(), errOut.String(), code
}

// writeTemp writes a file in dir and returns its path.
func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const signupRunTranscript = `Running signup (Sign up for the beta)

? [details] Sign up for the beta: tell us about you and your team.
→ accept {"email":"ada@example.com","interests":["research"],"name":"Ada Lovelace","plan":"team","seats":2}

✗ Not accepted: the team plan needs at least 5 seats (you asked for 2)
? [details] Sign up for the beta: tell us about you and your team.
→ accept {"email":"ada@example.com","interests":["research"],"name":"Ada Lovelace","plan":"team","seats":5}

Result:
Signed up Ada Lovelace <ada@example.com> on the team plan with 5 seat(s) for research.

Structured content:
{
  "email": "ada@example.com",
  "name": "Ada Lovelace",
  "newsletter": false,
  "plan": "team",
  "seats": 5
}
`

// TestRunAnswers runs the example flows with --answers files.
func TestRunAnswers(t *testing.T) {
	dir := t.TempDir()
	root := t.TempDir()
	flows, err := filepath.Abs(exampleFlowsDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string // after the answers file
		answers string
		code    int
		stdout  string   // the whole output, when set
		has     []string // parts of stdout, in order
		stderr  string   // part of stderr
		check   func(t *testing.T)
	}{
		{
			name: "signup, asked again after an answer the flow refuses",
			args: []string{filepath.Join(flows, "signup.yaml")},
			answers: `details:
  - action: accept
    content: {name: Ada Lovelace, email: ada@example.com, plan: team, seats: 2, interests: [research]}
  - action: accept
    content: {name: Ada Lovelace, email: ada@example.com, plan: team, seats: 5, interests: [research]}
`,
			stdout: signupRunTranscript,
		},
		{
			name:    "a prompt flow prints its messages",
			args:    []string{filepath.Join("..", "testdata", "conformance", "test_input_required_result_prompt.yaml")},
			answers: "user_context: {content: {context: tests}}\n",
			has: []string{"? [user_context] What context should the prompt use?\n", `→ accept {"context":"tests"}`,
				"\nPrompt:\n[user] Please answer with this context in mind: tests\n"},
		},
		{
			name:    "a prompt flow without its arguments",
			args:    []string{filepath.Join("..", "testdata", "conformance", "test_prompt_with_arguments.yaml")},
			answers: "{}\n",
			code:    1,
			stderr:  "invalid arguments: arg1: is required; arg2: is required",
		},
		{
			name:    "signup declined",
			args:    []string{filepath.Join(flows, "signup.yaml")},
			answers: "details: {action: decline}\n",
			has:     []string{"→ decline\n", "\nResult:\nNot signed up: the user chose to decline.\n"},
		},
		{
			name: "delete_file runs its steps for real",
			args: []string{"--fs-root", root, "--args", `{"path": "report.txt"}`, filepath.Join(flows, "delete_file.yaml")},
			answers: `confirm: {action: accept, content: {proceed: true}}
`,
			has: []string{
				"Running delete_file (Delete a file)\n· ran step size (fs.stat)\n",
				"? [confirm] Delete report.txt (11 bytes, modified ",
				`→ accept {"proceed":true}`,
				"· ran step delete (fs.remove)\n",
				"Result:\nDeleted report.txt.\n",
			},
			check: func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(root, "report.txt")); !os.IsNotExist(err) {
					t.Errorf("report.txt was not deleted (%v)", err)
				}
			},
		},
		{
			name:    "delete_file cancelled",
			args:    []string{"--fs-root", root, "--args", `{"path": "keep.txt"}`, filepath.Join(flows, "delete_file.yaml")},
			answers: "confirm: {action: cancel}\n",
			has:     []string{"→ cancel\n", "Result:\nKept keep.txt: the user did not confirm (cancel).\n"},
		},
		{
			name:    "delete_file on a client that cannot ask",
			args:    []string{"--fs-root", root, "--client", "none", "--args", `{"path": "keep.txt"}`, filepath.Join(flows, "delete_file.yaml")},
			answers: "{}\n",
			code:    1,
			has:     []string{"Result (isError):\nDeleting needs a confirmation, and this client cannot ask for one.\n"},
		},
		{
			name:    "expense_approval loops with a list of answers",
			args:    []string{"--args", `{"description": "team dinner", "amount": 900}`, filepath.Join(flows, "expense_approval.yaml")},
			answers: "decision:\n  - {action: accept, content: {decision: revise}}\n  - {action: accept, content: {decision: approve}}\nrevised:\n  - {action: accept, content: {amount: 950}}\n  - {action: accept, content: {amount: 700}}\n",
			has: []string{
				"? [decision] Approve 900 EUR for team dinner?",
				"? [revised] What amount should team dinner be revised to (now 900 EUR)?",
				`→ accept {"amount":950}`,
				"✗ Not accepted: the revised amount must be lower than 900 EUR",
				`→ accept {"amount":700}`,
				"? [decision] Approve 700 EUR for team dinner?",
				"· ran step file (uuid.new)\n",
				"Result:\nFiled 700 EUR for team dinner (receipt ",
			},
		},
		{
			name:    "github_signin: a URL question",
			args:    []string{"--args", `{"body": "it broke"}`, filepath.Join(flows, "github_signin.yaml")},
			answers: "signin: {action: accept}\nissue: {action: accept, content: {repository: octo/hello, title: It broke}}\n",
			has: []string{
				"? [signin] Sign in to GitHub so the issue is filed under your name.\n  Open: https://github.com/login/oauth/authorize?client_id=flowserve-demo&state=",
				"→ accept\n",
				`Would open "It broke" (bug) in octo/hello: it broke`,
			},
		},
		{
			name:    "github_signin without URL mode",
			args:    []string{"--client", "form", "--args", `{"body": "x"}`, filepath.Join(flows, "github_signin.yaml")},
			answers: "{}\n",
			code:    1,
			has:     []string{"Result (isError):\nOpening an issue needs a GitHub sign-in"},
		},
		{
			name:    "answers run out",
			args:    []string{filepath.Join(flows, "signup.yaml")},
			answers: "details: [{action: accept, content: {name: A}}]\n",
			code:    1,
			stderr:  `flowserve run: no answer left: "details" was asked 2 times and the answers have 1`,
		},
		{
			name:    "one answer is used every time",
			args:    []string{filepath.Join(flows, "signup.yaml")},
			answers: "details: {content: {name: Ada, email: ada@example.com, plan: team, interests: [other]}}\n",
			code:    1,
			has: []string{
				"✗ Not accepted: the team plan needs at least 5 seats (you asked for 1)",
				"✗ Not accepted: the team plan needs at least 5 seats (you asked for 1)",
				"Result (isError):\n" + `the answer to "details" was not accepted after 3 tries: the team plan needs at least 5 seats (you asked for 1)`,
			},
		},
		{
			name:    "unused answers are reported",
			args:    []string{filepath.Join(flows, "signup.yaml")},
			answers: "details: [{action: cancel}, {action: cancel}]\nother: {action: cancel}\n",
			stderr:  "flowserve run: answers not used: details (1), other (1)",
		},
		{
			name:    "invalid arguments",
			args:    []string{"--args", `{"path": 3}`, filepath.Join(flows, "delete_file.yaml")},
			answers: "{}\n",
			code:    1,
			has:     []string{"Result (isError):\ninvalid arguments: path: "},
		},
		{
			name:    "a flow named by its name in flows/",
			args:    []string{"signup"},
			answers: "details: {action: cancel}\n",
			has:     []string{"Running signup"},
		},
	}
	writeTemp(t, root, "report.txt", "hello world")
	writeTemp(t, root, "keep.txt", "keep me")
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answers := writeTemp(t, dir, "answers"+string(rune('a'+i))+".yaml", tc.answers)
			args := append([]string{"run", "--answers", answers}, tc.args...)
			if tc.args[len(tc.args)-1] == "signup" {
				// Names resolve against flows/ in the working directory.
				t.Chdir("..")
			}
			stdout, stderr, code := runCLI(t, cliCtx(t, 20*time.Second), strings.NewReader(""), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			checkInOrder(t, "stdout", stdout, tc.has)
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// accessibleSignup answers signup through the accessible prompts: answer;
// name; email; plan (enterprise); seats; interests (support, other,
// done); start; newsletter.
const accessibleSignup = "1\nAda Lovelace\nada@example.com\n3\n12\n2\n4\n0\n2026-03-01\ny\n"

// expenseArgs are the arguments of expense_approval that ask its
// decision (a required select without a default).
var expenseArgs = []string{"--args", `{"description":"x","amount":900}`, "expense_approval.yaml"}

// TestRunAccessible pipes answers into run, which asks with plain line
// prompts when standard input is not a terminal.
func TestRunAccessible(t *testing.T) {
	tests := []struct {
		name  string
		args  []string // default signup.yaml; the last is in flows/
		input string
		code  int
		has   []string
		err   string
	}{
		{
			name:  "answered",
			input: accessibleSignup,
			has: []string{
				"? [details] Sign up for the beta: tell us about you and your team.\nHow do you respond? \n1. Answer\n2. Decline (say no)\n3. Cancel (dismiss the question)\nEnter a number between 1 and 3: 1\n",
				"Your name [required; 2 to 80 characters]: Ada Lovelace\n",
				"Plan [Enter for Solo (1 seat)] \n1. Solo (1 seat)\n2. Team (5 seats or more)\n3. Enterprise\nEnter a number between 1 and 3: 3\n",
				"Seats [a whole number; 1 to 500; Enter for 1]: 12\n",
				"Send me the newsletter [y/N] y\n",
				`→ accept {"email":"ada@example.com","interests":["support","other"],"name":"Ada Lovelace","newsletter":true,"plan":"enterprise","seats":12,"start":"2026-03-01"}`,
				"Result:\nSigned up Ada Lovelace <ada@example.com> on the enterprise plan with 12 seat(s) for support, other.\n",
			},
		},
		{
			name:  "refused by the flow, then answered",
			input: "\nAda\nada@example.com\n\n3\n1\n0\n\n\n" + "\n\n\n\n1\n\n0\n\n\n",
			has: []string{
				`"seats":3`,
				"✗ Not accepted: the solo plan has exactly one seat\n? [details]",
				"Your name [required; 2 to 80 characters; Enter for Ada]: \n",
				`"seats":1`,
				"Result:\nSigned up Ada <ada@example.com> on the solo plan",
			},
		},
		{
			name:  "declined",
			input: "2\n",
			has:   []string{"→ decline\n", "Not signed up: the user chose to decline."},
		},
		{
			name:  "input ends",
			input: "1\nAda\n",
			code:  1,
			err:   `flowserve run: standard input ended before "details" was answered (at field "email")`,
		},
		// Issue 14: a bad entry on a select, then the end of the input,
		// panicked (index -1 for "x", 8 for "9").
		{
			name:  "a select given a bad entry, then the input ends",
			args:  expenseArgs,
			input: "1\nx\n",
			code:  1,
			has:   []string{"Enter a number between 1 and 3: x\n" + `"x" is not a choice: enter a number between 1 and 3` + "\n"},
			err:   `flowserve run: standard input ended before "decision" was answered (at field "decision")`,
		},
		{
			name:  "a select given a choice out of range, then the input ends",
			args:  expenseArgs,
			input: "1\n9\n",
			code:  1,
			has:   []string{`"9" is not a choice: enter a number between 1 and 3`},
			err:   `flowserve run: standard input ended before "decision" was answered (at field "decision")`,
		},
		{
			name:  "a required select without a default waits for a choice",
			args:  expenseArgs,
			input: "1\n\n1\n\n",
			has: []string{
				"Decision [required] \n1. Approve\n",
				"Enter a number between 1 and 3: \na choice is required: enter a number between 1 and 3\n",
				`→ accept {"decision":"approve"}`,
				"Result:\nFiled 900 EUR for x",
			},
		},
		{
			name:  "a number field given a bad entry, then the input ends",
			args:  expenseArgs,
			input: "1\n2\n\n1\nmany\n",
			code:  1,
			has:   []string{`"many" is not a number`},
			err:   `flowserve run: standard input ended before "revised" was answered (at field "amount")`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run"}, tc.args...)
			if len(tc.args) == 0 {
				args = append(args, "signup.yaml")
			}
			args[len(args)-1] = filepath.Join(exampleFlowsDir, args[len(args)-1])
			stdout, stderr, code := runCLI(t, cliCtx(t, 20*time.Second), strings.NewReader(tc.input), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, tc.code, stderr, stdout)
			}
			checkInOrder(t, "stdout", stdout, tc.has)
			if !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, stderr)
			}
		})
	}
}

// TestRunInterrupted: Ctrl-C (the context ending) while a question waits
// leaves with exit 130 and a one-line message.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(cliCtx(t, 20*time.Second))
	in, w := io.Pipe()
	defer w.Close()
	stdout := &syncBuffer{}
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"run", filepath.Join(exampleFlowsDir, "signup.yaml")}, in, stdout, &stderr)
	}()
	waitFor(t, stdout.String, "Enter a number between 1 and 3")
	cancel()
	select {
	case code := <-done:
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
		if got := stderr.String(); got != "\nflowserve run: interrupted\n" {
			t.Errorf("stderr %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not end after the interrupt")
	}
}

// waitFor polls text until it contains want.
func waitFor(t *testing.T, text func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestResolveFlow: FLOW is a path, or a name looked for in flows/.
func TestResolveFlow(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "flows", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"flows/a.yaml", "flows/b.yml", "flows/c.yaml", "c.yaml", "plain"} {
		writeTemp(t, dir, name, "")
	}
	t.Chdir(dir)
	tests := []struct {
		name, want, err string
	}{
		{"a", filepath.Join("flows", "a.yaml"), ""},
		{"b", filepath.Join("flows", "b.yml"), ""},
		{"a.yaml", filepath.Join("flows", "a.yaml"), ""},
		{"c.yaml", "c.yaml", ""}, // the file here wins
		{"plain", "plain", ""},
		{"flows/a.yaml", "flows/a.yaml", ""},
		{"flows/none.yaml", "flows/none.yaml", ""}, // a path: loading reports it
		{"none.json", "none.json", ""},
		{"sub", "", `no flow "sub": looked for sub, flows/sub.yaml, flows/sub.yml`},
		{"none", "", `no flow "none": looked for none, flows/none.yaml, flows/none.yml`},
		{"none.yaml", "", `no flow "none.yaml": looked for none.yaml, flows/none.yaml`},
	}
	for _, tc := range tests {
		got, err := resolveFlow(tc.name)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("resolveFlow(%q) = %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestRunCommandLine(t *testing.T) {
	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.yaml", "name: bad\ndescription: d\nnodes:\n  - id: q\n    ask: x\n    form: {a: {type: string}}\n  - branch:\n      - if: q.content.b == 'x'\n        then: nowhere\n")
	badAnswers := writeTemp(t, dir, "answers.yaml", "q: {action: sure}\n")
	signup := filepath.Join(exampleFlowsDir, "signup.yaml")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flow", nil, 2, "usage: flowserve run"},
		{"two flows", []string{signup, signup}, 2, "usage: flowserve run"},
		{"args not JSON", []string{"--args", "{", signup}, 2, "--args must be a JSON object"},
		{"args not an object", []string{"--args", "[1]", signup}, 2, "--args must be a JSON object"},
		{"bad client", []string{"--client", "form,telepathy", signup}, 2, `--client: unknown capability "telepathy"`},
		{"unknown flag", []string{"--bogus", signup}, 2, "flag provided but not defined"},
		{"no such flow", []string{filepath.Join(dir, "none.yaml")}, 2, "none.yaml: no such file or directory"},
		// Issue 14: a name says where it was looked for.
		{"no flow of that name", []string{"nope"}, 2, `flowserve run: no flow "nope": looked for nope, flows/nope.yaml, flows/nope.yml`},
		{"no flow of that file name", []string{"nope.yml"}, 2, `flowserve run: no flow "nope.yml": looked for nope.yml, flows/nope.yml`},
		{"a directory", []string{dir}, 2, "is a directory; name one flow file"},
		{"flow with errors", []string{bad}, 1, `bad.yaml:9:15: error: no node has id "nowhere" [unknown-target]`},
		{"no such answers file", []string{"--answers", filepath.Join(dir, "none.yaml"), signup}, 1, "none.yaml: no such file or directory"},
		{"bad answers file", []string{"--answers", badAnswers, signup}, 1, `answers.yaml:1:4: answer to "q": action must be accept, decline, cancel or timeout, not "sure"`},
		{"fs root not a directory", []string{"--fs-root", bad, signup}, 1, "is not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, cliCtx(t, 10*time.Second), strings.NewReader(""), append([]string{"run"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// schemaReason is what the schemas package says of v against prop: what
// a form prints for a value its schema does not take (the wording is the
// schemas package's own, so tests ask it rather than repeat it).
func schemaReason(t *testing.T, prop map[string]any, v any) string {
	t.Helper()
	s, err := schemas.Compile(prop)
	if err != nil {
		t.Fatal(err)
	}
	vs := s.Validate(v)
	if len(vs) == 0 {
		t.Fatalf("%v is valid against %v", v, prop)
	}
	return vs[0].String()
}

// checkInOrder checks that out (named what) holds each of has, in order.
func checkInOrder(t *testing.T, what, out string, has []string) {
	t.Helper()
	rest := out
	for _, h := range has {
		i := strings.Index(rest, h)
		if i < 0 {
			t.Errorf("%s lacks %q (in order):\n%s", what, h, out)
			return
		}
		rest = rest[i+len(h):]
	}
}
