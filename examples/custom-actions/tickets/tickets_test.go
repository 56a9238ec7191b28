package tickets

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

// run runs an action as the step at position pos of one run: the same pos
// is a retry of the same step.
func run(t *testing.T, reg *actions.Registry, pos int, name string, in map[string]any) (map[string]any, error) {
	t.Helper()
	a, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	ctx := actions.WithCall(context.Background(), actions.Call{RunID: "r", Node: "n", Position: pos})
	out, err := a.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// TestSchemas: the schemas derived from the Go types, with the keywords
// the options add.
func TestSchemas(t *testing.T) {
	reg := actions.NewRegistry()
	if err := Register(reg, Config{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"tickets.create": `{"additionalProperties":false,"properties":{"priority":{"default":"normal","description":"How urgent it is.","enum":["low","normal","high"],"type":"string"},"title":{"description":"What the ticket is about.","minLength":1,"type":"string"}},"required":["title"],"type":"object"}`,
		"tickets.get":    `{"additionalProperties":false,"properties":{"id":{"description":"The ticket's id.","type":"string"}},"required":["id"],"type":"object"}`,
	}
	output := `{"additionalProperties":false,"properties":{"id":{"description":"The ticket's id, like T-1.","type":"string"},"priority":{"description":"How urgent it is.","enum":["low","normal","high"],"type":"string"},"status":{"description":"open or closed.","type":"string"},"title":{"description":"What the ticket is about.","type":"string"}},"required":["id","title","priority","status"],"type":"object"}`
	for name, in := range want {
		a, _ := reg.Lookup(name)
		if b, _ := json.Marshal(a.Input); string(b) != in {
			t.Errorf("%s input\n  %s\nwant\n  %s", name, b, in)
		}
		if b, _ := json.Marshal(a.Output); string(b) != output {
			t.Errorf("%s output\n  %s\nwant\n  %s", name, b, output)
		}
	}
}

// TestConfigAndLifecycle: the configuration reaches the actions, and a
// provisioned registry loads the file at start and saves it at the end.
func TestConfigAndLifecycle(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tickets.json")
	ctx := context.Background()
	start := func(t *testing.T, conf Config) *actions.Registry {
		t.Helper()
		reg := actions.NewRegistry()
		if err := Register(reg, conf); err != nil {
			t.Fatal(err)
		}
		p, err := reg.Provision(ctx, &actions.Host{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// First server: files two tickets, then stops.
	first := start(t, Config{Prefix: "BUG", File: file})
	out, err := run(t, first, 1, "tickets.create", map[string]any{"title": "Printer on fire"})
	if err != nil || out["id"] != "BUG-1" || out["priority"] != "normal" {
		t.Fatalf("create = %v, %v", out, err)
	}
	if _, err := run(t, first, 2, "tickets.create", map[string]any{"title": "Coffee", "priority": "high"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the file was written before Cleanup: %v", err)
	}
	if err := first.Cleanup(); err != nil {
		t.Fatal(err)
	}

	// Second server: the tickets are back; a retried step still finds its ticket.
	second := start(t, Config{Prefix: "BUG", File: file})
	defer second.Cleanup()
	if out, err := run(t, second, 3, "tickets.get", map[string]any{"id": "BUG-2"}); err != nil || out["title"] != "Coffee" || out["priority"] != "high" {
		t.Fatalf("get after a restart = %v, %v", out, err)
	}
	if out, err := run(t, second, 1, "tickets.create", map[string]any{"title": "Printer on fire"}); err != nil || out["id"] != "BUG-1" {
		t.Fatalf("a retried create filed %v, %v; want BUG-1 again", out, err)
	}
	if out, err := run(t, second, 4, "tickets.create", map[string]any{"title": "Third", "priority": "low"}); err != nil || out["id"] != "BUG-3" {
		t.Fatalf("create after a restart = %v, %v", out, err)
	}

	// A server without a file keeps its tickets to itself.
	other := start(t, Config{})
	defer other.Cleanup()
	if _, err := run(t, other, 1, "tickets.get", map[string]any{"id": "BUG-1"}); err == nil || err.Error() != `no ticket "BUG-1"` {
		t.Fatalf("get on another server: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		conf    Config
		wantErr string
	}{
		{"lower-case prefix", Config{Prefix: "bug"}, `module "tickets" is not valid: prefix "bug" must be upper-case letters`},
		{"unreadable file", Config{File: bad}, `provision module "tickets": ` + bad + `: invalid character`},
		{"file is a directory", Config{File: dir}, `provision module "tickets": read ` + dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := actions.NewRegistry()
			if err := Register(reg, tt.conf); err != nil {
				t.Fatal(err)
			}
			_, err := reg.Provision(context.Background(), nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("Provision error = %v, want prefix %q", err, tt.wantErr)
			}
		})
	}
}

func TestInvalidInput(t *testing.T) {
	reg := actions.NewRegistry()
	if err := Register(reg, Config{}); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, reg, 1, "tickets.create", map[string]any{"title": "", "priority": "urgent"})
	want := `input of action "tickets.create": priority: must be one of low, normal, high; title: must not be empty`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
}
