package std

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

// tree lays out a root with files, a subdirectory and symbolic links inside
// and out of it, next to an outside directory holding a secret:
//
//	root/hello.txt          "hello\n"
//	root/bin.dat            not UTF-8
//	root/sub/a.txt          "a"
//	root/sub/deeper/b.txt   "b"
//	root/in          -> sub                   (inside)
//	root/hello_link  -> hello.txt             (inside)
//	root/sub/up      -> ..                    (the root: inside)
//	root/out         -> ../outside            (relative, escapes)
//	root/abs         -> <base>/outside        (absolute, escapes)
//	root/secret      -> ../outside/secret.txt (a file outside)
//	root/sub/upup    -> ../..                 (escapes)
//	root/dangling    -> nowhere
//	outside/secret.txt "secret"
func tree(t *testing.T) (host *actions.Host, root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub", "deeper")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		"root/hello.txt":        "hello\n",
		"root/bin.dat":          "\xff\xfe\x00binary",
		"root/sub/a.txt":        "a",
		"root/sub/deeper/b.txt": "b",
		"outside/secret.txt":    "secret",
	}
	for name, text := range files {
		must(t, os.WriteFile(filepath.Join(base, name), []byte(text), 0o644))
	}
	links := map[string]string{
		"root/in":         "sub",
		"root/hello_link": "hello.txt",
		"root/sub/up":     "..",
		"root/out":        "../outside",
		"root/abs":        outside,
		"root/secret":     "../outside/secret.txt",
		"root/sub/upup":   "../..",
		"root/dangling":   "nowhere",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(base, name)))
	}
	return &actions.Host{FSRoot: root}, root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// escapes are paths every fs action must refuse, with the error naming them.
var escapes = []string{
	"/etc/passwd",
	"../outside/secret.txt",
	"..",
	"sub/../../outside",
	"out/secret.txt",
	"abs/secret.txt",
	"secret",
	"sub/upup/outside/secret.txt",
	"in/upup/outside/secret.txt",
}

func TestFSRefusesEscapes(t *testing.T) {
	ins := map[string]func(p string) map[string]any{
		"fs.stat":   func(p string) map[string]any { return map[string]any{"path": p} },
		"fs.read":   func(p string) map[string]any { return map[string]any{"path": p} },
		"fs.write":  func(p string) map[string]any { return map[string]any{"path": p, "text": "pwned"} },
		"fs.list":   func(p string) map[string]any { return map[string]any{"path": p} },
		"fs.remove": func(p string) map[string]any { return map[string]any{"path": p, "recursive": true} },
	}
	for action, in := range ins {
		for _, p := range escapes {
			if action == "fs.remove" && p == "secret" {
				continue // removes the link itself, inside the root (TestFSRemove)
			}
			t.Run(action+" "+p, func(t *testing.T) {
				h, _, outside := tree(t)
				_, err := run(t, h, action, in(p))
				if !errors.Is(err, ErrOutsideRoot) {
					t.Fatalf("error = %v, want ErrOutsideRoot", err)
				}
				wantErr(t, err, `path "`+p+`"`)
				if b, err := os.ReadFile(filepath.Join(outside, "secret.txt")); err != nil || string(b) != "secret" {
					t.Fatalf("the outside secret changed: %q, %v", b, err)
				}
				if ents, _ := os.ReadDir(outside); len(ents) != 1 {
					t.Fatalf("outside has %d entries", len(ents))
				}
			})
		}
	}
}

func TestFSNeedsRoot(t *testing.T) {
	for _, action := range []string{"fs.stat", "fs.read", "fs.write", "fs.list", "fs.remove"} {
		t.Run(action, func(t *testing.T) {
			in := map[string]any{"path": "x", "text": ""}
			if action != "fs.write" {
				delete(in, "text")
			}
			for _, h := range []*actions.Host{nil, {}} {
				_, err := run(t, h, action, in)
				if !errors.Is(err, ErrNoRoot) || err.Error() != "fs actions need a root directory; none is configured" {
					t.Fatalf("error = %v", err)
				}
			}
			_, err := run(t, &actions.Host{FSRoot: filepath.Join(t.TempDir(), "missing")}, action, in)
			wantErr(t, err, "open the fs root: ")
		})
	}
}

