package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/internal/golden"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
)

// sarifGoldenDir holds the goldens of lint's SARIF and JSON output: each a
// txtar archive with flow files (linted together, from the directory the
// archive stands for) and the sections sarif and json, the exact output.
const sarifGoldenDir = "testdata/sarif"

// sarifTestDir is the working directory the goldens are written from.
const sarifTestDir = "/project"

// TestLintFormatsGolden lints each archive of testdata/sarif and compares
// the SARIF and JSON output with its sections; with -update it rewrites
// them. Every SARIF log is also checked structurally, and against the
// SARIF 2.1.0 JSON schema when FLOWSERVE_SARIF_SCHEMA names a copy of it
// (sarif-schema-2.1.0.json from https://github.com/oasis-tcs/sarif-spec,
// which is not vendored here).
func TestLintFormatsGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sarifGoldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	schema := sarifSchema(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var srcs []lintSource
			for _, f := range a.Files {
				if project.IsFlowFile(f.Name) {
					srcs = append(srcs, lintSource{path: f.Name, src: f.Data})
				}
			}
			sort.Slice(srcs, func(i, j int) bool { return srcs[i].path < srcs[j].path })
			ds, err := lintSources(srcs, actions.Default())
			if err != nil {
				t.Fatal(err)
			}
			var sarif, js bytes.Buffer
			if err := writeSARIF(&sarif, ds, sarifOptions{version: "0.0.0-test", dir: sarifTestDir}); err != nil {
				t.Fatal(err)
			}
			if err := writeDiagnosticsJSON(&js, ds); err != nil {
				t.Fatal(err)
			}
			checkSARIF(t, sarif.Bytes(), ds)
			if schema != nil {
				validateSARIF(t, schema, sarif.Bytes())
			}
			checkSection(t, file, a, "sarif", sarif.String())
			checkSection(t, file, a, "json", js.String())
		})
	}
}

// checkSection compares got with the section name of a, the archive read
// from file; with -update it rewrites the section instead.
func checkSection(t *testing.T, file string, a *txtar.Archive, name, got string) {
	t.Helper()
	golden.CheckSection(t, file, a, name, got, *update)
}

// sarifSchema returns the SARIF 2.1.0 schema FLOWSERVE_SARIF_SCHEMA names,
// compiled, or nil when it is not set.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	path := os.Getenv("FLOWSERVE_SARIF_SCHEMA")
	if path == "" {
		t.Log("FLOWSERVE_SARIF_SCHEMA is not set: the SARIF logs are checked structurally only")
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateSARIF validates log against the SARIF schema.
func validateSARIF(t *testing.T, schema *jsonschema.Schema, log []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("the SARIF log is not valid SARIF 2.1.0: %v", err)
	}
}

// checkSARIF checks what SARIF 2.1.0 requires of log, and what code
// scanning needs, structurally: the version and schema, one run with the
// tool's name and column kind, a rule for each code, and for each
// diagnostic of ds a result with its rule, level, message, region (ends
// after starts) and fixes (each at least one replacement).
func checkSARIF(t *testing.T, log []byte, ds dsl.Diagnostics) {
	t.Helper()
	var l sarifLog
	dec := json.NewDecoder(bytes.NewReader(log))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("not a SARIF log: %v", err)
	}
	if l.Version != "2.1.0" || l.Schema != sarifSchemaURI || len(l.Runs) != 1 {
		t.Fatalf("version %q, schema %q, %d runs", l.Version, l.Schema, len(l.Runs))
	}
	run := l.Runs[0]
	if run.Tool.Driver.Name != "flowserve" || run.ColumnKind != "unicodeCodePoints" || run.Results == nil {
		t.Errorf("driver %+v, column kind %q, results %v", run.Tool.Driver, run.ColumnKind, run.Results)
	}
	if len(run.Results) != len(ds) {
		t.Fatalf("%d results for %d diagnostics", len(run.Results), len(ds))
	}
	for i, r := range run.Results {
		d := ds[i]
		rules := run.Tool.Driver.Rules
		if r.RuleIndex < 0 || r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID || r.RuleID != d.Code {
			t.Errorf("result %d: rule %s at %d, want %s", i, r.RuleID, r.RuleIndex, d.Code)
		}
		if r.Level != d.Severity.String() || r.Message.Text != d.Message || len(r.Locations) != 1 {
			t.Errorf("result %d: %+v for %v", i, r, d)
		}
		pl := r.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI == "" || pl.Region == nil {
			t.Errorf("result %d: location %+v", i, pl)
		} else {
			checkRegion(t, *pl.Region)
		}
		if len(r.Fixes) != len(d.Fixes) {
			t.Errorf("result %d: %d fixes, want %d", i, len(r.Fixes), len(d.Fixes))
		}
		for _, f := range r.Fixes {
			if f.Description.Text == "" || len(f.ArtifactChanges) != 1 || len(f.ArtifactChanges[0].Replacements) != 1 {
				t.Errorf("result %d: fix %+v", i, f)
				continue
			}
			checkRegion(t, f.ArtifactChanges[0].Replacements[0].DeletedRegion)
		}
	}
}

