package cli

import (
	"flag"
	"fmt"
	"net/url"
	"time"

	"github.com/flowserve/flowserve"
	"github.com/flowserve/flowserve/serve"
)

// TaskStoreFile and VersionStoreFile are the run store's and the version
// store's files in the --data directory.
const (
	TaskStoreFile    = flowserve.TaskStoreFile
	VersionStoreFile = flowserve.VersionStoreFile
)

// taskFlags are serve's flags for durable runs (MCP tasks).
type taskFlags struct {
	data         string
	maxRounds    int
	taskTTL      time.Duration
	pollInterval time.Duration
	workers      int
	maxWait      time.Duration
	publicURL    string
}

// register defines the flags in fs.
func (t *taskFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.data, "data", "", "directory of the run store file ("+TaskStoreFile+"), which keeps tasks across restarts; default: in memory (with --replies, tasks are kept in that Redis)")
	fs.IntVar(&t.maxRounds, "max-rounds", serve.DefaultMaxRounds, "round budget: question rounds a 2026-07-28 call may ask before a task: auto flow goes on as a task (clients that declared tasks)")
	fs.DurationVar(&t.taskTTL, "task-ttl", serve.DefaultTaskTTL, "how long a task is kept after its last change")
	fs.DurationVar(&t.pollInterval, "poll-interval", serve.DefaultPollInterval, "how often clients are told to poll a task (pollIntervalMs)")
	fs.IntVar(&t.workers, "task-workers", serve.DefaultTaskWorkers, "task rounds this instance runs at once")
	fs.DurationVar(&t.maxWait, "max-wait", serve.DefaultRoundTimeout, "longest a call waits inside itself, for long steps or an approval, when its client cannot have a task (session clients, clients without the tasks extension)")
	fs.StringVar(&t.publicURL, "public-url", "", "the server's URL as people who answer approvals reach it (e.g. https://mcp.example.com), for the links of approval pages; default: the scheme and host each call came in on")
}

// valid says what is wrong with the flags, or "".
func (t *taskFlags) valid() string {
	switch {
	case t.maxRounds < 1:
		return "--max-rounds must be at least 1"
	case t.taskTTL <= 0:
		return "--task-ttl must be positive"
	case t.pollInterval <= 0:
		return "--poll-interval must be positive"
	case t.workers < 1:
		return "--task-workers must be at least 1"
	case t.maxWait <= 0:
		return "--max-wait must be positive"
	}
	if t.publicURL != "" {
		u, err := url.Parse(t.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Sprintf("--public-url must be an http or https URL such as https://mcp.example.com, not %q", t.publicURL)
		}
	}
	return ""
}
