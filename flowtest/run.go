package flowtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies"
	"github.com/flowserve/flowserve/schemas"
)

// Options configure a test run. The zero value is usable.
type Options struct {
	// Actions resolves step actions; nil means actions.Default().
	Actions *actions.Registry
	// Match selects the cases to run by flow name and case name; nil runs
	// every case.
	Match func(flow, name string) bool
	// OnFlow, when set, is called with each flow's report as soon as the
	// flow's cases have run, for output that streams.
	OnFlow func(*FlowReport)
}

// Clock is the time flows see in tests: run.started, and the clock of
// the request state. It is fixed so results do not depend on when the
// tests run.
var Clock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run discovers the suites of paths (see Discover) and runs them. The
// error is for paths that cannot be read and for a cancelled ctx;
// everything wrong with flows and test files is in the report.
//
// Each flow is loaded with the flow files beside it, each directory
// once. A flow that other flows of the run call runs its cases after
// theirs, so that its coverage counts the nodes their cases visited in
// it; the reports stay in the order of the suites.
func Run(ctx context.Context, paths []string, opts Options) (*Report, error) {
	suites, err := Discover(paths)
	if err != nil {
		return nil, err
	}
	reg, cleanup, err := provision(ctx, opts.Actions)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	opts.Actions = reg
	sh := &shared{loader: newLoader(reg), covers: covers{}}
	r := &Report{}
	reports := make([]*FlowReport, len(suites))
	emitted := 0
	for _, i := range callersFirst(suites, sh.loader) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		reports[i] = suites[i].run(ctx, opts, sh)
		for ; emitted < len(reports) && reports[emitted] != nil; emitted++ {
			r.add(reports[emitted])
			if opts.OnFlow != nil {
				opts.OnFlow(reports[emitted])
			}
		}
	}
	return r, nil
}

// shared is what the suites of one run share: the flows loaded, by
// directory, and the coverage of every flow their cases reach.
type shared struct {
	loader *loader
	covers covers
}

// callersFirst returns the order to run suites in: the order they come
// in, except that a suite whose flow others of them call (directly or
// not) comes after those.
func callersFirst(suites []*Suite, l *loader) []int {
	index := map[string]int{}
	for i, s := range suites {
		index[s.Flow] = i
	}
	callers := make([][]int, len(suites)) // callers[j]: the suites that call j's flow
	for i, s := range suites {
		fl, _, _ := l.load(s.Flow)
		if fl == nil {
			continue
		}
		for _, p := range fl.byName {
			if j, ok := index[p.File().Path]; ok && j != i {
				callers[j] = append(callers[j], i)
			}
		}
	}
	order := make([]int, 0, len(suites))
	done := make([]bool, len(suites))
	var visit func(j int, open []bool)
	visit = func(j int, open []bool) {
		if done[j] || open[j] {
			return // done, or a cycle (which a flow with calls cannot load with)
		}
		open[j] = true
		for _, i := range callers[j] {
			visit(i, open)
		}
		done[j] = true
		order = append(order, j)
	}
	for j := range suites {
		visit(j, make([]bool, len(suites)))
	}
	return order
}

// Run loads the suite's flow (with the flow files beside it) and test
// files and runs their cases.
func (s *Suite) Run(ctx context.Context, opts Options) *FlowReport {
	reg, cleanup, err := provision(ctx, opts.Actions)
	if err != nil {
		fr := &FlowReport{Name: dsl.DefaultName(s.Flow), File: s.Flow, TestFiles: slices.Clone(s.Tests), Cases: []*CaseReport{}, LoadFailed: true}
		if fr.TestFiles == nil {
			fr.TestFiles = []string{}
		}
		fr.addDiags(dsl.Diagnostics{{Pos: dsl.Pos{File: s.Flow, Line: 1, Col: 1}, Severity: dsl.Error, Code: CodeCompile, Message: err.Error()}})
		return fr
	}
	defer cleanup()
	opts.Actions = reg
	return s.run(ctx, opts, &shared{loader: newLoader(reg), covers: covers{}})
}

