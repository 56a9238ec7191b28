package codes_test

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/dsl"
)

// The severity rule (docs/cli.md, "Severity"): an error means the flow
// cannot load, or some run that can actually happen fails or misbehaves
// at run time; a warning means suspicious but runnable. serve refuses
// only errors. The tests here hold every code of every namespace to one
// severity, and check it against what the code reports, what the goldens
// and the documentation show, and the table in docs/cli.md.

var (
	errs  = []dsl.Severity{dsl.Error}
	warns = []dsl.Severity{dsl.Warning}
)

// severities gives the severity of every code, by namespace (see
// namespaces) and constant name. A code has one severity; one with both
// needs a reason in bothSeverities.
var severities = map[string]map[string][]dsl.Severity{
	".": {
		// Parse: the file is not a flow, so it cannot load.
		"BadAlias":          errs,
		"BadBranch":         errs,
		"BadExpression":     errs,
		"BadGroup":          errs,
		"BadName":           errs,
		"BadTemplate":       errs,
		"BadType":           errs,
		"BadValue":          errs,
		"BadYAML":           errs,
		"ConflictingKeys":   errs,
		"DuplicateID":       errs,
		"DuplicateKey":      errs,
		"EmptyFile":         errs,
		"MisplacedKey":      errs,
		"MissingKey":        errs,
		"MissingKind":       errs,
		"MultipleDocuments": errs,
		"NameCollision":     errs,
		"NoNodes":           errs,
		"ReservedName":      errs,
		"SecretOutsideWith": errs,
		"TwoKinds":          errs,
		"UnknownKey":        errs,
		"UnknownLanguage":   errs,
		"UnknownProperty":   errs,
		"UnknownTarget":     errs,

		// Check.
		"ApprovalNeedsTask":  errs,  // the approval cannot wait: the run fails
		"BadContent":         errs,  // the result is not valid MCP
		"BadMcpHeader":       errs,  // the MCP SDK refuses the tool
		"BadToolName":        errs,  // clients refuse the tool
		"BadURL":             errs,  // the user is sent nowhere
		"BusyLoop":           warns, // runnable: a branch on set names may end it
		"EndlessLoop":        errs,  // a run that enters it never ends
		"EnumCompare":        warns, // runnable: one case is dead
		"FallsOffEnd":        warns, // runnable: the result is empty
		"FormDefault":        errs,  // the form offers an answer it refuses
		"FormEnum":           errs,  // clients cannot render the form
		"FormFormat":         errs,
		"FormKeyword":        errs,
		"FormKind":           errs,
		"FormValue":          errs,
		"InsecureURL":        warns, // runnable: MCP says should
		"LongNoTask":         warns, // runnable, inside the call
		"MaybeUnbound":       errs,  // the read fails on a feasible path
		"MissingDescription": warns, // runnable: clients have less to go on
		"MissingStructured":  errs,  // clients that check fail the call
		"NoUnavailable":      warns, // runnable on clients that have it (deprecated)
		"PromptArgument":     errs,  // no client can pass the argument
		"PromptOnly":         errs,  // keys of the other kind of flow
		"RoundBudget":        warns, // runnable: clients may stop early
		"SchemaNotObject":    errs,  // MCP takes only object schemas
		"SchemaNullKey":      warns, // runnable: the schema compiles
		"SensitiveForm":      errs,  // the run asks what MCP forbids a form to
		"StructuredMissing":  errs,  // the result fails the output schema
		"StructuredUnknown":  errs,
		"StructuredValue":    errs,
		"ToolOnly":           errs,  // keys of the other kind of flow
		"ToolNameSlash":      warns, // runnable: the conformance suite allows it
		"UnknownAction":      errs,
		"UnboundedLoop":      warns, // runnable: no visible bound
		"UnreachableNode":    warns, // runnable: dead code
		"ValidateOnURL":      errs,  // keys that exclude each other
		"WithMissing":        errs,  // the action refuses its input
		"WithUnknown":        errs,
		"WithValue":          errs,

		// check.Types, project.Load, lint --against.
		"BadSchema":     errs,
		"TypeError":     errs,
		"PartialFile":   errs,
		"NoFlow":        errs,
		"Compile":       errs,
		"DuplicateTool": errs,
		"Unreadable":    errs,
		"NoSuchPath":    errs,
		"NoFlows":       errs,
		"MissingValue":  errs,  // a run reading it fails
		"BreaksRuns":    warns, // the new version runs; old runs finish on theirs
		"UnknownFlow":   errs,
		"BadCallee":     errs,
		"CallCycle":     errs,
		"LinkOutput":    errs, // the linked results lack structured content
	},
	"../../resources": {
		"CodeBadAlias":           errs,
		"CodeBadFile":            errs,
		"CodeBadTemplate":        errs,
		"CodeBadType":            errs,
		"CodeBadURI":             errs,
		"CodeBadURITemplate":     errs,
		"CodeBadValue":           errs,
		"CodeBadYAML":            errs,
		"CodeConflictingKeys":    errs,
		"CodeDuplicateKey":       errs,
		"CodeDuplicateName":      errs,
		"CodeDuplicateURI":       errs,
		"CodeEmptyContent":       warns,
		"CodeEmptyFile":          errs,
		"CodeFileNotFound":       errs,
		"CodeMissingDescription": warns,
		"CodeMissingKey":         errs,
		"CodeMultipleDocuments":  errs,
		"CodeNoResources":        warns,
		"CodeNoVariables":        warns,
		"CodeReservedScheme":     errs,
		"CodeUnknownKey":         errs,
		"CodeUnknownVariable":    errs,
	},
	// A test file's problems keep its cases from running.
	"../../flowtest": {
		"CodeBadAlias":          errs,
		"CodeBadAnswer":         errs,
		"CodeBadMock":           errs,
		"CodeBadType":           errs,
		"CodeBadValue":          errs,
		"CodeBadYAML":           errs,
		"CodeCompile":           errs,
		"CodeDuplicateCase":     errs,
		"CodeDuplicateKey":      errs,
		"CodeMissingName":       errs,
		"CodeMultipleDocuments": errs,
		"CodeNoFlow":            errs,
		"CodeNoTests":           errs,
		"CodeUnknownKey":        errs,
		"CodeUnknownNode":       errs,
		"CodeUnreadable":        errs,
		"CodeWrongAnswer":       errs,
		"CodeWrongKind":         errs,
	},
}