func TestFSStat(t *testing.T) {
	h, root, _ := tree(t)
	info, err := os.Stat(filepath.Join(root, "hello.txt"))
	must(t, err)
	modified := info.ModTime().UTC().Format("2006-01-02T15:04:05Z07:00")
	tests := []struct {
		path, name, clean string
		bytes             int64
		dir               bool
		mode              string
		wantErr           string
	}{
		{path: "hello.txt", name: "hello.txt", clean: "hello.txt", bytes: 6, mode: "-rw-r--r--"},
		{path: "./sub//a.txt", name: "a.txt", clean: "sub/a.txt", bytes: 1, mode: "-rw-r--r--"},
		{path: "sub", name: "sub", clean: "sub", dir: true, mode: "drwxr-xr-x"},
		{path: ".", name: ".", clean: ".", dir: true, mode: "drwxr-xr-x"},
		{path: "hello_link", name: "hello_link", clean: "hello_link", bytes: 6, mode: "-rw-r--r--"},
		{path: "in/deeper/b.txt", name: "b.txt", clean: "in/deeper/b.txt", bytes: 1, mode: "-rw-r--r--"},
		{path: "sub/up/hello.txt", name: "hello.txt", clean: "sub/up/hello.txt", bytes: 6, mode: "-rw-r--r--"},
		{path: "missing.txt", wantErr: `path "missing.txt": no such file or directory`},
		{path: "dangling", wantErr: `path "dangling": no such file or directory`},
		{path: "", wantErr: "path: must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out, err := run(t, h, "fs.stat", map[string]any{"path": tt.path})
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			must(t, err)
			want := map[string]any{"name": tt.name, "path": tt.clean, "bytes": tt.bytes, "dir": tt.dir, "mode": tt.mode}
			for k, v := range want {
				if out[k] != v {
					t.Errorf("%s = %#v, want %#v", k, out[k], v)
				}
			}
			if tt.path == "hello.txt" && out["modified"] != modified {
				t.Errorf("modified = %v, want %v", out["modified"], modified)
			}
		})
	}
	_, err = run(t, h, "fs.stat", map[string]any{"path": "missing"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing path error %v is not fs.ErrNotExist", err)
	}
}

