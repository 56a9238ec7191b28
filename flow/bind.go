package flow

import "github.com/flowserve/flowserve/dsl"

// The names every round binds, besides the flow's ids and set names
// (dsl.VarInput and the rest: the language's, which check.Scope types).
const (
	varInput     = dsl.VarInput
	varRun       = dsl.VarRun
	varClient    = dsl.VarClient
	varPrincipal = dsl.VarPrincipal
	varError     = dsl.VarError
	varVars      = dsl.VarVars
	varSecrets   = dsl.VarSecrets
)

// askValue is the value an ask id has in expressions.
func askValue(action Action, content map[string]any) map[string]any {
	if content == nil {
		content = map[string]any{}
	}
	return map[string]any{
		"action":   action.value(),
		"accepted": action == Accept,
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
		"sampling": c.Sampling,
		"roots":    c.Roots,
	}
}
