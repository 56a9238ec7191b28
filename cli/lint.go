package cli

import (
	"context"
	"fmt"
)

// runLint checks flow files. (Being built: issue 5.)
func runLint(ctx context.Context, env *Env) int {
	fmt.Fprintln(env.Stderr, "flowserve lint: not built yet")
	return exitFail
}
