package project

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// The prefixes of the environment variables that hold the values of vars
// and secrets: FLOWSERVE_VAR_API_BASE is vars.api_base.
const (
	VarEnvPrefix    = "FLOWSERVE_VAR_"
	SecretEnvPrefix = "FLOWSERVE_SECRET_"
)

// Values are the values of the vars and secrets flows declare, with where
// they were read from, for the messages about a value that is missing.
type Values struct {
	flow.Values
	// VarsFile and SecretsFile are the files the values were read from,
	// "" for none.
	VarsFile, SecretsFile string
}

// EnvName returns the environment variable that holds the value of the
// var (secret false) or secret name: its prefix and the name upper-cased.
func EnvName(name string, secret bool) string {
	if secret {
		return SecretEnvPrefix + strings.ToUpper(name)
	}
	return VarEnvPrefix + strings.ToUpper(name)
}

// ReadValues reads the values of vars and secrets from environ (KEY=value
// pairs, as os.Environ returns them), where FLOWSERVE_VAR_<NAME> and
// FLOWSERVE_SECRET_<NAME> hold the value of the name upper-cased, and
// then from varsFile and secretsFile ("" for none): YAML mappings of
// names to strings. A file's value wins over the environment's, since a
// file is named on the command line and the environment is whatever the
// server inherited. An empty value counts as none.
func ReadValues(varsFile, secretsFile string, environ []string) (*Values, error) {
	v := &Values{VarsFile: varsFile, SecretsFile: secretsFile}
	v.Vars, v.Secrets = map[string]string{}, map[string]string{}
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		for prefix, m := range map[string]map[string]string{VarEnvPrefix: v.Vars, SecretEnvPrefix: v.Secrets} {
			rest, ok := strings.CutPrefix(key, prefix)
			name := strings.ToLower(rest)
			if ok && rest == strings.ToUpper(rest) && dsl.IsName(name) {
				m[name] = value
			}
		}
	}
	for _, f := range []struct {
		path, what string
		into       map[string]string
	}{{varsFile, "var", v.Vars}, {secretsFile, "secret", v.Secrets}} {
		if f.path == "" {
			continue
		}
		if err := readValuesFile(f.path, f.what, f.into); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// readValuesFile reads a file of values, a YAML mapping of names to
// strings, into into; what is "var" or "secret", for messages. A scalar
// of another type (a number, a boolean) is taken as written.
func readValuesFile(path, what string, into map[string]string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--%ss: %w", what, err)
	}
	var problem error
	r := yamlx.Reader{Report: func(p yamlx.Problem) {
		if problem == nil {
			problem = fmt.Errorf("%s:%d:%d: %s", path, p.Pos.Line, p.Pos.Col, p.Message)
		}
	}}
	root, ok := r.Read(src, "a file of "+what+"s")
	if !ok || problem != nil {
		return problem
	}
	if root == nil || yamlx.IsNull(root) {
		return nil
	}
	pairs, _ := r.Mapping(root, "a file of "+what+"s")
	for _, e := range pairs {
		at := fmt.Sprintf("%s:%d:%d", path, e.Key.Line, e.Key.Column)
		if !dsl.IsName(e.Name) {
			return fmt.Errorf("%s: %q is not a %s name: names are lower-case letters, digits and _, as flows declare them", at, e.Name, what)
		}
		if e.Value.Kind != yaml.ScalarNode || yamlx.IsNull(e.Value) {
			return fmt.Errorf("%s: the %s %s must be a string, not %s", at, what, e.Name, yamlx.TypeName(e.Value))
		}
		into[e.Name] = e.Value.Value
	}
	return problem
}

// missingValues reports, as CodeMissingValue errors at the declarations,
// the vars and secrets of f that v has no value for.
func missingValues(f *dsl.File, v *Values) dsl.Diagnostics {
	mv, ms := v.Missing(f)
	var out dsl.Diagnostics
	report := func(d *dsl.Setting, secret bool) {
		what, file, flag := "var", v.VarsFile, "--vars"
		if secret {
			what, file, flag = "secret", v.SecretsFile, "--secrets"
		}
		desc := ""
		if d.Description.Value != "" {
			desc = " (" + d.Description.Value + ")"
		}
		where := "no " + flag + " file was given"
		if file != "" {
			where = flag + " " + file + " does not give it"
		}
		out = append(out, dsl.Diagnostic{Pos: d.Pos, Severity: dsl.Error, Code: codes.MissingValue,
			Message: fmt.Sprintf("the %s flow declares %s %s%s, and the server has no value for it: $%s is not set (or empty) and %s",
				f.Name.Value, what, d.Name, desc, EnvName(d.Name, secret), where)})
	}
	for _, d := range mv {
		report(d, false)
	}
	for _, d := range ms {
		report(d, true)
	}
	return out
}