// bothSeverities gives, for a code that is an error in some places and a
// warning in others, why it cannot be two codes. There is none.
var bothSeverities = map[string]string{}

// sevText returns how docs/cli.md writes sevs.
func sevText(sevs []dsl.Severity) string {
	if len(sevs) == 2 {
		return "error or warning"
	}
	return sevs[0].String()
}

// codeSeverities returns the severities of every code by its value, and
// the names of the constants of each value, checking that every constant
// of every namespace has a severity, that every entry is a constant, and
// that a code shared between namespaces has one severity.
func codeSeverities(t *testing.T) (map[string][]dsl.Severity, map[string]string) {
	t.Helper()
	byCode := map[string][]dsl.Severity{}
	names := map[string]string{}
	for _, dir := range namespaces {
		table, ok := severities[dir]
		if !ok {
			t.Errorf("severities has no table for the namespace %s", dir)
			continue
		}
		consts := map[string]bool{}
		for _, c := range readCodes(t, dir) {
			consts[c.name] = true
			names[c.value] = c.name
			sevs, ok := table[c.name]
			switch {
			case !ok:
				t.Errorf("%s: %s (%s) has no severity: add it to severities (severity_test.go) and to the table in docs/cli.md", c.pos, c.name, c.value)
				continue
			case len(sevs) == 0 || len(sevs) > 2 || len(sevs) == 2 && sevs[0] == sevs[1]:
				t.Errorf("%s %s: severities %v: give Error, Warning or both", dir, c.name, sevs)
				continue
			case len(sevs) == 2 && bothSeverities[c.value] == "":
				t.Errorf("%s %s is both an error and a warning: split it into two codes, or say why in bothSeverities", dir, c.name)
			}
			if prev, seen := byCode[c.value]; seen && !slices.Equal(sortedSevs(prev), sortedSevs(sevs)) {
				t.Errorf("%s %s is %s, and %s in another namespace: one code, one severity", dir, c.name, sevText(sevs), sevText(prev))
			}
			byCode[c.value] = sortedSevs(sevs)
		}
		for name := range table {
			if !consts[name] {
				t.Errorf("severities[%q] has %s, which is not a constant of its codes.go", dir, name)
			}
		}
	}
	for code := range bothSeverities {
		if len(byCode[code]) != 2 {
			t.Errorf("bothSeverities explains %s, which has one severity", code)
		}
	}
	return byCode, names
}

// sortedSevs returns sevs in order, Error first.
func sortedSevs(sevs []dsl.Severity) []dsl.Severity {
	out := slices.Clone(sevs)
	slices.Sort(out)
	return out
}

