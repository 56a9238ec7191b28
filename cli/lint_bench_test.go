package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// BenchmarkLint1000 lints 1,000 flows, copies of the example flows under
// names of their own, with flowserve lint as a user runs it: the target
// is under 2 s an operation.
func BenchmarkLint1000(b *testing.B) {
	sources, err := filepath.Glob(filepath.Join(exampleFlowsDir, "*.yaml"))
	if err != nil || len(sources) == 0 {
		b.Fatalf("no example flows: %v", err)
	}
	var flows [][]byte
	for _, s := range sources {
		if filepath.Ext(s) == ".yaml" && !regexp.MustCompile(`_test\.yaml$`).MatchString(s) {
			data, err := os.ReadFile(s)
			if err != nil {
				b.Fatal(err)
			}
			flows = append(flows, data)
		}
	}
	dir := b.TempDir()
	name := regexp.MustCompile(`(?m)^name: .*$`)
	for i := range 1000 {
		src := flows[i%len(flows)]
		src = name.ReplaceAll(src, nil)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("flow_%04d.yaml", i)), src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), []string{"lint", dir}, nil, &out, &errOut); code != exitOK {
			b.Fatalf("lint exit %d: %s%s", code, out.String(), errOut.String())
		}
	}
}