// checkRegion checks that a region starts at 1:1 or later and ends where
// it starts or after.
func checkRegion(t *testing.T, r sarifRegion) {
	t.Helper()
	if r.StartLine < 1 || r.StartColumn < 1 || r.EndLine < r.StartLine ||
		r.EndLine == r.StartLine && r.EndColumn < r.StartColumn || r.EndColumn < 1 {
		t.Errorf("bad region %+v", r)
	}
}

// TestSARIFArtifact checks the URIs of files: relative to the working
// directory, escaped, or absolute file URIs outside it.
func TestSARIFArtifact(t *testing.T) {
	tests := []struct {
		path, dir string
		want      sarifArtifact
	}{
		{"flows/a.yaml", "/p", sarifArtifact{URI: "flows/a.yaml", URIBaseID: sarifSrcRoot}},
		{"./flows/../flows/a.yaml", "/p", sarifArtifact{URI: "flows/a.yaml", URIBaseID: sarifSrcRoot}},
		{"/p/flows/my flow.yaml", "/p", sarifArtifact{URI: "flows/my%20flow.yaml", URIBaseID: sarifSrcRoot}},
		{"/elsewhere/a.yaml", "/p", sarifArtifact{URI: "file:///elsewhere/a.yaml"}},
		{"../a.yaml", "/p/q", sarifArtifact{URI: "file:///p/a.yaml"}},
		{"a:b.yaml", "/p", sarifArtifact{URI: "./a:b.yaml", URIBaseID: sarifSrcRoot}},
	}
	for _, tc := range tests {
		if got := sarifArtifactOf(tc.path, tc.dir); got != tc.want {
			t.Errorf("sarifArtifactOf(%q, %q) = %+v, want %+v", tc.path, tc.dir, got, tc.want)
		}
	}
}

// TestLintSARIFCommand runs lint --format sarif: a log on stdout with
// URIs relative to the working directory, nothing on stderr, and the exit
// status of lint.
func TestLintSARIFCommand(t *testing.T) {
	dir := writeFlows(t, map[string]string{"flows/bad.yaml": errorFlow, "flows/ok.yaml": cleanFlow})
	t.Chdir(dir)
	out, errOut, code := run(t, "lint", "--format", "sarif")
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var l sarifLog
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var uris, rules []string
	for _, r := range l.Runs[0].Results {
		uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	for _, r := range l.Runs[0].Tool.Driver.Rules {
		rules = append(rules, r.ID)
	}
	if want := []string{"flows/bad.yaml", "flows/bad.yaml"}; !slices.Equal(uris, want) {
		t.Errorf("uris %v, want %v", uris, want)
	}
	if want := []string{"missing-description", "unknown-action"}; !slices.Equal(rules, want) {
		t.Errorf("rules %v, want %v", rules, want)
	}
	if l.Runs[0].Tool.Driver.Version != Version {
		t.Errorf("version %q, want %q", l.Runs[0].Tool.Driver.Version, Version)
	}
	fix := l.Runs[0].Results[1].Fixes
	if len(fix) != 1 || fix[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text != "fs.stat" {
		t.Errorf("fixes %+v", fix)
	}
}

// TestLintJSONEnds checks the end and fixes of lint's JSON output.
func TestLintJSONEnds(t *testing.T) {
	dir := writeFlows(t, map[string]string{"bad.yaml": errorFlow})
	out, _, code := run(t, "lint", "--format", "json", dir)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var got []lintJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	action := got[1]
	want := fixJSON{Title: `replace "fs.stta" with "fs.stat"`, Start: lintPosJSON{3, 11}, End: lintPosJSON{3, 18}, NewText: "fs.stat"}
	if action.End == nil || *action.End != (lintPosJSON{3, 18}) || len(action.Fixes) != 1 || action.Fixes[0] != want {
		t.Errorf("end %v, fixes %+v; want 3:18 and %+v", action.End, action.Fixes, want)
	}
	if got[0].Fixes == nil || len(got[0].Fixes) != 0 {
		t.Errorf("a diagnostic without fixes: fixes %v, want []", got[0].Fixes)
	}
}
