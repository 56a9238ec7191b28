package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

var builtins = []string{
	"fs.list", "fs.read", "fs.remove", "fs.stat", "fs.write", "http.request",
	"log.info", "random.int", "time.now", "uuid.new",
}

func TestActionsText(t *testing.T) {
	out, errOut, code := run(t, "actions")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, name := range builtins {
		if !strings.Contains(out, "\n"+name+"\n") && !strings.HasPrefix(out, name+"\n") {
			t.Errorf("text listing lacks %s", name)
		}
	}
	if !strings.Contains(out, "url          (string, required)") {
		t.Errorf("http.request's url field is not listed as a required string:\n%s", out)
	}
}

func TestActionsJSON(t *testing.T) {
	out, errOut, code := run(t, "actions", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var list []actionJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	got := map[string]actionJSON{}
	for _, a := range list {
		got[a.Name] = a
	}
	for _, name := range builtins {
		a, ok := got[name]
		if !ok {
			t.Errorf("JSON listing lacks %s", name)
			continue
		}
		if a.Summary == "" || a.Input["type"] != "object" || a.Output == nil {
			t.Errorf("%s: incomplete entry %+v", name, a)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: flowserve"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"actions", "--format", "yaml"}, 2, "--format must be text or json"},
		{[]string{"actions", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"actions", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"help"}, 0, "usage: flowserve"},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: exit %d, output %q; want exit %d containing %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}
