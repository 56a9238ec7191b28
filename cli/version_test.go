package cli

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionCommand: flowserve version and flowserve --version print the
// same, starting with the version shown.
func TestVersionCommand(t *testing.T) {
	want, errOut, code := run(t, "version")
	if code != 0 || !strings.HasPrefix(want, "flowserve ") || !strings.Contains(want, "\nserves:    "+servedVersion()+"\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, want, errOut)
	}
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if out, _, code := run(t, args...); code != 0 || out != want {
			t.Errorf("%q: exit %d, %q; want %q", args, code, out, want)
		}
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"version", "extra"}, 2, `flowserve version: unexpected argument "extra"`},
		{[]string{"version", "-h"}, 0, "usage: flowserve version"},
		{[]string{"help"}, 0, "  version    print flowserve's version"},
	}
	for _, tc := range tests {
		out, errOut, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: exit %d, output %q; want exit %d containing %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}

// TestReadBuild: what each kind of build says of itself.
func TestReadBuild(t *testing.T) {
	const rev = "91d83f89d42f823ff49ed406a86ea4fd4833c4a8"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T19:29:54Z"}, {Key: "vcs.modified", Value: modified},
		}
	}
	info := func(version string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/flowserve/flowserve", Version: version}, Settings: settings}
	}
	tests := []struct {
		name   string
		info   *debug.BuildInfo
		shown  string
		served string
		lines  []string // in String, in order
	}{
		{
			name: "go install ...@v0.2.0", info: info("v0.2.0", nil),
			shown: "v0.2.0", served: "0.2.0",
			lines: []string{"flowserve v0.2.0\n", "serves:    0.2.0\n", "go:        go1.26.0 "},
		},
		{
			name: "a clone with changes", info: info("v0.0.0-20261201192954-91d83f89d42f+dirty", vcs("true")),
			shown: "(devel)", served: "0.1.0-devel+91d83f89d42f.dirty",
			lines: []string{"flowserve (devel)\n", "commit:    " + rev + " (modified: the clone had uncommitted changes)\n", "committed: 2026-12-01T19:29:54Z\n"},
		},
		{
			name: "a clean clone", info: info("v0.0.0-20261201192954-91d83f89d42f", vcs("false")),
			shown: "(devel)", served: "0.1.0-devel+91d83f89d42f",
			lines: []string{"flowserve (devel)\n", "commit:    " + rev + "\n"},
		},
		{
			name: "a clone at a release tag", info: info("v0.2.0", vcs("false")),
			shown: "v0.2.0", served: "0.2.0",
			lines: []string{"flowserve v0.2.0\n", "commit:    " + rev + "\n"},
		},
		{
			name: "a clone at a release tag, with changes", info: info("v0.2.0+dirty", vcs("true")),
			shown: "(devel)", served: "0.1.0-devel+91d83f89d42f.dirty",
		},
		{
			name: "go install ...@<commit>", info: info("v0.1.1-0.20261201192954-91d83f89d42f", nil),
			shown: "v0.1.1-0.20261201192954-91d83f89d42f", served: "0.1.0-devel+91d83f89d42f",
		},
		{
			name: "built without VCS information", info: info("(devel)", nil),
			shown: "(devel)", served: "0.1.0-devel",
			lines: []string{"flowserve (devel)\n", "commit:    unknown (built without VCS information"},
		},
		{
			name: "no build information", info: nil,
			shown: "(devel)", served: "0.1.0-devel",
			lines: []string{"flowserve (devel)\n", "go:        " + runtime.Version()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := readBuild(tc.info)
			if b.shown() != tc.shown || b.served() != tc.served {
				t.Errorf("shown %q, served %q; want %q, %q", b.shown(), b.served(), tc.shown, tc.served)
			}
			rest := b.String()
			for _, l := range tc.lines {
				i := strings.Index(rest, l)
				if i < 0 {
					t.Fatalf("String lacks %q (in order):\n%s", l, b.String())
				}
				rest = rest[i+len(l):]
			}
		})
	}
}

// TestVersionBuiltFromClone builds the binary from this clone with VCS
// stamping, as go build does by default, and runs flowserve --version.
func TestVersionBuiltFromClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not in a git clone")
	}
	bin := filepath.Join(t.TempDir(), "flowserve")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "../cmd/flowserve")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("flowserve --version: %v", err)
	}
	want := regexp.MustCompile(`^flowserve (\(devel\)|v\d+\.\d+\.\d+\S*)\ncommit:    [0-9a-f]{40}( \(modified: the clone had uncommitted changes\))?\n`)
	if !want.Match(out) {
		t.Errorf("flowserve --version printed:\n%s", out)
	}
}
