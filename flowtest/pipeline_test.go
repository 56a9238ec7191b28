package flowtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/check/codes"
)

// writeSuite writes files (name → content) to a new directory.
func writeSuite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRejectsWhatLintRejects: flowserve test loads flows the way lint and
// serve do, so a flow that parses and compiles but fails check.File (a
// password asked in a form) does not run its cases; a warning (no
// description) is lint's business, not one of the errors.
func TestRejectsWhatLintRejects(t *testing.T) {
	dir := writeSuite(t, map[string]string{
		"login.yaml": `nodes:
  - id: login
    ask: Sign in
    form:
      password: {type: string}
  - return: ok
`,
		"login_test.yaml": `tests:
  - name: signs in
    answers:
      login: {content: {password: hunter2}}
    expect:
      text: ok
`,
	})
	r, err := Run(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || len(r.Flows) != 1 || !r.Flows[0].LoadFailed || len(r.Flows[0].Cases) != 0 {
		t.Fatalf("report %+v: want the flow refused and no case run", r)
	}
	var got []string
	for _, e := range r.Flows[0].Errors {
		got = append(got, e.Code)
	}
	if slices.Contains(got, codes.MissingDescription) || !slices.Contains(got, codes.SensitiveForm) {
		t.Errorf("errors %v: want sensitive-form, and not the warning missing-description", got)
	}
}

// TestClockPinned: one clock for the whole run: a step's Host clock is
// the engine's, Clock, like run.started.
func TestClockPinned(t *testing.T) {
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name: "test.clock", Summary: "Reads the host's clock.",
		Input:  map[string]any{"type": "object"},
		Output: map[string]any{"type": "object", "properties": map[string]any{"now": map[string]any{"type": "string"}}},
		Func: func(ctx context.Context, _ map[string]any) (any, error) {
			now := actions.HostFrom(ctx).Now
			if now == nil {
				return map[string]any{"now": "no clock"}, nil
			}
			return map[string]any{"now": now().UTC().Format("2006-01-02T15:04:05Z07:00")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSuite(t, map[string]string{
		"clock.yaml": `description: Tells the time.
nodes:
  - id: c
    step: test.clock
  - return: "{{ c.now }} / {{ run.started }}"
`,
		"clock_test.yaml": `tests:
  - name: the pinned clock
    expect:
      text: 2026-01-01T00:00:00Z / 2026-01-01T00:00:00Z
`,
	})
	r, err := Run(context.Background(), []string{dir}, Options{Actions: reg})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK {
		var b strings.Builder
		for _, fr := range r.Flows {
			fr.WriteText(&b, false)
		}
		t.Errorf("the step saw another clock:\n%s", b.String())
	}
}
