package watch_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/watch"
)

func isYAML(path string) bool { return filepath.Ext(path) == ".yaml" }

// write writes a file under dir, making its directory.
func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// op is one change a test makes to the files.
type op func(t *testing.T, dir string)

func writeOp(name, content string) op {
	return func(t *testing.T, dir string) { write(t, dir, name, content) }
}

func removeOp(name string) op {
	return func(t *testing.T, dir string) {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// renameOverOp saves a file the way many editors do: a new file, renamed
// over the old one.
func renameOverOp(name, content string) op {
	return func(t *testing.T, dir string) {
		tmp := filepath.Join(dir, name+".tmp~")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func burstOp(name string, n int) op {
	return func(t *testing.T, dir string) {
		for i := range n {
			write(t, dir, name, strings.Repeat("x", i))
		}
	}
}

// report is what one call of onChange should get: every path of want
// (relative to the temp dir), none of not.
type report struct {
	ops  []op
	want []string
	not  []string
}

func TestWatcher(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string // before the watch starts
		watch    []string          // relative to the temp dir; "" is the dir
		cwd      bool              // pass watch as is, from the temp dir as working directory
		siblings bool              // Options.Siblings
		reports  []report          // in turn: make the changes, wait for the report
	}{
		{
			name:    "a file written",
			files:   map[string]string{"a.yaml": "1"},
			reports: []report{{ops: []op{writeOp("a.yaml", "2")}, want: []string{"a.yaml"}}},
		},
		{
			name:    "a new file",
			reports: []report{{ops: []op{writeOp("new.yaml", "1")}, want: []string{"new.yaml"}}},
		},
		{
			name:    "a file deleted",
			files:   map[string]string{"a.yaml": "1", "b.yaml": "1"},
			reports: []report{{ops: []op{removeOp("a.yaml")}, want: []string{"a.yaml"}, not: []string{"b.yaml"}}},
		},
		{
			name:    "saved by renaming a new file over it",
			files:   map[string]string{"a.yaml": "1"},
			reports: []report{{ops: []op{renameOverOp("a.yaml", "2")}, want: []string{"a.yaml"}, not: []string{"a.yaml.tmp~"}}},
		},
		{
			name: "files that do not match are ignored",
			reports: []report{
				{ops: []op{writeOp("notes.txt", "x"), writeOp("a.yaml", "1")}, want: []string{"a.yaml"}, not: []string{"notes.txt"}},
			},
		},
		{
			name: "a burst is one report",
			reports: []report{
				{ops: []op{burstOp("a.yaml", 20)}, want: []string{"a.yaml"}},
				// Had the burst been split, a.yaml would be reported again.
				{ops: []op{writeOp("b.yaml", "1")}, want: []string{"b.yaml"}, not: []string{"a.yaml"}},
			},
		},
		{
			name: "new directories are watched",
			reports: []report{
				{ops: []op{writeOp("sub/deeper/c.yaml", "1")}, want: []string{"sub"}},
				{ops: []op{writeOp("sub/deeper/c.yaml", "2")}, want: []string{"sub/deeper/c.yaml"}},
			},
		},
		{
			name:  "a directory removed and made again",
			files: map[string]string{"sub/c.yaml": "1"},
			reports: []report{
				{ops: []op{removeOp("sub")}, want: []string{"sub"}},
				{ops: []op{writeOp("sub/c.yaml", "2")}, want: []string{"sub"}},
				{ops: []op{writeOp("sub/c.yaml", "3")}, want: []string{"sub/c.yaml"}},
			},
		},
		{
			name:  "hidden directories are not watched",
			files: map[string]string{".git/x.yaml": "1"},
			reports: []report{
				{ops: []op{writeOp(".git/x.yaml", "2"), writeOp(".new/y.yaml", "1"), writeOp("a.yaml", "1")},
					want: []string{"a.yaml"}, not: []string{".git/x.yaml", ".new", ".new/y.yaml"}},
			},
		},
		{
			name:  "a file named explicitly, not its siblings",
			files: map[string]string{"a.yaml": "1", "b.yaml": "1"},
			watch: []string{"a.yaml"},
			reports: []report{
				{ops: []op{writeOp("b.yaml", "2"), writeOp("a.yaml", "2")}, want: []string{"a.yaml"}, not: []string{"b.yaml"}},
				{ops: []op{renameOverOp("a.yaml", "3")}, want: []string{"a.yaml"}},
				{ops: []op{removeOp("a.yaml")}, want: []string{"a.yaml"}},
				{ops: []op{writeOp("a.yaml", "4")}, want: []string{"a.yaml"}},
			},
		},
		{
			name:     "a file named explicitly, with its siblings",
			files:    map[string]string{"a.yaml": "1", "b.yaml": "1", "sub/c.yaml": "1"},
			watch:    []string{"a.yaml"},
			siblings: true,
			reports: []report{
				{ops: []op{writeOp("b.yaml", "2")}, want: []string{"b.yaml"}},
				{ops: []op{writeOp("notes.txt", "x"), writeOp("sub/c.yaml", "2"), writeOp("a.yaml", "2")}, want: []string{"a.yaml"}, not: []string{"notes.txt", "sub/c.yaml"}},
			},
		},
		{
			name:    "the working directory, named as .",
			watch:   []string{"."},
			cwd:     true,
			reports: []report{{ops: []op{writeOp("a.yaml", "1")}, want: []string{"a.yaml"}}},
		},
		{
			name:    "a file in the working directory, named relatively",
			files:   map[string]string{"a.yaml": "1"},
			watch:   []string{"a.yaml"},
			cwd:     true,
			reports: []report{{ops: []op{renameOverOp("a.yaml", "2")}, want: []string{"a.yaml"}}},
		},
		{
			name:  "a file named explicitly counts whatever its name",
			files: map[string]string{"flow.txt": "1"},
			watch: []string{"flow.txt"},
			reports: []report{
				{ops: []op{writeOp("flow.txt", "2")}, want: []string{"flow.txt"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for name, content := range tc.files {
				write(t, dir, name, content)
			}
			watchPaths := tc.watch
			if watchPaths == nil {
				watchPaths = []string{""}
			}
			var paths []string
			for _, p := range watchPaths {
				if !tc.cwd {
					p = filepath.Join(dir, p)
				}
				paths = append(paths, p)
			}
			if tc.cwd {
				t.Chdir(dir)
			}
			w, err := watch.New(paths, watch.Options{Match: isYAML, Siblings: tc.siblings, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ctx, cancel := context.WithCancel(context.Background())
			reports := make(chan []string, 10)
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx, func(changed []string) { reports <- changed }) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
			}()
			for i, r := range tc.reports {
				for _, o := range r.ops {
					o(t, dir)
				}
				var got []string
				select {
				case changed := <-reports:
					for _, p := range changed {
						rel, err := filepath.Rel(dir, p)
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, filepath.ToSlash(rel))
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("report %d: none within 10s", i+1)
				}
				for _, p := range r.want {
					if !slices.Contains(got, p) {
						t.Errorf("report %d: %q, want it to have %q", i+1, got, p)
					}
				}
				for _, p := range r.not {
					if slices.Contains(got, p) {
						t.Errorf("report %d: %q, want it without %q", i+1, got, p)
					}
				}
			}
		})
	}
}

// TestNewMissingPath: every path must exist.
func TestNewMissingPath(t *testing.T) {
	_, err := watch.New([]string{filepath.Join(t.TempDir(), "nowhere")}, watch.Options{})
	if !os.IsNotExist(err) {
		t.Errorf("error %v, want not exist", err)
	}
}

// TestRunEndsWithContext: Run returns nil when its context ends.
func TestRunEndsWithContext(t *testing.T) {
	w, err := watch.New([]string{t.TempDir()}, watch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Run(ctx, func([]string) { t.Error("change reported") }); err != nil {
		t.Errorf("Run: %v", err)
	}
}