// run is Run with what the suites of a run share; opts.Actions is
// provisioned.
func (s *Suite) run(ctx context.Context, opts Options, sh *shared) *FlowReport {
	start := time.Now()
	fr := &FlowReport{Name: dsl.DefaultName(s.Flow), File: s.Flow, TestFiles: slices.Clone(s.Tests)}
	if fr.TestFiles == nil {
		fr.TestFiles = []string{}
	}
	fr.Cases = []*CaseReport{}
	defer func() {
		fr.Elapsed = time.Since(start)
		fr.OK = len(fr.Errors) == 0 && fr.Failed == 0
	}()

	reg := opts.Actions
	fl, missing, diags := sh.loader.load(s.Flow)
	if missing && len(s.Tests) == 0 {
		return fr
	}
	fr.addDiags(diags)
	var p *flow.Program
	if fl != nil {
		p = fl.root
		fr.Name = p.Name()
		fr.Coverage = sh.covers.of(p.File())
	} else {
		fr.LoadFailed = true
	}

	var files []*File
	for _, path := range s.Tests {
		f, diags, err := ReadFile(path)
		if err != nil {
			fr.addDiags(dsl.Diagnostics{{Pos: dsl.Pos{File: path, Line: 1, Col: 1}, Severity: dsl.Error, Code: CodeUnreadable, Message: err.Error()}})
			continue
		}
		if f != nil && missing {
			pos := f.FlowPos
			if !pos.IsValid() {
				pos = dsl.Pos{File: path, Line: 1, Col: 1}
			}
			diags = append(diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: CodeNoFlow,
				Message: fmt.Sprintf("there is no flow file %s for this test file; a test file runs the flow named like it (x_test.yaml runs x.yaml) or the one its flow key gives", s.Flow)})
		}
		if f != nil && fl != nil {
			diags = append(diags, checkRefs(f, fl, reg)...)
		}
		diags.Sort()
		fr.addDiags(diags)
		if f != nil && !diags.HasErrors() {
			files = append(files, f)
		}
	}
	if p == nil {
		return fr
	}
	engine := testEngine(flow.Values{})
	names := map[string]string{}
	for _, f := range files {
		for _, c := range f.Cases {
			if prev, dup := names[c.Name]; dup {
				fr.addDiags(dsl.Diagnostics{{Pos: c.Pos, Severity: dsl.Error, Code: CodeDuplicateCase,
					Message: fmt.Sprintf("another case of flow %s is named %q (%s)", p.Name(), c.Name, prev)}})
				continue
			}
			names[c.Name] = c.Pos.String()
			if opts.Match != nil && !opts.Match(p.Name(), c.Name) {
				continue
			}
			cr := runCase(ctx, caseEngine(engine, fl, f, c), fl, c, sh.covers)
			fr.Cases = append(fr.Cases, cr)
			switch cr.Status {
			case StatusPass:
				fr.Passed++
			case StatusFail:
				fr.Failed++
			case StatusSkip:
				fr.Skipped++
			}
		}
	}
	fr.Coverage.finish()
	return fr
}

// testCodec seals request states with a fixed key and the fixed Clock.
func testCodec() *state.Codec {
	k := state.Key{ID: "test"}
	copy(k.Secret[:], "flowserve test key, not a secret")
	ring, err := state.NewKeyRing(k)
	if err != nil {
		panic(err) // a fixed, valid key
	}
	return state.NewCodec(ring, state.Options{Now: func() time.Time { return Clock }})
}

// provision returns reg (nil: actions.Default()) provisioned for tests,
// with the pinned Clock as the actions' clock, and the cleanup to call
// when the tests are done; or reg itself when it is provisioned already,
// whose cleanup is its provider's.
func provision(ctx context.Context, reg *actions.Registry) (*actions.Registry, func(), error) {
	if reg == nil {
		reg = actions.Default()
	}
	if reg.Provisioned() {
		return reg, func() {}, nil
	}
	p, err := reg.Provision(ctx, &actions.Host{Now: func() time.Time { return Clock }})
	if err != nil {
		return nil, nil, err
	}
	return p, func() { p.Cleanup() }, nil
}

