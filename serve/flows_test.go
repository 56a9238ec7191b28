package serve_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// flowCase drives one example flow to its end with scripted answers.
type flowCase struct {
	name  string
	tool  string
	args  map[string]any
	files map[string]string // created under the fs root before the call
	only  []string          // the protocol versions the case is for; nil: all
	// raw marks answers the go-sdk client would refuse to send (they do
	// not match the requested schema): the client is then made to send
	// them anyway, and the SDK's own MRTR loop is skipped.
	raw        bool
	asks       []question
	isError    bool
	want       []string // substrings of the result's text
	structured any      // the structuredContent, when not nil
	check      func(t testing.TB, root string)
}

const (
	reasked     = "Your previous answer was not accepted: "
	githubLogin = "https://github.com/login/oauth/authorize?client_id=flowserve-demo&state="
)

var (
	report      = map[string]any{"path": "report.txt"}
	reportFile  = map[string]string{"report.txt": "hello world"} // 11 bytes
	taxi        = map[string]any{"description": "Taxi", "amount": 800}
	issueBody   = map[string]any{"body": "It crashes."}
	sessionEras = []string{v20251125, v20250618}
	urlEras     = []string{v20260728, v20251125}
)

func fileGone(name string) func(testing.TB, string) {
	return func(t testing.TB, root string) {
		t.Helper()
		if exists(t, root, name) {
			t.Errorf("%s still exists", name)
		}
	}
}

func fileHas(name, content string) func(testing.TB, string) {
	return func(t testing.TB, root string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(b) != content {
			t.Errorf("%s holds %q (%v), want %q", name, b, err, content)
		}
	}
}

func fileKept(name string) func(testing.TB, string) {
	return func(t testing.TB, root string) {
		t.Helper()
		if !exists(t, root, name) {
			t.Errorf("%s was deleted", name)
		}
	}
}

// Questions of the example flows.
func confirmQ(answer *mcp.ElicitResult, has ...string) question {
	return question{id: "confirm", has: append([]string{"Delete report.txt (11 bytes, modified "}, has...), answer: answer}
}

func decisionQ(amount string, answer *mcp.ElicitResult, has ...string) question {
	return question{id: "decision", has: append([]string{"Approve " + amount + " EUR for Taxi? It is over the 500 EUR limit."}, has...), answer: answer}
}

func revisedQ(amount string, answer *mcp.ElicitResult, has ...string) question {
	return question{id: "revised", has: append([]string{"What amount should Taxi be revised to (now " + amount + " EUR)?"}, has...), answer: answer}
}

func meetingQ(answer *mcp.ElicitResult, has ...string) question {
	return question{id: "meeting", has: append([]string{"What is the meeting?"}, has...), answer: answer}
}

func roomQ(who string, answer *mcp.ElicitResult, has ...string) question {
	return question{id: "room", has: append([]string{"Which room for " + who}, has...), answer: answer}
}

func bookQ(what string, answer *mcp.ElicitResult) question {
	return question{id: "confirm", has: []string{"Book the " + what}, answer: answer}
}

func detailsQ(answer *mcp.ElicitResult, has ...string) question {
	return question{id: "details", has: append([]string{"Sign up for the beta"}, has...), answer: answer}
}

func signinQ(answer *mcp.ElicitResult) question {
	return question{id: "signin", mode: "url", has: []string{"Sign in to GitHub"}, url: githubLogin, answer: answer}
}

// okQ is the question of confirm_action, which rotate_key and write_file
// call as node confirm: its key is the call's path.
func okQ(answer *mcp.ElicitResult, has ...string) question {
	return question{id: "confirm/ok", has: has, answer: answer}
}

func issueQ(answer *mcp.ElicitResult, has ...string) question {
	return question{id: "issue", has: append([]string{"Where should the issue go?"}, has...), answer: answer}
}

var (
	approveIt = accept(map[string]any{"decision": "approve"})
	revise    = accept(map[string]any{"decision": "revise", "note": "too much"})
	ada       = map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "interests": []any{"research"}}
	issue     = accept(map[string]any{"repository": "octo/hello", "title": "Crash on start"})
)

