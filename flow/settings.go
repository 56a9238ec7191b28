package flow

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

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
// action returns is journaled as any step output is: an action must not
// return a secret it was given. A step's error message is journaled and
// shown, so the engine replaces every secret value in it with
// [Redacted]; serve's logs redact the same way.
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

// Redactor returns the redactor of v's secrets.
func (v Values) Redactor() *Redactor {
	var secrets []string
	for _, s := range v.Secrets {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	// Longer secrets first, so that one that contains another is
	// replaced whole.
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, Redacted)
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// A Redactor replaces secret values in text with [Redacted]. A nil
// Redactor redacts nothing. It is safe for concurrent use.
type Redactor struct {
	r *strings.Replacer
}

// Redact returns s with every secret value in it replaced.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Err returns err itself when its message holds no secret value, and
// otherwise an error whose message is err's redacted. That error does not
// wrap err, whose message would give the secret away.
func (r *Redactor) Err(err error) error {
	if r == nil || err == nil {
		return err
	}
	msg := err.Error()
	if red := r.r.Replace(msg); red != msg {
		return errors.New(red)
	}
	return err
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
