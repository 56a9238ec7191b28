package flow

import (
	"fmt"
	"maps"

	"github.com/flowserve/flowserve/dsl"
)

// Values are the values of the vars and secrets flows declare (see
// dsl.File.Vars and dsl.File.Secrets), by name: the server's settings and
// secrets, which no flow file holds. An [Engine] is given them once and
// binds, in each run of a program, only the names the program's flow
// declares: vars.NAME and secrets.NAME in its expressions. An empty string
// counts as no value.
//
// Where secrets go: a flow may read them only in a step's with values
// (dsl.Parse enforces it), whose rendered input goes to the step's action
// and is neither journaled nor sealed into the request state. What the
// action returns, and a step's error message, are journaled and may be
// shown, so the engine replaces every secret value in them with
// [Redacted] first (in an output, inside its strings: see
// [Redactor.JSON]); serve's logs redact the same way.
type Values struct {
	Vars    map[string]string
	Secrets map[string]string
}

// Redacted replaces a secret's value wherever the engine or a server's log
// would show it.
const Redacted = "[redacted]"

// Missing returns the declarations of f, under vars and under secrets, that
// v has no value for, in file order.
func (v Values) Missing(f *dsl.File) (vars, secrets []*dsl.Setting) {
	if f == nil {
		return nil, nil
	}
	for _, d := range f.Vars {
		if v.Vars[d.Name] == "" {
			vars = append(vars, d)
		}
	}
	for _, d := range f.Secrets {
		if v.Secrets[d.Name] == "" {
			secrets = append(secrets, d)
		}
	}
	return vars, secrets
}

// clone returns a copy of v that later changes to v's maps do not reach.
func (v Values) clone() Values {
	return Values{Vars: maps.Clone(v.Vars), Secrets: maps.Clone(v.Secrets)}
}

// settings returns the variables vars and secrets of a run of p, each
// an object of the names p declares with their values, keyed by variable
// name; nil when p declares none. A declared name without a value is an
// error naming it, and not a RunError: the server lacks the value, the
// call is not at fault.
func (e *Engine) settings(p *Program) (map[string]any, error) {
	f := p.file
	if len(f.Vars)+len(f.Secrets) == 0 {
		return nil, nil
	}
	if mv, ms := e.values.Missing(f); len(mv)+len(ms) > 0 {
		return nil, missingError(mv, ms)
	}
	out := make(map[string]any, 2)
	bind := func(name string, decls []*dsl.Setting, values map[string]string) {
		if len(decls) == 0 {
			return
		}
		m := make(map[string]any, len(decls))
		for _, d := range decls {
			m[d.Name] = values[d.Name]
		}
		out[name] = m
	}
	bind(varVars, f.Vars, e.values.Vars)
	bind(varSecrets, f.Secrets, e.values.Secrets)
	return out, nil
}

// missingError names the vars and secrets a flow declares that the
// engine has no value for.
func missingError(vars, secrets []*dsl.Setting) error {
	var names []string
	for _, d := range vars {
		names = append(names, "var "+d.Name)
	}
	for _, d := range secrets {
		names = append(names, "secret "+d.Name)
	}
	return fmt.Errorf("the server has no value for %s, which the flow declares", fieldList(names))
}
