package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/schemas"
)

func TestSchemaPrintsTheFile(t *testing.T) {
	out, errOut, code := run(t, "schema")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	file, err := os.ReadFile(filepath.Join("..", "schemas", "flow.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(out), file) || !bytes.Equal([]byte(out), schemas.FlowSchema()) {
		t.Fatal("flowserve schema does not print schemas/flow.schema.json byte for byte")
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["$id"] != schemas.FlowSchemaID {
		t.Errorf("output is not the flow schema: %v, $id %v", err, doc["$id"])
	}
}

func TestSchemaResources(t *testing.T) {
	out, errOut, code := run(t, "schema", "--resources")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	file, err := os.ReadFile(filepath.Join("..", "schemas", "resources.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(out), file) {
		t.Fatal("flowserve schema --resources does not print schemas/resources.schema.json byte for byte")
	}
}

func TestSchemaUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"schema", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"schema", "--format", "json"}, 2, "flag provided but not defined"},
		{[]string{"schema", "-h"}, 0, "usage: flowserve schema"},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr containing %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
}
