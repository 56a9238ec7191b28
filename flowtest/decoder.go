package flowtest

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// decoder turns YAML nodes into a File, collecting diagnostics.
type decoder struct {
	path  string
	yr    yamlx.Reader // reports to diags
	diags dsl.Diagnostics
}

// newDecoder returns a decoder for the test file at path.
func newDecoder(path string) *decoder {
	d := &decoder{path: path}
	d.yr = yamlx.Reader{Report: d.problem}
	return d
}

// problem records a problem the YAML reader found.
func (d *decoder) problem(pr yamlx.Problem) {
	d.errorAt(dsl.Pos{File: d.path, Line: pr.Pos.Line, Col: pr.Pos.Col}, pr.Code, "%s", pr.Message)
}

// finish sorts the diagnostics and drops repeated ones: a mapping merged
// (<<) into several others is read more than once.
func (d *decoder) finish() dsl.Diagnostics {
	d.diags.Sort()
	return d.diags.Compact()
}

// pos returns where n is in the file.
func (d *decoder) pos(n *yaml.Node) dsl.Pos {
	return dsl.Pos{File: d.path, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

// errorAt records an error at pos.
func (d *decoder) errorAt(pos dsl.Pos, code, format string, args ...any) {
	d.diags = append(d.diags, dsl.Diagnostic{Pos: pos, Severity: dsl.Error, Code: code, Message: fmt.Sprintf(format, args...)})
}

// errorf records an error at n.
func (d *decoder) errorf(n *yaml.Node, code, format string, args ...any) {
	d.errorAt(d.pos(n), code, format, args...)
}

// entry is one key and value of a mapping; the value is resolved.
type entry = yamlx.Pair

// mapping returns the entries of a mapping node in order (see
// yamlx.Reader.Pairs), reporting, when known is not nil, keys not in it.
// Null reads as an empty mapping.
func (d *decoder) mapping(n *yaml.Node, where string, known []string) []entry {
	if yamlx.IsNull(yamlx.Resolve(n)) {
		return nil
	}
	pairs, _ := d.yr.Mapping(n, where)
	var out []entry
	for _, e := range pairs {
		if known != nil && !slices.Contains(known, e.Name) {
			msg := fmt.Sprintf("unknown key %q in %s", e.Name, where)
			if s := dsl.Suggest(e.Name, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if where == "an answer" {
				msg += "; an answer is {action, content}: put the form's fields under content"
			}
			d.errorAt(d.pos(e.Key), CodeUnknownKey, "%s", msg)
			continue
		}
		out = append(out, e)
	}
	return out
}

// seq returns the items of a sequence node.
func (d *decoder) seq(n *yaml.Node, where string) []*yaml.Node {
	items, _ := d.yr.List(n, where)
	return items
}
