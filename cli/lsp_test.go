package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/flowserve/flowserve/internal/nvimtest"
)

// frames returns LSP messages framed as the base protocol frames them.
func frames(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

const (
	lspInit     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}`
	lspShutdown = `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`
	lspExit     = `{"jsonrpc":"2.0","method":"exit"}`
)

// TestLspCommand runs flowserve lsp on scripted input: its flags, and the
// exit status the protocol gives a client that did or did not shut the
// server down first.
func TestLspCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // a substring
		stderr string // a substring
	}{
		{"help", []string{"-h"}, "", exitOK, "", "usage: flowserve lsp"},
		{"an argument", []string{"flows"}, "", exitUsage, "", `unexpected argument "flows"`},
		{"a bad flag", []string{"--tcp"}, "", exitUsage, "", "flag provided but not defined"},
		{"shutdown then exit", []string{"--stdio"}, frames(lspInit, lspShutdown, lspExit), exitOK, `"serverInfo":{"name":"flowserve"`, ""},
		{"exit without shutdown", nil, frames(lspInit, lspExit), exitFail, `"id":1`, ""},
		{"input ends", nil, frames(lspInit), exitFail, `"id":1`, ""},
		{"a broken header", nil, "Content-Length: x\r\n\r\n", exitFail, "", "bad message header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), append([]string{"lsp"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
		})
	}
}

// nvimScript drives Neovim's built-in LSP client as a user's setup
// does: it runs SETUP_LUA (the snippet of docs/editors.md for this
// Neovim's version) with filetype detection on, opens FLOW_FILE (under a
// flows/ directory, so the snippet attaches flowserve lsp to it), waits
// for diagnostics, asks for completion and hover at COMPLETE_AT and
// HOVER_AT ("line:character"), edits line FIX_LINE to FIX_TEXT, waits
// until the diagnostics clear, stops the client and writes what it saw
// to OUT_FILE as JSON.
const nvimScript = `
local env = function(k) return os.getenv(k) end
local results = {}
local function pos(s)
  local l, c = s:match("(%d+):(%d+)")
  return {line = tonumber(l), character = tonumber(c)}
end
local ok, err = pcall(function()
  results.nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)
  vim.cmd("filetype on")
  dofile(env("SETUP_LUA"))
  vim.cmd("edit " .. vim.fn.fnameescape(env("FLOW_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local function client()
    local cs = vim.lsp.get_clients and vim.lsp.get_clients({bufnr = buf}) or vim.lsp.buf_get_clients(buf)
    for _, c in pairs(cs) do return c end
  end
  local function diags()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local lsp = d.user_data and d.user_data.lsp or {}
      table.insert(out, {lnum = d.lnum, col = d.col, end_col = d.end_col, source = d.source,
        code = lsp.code or d.code, message = d.message})
    end
    return out
  end
  local function typos()
    local n = 0
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find("plann", 1, true) then n = n + 1 end
    end
    return n
  end
  if not vim.wait(15000, function() return typos() > 0 end, 20) then
    error("no diagnostics (" .. vim.bo[buf].filetype .. " buffer, " .. (client() and "a client attached" or "no client attached") .. ")")
  end
  results.first = diags()
  local id = client().id
  local uri = vim.uri_from_bufnr(buf)
  local function request(method, at)
    local resp = vim.lsp.buf_request_sync(buf, method, {textDocument = {uri = uri}, position = pos(at)}, 10000)
    if not resp or not resp[id] then error(method .. ": no response") end
    if resp[id].err then error(method .. ": " .. vim.inspect(resp[id].err)) end
    return resp[id].result
  end
  local items = request("textDocument/completion", env("COMPLETE_AT"))
  results.completion = {}
  for _, it in ipairs(items.items or items) do table.insert(results.completion, it.label) end
  results.hover = request("textDocument/hover", env("HOVER_AT")).contents.value
  local line = tonumber(env("FIX_LINE"))
  vim.api.nvim_buf_set_lines(buf, line, line + 1, false, {env("FIX_TEXT")})
  if not vim.wait(15000, function() return typos() == 0 end, 20) then error("the diagnostic stayed after the edit") end
  results.second = diags()
  vim.lsp.stop_client(id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
end)
results.ok = ok
if not ok then results.err = tostring(err) end
vim.fn.writefile({vim.fn.json_encode(results)}, env("OUT_FILE"))
vim.cmd("qa!")
`

// nvimFlow has a misspelt field after non-ASCII text.
const nvimFlow = `name: nvim_demo
description: Démo 🎉 flow.
nodes:
  - id: confirm
    ask: "Délété 🎉?"
    form:
      plan: {type: string, enum: [free, team]}
    required: [plan]
  - return: "🎉 {{ confirm.content.plann }} {{ confirm.content.plan }}"
`

// TestLspNeovim is the language server in a real editor: headless Neovim
// and its built-in LSP client start the flowserve binary, get lint's
// diagnostics at the right UTF-16 range, complete a form's fields,
// hover, send an incremental change and get the diagnostics cleared.
func TestLspNeovim(t *testing.T) {
	nvim, major, minor := nvimtest.Find(t)
	bin := binary(t)
	dir := t.TempDir()
	flowPath := filepath.Join(dir, "flows", "nvim_demo.yaml")
	out := filepath.Join(dir, "out.json")
	files := map[string]string{flowPath: nvimFlow, filepath.Join(dir, "drive.lua"): nvimScript,
		filepath.Join(dir, "setup.lua"): nvimtest.Setup(t, "../docs/editors.md", major, minor)}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(nvimFlow, "\n")
	fixLine := len(lines) - 2
	at := func(marker string, shift int) string {
		p := utf16Pos(nvimFlow, marker, shift)
		return fmt.Sprintf("%d:%d", p[0], p[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+filepath.Join(dir, "drive.lua"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SETUP_LUA="+filepath.Join(dir, "setup.lua"), "FLOW_FILE="+flowPath, "OUT_FILE="+out,
		"COMPLETE_AT="+at("plann", 0), "HOVER_AT="+at("plan }}", 1),
		fmt.Sprintf("FIX_LINE=%d", fixLine), "FIX_TEXT="+strings.Replace(lines[fixLine], "plann", "plan", 1),
		"XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, output)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no results: %v\n%s", err, output)
	}
	var res struct {
		OK               bool
		Err, Nvim, Hover string
		First, Second    []lspDiag
		Completion       []string
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("results %s: %v", raw, err)
	}
	if !res.OK {
		t.Fatalf("the script failed in Neovim %s: %s", res.Nvim, res.Err)
	}
	checkNeovim(t, res.Nvim, res.First, res.Second, res.Completion, res.Hover)
}

// checkNeovim checks what the Neovim script saw: the diagnostics before
// and after the edit, the completion labels and the hover.
func checkNeovim(t *testing.T, nvim string, first, second []lspDiag, completion []string, hover string) {
	t.Helper()
	t.Logf("Neovim %s, set up as docs/editors.md says", nvim)
	start := utf16Pos(nvimFlow, "plann", 0)
	byteCol := strings.Index(strings.Split(nvimFlow, "\n")[start[0]], "plann")
	var d lspDiag
	for _, x := range first {
		if x.Code == "bad-expression" {
			d = x
		}
	}
	if d.Code != "bad-expression" || d.Source != "flowserve" {
		t.Fatalf("diagnostic %+v, want bad-expression from flowserve", d)
	}
	// Neovim turns the protocol's UTF-16 range into byte columns of the
	// buffer's line: after the emoji (4 bytes, 2 units) they are right
	// only if the server counted units as Neovim does.
	if d.Lnum != start[0] || d.Col != byteCol || d.EndCol != byteCol+5 {
		t.Fatalf("Neovim placed the diagnostic at line %d, bytes %d-%d; want %d, %d-%d", d.Lnum, d.Col, d.EndCol, start[0], byteCol, byteCol+5)
	}
	if !slices.Contains(completion, "plan") {
		t.Fatalf("completion %v, want plan", completion)
	}
	if !strings.Contains(hover, "confirm.content.plan: string, one of free, team") {
		t.Fatalf("hover %q", hover)
	}
	for _, x := range second {
		if x.Code == "bad-expression" {
			t.Fatalf("after the edit: %+v", second)
		}
	}
}

// lspDiag is a diagnostic as the Neovim script writes it: where Neovim
// placed it (line, byte columns), its code and source.
type lspDiag struct {
	Lnum   int    `json:"lnum"`
	Col    int    `json:"col"`
	EndCol int    `json:"end_col"`
	Code   string `json:"code"`
	Source string `json:"source"`
}

// utf16Pos returns the 0-based line and UTF-16 character of the first
// marker in src, plus shift.
func utf16Pos(src, marker string, shift int) [2]int {
	at := strings.Index(src, marker)
	before := src[:at]
	col := before[strings.LastIndex(before, "\n")+1:]
	return [2]int{strings.Count(before, "\n"), len(utf16.Encode([]rune(col))) + shift}
}

// TestEditorsVSCode checks the VS Code extension docs/editors.md shows:
// its package.json is JSON naming extension.js and an engine the client
// library accepts, and extension.js is JavaScript node can read, that
// starts `flowserve lsp` for YAML files under flows/.
func TestEditorsVSCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/editors.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(string(doc), "```"+lang+"\n")
		if !ok {
			t.Fatalf("docs/editors.md has no %s block", lang)
		}
		var b strings.Builder
		for _, line := range strings.Split(rest, "\n") {
			line = strings.TrimPrefix(line, "   ") // inside a list item
			if line == "```" {
				return b.String()
			}
			b.WriteString(line + "\n")
		}
		t.Fatalf("docs/editors.md: the %s block does not end", lang)
		return ""
	}
	var pkg struct {
		Main             string
		Engines          struct{ VSCode string }
		ActivationEvents []string
		Dependencies     map[string]string
	}
	if err := json.Unmarshal([]byte(block("json")), &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pkg.Main != "./extension.js" || pkg.Engines.VSCode != "^1.91.0" || pkg.Dependencies["vscode-languageclient"] != "^11.0.0" ||
		!slices.Contains(pkg.ActivationEvents, "onLanguage:yaml") {
		t.Fatalf("package.json %+v", pkg)
	}
	js := block("js")
	for _, want := range []string{"require('vscode-languageclient/node')", "args: ['lsp']", "pattern: '**/flows/**/*.{yaml,yml}'"} {
		if !strings.Contains(js, want) {
			t.Errorf("extension.js lacks %s", want)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; install it with `apt-get install -y nodejs` (.ci/run does)")
	}
	path := filepath.Join(t.TempDir(), "extension.js")
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Fatalf("node --check extension.js: %v\n%s", err, out)
	}
}
