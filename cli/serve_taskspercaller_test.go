package cli

import (
	"bytes"
	"testing"

	"github.com/flowserve/flowserve/serve"
)

// TestServeMaxTasksPerCaller: --max-tasks-per-caller defaults to serve's
// default, and reaches Options.MaxTasksPerCaller with its 0 or less (no
// limit) as a negative, since Options' 0 is the default.
func TestServeMaxTasksPerCaller(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"default", nil, serve.DefaultMaxTasksPerCaller},
		{"a limit", []string{"--max-tasks-per-caller", "5"}, 5},
		{"zero: no limit", []string{"--max-tasks-per-caller", "0"}, -1},
		{"negative: no limit", []string{"--max-tasks-per-caller=-3"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f serveFlags
			var stderr bytes.Buffer
			if err := f.flagSet(&Env{Stderr: &stderr}).Parse(tt.args); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if got := tasksPerCaller(f.maxTasks); got != tt.want {
				t.Errorf("Options.MaxTasksPerCaller = %d, want %d", got, tt.want)
			}
		})
	}
}
