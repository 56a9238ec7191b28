package std

import (
	"context"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

// BenchmarkTimeNowRun measures one typed step the checked way: defaults,
// validation, decoding, the call, encoding and output validation.
func BenchmarkTimeNowRun(b *testing.B) {
	a, _ := actions.Default().Lookup("time.now")
	ctx := context.Background()
	in := map[string]any{"timezone": "UTC"}
	for b.Loop() {
		if _, err := a.Run(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