// TestCodeSeverities checks that every code has a severity, and that
// what reports it says so: each report call in the packages' sources
// (errorf, warnf and the like, a Diagnostic literal), each diagnostic in
// a golden file or a documentation example, the package documentation
// that marks warnings, and docs/cli.md's table agree with severities;
// and each severity a code has is reported somewhere.
func TestCodeSeverities(t *testing.T) {
	byCode, names := codeSeverities(t)
	seen := map[string][]dsl.Severity{}
	see := func(where, code string, sev dsl.Severity) {
		want, ok := byCode[code]
		if _, named := names[code]; !ok && !named {
			t.Errorf("%s: %s is not a code of any namespace", where, code)
		}
		if !ok {
			return // no severity, or not a code: reported
		}
		if !slices.Contains(want, sev) {
			t.Errorf("%s: %s is reported as %s; its severity is %s (severity_test.go, docs/cli.md)", where, code, sev, sevText(want))
		}
		if !slices.Contains(seen[code], sev) {
			seen[code] = append(seen[code], sev)
		}
	}
	// The constants' names, in every namespace, to their codes: this
	// package's BadValue and resources' CodeBadValue are both bad-value.
	value := map[string]string{}
	for _, dir := range namespaces {
		for _, c := range readCodes(t, dir) {
			value[c.name] = c.value
		}
	}
	for _, r := range sourceReports(t, value) {
		see(r.where, r.code, r.sev)
	}
	for _, r := range shownReports(t) {
		see(r.where, r.code, r.sev)
	}
	for code, want := range byCode {
		for _, sev := range want {
			if !slices.Contains(seen[code], sev) {
				t.Errorf("%s is never reported as %s: in no report call, golden or example (severity_test.go)", code, sev)
			}
		}
	}
	checkMarkedWarnings(t, byCode, names)
	checkSeverityTable(t, byCode)
}

// report is a diagnostic some source reports, or a file shows.
type report struct {
	where, code string
	sev         dsl.Severity
}

// errorFuncs and warnFuncs are the functions that report a diagnostic
// of the code they are given as an error, or as a warning.
var (
	errorFuncs = []string{"errorf", "errorSpan", "errorAt", "unknownf", "issue", "fileError"}
	warnFuncs  = []string{"warnf", "warnSpan", "warn"}
)

// sourceReports returns the reports of the Go files (tests aside) of the
// reporters: each call of an error or warning function with a code
// constant, each checker.report with a severity and a code, and each
// Diagnostic literal with both. value maps constant names to codes.
func sourceReports(t *testing.T, value map[string]string) []report {
	t.Helper()
	var out []report
	fset := token.NewFileSet()
	for _, dir := range reporters {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") || filepath.Base(file) == "codes.go" {
				continue
			}
			f, err := goparser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			sc := sourceScan{fset: fset, value: value}
			ast.Inspect(f, sc.visit)
			out = append(out, sc.out...)
		}
	}
	if len(out) < 300 {
		t.Errorf("found only %d report calls in the sources", len(out))
	}
	return out
}

// sourceScan collects the reports of a Go file.
type sourceScan struct {
	fset  *token.FileSet
	value map[string]string // code constant names to codes
	out   []report
}

// exprName returns the name e refers to: x, or the selected name of p.x.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// severityNamed returns the severity e names (Error, dsl.Warning), if it
// names one.
func severityNamed(e ast.Expr) (dsl.Severity, bool) {
	switch exprName(e) {
	case "Error":
		return dsl.Error, true
	case "Warning":
		return dsl.Warning, true
	}
	return 0, false
}

func (sc *sourceScan) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		sc.call(n)
	case *ast.CompositeLit:
		sc.literal(n)
	}
	return true
}

// call records a call that reports a code constant it is given.
func (sc *sourceScan) call(n *ast.CallExpr) {
	fn := exprName(n.Fun)
	for i, a := range n.Args {
		code := sc.value[exprName(a)]
		if code == "" {
			continue
		}
		where := sc.fset.Position(a.Pos()).String()
		switch {
		case slices.Contains(errorFuncs, fn):
			sc.out = append(sc.out, report{where, code, dsl.Error})
		case slices.Contains(warnFuncs, fn):
			sc.out = append(sc.out, report{where, code, dsl.Warning})
		case fn == "report" && i > 0:
			if sev, ok := severityNamed(n.Args[0]); ok {
				sc.out = append(sc.out, report{where, code, sev})
			}
		}
	}
}

// literal records a composite literal (a Diagnostic) with a Code that is
// a code constant and a Severity.
func (sc *sourceScan) literal(n *ast.CompositeLit) {
	var code string
	var sev dsl.Severity
	hasSev := false
	for _, e := range n.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch k, _ := kv.Key.(*ast.Ident); {
		case k == nil:
		case k.Name == "Code":
			code = sc.value[exprName(kv.Value)]
		case k.Name == "Severity":
			sev, hasSev = severityNamed(kv.Value)
		}
	}
	if code != "" && hasSev {
		sc.out = append(sc.out, report{sc.fset.Position(n.Pos()).String(), code, sev})
	}
}

