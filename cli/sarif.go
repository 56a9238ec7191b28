package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowserve/flowserve/dsl"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the
// format code-scanning UIs (GitHub code scanning among them) read: what
// flowserve lint --format sarif writes. One run of the tool "flowserve",
// with a rule per code seen and a result per diagnostic: its level, its
// message, its region in the file, and its fixes as replacements.
//
// Columns count Unicode code points, as dsl.Pos does, so the run says
// columnKind "unicodeCodePoints" (SARIF's default is utf16CodeUnits,
// which differs for characters outside the Basic Multilingual Plane).
// Lines and columns are 1-based; region ends are exclusive, as SARIF's
// endColumn is.

// sarifSchemaURI is the SARIF 2.1.0 JSON schema the log refers to.
const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifSrcRoot is the uriBaseId of the files' URIs: the directory lint
// ran in, which the log gives as originalUriBaseIds.
const sarifSrcRoot = "%SRCROOT%"

// sarifOptions are what a SARIF log says besides the diagnostics.
type sarifOptions struct {
	version string // flowserve's version
	dir     string // the working directory, absolute; file URIs are relative to it
}

type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
		ColumnKind         string                   `json:"columnKind"`
		Results            []sarifResult            `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Version        string      `json:"version,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
		Fixes     []sarifFix      `json:"fixes,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifFix struct {
		Description     sarifMessage          `json:"description"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifact      `json:"artifactLocation"`
		Replacements     []sarifReplacement `json:"replacements"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifRegion  `json:"deletedRegion"`
		InsertedContent sarifMessage `json:"insertedContent"`
	}
)

// writeSARIF writes diags as a SARIF 2.1.0 log of one run.
func writeSARIF(w io.Writer, diags dsl.Diagnostics, opts sarifOptions) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "flowserve",
			InformationURI: "https://github.com/flowserve/flowserve",
			Version:        opts.version,
			Rules:          sarifRules(diags),
		}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
	if opts.dir != "" {
		root := strings.TrimSuffix(filepath.ToSlash(opts.dir), "/") + "/"
		if !strings.HasPrefix(root, "/") {
			root = "/" + root
		}
		root = (&url.URL{Scheme: "file", Path: root}).String()
		run.OriginalURIBaseIDs = map[string]sarifArtifact{sarifSrcRoot: {URI: root}}
	}
	for _, d := range diags {
		run.Results = append(run.Results, sarifResultOf(d, run.Tool.Driver.Rules, opts.dir))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return errors.New("writing SARIF: " + err.Error())
	}
	return nil
}

// sarifRules returns a rule for each code of diags, sorted by code. Its
// short description is the code in words ("unknown key").
func sarifRules(diags dsl.Diagnostics) []sarifRule {
	var codes []string
	for _, d := range diags {
		if !slices.Contains(codes, d.Code) {
			codes = append(codes, d.Code)
		}
	}
	slices.Sort(codes)
	rules := make([]sarifRule, len(codes))
	for i, c := range codes {
		rules[i] = sarifRule{ID: c, ShortDescription: sarifMessage{Text: strings.ReplaceAll(c, "-", " ")}}
	}
	return rules
}

// sarifResultOf returns the result of d, whose rule is among rules.
func sarifResultOf(d dsl.Diagnostic, rules []sarifRule, dir string) sarifResult {
	level := "error"
	if d.Severity == dsl.Warning {
		level = "warning"
	}
	art := sarifArtifactOf(d.Pos.File, dir)
	loc := sarifPhysicalLocation{ArtifactLocation: art}
	if d.Pos.IsValid() {
		r := sarifRegionOf(d.Pos, d.End)
		loc.Region = &r
	}
	res := sarifResult{
		RuleID:    d.Code,
		RuleIndex: slices.IndexFunc(rules, func(r sarifRule) bool { return r.ID == d.Code }),
		Level:     level,
		Message:   sarifMessage{Text: d.Message},
		Locations: []sarifLocation{{PhysicalLocation: loc}},
	}
	for _, f := range d.Fixes {
		res.Fixes = append(res.Fixes, sarifFix{
			Description: sarifMessage{Text: f.Title},
			ArtifactChanges: []sarifArtifactChange{{
				ArtifactLocation: sarifArtifactOf(f.Pos.File, dir),
				Replacements: []sarifReplacement{{
					DeletedRegion:   sarifRegionOf(f.Pos, f.End),
					InsertedContent: sarifMessage{Text: f.NewText},
				}},
			}},
		})
	}
	return res
}

// sarifRegionOf returns the region from start to end (exclusive), or of
// start alone when end is unknown.
func sarifRegionOf(start, end dsl.Pos) sarifRegion {
	r := sarifRegion{StartLine: start.Line, StartColumn: start.Col}
	if end.IsValid() {
		r.EndLine, r.EndColumn = end.Line, end.Col
	}
	return r
}

// sarifArtifactOf returns the location of the file at path: a URI
// relative to dir (the working directory) with the uriBaseId %SRCROOT%,
// or an absolute file URI for a file outside it.
func sarifArtifactOf(path, dir string) sarifArtifact {
	abs := path
	if !filepath.IsAbs(abs) && dir != "" {
		abs = filepath.Join(dir, path)
	}
	rel := filepath.Clean(path)
	if dir != "" {
		if r, err := filepath.Rel(dir, abs); err == nil {
			rel = r
		}
	}
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p := filepath.ToSlash(abs)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x is file:///C:/x
		}
		return sarifArtifact{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	return sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: sarifSrcRoot}
}
