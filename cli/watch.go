package cli

import (
	"io"
	"strings"
	"sync"

	"github.com/flowserve/flowserve/dsl"
)

// printDiagnosticsAtOnce prints diagnostics in one write, so they are not
// interleaved with log lines: the diagnostics of reloads (serve --watch,
// server.reload steps), printed from the runtime's goroutines.
func printDiagnosticsAtOnce(w io.Writer, diags dsl.Diagnostics) {
	if len(diags) == 0 {
		return
	}
	var b strings.Builder
	printDiagnostics(&b, diags)
	io.WriteString(w, b.String())
}

// lockedWriter serializes writes from the server's goroutines and the
// watcher's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