// shownDiagnostic matches a diagnostic as lint prints it, in a golden
// file or a documentation example.
var shownDiagnostic = regexp.MustCompile(`(?m)(?:^|\s)\S*:\d+:\d+: (error|warning): .* \[([a-z]+(?:-[a-z]+)*)\]$`)

// shownReports returns the diagnostics the goldens of the packages and
// of lint, and the examples of the documentation, show.
func shownReports(t *testing.T) []report {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		"../../dsl/testdata/parse/*.txtar",
		"../../testdata/lint/*.txtar",
		"../../resources/testdata/*/*.txtar",
		"../../flowtest/testdata/golden/*.txt",
		"../../project/testdata/*/*.txtar",
		"../../cli/testdata/diff/*.txtar",
		"../../docs/*.md",
		"../../README.md",
	} {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no files match %s: %v", pattern, err)
		}
		files = append(files, m...)
	}
	var out []report
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range shownDiagnostic.FindAllStringSubmatch(string(src), -1) {
			sev := dsl.Error
			if m[1] == "warning" {
				sev = dsl.Warning
			}
			out = append(out, report{file, m[2], sev})
		}
	}
	if len(out) < 300 {
		t.Errorf("found only %d diagnostics in the goldens and examples", len(out))
	}
	return out
}

// checkMarkedWarnings checks that the documentation marks the warnings,
// and only them: a code's line in doc.go's lists of Parse's and Check's
// codes says (warning…), its constant's comment in codes.go (a
// warning…), and resources' list does the same.
func checkMarkedWarnings(t *testing.T, byCode map[string][]dsl.Severity, names map[string]string) {
	t.Helper()
	isWarning := func(code string) bool { return slices.Equal(byCode[code], warns) }
	for _, c := range readCodes(t, ".") {
		doc := strings.Join(strings.Fields(c.doc), " ")
		if marked := strings.Contains(doc, "(a warning"); marked != isWarning(c.value) {
			t.Errorf("%s: the comment of %s says %q only when the code is a warning", c.pos, c.name, "(a warning")
		}
	}
	line := regexp.MustCompile(`(?m)^//\t([a-z]+(?:-[a-z]+)*) {2,}(.*)$`)
	for _, doc := range []string{"doc.go", "../../resources/doc.go"} {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range line.FindAllStringSubmatch(string(src), -1) {
			if _, ok := names[m[1]]; !ok {
				continue
			}
			n++
			if marked := strings.Contains(m[2], "(warning"); marked != isWarning(m[1]) {
				t.Errorf("%s: the line of %s says (warning…) only when the code is a warning", doc, m[1])
			}
		}
		if n < 15 {
			t.Errorf("%s lists only %d codes", doc, n)
		}
	}
}

// severityRow matches a row of the table of codes in docs/cli.md.
var severityRow = regexp.MustCompile("(?m)^\\| `([a-z]+(?:-[a-z]+)*)` +\\| (error or warning|error|warning) +\\|")

// checkSeverityTable checks that the table in docs/cli.md's Severity
// section gives every code of flows and resource declarations once, with
// its severity. flowtest's codes are errors of test files, which that
// section mentions without listing them.
func checkSeverityTable(t *testing.T, byCode map[string][]dsl.Severity) {
	t.Helper()
	src, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	i := strings.Index(doc, "\n### Severity\n")
	if i < 0 {
		t.Fatal("docs/cli.md has no Severity section")
	}
	section := doc[i+1:]
	if j := strings.Index(section, "\n#"); j >= 0 {
		section = section[:j]
	}
	want := map[string]bool{}
	for _, dir := range []string{".", "../../resources"} {
		for _, c := range readCodes(t, dir) {
			want[c.value] = true
		}
	}
	listed := map[string]bool{}
	for _, m := range severityRow.FindAllStringSubmatch(section, -1) {
		code, sev := m[1], m[2]
		switch {
		case listed[code]:
			t.Errorf("docs/cli.md lists %s twice", code)
		case !want[code]:
			t.Errorf("docs/cli.md lists %s, which is not a code of flows or resource declarations", code)
		case sev != sevText(byCode[code]):
			t.Errorf("docs/cli.md says %s is %s; it is %s", code, sev, sevText(byCode[code]))
		}
		listed[code] = true
	}
	for code := range want {
		if !listed[code] {
			t.Errorf("docs/cli.md's Severity table does not list %s", code)
		}
	}
}
