package std

import (
	"context"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

// run calls a built-in through the default registry the checked way
// (defaults, input and output validation), with h as the host.
func run(t *testing.T, h *actions.Host, name string, in map[string]any) (map[string]any, error) {
	t.Helper()
	return runCtx(t, context.Background(), h, name, in)
}

func runCtx(t *testing.T, ctx context.Context, h *actions.Host, name string, in map[string]any) (map[string]any, error) {
	t.Helper()
	a, ok := actions.Default().Lookup(name)
	if !ok {
		t.Fatalf("action %q is not registered", name)
	}
	if h != nil {
		ctx = actions.WithHost(ctx, h)
	}
	out, err := a.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %q, want it to contain %q", err, want)
	}
}

func TestBuiltinsRegistered(t *testing.T) {
	want := []string{
		"fs.list", "fs.read", "fs.remove", "fs.stat", "fs.write",
		"http.request", "log.error", "log.info", "log.warn",
		"random.int", "server.reload", "time.now", "time.sleep", "uuid.new",
	}
	var got []string
	for _, a := range actions.Default().Actions() {
		got = append(got, a.Name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("registered %v, want %v", got, want)
	}
}

// Every property of every built-in schema, at any depth, has a description,
// and every object is closed or a map of strings.
func TestBuiltinSchemasDescribeEveryProperty(t *testing.T) {
	for _, a := range actions.Default().Actions() {
		for which, s := range map[string]map[string]any{"input": a.Input, "output": a.Output} {
			checkDescribed(t, a.Name+" "+which, s)
		}
		if a.Summary == "" || strings.HasSuffix(a.Summary, " ") || !strings.HasSuffix(a.Summary, ".") {
			t.Errorf("%s: summary %q should be one sentence", a.Name, a.Summary)
		}
	}
}

func checkDescribed(t *testing.T, where string, s map[string]any) {
	t.Helper()
	if items, ok := s["items"].(map[string]any); ok {
		checkDescribed(t, where+"[]", items)
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return
	}
	if s["additionalProperties"] != false {
		t.Errorf("%s: object schema is not closed", where)
	}
	for name, p := range props {
		ps := p.(map[string]any)
		if d, _ := ps["description"].(string); d == "" {
			t.Errorf("%s.%s: no description", where, name)
		}
		checkDescribed(t, where+"."+name, ps)
	}
}

func TestUnknownInputPropertyIsRejected(t *testing.T) {
	_, err := run(t, nil, "uuid.new", map[string]any{"version": int64(7)})
	wantErr(t, err, `input of action "uuid.new": version: is not allowed`)
}