// testEngine runs flows under test: states sealed with a fixed key, one
// clock, Clock, for the whole run (run.started, state lifetimes and
// time.now in steps), and the values of vars and secrets a case gives.
func testEngine(values flow.Values) *flow.Engine {
	clock := func() time.Time { return Clock }
	e, err := flow.NewEngine(flow.EngineOptions{Codec: testCodec(), Now: clock, Replies: replies.NewMemory(0, clock), Values: values})
	if err != nil {
		panic(err) // only an ephemeral key can fail, and the codec is given
	}
	return e
}

// caseEngine returns the engine that runs case c of file f: shared, when
// the flow and the flows it calls declare no vars or secrets, and
// otherwise an engine of its own with the values c and f give them (c's
// winning), and nothing from the environment: tests are hermetic.
func caseEngine(shared *flow.Engine, fl *flows, f *File, c *Case) *flow.Engine {
	if vars, secrets := fl.settings(); len(vars)+len(secrets) == 0 {
		return shared
	}
	return testEngine(caseValues(f, c))
}

// caseValues returns the values of vars and secrets that case c of file
// f gives, c's over f's.
func caseValues(f *File, c *Case) flow.Values {
	merge := func(file, cs map[string]Setting) map[string]string {
		out := map[string]string{}
		for _, m := range []map[string]Setting{file, cs} {
			for name, s := range m {
				out[name] = s.Value
			}
		}
		return out
	}
	return flow.Values{Vars: merge(f.Vars, c.Vars), Secrets: merge(f.Secrets, c.Secrets)}
}

