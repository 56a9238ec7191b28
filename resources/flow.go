package resources

import (
	"fmt"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/graph"
)

// FlowScheme is the URI scheme of the resources flowserve derives from
// the flows it serves; declarations cannot use it.
const FlowScheme = "flow"

// ForFlow returns the resources of a served flow, a tool or a prompt: its
// source, flow://<name>/source (application/yaml, the file as written),
// and its diagram, flow://<name>/diagram (text/vnd.mermaid, as
// `flowserve graph` draws it, with the flows it calls that callees finds,
// which may be nil). Names may hold "/" and ".", which keeps the URIs
// distinct: only the last path element says which of the two it is.
func ForFlow(f *dsl.File, callees dsl.Callees) []*Resource {
	tool := f.Name.Value
	kind := "tool"
	if f.IsPrompt() {
		kind = "prompt"
	}
	pos := dsl.Pos{File: f.Path, Line: 1, Col: 1}
	return []*Resource{
		{
			URI:         FlowScheme + "://" + tool + "/source",
			Name:        tool + "/source",
			Title:       fmt.Sprintf("Source of the %s flow", tool),
			Description: fmt.Sprintf("The YAML source of the flow behind the %s %s.", tool, kind),
			MIMEType:    YAML,
			Cache:       Cache{Scope: Public},
			Pos:         pos,
			text:        literal(string(f.Source)),
		},
		{
			URI:         FlowScheme + "://" + tool + "/diagram",
			Name:        tool + "/diagram",
			Title:       fmt.Sprintf("Diagram of the %s flow", tool),
			Description: fmt.Sprintf("A Mermaid flowchart of the flow behind the %s %s.", tool, kind),
			MIMEType:    Mermaid,
			Cache:       Cache{Scope: Public},
			Pos:         pos,
			text:        literal(graph.MermaidWith(f, callees)),
		},
	}
}
