//go:build linux

package cli

import (
	"cmp"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ansi matches terminal escape sequences.
var ansi = regexp.MustCompile(`\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78])`)

// keptTTYs keeps the terminal files given to Run from being closed.
var keptTTYs []*os.File

// TestRunTerminal drives the full-screen forms through a pseudo-terminal:
// the respond select, a confirm, going back, and Ctrl-C.
func TestRunTerminal(t *testing.T) {
	// key is sent once the screen shows text in what was drawn since the
	// key before (huh moves the focus after a key is handled, so each key
	// waits for the field it is meant for).
	type key struct {
		text string
		keys string
	}
	const respond = "How do you respond?"
	tests := []struct {
		name    string
		flow    string // default delete_file, with report.txt
		args    string
		flags   []string // more flags
		keys    []key
		code    int
		stdout  string // in the transcript
		deleted bool
	}{
		{
			name:    "answered",
			keys:    []key{{respond, "\r"}, {"Delete it", "y"}},
			stdout:  "Result:\r\nDeleted report.txt.",
			deleted: true,
		},
		{
			name:   "declined",
			keys:   []key{{respond, "\x1b[B\r"}},
			stdout: "→ decline",
		},
		{
			name: "back from the form to cancel",
			// Answer, then shift+tab back to the first choice.
			keys:   []key{{respond, "\r"}, {"Delete it", "\x1b[Z"}, {respond, "\x1b[B\x1b[B\r"}},
			stdout: "→ cancel",
		},
		{
			name: "a URL, text inputs, a select and a re-ask",
			flow: "github_signin.yaml",
			args: `{"body": "it broke"}`,
			// The focused field is the one marked ┃.
			keys: []key{
				{"Did you open the page?", "\r"},
				{respond, "\r"},
				// Too short for the form: it says so and stays.
				{"┃ Repository (owner/name)", "ab\r"},
				{schemaReason(t, map[string]any{"type": "string", "minLength": 3}, "ab"), "c\r"},
				{"┃ Issue title", "It broke\r"},
				{"┃ Label", "\x1b[B\r"},
				// abc is not owner/name: the flow asks again with the
				// answer filled in.
				{respond, "\r"},
				{"┃ Repository (owner/name)", "\x7f\x7f\x7focto/hello\r"},
				{"┃ Issue title", "\r"},
				{"┃ Label", "\r"},
			},
			stdout: `Result:` + "\r\n" + `Would open "It broke" (enhancement) in octo/hello: it broke`,
		},
		{
			// Issue 14: Enter picked the first option of a required
			// select without a default.
			name: "a required select without a default waits for a choice",
			flow: "expense_approval.yaml",
			args: `{"description": "x", "amount": 900}`,
			keys: []key{
				{respond, "\r"},
				{"┃ Decision", "\r"},
				{"a choice is required", "\x1b[B\r"},
				{"┃ Note for the requester", "\r"},
			},
			stdout: `→ accept {"decision":"approve"}`,
		},
		{
			// An approval asked here: no cancel, and who answers, their
			// name offered ($USER).
			name:  "an approval in the terminal",
			flow:  "refund_approval.yaml",
			args:  `{"order": "A-1", "amount": 10, "reason": "broken"}`,
			flags: []string{"--approvals", "terminal"},
			keys: []key{
				{"How do you respond, as finance@example.com?", "\r"},
				{"┃ Approve the refund", "y"},
				{"┃ Note for the requester", "\r"},
				{"┃ Your name", "\r"},
			},
			stdout: `→ accept {"approve":true} (by tess)`,
		},
		{
			name:  "an approval declined in the terminal asks who declines",
			flow:  "refund_approval.yaml",
			args:  `{"order": "A-1", "amount": 10, "reason": "broken"}`,
			flags: []string{"--approvals", "terminal"},
			keys: []key{
				{"How do you respond, as finance@example.com?", "\x1b[B\r"},
				{"┃ Your name", "\x7f\x7f\x7f\x7fSam\r"},
			},
			stdout: "→ decline (by Sam)",
		},
		{
			name: "interrupted",
			keys: []key{{respond, "\x03"}},
			code: exitInterrupted,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("USER", "tess")
			root := t.TempDir()
			writeTemp(t, root, "report.txt", "hello world")
			master, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer master.Close()
			defer tty.Close()
			if err := pty.Setsize(master, &pty.Winsize{Rows: 40, Cols: 100}); err != nil {
				t.Fatal(err)
			}
			before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			screen := &syncBuffer{}
			go io.Copy(screen, master)
			text := func() string { return ansi.ReplaceAllString(screen.String(), "") }
			// Run gets a file of its own on the terminal, never closed:
			// bubbletea may read its descriptor from a command goroutine
			// it does not wait for.
			fd, err := unix.Dup(int(tty.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			runTTY := os.NewFile(uintptr(fd), tty.Name())
			keptTTYs = append(keptTTYs, runTTY)
			var stderr syncBuffer
			done := make(chan int, 1)
			go func() {
				flow, args := cmp.Or(tc.flow, "delete_file.yaml"), cmp.Or(tc.args, `{"path": "report.txt"}`)
				cmd := append(append([]string{"run", "--fs-root", root, "--args", args}, tc.flags...), filepath.Join(exampleFlowsDir, flow))
				done <- Run(cliCtx(t, 20*time.Second), cmd, runTTY, runTTY, &stderr)
			}()
			drawn := 0 // bytes of the screen before the last key
			for _, k := range tc.keys {
				waitFor(t, func() string { return ansi.ReplaceAllString(screen.String()[drawn:], "") }, k.text)
				drawn = len(screen.String())
				if _, err := master.Write([]byte(k.keys)); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case code := <-done:
				if code != tc.code {
					t.Errorf("exit %d, want %d; stderr:\n%s\nscreen:\n%s", code, tc.code, stderr.String(), text())
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("run did not end; screen:\n%s", text())
			}
			waitFor(t, text, tc.stdout)
			after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Errorf("terminal not restored: termios %+v, was %+v", *after, *before)
			}
			if _, err := os.Stat(filepath.Join(root, "report.txt")); os.IsNotExist(err) != tc.deleted {
				t.Errorf("report.txt deleted: %v, want %v", os.IsNotExist(err), tc.deleted)
			}
		})
	}
}
