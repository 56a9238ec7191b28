package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/serve"
	"github.com/flowserve/flowserve/versions"
	versionredis "github.com/flowserve/flowserve/versions/redis"
)

// VersionStoreFile is the version store's file in the --data directory.
const VersionStoreFile = "versions.db"

// versions returns the version set the server pins runs with: its store
// is the --replies Redis when set (shared by every instance), a file
// under --data, or memory (runs in flight survive reloads, not
// restarts); versions it did not load are compiled with popts. The
// returned func closes the store.
func (f *serveFlags) versions(popts project.Options, logger *slog.Logger) (*serve.Versions, func(), error) {
	var store versions.Store
	closeStore := func() {}
	switch {
	case f.replies != "":
		rs, err := versionredis.Open(f.replies, versionredis.Options{})
		if err != nil {
			return nil, nil, fmt.Errorf("--replies: %w", err)
		}
		store, closeStore = rs, func() { rs.Close() }
	case f.tasks.data != "":
		if err := os.MkdirAll(f.tasks.data, 0o700); err != nil {
			return nil, nil, fmt.Errorf("--data: %w", err)
		}
		b, err := versions.OpenBolt(filepath.Join(f.tasks.data, VersionStoreFile), versions.BoltOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("--data: %w", err)
		}
		store, closeStore = b, func() { b.Close() }
	}
	compile := func(path string, src []byte) (*flow.Program, error) {
		p, diags := project.LoadSource(path, src, popts)
		if p == nil {
			return nil, diags.Err()
		}
		return p, nil
	}
	vs := serve.NewVersions(serve.VersionsOptions{Store: store, Compile: compile,
		Keep: max(f.ttl, f.tasks.taskTTL), Logger: logger})
	return vs, closeStore, nil
}
