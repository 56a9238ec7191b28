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
// is under 2 s an operation. The private flows the examples call
// (expose: false) are written once, under their own names.
func BenchmarkLint1000(b *testing.B) {
	sources, err := filepath.Glob(filepath.Join(exampleFlowsDir, "*.yaml"))
	if err != nil || len(sources) == 0 {
		b.Fatalf("no example flows: %v", err)
	}
	dir := b.TempDir()
	private := regexp.MustCompile(`(?m)^expose: false$`)
	var flows [][]byte
	for _, s := range sources {
		if filepath.Ext(s) == ".yaml" && !regexp.MustCompile(`_test\.yaml$`).MatchString(s) {
			data, err := os.ReadFile(s)
			if err != nil {
				b.Fatal(err)
			}
			if private.Match(data) {
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), data, 0o644); err != nil {
					b.Fatal(err)
				}
				continue
			}
			flows = append(flows, data)
		}
	}
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
