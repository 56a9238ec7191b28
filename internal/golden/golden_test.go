package golden

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

func TestDocumentedCodes(t *testing.T) {
	doc := []byte("// Codes:\n//\n//\tbad-yaml    the file is not YAML\n//\tmissing-key   a key is missing\n//\tnot a code\n// \tindented-code   no\n")
	got := DocumentedCodes(t, doc, 2)
	if len(got) != 2 || got[0] != "bad-yaml" || got[1] != "missing-key" {
		t.Fatalf("DocumentedCodes = %v", got)
	}
}

func TestCheckUpdate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "case.txtar")
	a := &txtar.Archive{Comment: []byte("A case.\n"), Files: []txtar.File{{Name: "flow.yaml", Data: []byte("nodes: []\n")}}}
	Check(t, file, a, "f:1:1: error: x [c]\n", true)
	b, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Files) != 2 || b.Files[1].Name != Section || string(b.Files[1].Data) != "f:1:1: error: x [c]\n" {
		t.Fatalf("rewritten archive: %+v", b.Files)
	}
	Check(t, file, b, "f:1:1: error: x [c]\n", false)
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}
