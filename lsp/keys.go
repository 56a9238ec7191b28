package lsp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/schemas"
)

// keyDoc is a key a mapping of a flow file may have, with what the flow
// schema says of it.
type keyDoc struct {
	name, doc string
}

// flowKeys are the keys of flow files, read once from the JSON Schema of
// flow files (flowserve schema), so completion offers what the schema,
// and yaml-language-server with it, accepts.
var flowKeys = sync.OnceValue(loadFlowKeys)

// keySet holds the top-level keys and the keys of each node kind.
type keySet struct {
	top   []keyDoc
	kinds map[string][]keyDoc // by kind key: "ask", "step"...
}

// kindDefs names the schema's definition of each node kind.
var kindDefs = map[string][]string{
	"ask":    {"askFormNode", "askUrlNode"},
	"step":   {"stepNode"},
	"branch": {"branchNode"},
	"set":    {"setNode"},
	"return": {"returnNode"},
	"fail":   {"failNode"},
	"sample": {"sampleNode"},
	"roots":  {"rootsNode"},
	"all":    {"allNode"},
	"call":   {"callNode"},
	"link":   {"linkNode"},
}

func loadFlowKeys() keySet {
	var doc map[string]any
	ks := keySet{kinds: map[string][]keyDoc{}}
	if err := json.Unmarshal(schemas.FlowSchema(), &doc); err != nil {
		return ks
	}
	defs, _ := doc["$defs"].(map[string]any)
	ks.top = schemaKeys(doc, defs)
	for kind, names := range kindDefs {
		var keys []keyDoc
		for _, n := range names {
			d, _ := defs[n].(map[string]any)
			for _, k := range schemaKeys(d, defs) {
				if !slices.ContainsFunc(keys, func(x keyDoc) bool { return x.name == k.name }) {
					keys = append(keys, k)
				}
			}
		}
		ks.kinds[kind] = keys
	}
	return ks
}

// schemaKeys returns the properties of an object schema with their
// descriptions, following a $ref for the description, in name order.
func schemaKeys(s map[string]any, defs map[string]any) []keyDoc {
	props, _ := s["properties"].(map[string]any)
	out := make([]keyDoc, 0, len(props))
	for name, p := range props {
		out = append(out, keyDoc{name: name, doc: schemaDescription(p, defs)})
	}
	slices.SortFunc(out, func(a, b keyDoc) int { return strings.Compare(a.name, b.name) })
	return out
}

// schemaDescription returns the description of a schema, or of the
// definition it refers to.
func schemaDescription(p any, defs map[string]any) string {
	m, _ := p.(map[string]any)
	if d, ok := m["markdownDescription"].(string); ok {
		return d
	}
	if d, ok := m["description"].(string); ok {
		return d
	}
	if ref, ok := m["$ref"].(string); ok {
		if def, ok := defs[strings.TrimPrefix(ref, "#/$defs/")]; ok {
			return schemaDescription(def, defs)
		}
	}
	return ""
}

// nodeKeys returns the keys a node may have next to the keys it has: its
// kind's, or every kind's when it has none yet.
func nodeKeys(have []string) []keyDoc {
	ks := flowKeys()
	var out []keyDoc
	for _, kind := range slices.Sorted(maps.Keys(ks.kinds)) {
		if slices.Contains(have, kind) {
			out = ks.kinds[kind]
			break
		}
		for _, k := range ks.kinds[kind] {
			if !slices.ContainsFunc(out, func(x keyDoc) bool { return x.name == k.name }) {
				out = append(out, k)
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(out), func(k keyDoc) bool { return slices.Contains(have, k.name) })
}
