package flow

import (
	"slices"

	"github.com/flowserve/flowserve/dsl"
)

// The names every flow's expressions can use, besides its ask ids, step
// ids and set names.
const (
	varInput  = "input"
	varRun    = "run"
	varClient = "client"
	varError  = "error"
)

// ScopeNames returns every name an expression of f may refer to: input,
// run, client, error, then each ask and step id and each set name, in
// file order without repeats. It is the one place that decides what is in
// scope; the engine and lint both build on it.
func ScopeNames(f *dsl.File) []string {
	names := []string{varInput, varRun, varClient, varError}
	for _, n := range f.Nodes {
		switch n.Kind {
		case dsl.KindAsk, dsl.KindStep:
			if n.ID != "" && !slices.Contains(names, n.ID) {
				names = append(names, n.ID)
			}
		case dsl.KindSet:
			if n.Set == nil {
				continue
			}
			for _, b := range n.Set.Bindings {
				if !slices.Contains(names, b.Name) {
					names = append(names, b.Name)
				}
			}
		}
	}
	return names
}

// askValue is the value an ask id has in expressions.
func askValue(action string, content map[string]any) map[string]any {
	if content == nil {
		content = map[string]any{}
	}
	return map[string]any{
		"action":   action,
		"accepted": action == "accept",
		"content":  content,
	}
}

// clientValue is the value of `client` in expressions.
func clientValue(c Client) map[string]any {
	return map[string]any{
		"name":     c.Name,
		"version":  c.Version,
		"protocol": c.Protocol,
		"form":     c.Form,
		"url":      c.URL,
	}
}