func amount(n float64) *mcp.ElicitResult { return accept(map[string]any{"amount": n}) }

func with(base map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

var flowCases = []flowCase{
	// delete_file
	{name: "confirmed", tool: "delete_file", args: report, files: reportFile,
		asks: []question{confirmQ(accept(map[string]any{"proceed": true}))},
		want: []string{"Deleted report.txt."}, check: fileGone("report.txt")},
	{name: "not confirmed", tool: "delete_file", args: report, files: reportFile,
		asks: []question{confirmQ(accept(map[string]any{"proceed": false}))},
		want: []string{"Kept report.txt: the user did not confirm (accept)."}, check: fileKept("report.txt")},
	{name: "declined", tool: "delete_file", args: report, files: reportFile,
		asks: []question{confirmQ(declined)},
		want: []string{"Kept report.txt: the user did not confirm (decline)."}, check: fileKept("report.txt")},
	{name: "canceled", tool: "delete_file", args: report, files: reportFile,
		asks: []question{confirmQ(canceled)},
		want: []string{"Kept report.txt: the user did not confirm (cancel)."}, check: fileKept("report.txt")},
	// An omitted required field with a default gets the default before
	// validation (DESIGN §3), on every era.
	{name: "default applied before validation", tool: "delete_file", args: report, files: reportFile, raw: true,
		asks: []question{confirmQ(accept(map[string]any{}))},
		want: []string{"Kept report.txt: the user did not confirm (accept)."}, check: fileKept("report.txt")},
	{name: "invalid then confirmed", tool: "delete_file", args: report, files: reportFile, raw: true,
		asks: []question{
			confirmQ(accept(map[string]any{"proceed": "yes"})),
			confirmQ(accept(map[string]any{"proceed": true}), reasked, "proceed"),
		},
		want: []string{"Deleted report.txt."}, check: fileGone("report.txt")},
	{name: "missing file", tool: "delete_file", args: map[string]any{"path": "nope.txt"}, files: reportFile,
		isError: true, want: []string{"Cannot delete nope.txt: "}, check: fileKept("report.txt")},
	{name: "outside the root", tool: "delete_file", args: map[string]any{"path": "../report.txt"}, files: reportFile,
		isError: true, want: []string{"Cannot delete ../report.txt: ", "out of the fs root"}, check: fileKept("report.txt")},
	{name: "invalid arguments", tool: "delete_file", args: map[string]any{"path": 7}, files: reportFile,
		isError: true, want: []string{"invalid arguments", "path"}, check: fileKept("report.txt")},

	// expense_approval
	{name: "under the limit", tool: "expense_approval", args: map[string]any{"description": "Taxi", "amount": 100},
		want: []string{"Filed 100 EUR for Taxi (receipt "}},
	{name: "under a custom limit", tool: "expense_approval", args: map[string]any{"description": "Taxi", "amount": 800, "limit": 1000},
		want: []string{"Filed 800 EUR for Taxi (receipt "}},
	{name: "approved", tool: "expense_approval", args: taxi,
		asks: []question{decisionQ("800", approveIt)},
		want: []string{"Filed 800 EUR for Taxi (receipt "}},
	{name: "rejected", tool: "expense_approval", args: taxi,
		asks: []question{decisionQ("800", accept(map[string]any{"decision": "reject"}))},
		want: []string{"Rejected 800 EUR for Taxi."}},
	{name: "declined", tool: "expense_approval", args: taxi,
		asks: []question{decisionQ("800", declined)},
		want: []string{"Rejected 800 EUR for Taxi."}},
	{name: "canceled", tool: "expense_approval", args: taxi,
		asks: []question{decisionQ("800", canceled)},
		want: []string{"Rejected 800 EUR for Taxi."}},
	{name: "revised twice then approved", tool: "expense_approval", args: taxi,
		asks: []question{
			decisionQ("800", revise),
			revisedQ("800", amount(700)),
			decisionQ("700", revise),
			revisedQ("700", amount(612.5)),
			decisionQ("612.5", approveIt),
		},
		want: []string{"Filed 612.5 EUR for Taxi (receipt "}},
	{name: "revised amount not lower", tool: "expense_approval", args: taxi,
		asks: []question{
			decisionQ("800", revise),
			revisedQ("800", amount(900)),
			revisedQ("800", amount(450), reasked+"the revised amount must be lower than 800 EUR"),
			decisionQ("450", approveIt),
		},
		want: []string{"Filed 450 EUR for Taxi (receipt "}},
	{name: "revised amount retries exhausted", tool: "expense_approval", args: taxi,
		asks: []question{
			decisionQ("800", revise),
			revisedQ("800", amount(900)),
			revisedQ("800", amount(800), "the revised amount must be lower than 800 EUR"),
			revisedQ("800", amount(1e4), "the revised amount must be lower than 800 EUR"),
		},
		isError: true, want: []string{`"revised"`, "after 3 tries", "the revised amount must be lower than 800 EUR"}},
	{name: "schema violations then approved", tool: "expense_approval", args: taxi, raw: true,
		asks: []question{
			decisionQ("800", accept(map[string]any{"decision": "maybe"})),
			decisionQ("800", revise, reasked, "decision"),
			revisedQ("800", amount(-5)),
			revisedQ("800", amount(300), reasked, "amount"),
			decisionQ("300", approveIt),
		},
		want: []string{"Filed 300 EUR for Taxi (receipt "}},
	{name: "too many revisions", tool: "expense_approval", args: taxi,
		asks: []question{
			decisionQ("800", revise), revisedQ("800", amount(700)),
			decisionQ("700", revise), revisedQ("700", amount(600)),
			decisionQ("600", revise), revisedQ("600", amount(550)),
			decisionQ("550", revise),
		},
		isError: true, want: []string{"Gave up after 3 revisions of Taxi."}},

	// book_meeting
	{name: "booked", tool: "book_meeting",
		asks: []question{
			meetingQ(accept(map[string]any{"topic": "Planning", "day": "2026-12-01"})),
			roomQ(`"Planning" (4 people)`, accept(map[string]any{"room": "small"})),
			bookQ(`small room on 2026-12-01 for "Planning"?`, accept(map[string]any{"book": true})),
		},
		want: []string{`Booked the small room on 2026-12-01 for "Planning".`}},
	{name: "small room too small, then the hall", tool: "book_meeting",
		asks: []question{
			meetingQ(accept(map[string]any{"topic": "All hands", "attendees": 30, "day": "2026-12-02"})),
			roomQ(`"All hands" (30 people)`, accept(map[string]any{"room": "small"})),
			roomQ(`"All hands" (30 people)`, accept(map[string]any{"room": "hall"}), reasked+"the small room holds 4 people, not 30"),
			bookQ(`hall room on 2026-12-02`, accept(map[string]any{"book": true})),
		},
		want: []string{`Booked the hall room on 2026-12-02 for "All hands".`}},
	{name: "not confirmed", tool: "book_meeting",
		asks: []question{
			meetingQ(accept(map[string]any{"topic": "Retro", "day": "2026-12-03"})),
			roomQ(`"Retro"`, accept(map[string]any{"room": "large"})),
			bookQ(`large room`, declined),
		},
		want: []string{"Not booked."}},

	// signup
	{name: "defaults", tool: "signup",
		asks:       []question{detailsQ(accept(ada))},
		want:       []string{"Signed up Ada Lovelace <ada@example.com> on the solo plan with 1 seat(s) for research."},
		structured: map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "plan": "solo", "seats": 1, "newsletter": false}},
	{name: "team", tool: "signup",
		asks: []question{detailsQ(accept(with(ada, "plan", "team", "seats", 12, "interests", []any{"automation", "support"},
			"newsletter", true, "start", "2026-11-02")))},
		want:       []string{"Signed up Ada Lovelace <ada@example.com> on the team plan with 12 seat(s) for automation, support."},
		structured: map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "plan": "team", "seats": 12, "newsletter": true}},
	{name: "team with 2 seats then 5", tool: "signup",
		asks: []question{
			detailsQ(accept(with(ada, "plan", "team", "seats", 2))),
			detailsQ(accept(with(ada, "plan", "team", "seats", 5)), reasked+"the team plan needs at least 5 seats (you asked for 2)"),
		},
		want: []string{"on the team plan with 5 seat(s)"}},
	{name: "solo with 3 seats then 1", tool: "signup",
		asks: []question{
			detailsQ(accept(with(ada, "seats", 3))),
			detailsQ(accept(with(ada, "seats", 1)), reasked+"the solo plan has exactly one seat"),
		},
		want: []string{"on the solo plan with 1 seat(s)"}},
	{name: "declined", tool: "signup",
		asks: []question{detailsQ(declined)},
		want: []string{"Not signed up: the user chose to decline."}},
	{name: "canceled", tool: "signup",
		asks: []question{detailsQ(canceled)},
		want: []string{"Not signed up: the user chose to cancel."}},
	{name: "schema violations then valid", tool: "signup", raw: true,
		asks: []question{
			detailsQ(accept(with(ada, "name", "A"))),
			detailsQ(accept(with(ada, "email", "not-an-email")), reasked, "name"),
			detailsQ(accept(with(ada, "interests", []any{"gaming"})), reasked, "email"),
			// Past the retries: the third invalid answer ends the call.
		},
		isError: true, want: []string{`"details"`, "after 3 tries", "interests"}},
	{name: "schema violation then valid", tool: "signup", raw: true,
		asks: []question{
			detailsQ(accept(with(ada, "seats", 0))),
			detailsQ(accept(ada), reasked, "seats"),
		},
		want: []string{"Signed up Ada Lovelace"}},
	{name: "retries exhausted", tool: "signup",
		asks: []question{
			detailsQ(accept(with(ada, "plan", "team", "seats", 2))),
			detailsQ(accept(with(ada, "plan", "team", "seats", 3)), "you asked for 2"),
			detailsQ(accept(with(ada, "plan", "team", "seats", 4)), "you asked for 3"),
		},
		isError: true, want: []string{`"details"`, "after 3 tries", "the team plan needs at least 5 seats (you asked for 4)"}},

	// github_signin
	{name: "signed in", tool: "github_signin", args: issueBody, only: urlEras,
		asks: []question{signinQ(accept(nil)), issueQ(issue)},
		want: []string{`Would open "Crash on start" (bug) in octo/hello: It crashes.`}},
	{name: "sign-in declined", tool: "github_signin", args: issueBody, only: urlEras,
		asks: []question{signinQ(declined)},
		want: []string{"Not signed in (decline); no issue was opened."}},
	{name: "sign-in canceled", tool: "github_signin", args: issueBody, only: urlEras,
		asks: []question{signinQ(canceled)},
		want: []string{"Not signed in (cancel); no issue was opened."}},
	{name: "bad repository then good", tool: "github_signin", args: issueBody, only: urlEras,
		asks: []question{
			signinQ(accept(nil)),
			issueQ(accept(map[string]any{"repository": "octo", "title": "Crash on start", "label": "question"})),
			issueQ(accept(map[string]any{"repository": "octo/hello", "title": "Crash on start", "label": "question"}),
				reasked+"the repository must look like owner/name"),
		},
		want: []string{`Would open "Crash on start" (question) in octo/hello`}},
	{name: "title too short then good", tool: "github_signin", args: issueBody, only: urlEras, raw: true,
		asks: []question{
			signinQ(accept(nil)),
			issueQ(accept(map[string]any{"repository": "octo/hello", "title": "abc"})),
			issueQ(issue, reasked, "title"),
		},
		want: []string{`Would open "Crash on start" (bug) in octo/hello`}},
	// 2025-06-18 has no URL mode: the flow goes to its unavailable node.
	{name: "no URL mode", tool: "github_signin", args: issueBody, only: []string{v20250618},
		isError: true, want: []string{"needs a GitHub sign-in in the browser"}},

	// rotate_key and write_file: a call of the private confirm_action,
	// whose question is keyed by the call's path.
	{name: "rotated", tool: "rotate_key", args: map[string]any{"key": "ci-deploy"},
		asks: []question{okQ(accept(map[string]any{"proceed": true, "note": "quarterly"}), "Rotate the API key ci-deploy? Clients have 24 hours")},
		want: []string{"Rotated ci-deploy: the new key is ", "the old one works for 24 more hours."}},
	{name: "kept", tool: "rotate_key", args: map[string]any{"key": "ci-deploy"},
		asks:       []question{okQ(declined)},
		want:       []string{"Kept ci-deploy: the rotation was not confirmed."},
		structured: map[string]any{"status": "kept", "key": "ci-deploy", "note": ""}},
	{name: "new file", tool: "write_file", args: map[string]any{"path": "new.txt", "text": "fresh"},
		want: []string{"Wrote 5 bytes to new.txt."}},
	{name: "replaced", tool: "write_file", args: map[string]any{"path": "report.txt", "text": "fresh"}, files: reportFile,
		asks:  []question{okQ(accept(map[string]any{"proceed": true}), "Replace report.txt? It has 11 bytes")},
		want:  []string{"Wrote 5 bytes to report.txt."},
		check: fileHas("report.txt", "fresh")},
	{name: "not replaced", tool: "write_file", args: map[string]any{"path": "report.txt", "text": "fresh"}, files: reportFile,
		asks:  []question{okQ(accept(map[string]any{"proceed": false}))},
		want:  []string{"Kept report.txt as it was: replacing it was not confirmed."},
		check: fileHas("report.txt", "hello world")},

	// project_brief: these clients declare no roots, so its all node goes
	// to its unavailable node; TestSamplingRootsAndAll drives sample,
	// roots and all with clients that have them.
	{name: "no roots", tool: "project_brief",
		isError: true, want: []string{"needs a client that can show a form and list its roots"}},
}