func TestFSRead(t *testing.T) {
	h, _, _ := tree(t)
	tests := []struct {
		name    string
		in      map[string]any
		text    string
		wantErr string
	}{
		{"file", map[string]any{"path": "hello.txt"}, "hello\n", ""},
		{"through inside link", map[string]any{"path": "in/a.txt"}, "a", ""},
		{"exactly max_bytes", map[string]any{"path": "hello.txt", "max_bytes": int64(6)}, "hello\n", ""},
		{"over max_bytes", map[string]any{"path": "hello.txt", "max_bytes": int64(5)}, "", `file "hello.txt" has 6 bytes, more than max_bytes (5)`},
		{"max_bytes too big", map[string]any{"path": "hello.txt", "max_bytes": int64(FSReadMaxMax + 1)}, "", "max_bytes: must be at most 67108864"},
		{"binary", map[string]any{"path": "bin.dat"}, "", `file "bin.dat" is not UTF-8 text`},
		{"directory", map[string]any{"path": "sub"}, "", `path "sub" is a directory`},
		{"missing", map[string]any{"path": "nope.txt"}, "", `path "nope.txt": no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, h, "fs.read", tt.in)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			must(t, err)
			if out["text"] != tt.text || out["bytes"] != int64(len(tt.text)) {
				t.Fatalf("fs.read = %v", out)
			}
		})
	}
}

func TestFSWrite(t *testing.T) {
	tests := []struct {
		name    string
		in      []map[string]any // run in order; the last one is checked
		file    string           // relative to root
		want    string
		wantErr string
	}{
		{"new file", []map[string]any{{"path": "new.txt", "text": "héllo"}}, "new.txt", "héllo", ""},
		{"replace", []map[string]any{{"path": "hello.txt", "text": "bye"}}, "hello.txt", "bye", ""},
		{"append", []map[string]any{{"path": "log.txt", "text": "a\n", "append": true}, {"path": "log.txt", "text": "b\n", "append": true}}, "log.txt", "a\nb\n", ""},
		{"create dirs", []map[string]any{{"path": "x/y/z.txt", "text": "z", "create_dirs": true}}, "x/y/z.txt", "z", ""},
		{"through inside link", []map[string]any{{"path": "in/new.txt", "text": "n"}}, "sub/new.txt", "n", ""},
		{"inside file link", []map[string]any{{"path": "hello_link", "text": "linked"}}, "hello.txt", "linked", ""},
		{"missing dir", []map[string]any{{"path": "x/y/z.txt", "text": "z"}}, "", "", `path "x/y/z.txt": no such file or directory`},
		{"create dirs through escaping link", []map[string]any{{"path": "out/new/z.txt", "text": "z", "create_dirs": true}}, "", "", "leads out of the fs root through a symbolic link"},
		{"the root", []map[string]any{{"path": ".", "text": "z"}}, "", "", `path "." is the fs root, a directory`},
		{"a directory", []map[string]any{{"path": "sub", "text": "z"}}, "", "", `path "sub": is a directory`},
		{"no text", []map[string]any{{"path": "a.txt"}}, "", "", "text: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, root, _ := tree(t)
			var out map[string]any
			var err error
			for _, in := range tt.in {
				if out, err = run(t, h, "fs.write", in); err != nil {
					break
				}
			}
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			must(t, err)
			if out["bytes"] != int64(len(tt.in[len(tt.in)-1]["text"].(string))) {
				t.Errorf("bytes = %v", out["bytes"])
			}
			b, err := os.ReadFile(filepath.Join(root, tt.file))
			must(t, err)
			if string(b) != tt.want {
				t.Errorf("file holds %q, want %q", b, tt.want)
			}
		})
	}
}

func TestFSList(t *testing.T) {
	h, _, _ := tree(t)
	tests := []struct {
		name    string
		in      map[string]any
		want    string // name/dir/bytes per entry
		wantErr string
	}{
		{"root by default", map[string]any{}, "abs:f bin.dat:f:9 dangling:f hello.txt:f:6 hello_link:f in:f out:f secret:f sub:d:0", ""},
		{"sub", map[string]any{"path": "sub"}, "a.txt:f:1 deeper:d:0 up:f upup:f", ""},
		{"through inside link", map[string]any{"path": "in/deeper"}, "b.txt:f:1", ""},
		{"a file", map[string]any{"path": "hello.txt"}, "", `path "hello.txt" is not a directory`},
		{"missing", map[string]any{"path": "nope"}, "", `path "nope": no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, h, "fs.list", tt.in)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			must(t, err)
			var got []string
			for _, e := range out["entries"].([]any) {
				e := e.(map[string]any)
				s := e["name"].(string) + ":f"
				if e["dir"] == true {
					s = e["name"].(string) + ":d"
				}
				if !strings.HasSuffix(s, ":f") || !isLink(e["name"].(string)) {
					s += ":" + strconv.FormatInt(e["bytes"].(int64), 10)
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != tt.want {
				t.Fatalf("entries\n  %s\nwant\n  %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}

// isLink: link sizes depend on the target's length; the test skips them.
func isLink(name string) bool {
	switch name {
	case "abs", "dangling", "hello_link", "in", "out", "secret", "up", "upup":
		return true
	}
	return false
}

func TestFSRemove(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		removed bool
		gone    []string // relative to root, must not exist after
		kept    []string // relative to root, must still exist after
		wantErr string
	}{
		{"file", map[string]any{"path": "hello.txt"}, true, []string{"hello.txt"}, []string{"hello_link"}, ""},
		{"missing", map[string]any{"path": "nope.txt"}, false, nil, nil, ""},
		{"empty dir", map[string]any{"path": "sub/deeper/b.txt"}, true, []string{"sub/deeper/b.txt"}, []string{"sub/deeper"}, ""},
		{"non-empty dir", map[string]any{"path": "sub"}, false, nil, []string{"sub/a.txt"}, `path "sub" is a directory that is not empty; set recursive`},
		{"recursive", map[string]any{"path": "sub", "recursive": true}, true, []string{"sub"}, []string{"hello.txt"}, ""},
		{"link to outside dir removes the link only", map[string]any{"path": "out", "recursive": true}, true, []string{"out"}, nil, ""},
		{"absolute link removes the link only", map[string]any{"path": "abs", "recursive": true}, true, []string{"abs"}, nil, ""},
		{"link to outside file", map[string]any{"path": "secret"}, true, []string{"secret"}, nil, ""},
		{"inside link keeps its target", map[string]any{"path": "in", "recursive": true}, true, []string{"in"}, []string{"sub/a.txt"}, ""},
		{"dangling link", map[string]any{"path": "dangling"}, true, []string{"dangling"}, nil, ""},
		{"the root", map[string]any{"path": ".", "recursive": true}, false, nil, []string{"hello.txt"}, `path "." is the fs root, which cannot be removed`},
		{"the root by a detour", map[string]any{"path": "sub/..", "recursive": true}, false, nil, []string{"hello.txt"}, "the fs root, which cannot be removed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, root, outside := tree(t)
			out, err := run(t, h, "fs.remove", tt.in)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
			} else {
				must(t, err)
				if out["removed"] != tt.removed {
					t.Errorf("removed = %v, want %v", out["removed"], tt.removed)
				}
			}
			for _, p := range tt.gone {
				if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s still exists", p)
				}
			}
			for _, p := range tt.kept {
				if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s is gone: %v", p, err)
				}
			}
			if b, err := os.ReadFile(filepath.Join(outside, "secret.txt")); err != nil || string(b) != "secret" {
				t.Errorf("the outside secret changed: %q, %v", b, err)
			}
		})
	}
}
