package std

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

var update = flag.Bool("update", false, "rewrite testdata/actions.golden.json")

// TestBuiltinSchemasGolden pins what `flowserve actions --format json` and
// lint see of every built-in: name, summary, description and the input and
// output schemas, byte for byte.
func TestBuiltinSchemasGolden(t *testing.T) {
	reg := actions.NewRegistry()
	if err := Register(reg, nil); err != nil {
		t.Fatal(err)
	}
	for name, list := range map[string][]*actions.Action{"Default()": actions.Default().Actions(), "Register": reg.Actions()} {
		got := listing(t, list)
		const file = "testdata/actions.golden.json"
		if *update && name == "Default()" {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the built-ins' listing changed; diff %s against the output of go test -run TestBuiltinSchemasGolden -update:\n%s", name, file, got)
		}
	}
}

// listing renders actions the way `flowserve actions --format json` does.
func listing(t *testing.T, list []*actions.Action) []byte {
	t.Helper()
	type entry struct {
		Name        string         `json:"name"`
		Summary     string         `json:"summary"`
		Description string         `json:"description,omitempty"`
		Input       map[string]any `json:"input"`
		Output      map[string]any `json:"output"`
	}
	out := make([]entry, 0, len(list))
	for _, a := range list {
		out = append(out, entry{a.Name, a.Summary, a.Description, a.Input, a.Output})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
