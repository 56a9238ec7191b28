package project_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/project"
)

// deployFlow declares a var and a secret (which no step of it needs:
// the registry has no actions).
const deployFlow = `description: Deploys.
vars:
  api_base: {description: Base URL of the deploy API}
secrets:
  deploy_token: {description: Bearer token for the deploy API}
nodes:
  - return: "{{ vars.api_base }}"
`

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadValues(t *testing.T) {
	dir := t.TempDir()
	vars := writeFile(t, dir, "vars.yaml", "api_base: https://file.example\nport: 8080\n")
	secrets := writeFile(t, dir, "secrets.yaml", "deploy_token: from-file\n")
	environ := []string{
		"FLOWSERVE_VAR_API_BASE=https://env.example", // the file wins
		"FLOWSERVE_VAR_REGION=eu-west-1",
		"FLOWSERVE_VAR_lower=ignored",    // only upper-case names count
		"FLOWSERVE_VAR_BAD-NAME=ignored", // not a name
		"FLOWSERVE_SECRET_OTHER_TOKEN=from-env",
		"FLOWSERVE_SECRET_EMPTY=",
		"PATH=/bin",
	}
	v, err := project.ReadValues(vars, secrets, environ)
	if err != nil {
		t.Fatal(err)
	}
	wantVars := map[string]string{"api_base": "https://file.example", "port": "8080", "region": "eu-west-1"}
	wantSecrets := map[string]string{"deploy_token": "from-file", "other_token": "from-env", "empty": ""}
	if !maps.Equal(v.Vars, wantVars) || !maps.Equal(v.Secrets, wantSecrets) {
		t.Errorf("vars %v, secrets %v; want %v, %v", v.Vars, v.Secrets, wantVars, wantSecrets)
	}
	if v.VarsFile != vars || v.SecretsFile != secrets {
		t.Errorf("files %q, %q", v.VarsFile, v.SecretsFile)
	}
	if got := project.EnvName("deploy_token", true); got != "FLOWSERVE_SECRET_DEPLOY_TOKEN" {
		t.Errorf("EnvName = %s", got)
	}
}

func TestReadValuesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"list.yaml", "[a, b]\n", "list.yaml:1:1: a file of secrets must be a mapping"},
		{"nested.yaml", "token: {a: b}\n", "nested.yaml:1:1: the secret token must be a string, not a mapping"},
		{"null.yaml", "token:\n", "null.yaml:1:1: the secret token must be a string, not null"},
		{"upper.yaml", "TOKEN: x\n", `upper.yaml:1:1: "TOKEN" is not a secret name`},
		{"dup.yaml", "token: a\ntoken: b\n", "dup.yaml:2:1: "},
		{"bad.yaml", "token: [\n", "bad.yaml:"},
	} {
		path := writeFile(t, dir, tc.name, tc.src)
		_, err := project.ReadValues("", path, nil)
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.want)) {
			t.Errorf("%s: err = %v, want it to start with %s", tc.name, err, tc.want)
		}
	}
	if _, err := project.ReadValues(filepath.Join(dir, "none.yaml"), "", nil); err == nil || !strings.HasPrefix(err.Error(), "--vars: ") {
		t.Errorf("a missing file: %v", err)
	}
	if v, err := project.ReadValues("", writeFile(t, dir, "empty.yaml", ""), nil); err != nil || len(v.Secrets) != 0 {
		t.Errorf("an empty file: %v, %v", v, err)
	}
}

func TestLoadReportsMissingValues(t *testing.T) {
	fsys := fstest.MapFS{"flows/deploy.yaml": {Data: []byte(deployFlow)}, "flows/ok.yaml": {Data: []byte(okFlow)}}
	// Without values, as lint loads, nothing is missing.
	set, diags := project.Load([]string{"flows"}, project.Options{FS: fsys})
	if diags.HasErrors() || len(set.Programs) != 2 {
		t.Fatalf("without values: %v, %d programs", diags, len(set.Programs))
	}
	values, err := project.ReadValues("", "", []string{"FLOWSERVE_VAR_API_BASE=https://deploy.example"})
	if err != nil {
		t.Fatal(err)
	}
	values.SecretsFile = "secrets.yaml"
	set, diags = project.Load([]string{"flows"}, project.Options{FS: fsys, Values: values})
	want := "flows/deploy.yaml:5:3: error: the deploy flow declares secret deploy_token (Bearer token for the deploy API), " +
		"and the server has no value for it: $FLOWSERVE_SECRET_DEPLOY_TOKEN is not set (or empty) and --secrets secrets.yaml does not give it [missing-value]"
	if len(diags) != 1 || diags[0].String() != want || diags[0].Code != codes.MissingValue {
		t.Errorf("diagnostics:\n%v\nwant\n%s", diags, want)
	}
	if len(set.Programs) != 1 || set.Programs[0].Name() != "ok" {
		t.Errorf("programs: %v", set.Programs)
	}

	values.Secrets["deploy_token"] = "t0ken"
	values.SecretsFile, values.Vars = "", nil
	_, diags = project.Load([]string{"flows"}, project.Options{FS: fsys, Values: values})
	if len(diags) != 1 || !strings.HasSuffix(diags[0].Message, "$FLOWSERVE_VAR_API_BASE is not set (or empty) and no --vars file was given") {
		t.Errorf("diagnostics: %v", diags)
	}
}

func TestReloaderKeepsServingWithoutValues(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "ok.yaml", okFlow)
	values := &project.Values{}
	opts := project.Options{Values: values}
	set, diags := project.Load([]string{dir}, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tg := &target{progs: set.Programs}
	r := project.NewReloader([]string{dir}, opts, tg, set)
	writeFile(t, dir, "deploy.yaml", deployFlow)
	if _, diags, err := r.Reload(); err == nil || len(diags) != 2 || diags[1].Code != codes.MissingValue {
		t.Fatalf("reload: %v, %v", diags, err)
	}
	if tg.swaps != 0 || len(tg.progs) != 1 {
		t.Errorf("the reload swapped in %d times: %v", tg.swaps, tg.progs)
	}
}