// checkSettings checks that the vars and secrets a test file and its
// cases give are ones the flow or a flow it calls declares, and that each
// case that runs gives every one a value, here or in the file.
func checkSettings(f *File, fl *flows, errorf func(pos dsl.Pos, code, format string, args ...any)) {
	declared := func(decls []*dsl.Setting) []string {
		var names []string
		for _, d := range decls {
			names = append(names, d.Name)
		}
		return names
	}
	declVars, declSecrets := fl.settings()
	vars, secrets := declared(declVars), declared(declSecrets)
	path := fl.root.File().Path
	if len(fl.byName) > 1 {
		path += " and the flows it calls"
	}
	unknown := func(given map[string]Setting, what string, names []string) {
		for _, name := range slices.Sorted(maps.Keys(given)) {
			if slices.Contains(names, name) {
				continue
			}
			verb := "declares"
			if len(fl.byName) > 1 {
				verb = "declare"
			}
			msg := fmt.Sprintf("%ss: %s %s no %s %s", what, path, verb, what, name)
			if s := dsl.Suggest(name, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			errorf(given[name].Pos, CodeUnknownKey, "%s", msg)
		}
	}
	unknown(f.Vars, "var", vars)
	unknown(f.Secrets, "secret", secrets)
	for _, c := range f.Cases {
		unknown(c.Vars, "var", vars)
		unknown(c.Secrets, "secret", secrets)
		if c.Skip != "" {
			continue
		}
		missing := func(decls []*dsl.Setting, what string) {
			for _, d := range decls {
				who := "the flow declares"
				if d.Pos.File != fl.root.File().Path {
					who = fmt.Sprintf("a flow it calls (%s) declares", d.Pos.File)
				}
				errorf(c.Pos, CodeBadValue, "%s %s %s, and this case gives it no value: add it under %ss in the case or the test file (tests never read the environment)",
					who, what, d.Name, what)
			}
		}
		values := caseValues(f, c)
		for _, d := range declVars {
			if values.Vars[d.Name] == "" {
				missing([]*dsl.Setting{d}, "var")
			}
		}
		for _, d := range declSecrets {
			if values.Secrets[d.Name] == "" {
				missing([]*dsl.Setting{d}, "secret")
			}
		}
	}
}

// checkRefs checks that the nodes a test file names exist and have the
// right kinds (a node of a flow that a call runs named by its call path,
// confirm/ok), that mocked outputs match their actions (a mocked call's,
// its flow's output schema), and that the vars and secrets it gives are
// the flow's or those of the flows it calls.
func checkRefs(f *File, fl *flows, reg *actions.Registry) dsl.Diagnostics {
	p := fl.root
	file := p.File()
	var diags dsl.Diagnostics
	errorf := func(pos dsl.Pos, code, format string, args ...any) {
		diags = append(diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	// node finds a node by its key, or by #N when anon is true.
	node := func(name string, pos dsl.Pos, what string, anon bool, kinds ...dsl.Kind) *dsl.Node {
		_, n, msg := fl.lookup(name, what, anon)
		if n == nil {
			errorf(pos, CodeUnknownNode, "%s", msg)
			return nil
		}
		if len(kinds) > 0 && !slices.Contains(kinds, n.Kind) {
			errorf(pos, CodeWrongKind, "%s: %s is %s node, not %s", what, name, withArticle(n.Kind), kindList(kinds))
			return nil
		}
		return n
	}
	checkSettings(f, fl, errorf)
	// What mocks and step_inputs name: steps, and calls in a flow that
	// has them.
	mockable := []dsl.Kind{dsl.KindStep}
	if file.HasCalls() {
		mockable = append(mockable, dsl.KindCall, dsl.KindLink)
	}
	for _, c := range f.Cases {
		for _, id := range slices.Sorted(maps.Keys(c.Answers)) {
			as := c.Answers[id]
			n := node(id, as.Pos, "answers", false, dsl.KindAsk, dsl.KindSample, dsl.KindRoots)
			if n == nil {
				continue
			}
			for _, a := range as.List {
				if a.Kind != n.Kind {
					errorf(a.Pos, CodeWrongAnswer, "answers: %s is %s node, and this answer is %s", id, withArticle(n.Kind), answerKind(a.Kind))
					continue
				}
				if n.Kind == dsl.KindAsk {
					checkApprovalAnswer(id, n.Ask, a, errorf)
				}
			}
		}
		for _, id := range slices.Sorted(maps.Keys(c.Mocks)) {
			m := c.Mocks[id]
			n := node(id, m.Pos, "mocks", false, mockable...)
			if n == nil || m.IsErr {
				continue
			}
			if n.Kind.IsCall() {
				checkCallMock(id, m, fl.callee(n), fl.outputs, errorf)
				continue
			}
			act, ok := reg.Lookup(n.Step.Action.Value)
			if !ok {
				continue // the flow does not compile without it
			}
			v, err := actions.Normalize(m.Output)
			if err == nil {
				err = act.ValidateOutput(v)
			}
			if err != nil {
				errorf(m.Pos, CodeBadMock, "mocks: the mocked %s does not match the %s", id, err)
			}
		}
		x := &c.Expect
		if x.Path != nil {
			for i, id := range x.Path.Items {
				node(id, x.Path.Poss[i], "path", false)
			}
		}
		for _, l := range x.Visits {
			for i, name := range l.Items {
				node(name, l.Poss[i], "visits", true)
			}
		}
		if x.NotVisits != nil {
			for i, name := range x.NotVisits.Items {
				node(name, x.NotVisits.Poss[i], "not_visits", true)
			}
		}
		if x.Asks != nil {
			for i, id := range x.Asks.Items {
				node(id, x.Asks.Poss[i], "asks", false, dsl.KindAsk, dsl.KindSample, dsl.KindRoots)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(x.AskMessages)) {
			node(id, x.AskMessages[id].Pos, "ask_messages", false, dsl.KindAsk)
		}
		for _, id := range slices.Sorted(maps.Keys(x.StepInputs)) {
			node(id, x.StepInputs[id].Pos, "step_inputs", false, mockable...)
		}
		// What a case expects must be what the flow's kind returns.
		keys := []struct {
			key    string
			pos    dsl.Pos
			prompt bool // the key belongs to prompt flows
		}{
			{"structured", expPos(x.Structured), false}, {"structured_contains", expPos(x.StructuredContains), false},
			{"messages", expPos(x.Messages), true}, {"description", strPos(x.Description), true},
		}
		for _, k := range keys {
			switch {
			case !k.pos.IsValid() || k.prompt == p.IsPrompt():
			case k.prompt:
				errorf(k.pos, CodeWrongKind, "%s: %s is a tool flow, and only prompt flows return %s", k.key, file.Path, k.key)
			default:
				errorf(k.pos, CodeWrongKind, "%s: %s is a prompt flow, which returns messages, not structured content", k.key, file.Path)
			}
		}
	}
	return diags
}

// checkCallMock checks the mocked result of call node id, which runs
// callee: a value its output schema takes, or, when it declares none, a
// string (the text of its result).
func checkCallMock(id string, m *Mock, callee *flow.Program, outputs map[string]*schemas.Schema, errorf func(pos dsl.Pos, code, format string, args ...any)) {
	if callee == nil {
		return
	}
	v, err := actions.Normalize(m.Output)
	if err != nil {
		errorf(m.Pos, CodeBadMock, "mocks: the mocked result of %s: %v", id, err)
		return
	}
	s := outputs[callee.Name()]
	if s == nil {
		if _, ok := v.(string); !ok {
			errorf(m.Pos, CodeBadMock, "mocks: %s runs flow %s, which declares no output schema, so its result is its text: mock it with a string (or {error: …} for a failure)", id, callee.Name())
		}
		return
	}
	if vs := s.Validate(v); len(vs) > 0 {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = v.String()
		}
		errorf(m.Pos, CodeBadMock, "mocks: the mocked result of %s does not match the output schema of flow %s: %s", id, callee.Name(), strings.Join(parts, "; "))
	}
}

// checkApprovalAnswer checks that an answer to the ask id is one its kind
// of ask takes: timeout and by only for an approval (an ask with to:),
// timeout only for one with a timeout, and never cancel for an approval,
// whose page offers accept and decline.
func checkApprovalAnswer(id string, ask *dsl.Ask, a Answer, errorf func(pos dsl.Pos, code, format string, args ...any)) {
	approval := ask.Approval()
	switch {
	case a.Timeout && !approval:
		errorf(a.Pos, CodeWrongAnswer, "answers: %s is not an approval (an ask with to:), so it cannot time out; timeout answers only an approval", id)
	case a.Timeout && ask.Timeout == 0:
		errorf(a.Pos, CodeWrongAnswer, "answers: the approval %s has no timeout:, so it waits as long as the run lives and never times out", id)
	case a.By != "" && !approval:
		errorf(a.Pos, CodeWrongAnswer, "answers: %s is not an approval (an ask with to:); by says who answered an approval, and the caller answers %s", id, id)
	case approval && a.Action == string(flow.Cancel):
		errorf(a.Pos, CodeWrongAnswer, "answers: %s is an approval, answered on its page with accept or decline, or not in time (timeout); it cannot be cancelled", id)
	}
}

// answerKind describes an answer of the given kind for messages.
func answerKind(k dsl.Kind) string {
	switch k {
	case dsl.KindSample:
		return "a model reply {text, model, stop_reason}"
	case dsl.KindRoots:
		return "a roots answer {roots}"
	}
	return "an elicitation answer (accept, decline, cancel or {action, content})"
}

// expPos returns the position of an expectation, or the zero Pos when it
// is absent.
func expPos(v *ValueExp) dsl.Pos {
	if v == nil {
		return dsl.Pos{}
	}
	return v.Pos
}

// strPos is expPos for a string expectation.
func strPos(v *StringExp) dsl.Pos {
	if v == nil {
		return dsl.Pos{}
	}
	return v.Pos
}

func kindList(kinds []dsl.Kind) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = withArticle(k)
	}
	if len(parts) > 2 {
		return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
	}
	return strings.Join(parts, " or ")
}

// withArticle returns "an ask", "a step" and so on.
func withArticle(k dsl.Kind) string {
	if k == dsl.KindAsk {
		return "an ask"
	}
	return "a " + k.String()
}

// anonIndex parses "#N" (1-based) into a node index.
func anonIndex(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "#")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n - 1, true
}
