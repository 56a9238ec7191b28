package flowserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/replies"
	replyredis "github.com/flowserve/flowserve/replies/redis"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/tasks"
	taskredis "github.com/flowserve/flowserve/tasks/redis"
	"github.com/flowserve/flowserve/versions"
	versionredis "github.com/flowserve/flowserve/versions/redis"
)

// TaskStoreFile and VersionStoreFile are the run store's and the version
// store's files in the Config.Data directory.
const (
	TaskStoreFile    = "tasks.db"
	VersionStoreFile = "versions.db"
)

// StoreError is Open's error when a store cannot be opened: Field names
// the Config field that gives it, "Data" or "Redis".
type StoreError struct {
	Field string
	Err   error
}

// Error names the field and says what failed.
func (e *StoreError) Error() string { return fmt.Sprintf("Config.%s: %v", e.Field, e.Err) }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// stores are the stores a runtime runs on.
type stores struct {
	tasks    tasks.Store
	versions versions.Store // nil: memory (serve.NewVersions makes it)
	replies  flow.ReplyStore
}

// openStores opens the stores cfg names: those it gives, else Redis
// (shared by every instance), else files under cfg.Data, else memory. What
// it opens it registers with c, to be closed on Close.
func openStores(ctx context.Context, cfg *Config, log *slog.Logger, c *closers) (stores, error) {
	st := stores{tasks: cfg.Tasks, versions: cfg.Versions, replies: cfg.Replies}
	if cfg.Redis != "" {
		if err := openRedis(ctx, cfg.Redis, &st, log, c); err != nil {
			return st, &StoreError{Field: "Redis", Err: err}
		}
		if cfg.Data != "" && cfg.Tasks == nil {
			log.Warn("tasks are kept in the Redis store, shared by every instance; the data directory is not used for them", "data", cfg.Data)
		}
	}
	if cfg.Data != "" && (st.tasks == nil || st.versions == nil) {
		if err := openFiles(cfg.Data, &st, log, c); err != nil {
			return st, &StoreError{Field: "Data", Err: err}
		}
	}
	if st.tasks == nil {
		log.Warn("no --data directory: tasks are kept in memory and end when the server stops; give --data DIR to keep them across restarts")
		m := tasks.NewMemory(nil)
		st.tasks = m
		c.add(func() error { m.Close(); return nil })
	}
	if st.replies == nil {
		st.replies = replies.NewMemory(0, nil)
	}
	return st, nil
}

// openRedis opens the stores st lacks in the Redis at rawURL: final
// results, tasks and versions.
func openRedis(ctx context.Context, rawURL string, st *stores, log *slog.Logger, c *closers) error {
	if st.replies == nil {
		rs, err := replyredis.Open(rawURL)
		if err != nil {
			return err
		}
		c.add(func() error { rs.Close(); return nil })
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = rs.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
		st.replies = rs
	}
	if st.versions == nil {
		vs, err := versionredis.Open(rawURL, versionredis.Options{})
		if err != nil {
			return err
		}
		c.add(func() error { vs.Close(); return nil })
		st.versions = vs
	}
	if st.tasks == nil {
		// Open reaches the server: it makes the dispatch stream's group.
		ts, err := taskredis.Open(rawURL, taskredis.Options{})
		if err != nil {
			return err
		}
		c.add(func() error { ts.Close(); return nil })
		log.Info("run store: Redis", "url", redactURL(rawURL))
		st.tasks = ts
	}
	return nil
}

// openFiles opens the run and version stores st lacks as files in dir,
// which it makes when missing.
func openFiles(dir string, st *stores, log *slog.Logger, c *closers) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if st.versions == nil {
		b, err := versions.OpenBolt(filepath.Join(dir, VersionStoreFile), versions.BoltOptions{})
		if err != nil {
			return err
		}
		c.add(func() error { return b.Close() })
		st.versions = b
	}
	if st.tasks == nil {
		path := filepath.Join(dir, TaskStoreFile)
		b, err := tasks.OpenBolt(path, tasks.BoltOptions{})
		if err != nil {
			return err
		}
		c.add(func() error { return b.Close() })
		log.Info("run store: file", "path", path)
		st.tasks = b
	}
	return nil
}

// newEngine makes the engine every flow runs on: states sealed with the
// configured key ring (or an ephemeral key, with a warning), final results
// kept in replies, runs pinned with vs, the limits and values of cfg.
func newEngine(cfg *Config, replies flow.ReplyStore, vs *serve.Versions, log *slog.Logger) (*flow.Engine, error) {
	ring := cfg.Keys
	if ring == nil {
		log.Warn("no state key ring (--keys or $FLOWSERVE_KEYS): using an ephemeral key; runs in progress will not survive a restart and other instances cannot continue them")
		r, err := state.EphemeralKeyRing()
		if err != nil {
			return nil, err
		}
		ring = r
	}
	codec := state.NewCodec(ring, state.Options{TTL: cfg.StateTTL, MaxSize: cfg.MaxStateBytes})
	return flow.NewEngine(flow.EngineOptions{Codec: codec, Replies: replies, Limits: cfg.Limits,
		Values: cfg.Values.Values, Versions: vs})
}

// stateTTL is how long cfg's request states stay valid.
func stateTTL(cfg *Config) time.Duration {
	if cfg.StateTTL > 0 {
		return cfg.StateTTL
	}
	return state.DefaultTTL
}

// taskTTL is how long cfg's tasks are kept after their last change.
func taskTTL(cfg *Config) time.Duration {
	if cfg.Server.TaskTTL > 0 {
		return cfg.Server.TaskTTL
	}
	return serve.DefaultTaskTTL
}

// redactURL is a store URL for the logs and errors: without its password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// closers are what a runtime closes on Close, in the reverse order of
// their opening.
type closers struct{ fns []func() error }

// add registers f to run on close.
func (c *closers) add(f func() error) { c.fns = append(c.fns, f) }

// close runs the registered funcs, last first, logging and joining their
// errors.
func (c *closers) close(log *slog.Logger) error {
	var errs []error
	for i := len(c.fns) - 1; i >= 0; i-- {
		if err := c.fns[i](); err != nil {
			log.Error("closing the runtime", "err", err)
			errs = append(errs, err)
		}
	}
	c.fns = nil
	return errors.Join(errs...)
}
