// Package nvimtest finds the Neovim that the editor tests drive and the
// setup docs/editors.md gives for it, so that every test of the language
// server in a real editor starts it as a user would.
package nvimtest

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Install says how to get Neovim; test failures quote it.
const Install = "install it with `apt-get install -y neovim` (Debian, Ubuntu; as root; .ci/run does), or set NVIM to the path of a Neovim binary"

// versionRE reads the version nvim --version prints first.
var versionRE = regexp.MustCompile(`NVIM v(\d+)\.(\d+)`)

// Find returns the Neovim to drive ($NVIM, or nvim on the PATH) and its
// major and minor version. Without one the test fails: CI installs it.
func Find(t testing.TB) (path string, major, minor int) {
	t.Helper()
	path = os.Getenv("NVIM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("nvim"); err != nil {
			t.Fatalf("Neovim is not installed; the editor test needs it: %s", Install)
		}
	}
	out, err := exec.Command(path, "--version").Output()
	m := versionRE.FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("nvim --version: %v\n%s", err, out)
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return path, major, minor
}

// Setup returns the Lua snippet the editors doc at docPath gives for
// Neovim major.minor: the block after the paragraph that names its
// versions.
func Setup(t testing.TB, docPath string, major, minor int) string {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	lead := "Neovim 0.11 and later"
	switch {
	case major == 0 && minor < 8:
		lead = "Neovim 0.7 (Debian 12's)"
	case major == 0 && minor < 11:
		lead = "Neovim 0.8 to 0.10"
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+lead)
	if !ok {
		t.Fatalf("%s has no paragraph starting %q", docPath, lead)
	}
	_, rest, ok = strings.Cut(rest, "```lua\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatalf("%s has no Lua block after %q", docPath, lead)
	}
	return block
}
