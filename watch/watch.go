// Package watch reports changes to files under a set of paths, as
// `flowserve serve --watch` needs them: bursts of events are debounced
// into one report, editors that save by writing a new file and renaming
// it over the old one work, files created in watched directories (and in
// directories created in them) are seen, and so are deletions.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a Watcher waits after the last event of a
// burst before reporting it.
const DefaultDebounce = 100 * time.Millisecond

// Options configure a Watcher. The zero value is usable.
type Options struct {
	// Debounce is how quiet the files must stay before a change is
	// reported; default DefaultDebounce. A burst that never quiets down
	// is reported after 20 times as long.
	Debounce time.Duration
	// Match says which files under a watched directory count, by path;
	// nil means all. Files named explicitly always count.
	Match func(path string) bool
	// Siblings makes the files Match accepts beside a file named
	// explicitly count too: a flow served on its own is loaded with the
	// flows beside it that it calls.
	Siblings bool
	// Logger receives the watcher's own problems; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Watcher watches files and directories. Directories are watched with
// everything below them except hidden directories; a file is watched
// through its directory, so it survives being replaced.
type Watcher struct {
	opts  Options
	log   *slog.Logger
	fsw   *fsnotify.Watcher
	files map[string]bool // files named explicitly
	roots []string        // directories named explicitly

	mu   sync.Mutex
	dirs map[string]bool // directories with a watch
}

// New starts watching paths; changes from then on are reported by Run.
// Every path must exist.
func New(paths []string, opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{opts: opts, log: opts.Logger, fsw: fsw, files: map[string]bool{}, dirs: map[string]bool{}}
	if w.log == nil {
		w.log = slog.Default()
	}
	for _, p := range paths {
		// Absolute paths make fsnotify's event names absolute too, so
		// they compare with the roots however the paths were written
		// ("." included).
		p, err := filepath.Abs(p)
		if err != nil {
			fsw.Close()
			return nil, err
		}
		info, err := os.Stat(p)
		if err != nil {
			fsw.Close()
			return nil, err
		}
		if info.IsDir() {
			w.roots = append(w.roots, p)
			if err := w.addTree(p); err != nil {
				fsw.Close()
				return nil, err
			}
			continue
		}
		w.files[p] = true
		if err := w.add(filepath.Dir(p)); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	return w, nil
}

// add watches one directory.
func (w *Watcher) add(dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[dir] {
		return nil
	}
	if err := w.fsw.Add(dir); err != nil {
		return err
	}
	w.dirs[dir] = true
	return nil
}

// addTree watches dir and the directories below it, skipping hidden
// ones.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // gone while walking
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return w.add(path)
	})
}

// besideFile reports whether path is in the directory of a file named
// explicitly.
func (w *Watcher) besideFile(path string) bool {
	dir := filepath.Dir(path)
	for f := range w.files {
		if filepath.Dir(f) == dir {
			return true
		}
	}
	return false
}

// underRoot reports whether path is in (or is) a watched directory tree.
func (w *Watcher) underRoot(path string) bool {
	for _, r := range w.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// relevant reports whether an event changes what is watched, and
// watches directories that appear.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	path := filepath.Clean(ev.Name)
	if w.files[path] {
		return true
	}
	if !w.underRoot(path) {
		// A sibling of a file named explicitly.
		return w.opts.Siblings && (w.opts.Match == nil || w.opts.Match(path)) && w.besideFile(path)
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			if strings.HasPrefix(filepath.Base(path), ".") {
				return false
			}
			// Files may have been created in it before its watch.
			if err := w.addTree(path); err != nil {
				w.log.Warn("cannot watch a new directory", "dir", path, "err", err)
			}
			return true
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.mu.Lock()
		wasDir := w.dirs[path]
		if wasDir {
			// fsnotify drops the watch of a removed directory itself;
			// forget it and those below it so they can come back.
			for d := range w.dirs {
				if d == path || strings.HasPrefix(d, path+string(filepath.Separator)) {
					delete(w.dirs, d)
					_ = w.fsw.Remove(d)
				}
			}
		}
		w.mu.Unlock()
		if wasDir {
			return true
		}
	}
	if ev.Op == fsnotify.Chmod {
		return false
	}
	return w.opts.Match == nil || w.opts.Match(path)
}

// Run reports changes until ctx ends: after each burst of relevant
// events has been quiet for the debounce time, it calls onChange with the
// absolute paths that changed, sorted. Calls are sequential; events during a call
// are reported by the next one. Run returns nil when ctx ends.
func (w *Watcher) Run(ctx context.Context, onChange func(changed []string)) error {
	var (
		timer   = time.NewTimer(time.Hour)
		fire    <-chan time.Time
		first   time.Time
		changed = map[string]bool{}
	)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return nil
			}
			if !w.relevant(ev) {
				continue
			}
			now := time.Now()
			if len(changed) == 0 {
				first = now
			}
			changed[filepath.Clean(ev.Name)] = true
			wait := w.opts.Debounce
			if limit := first.Add(20 * w.opts.Debounce); now.Add(wait).After(limit) {
				wait = max(limit.Sub(now), 0)
			}
			timer.Reset(wait)
			fire = timer.C
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return nil
			}
			w.log.Warn("watching flows", "err", err)
		case <-fire:
			fire = nil
			list := make([]string, 0, len(changed))
			for p := range changed {
				list = append(list, p)
			}
			sort.Strings(list)
			clear(changed)
			onChange(list)
		}
	}
}

// Close stops watching.
func (w *Watcher) Close() error {
	return w.fsw.Close()
}
