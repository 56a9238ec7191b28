package loadgen

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/schemas"
	"github.com/flowserve/flowserve/serve"
)

func TestAutoAnswerSatisfiesForms(t *testing.T) {
	forms := []map[string]any{
		{"type": "object", "properties": map[string]any{
			"name":   map[string]any{"type": "string", "minLength": int64(12)},
			"short":  map[string]any{"type": "string", "maxLength": int64(3)},
			"email":  map[string]any{"type": "string", "format": "email"},
			"day":    map[string]any{"type": "string", "format": "date"},
			"n":      map[string]any{"type": "integer", "minimum": int64(5)},
			"x":      map[string]any{"type": "number"},
			"ok":     map[string]any{"type": "boolean"},
			"plan":   map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "a", "title": "A"}}},
			"color":  map[string]any{"type": "string", "enum": []any{"red", "blue"}},
			"tags":   map[string]any{"type": "array", "minItems": int64(2), "items": map[string]any{"type": "string", "enum": []any{"p", "q", "r"}}},
			"titled": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "v", "title": "V"}}}},
			"def":    map[string]any{"type": "integer", "default": int64(7)},
		}, "required": []any{"name", "email", "n", "tags"}},
	}
	for _, form := range forms {
		s, err := schemas.Compile(form)
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		if err := json.Unmarshal(AutoAnswer(form), &a); err != nil {
			t.Fatal(err)
		}
		if vs := s.Validate(a.Content); a.Action != "accept" || len(vs) > 0 {
			t.Errorf("auto answer %v does not satisfy the form: %v", a, vs)
		}
	}
}

// TestRunAgainstFlowserve drives the example signup flow in-process and
// checks that every run completes without errors.
func TestRunAgainstFlowserve(t *testing.T) {
	path := filepath.Join("..", "..", "flows", "signup.yaml")
	p, diags := project.LoadFile(path, project.Options{})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New([]*flow.Program{p}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(serve.HTTPOptions{}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{URL: ts.URL + "/mcp", Tool: "signup", Clients: 4, Runs: 40})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.Runs != 40 || rep.Rounds != 80 || rep.ToolErrors != 0 {
		t.Fatalf("report: %s", rep)
	}
	if rep.P50 <= 0 || rep.P99 < rep.P50 || rep.BytesPerRnd <= 0 {
		t.Fatalf("implausible figures: %s", rep)
	}
	// A scripted answer that the flow rejects is asked again twice (retries:
	// 2), and the third invalid answer ends the run: 4 rounds and a tool
	// error, not a protocol error.
	bad := Script{"details": {json.RawMessage(`{"action":"accept","content":{"name":"A"}}`)}}
	rep, err = Run(ctx, Config{URL: ts.URL + "/mcp", Tool: "signup", Clients: 2, Runs: 4, Script: bad})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || rep.ToolErrors != 4 || rep.Rounds != 16 {
		t.Fatalf("scripted report: %s", rep)
	}
}