// TestExampleFlows drives every example flow to its end at every
// protocol era, in memory and over HTTP.
func TestExampleFlows(t *testing.T) {
	progs := exampleFlows(t)
	covered := map[string]bool{}
	for _, tc := range flowCases {
		covered[tc.tool] = true
	}
	for _, p := range progs {
		// Approvals are answered on a page, not by the client:
		// TestExampleRefundApproval drives them at every era. A private
		// flow is not served: the cases of the flows that call it drive it.
		if !covered[p.Name()] && !p.File().HasApprovals() && !p.Private() {
			t.Errorf("example flow %s (%s) has no test case", p.Name(), p.File().Path)
		}
	}
	for _, tc := range flowCases {
		for _, e := range eras {
			if tc.only != nil && !slices.Contains(tc.only, e.version) {
				continue
			}
			if tc.raw && e.version >= v20260728 && !e.manual {
				continue
			}
			for _, kind := range transports {
				t.Run(tc.tool+"/"+tc.name+"/"+e.name+"/"+string(kind), func(t *testing.T) {
					t.Parallel()
					runFlowCase(t, progs, tc, e, kind)
				})
			}
		}
	}
}

func runFlowCase(t *testing.T, progs []*flow.Program, tc flowCase, e era, kind transportKind) {
	t.Helper()
	ctx := testCtx(t)
	root := t.TempDir()
	for name, content := range tc.files {
		writeFile(t, root, name, content)
	}
	srv := newServer(t, progs, root)
	sc := newScript(t, e.version, tc.asks)
	cs := connect(t, ctx, srv, kind, e.version, clientFor(e, sc, tc.raw, nil, nil), nil)
	res, rounds, err := callTool(t, ctx, cs, e, sc, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
	if err != nil {
		t.Fatalf("call %s: %v", tc.tool, err)
	}
	checkText(t, res, tc.isError, tc.want...)
	if n := sc.count(); n != len(tc.asks) {
		t.Errorf("asked %d questions, want %d", n, len(tc.asks))
	}
	if e.manual && rounds != len(tc.asks)+1 {
		t.Errorf("%d rounds, want %d", rounds, len(tc.asks)+1)
	}
	if tc.structured != nil && !jsonEqual(res.StructuredContent, tc.structured) {
		t.Errorf("structuredContent = %v, want %v", res.StructuredContent, tc.structured)
	}
	if tc.check != nil {
		tc.check(t, root)
	}
}
