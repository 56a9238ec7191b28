package cli

import (
	"context"
	"fmt"
)

// runTest is being built (issue 6).
func runTest(ctx context.Context, env *Env) int {
	fmt.Fprintln(env.Stderr, "flowserve test: not built yet")
	return exitFail
}
