package dsl

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("nodes:\n")
	for i := range 100 {
		fmt.Fprintf(&sb, "  - id: n%d\n    step: fs.stat\n    with: {path: \"{{ input.path + '%d' }}\"}\n", i, i)
	}
	src := []byte(sb.String())
	for b.Loop() {
		if _, ds := Parse("flow.yaml", src); len(ds) > 0 {
			b.Fatal(ds)
		}
	}
}
