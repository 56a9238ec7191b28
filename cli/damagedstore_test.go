package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

// TestServeDamagedStore runs `flowserve serve --data DIR` on a DIR whose
// tasks.db or versions.db is damaged or cut short: it exits 1 saying
// which file is damaged, what is wrong and how to recover, and never
// panics; the undamaged DIR serves (stdio, to the end of its input).
func TestServeDamagedStore(t *testing.T) {
	good := t.TempDir()
	s, err := tasks.OpenBolt(filepath.Join(good, TaskStoreFile), tasks.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if err := s.Create(context.Background(), storetest.Sample(t, time.Now())); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if _, stderr, code := runBinary(t, "serve", "--stdio", "--data", good, exampleFlowsDir); code != 0 {
		t.Fatalf("serve --data on a good store: exit %d, stderr %s", code, stderr)
	}
	goodTasks := mustReadFile(t, filepath.Join(good, TaskStoreFile))
	goodVersions := mustReadFile(t, filepath.Join(good, VersionStoreFile))
	flipMeta := func(b []byte) []byte {
		b = append([]byte(nil), b...)
		b[16+40] ^= 0xff // meta page 0's high water mark
		return b
	}
	tests := []struct {
		name  string
		file  string
		data  []byte
		store string
		want  string
	}{
		{"tasks.db cut short", TaskStoreFile, goodTasks[:3*os.Getpagesize()], "run store", "it was cut short"},
		{"tasks.db cut to 100 bytes", TaskStoreFile, goodTasks[:100], "run store", "it was cut short"},
		{"tasks.db meta page flipped", TaskStoreFile, flipMeta(goodTasks), "run store", "meta page 0 does not match its checksum"},
		{"tasks.db of text", TaskStoreFile, []byte(strings.Repeat("tasks\n", 2000)), "run store", "it is not a bbolt database file"},
		{"versions.db cut short", VersionStoreFile, goodVersions[:3*os.Getpagesize()], "version store", "it was cut short"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, data := range map[string][]byte{TaskStoreFile: goodTasks, VersionStoreFile: goodVersions, tc.file: tc.data} {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, stderr, code := runBinary(t, "serve", "--stdio", "--data", dir, exampleFlowsDir)
			want := "flowserve serve: --data: the " + tc.store + " " + filepath.Join(dir, tc.file) + " is damaged: "
			if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, tc.want) ||
				!strings.Contains(stderr, "move it aside to start with an empty store") {
				t.Errorf("exit %d, stderr %s\nwant exit 1 and %q ... %q ... how to recover", code, stderr, want, tc.want)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("serve panicked: %s", stderr)
			}
		})
	}
}

// mustReadFile returns the bytes of the file at path.
func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
