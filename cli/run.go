package cli

import (
	"context"
	"fmt"
)

// runRun is being built (issue 6).
func runRun(ctx context.Context, env *Env) int {
	fmt.Fprintln(env.Stderr, "flowserve run: not built yet")
	return exitFail
}
