package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/nvimtest"
)

// serverEnv, set in the environment of the test binary, makes it the
// language server on standard input and output instead of running the
// tests: the editor test starts it as docs/editors.md starts flowserve
// lsp.
const serverEnv = "FLOWSERVE_LSP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		err := New(Options{Log: log.New(os.Stderr, "flowserve lsp: ", 0)}).Serve(context.Background(), os.Stdin, os.Stdout)
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// nvimCallScript drives Neovim's built-in LSP client as a user's setup
// does (SETUP_LUA, the snippet of docs/editors.md for this Neovim): it
// opens CALLER_FILE, waits for the diagnostic its call has against the
// callee in another file, asks for the definition of the callee's name
// at DEFINITION_AT ("line:byte column", from 0) as a user does, waits
// until Neovim has opened CALLEE_FILE and writes where the cursor is to
// OUT_FILE as JSON.
const nvimCallScript = `
local env = function(k) return os.getenv(k) end
local results = {}
local ok, err = pcall(function()
  results.nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)
  vim.cmd("filetype on")
  dofile(env("SETUP_LUA"))
  vim.cmd("edit " .. vim.fn.fnameescape(env("CALLER_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local function codes()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local lsp = d.user_data and d.user_data.lsp or {}
      table.insert(out, (lsp.code or d.code or "") .. ": " .. d.message)
    end
    return out
  end
  local function has(code)
    for _, c in ipairs(codes()) do
      if c:find(code .. ": ", 1, true) == 1 then return true end
    end
    return false
  end
  if not vim.wait(15000, function() return has("with-unknown") end, 20) then
    error("no with-unknown diagnostic: " .. vim.inspect(codes()))
  end
  results.diagnostics = codes()
  local l, c = env("DEFINITION_AT"):match("(%d+):(%d+)")
  vim.api.nvim_win_set_cursor(0, {tonumber(l) + 1, tonumber(c)})
  vim.lsp.buf.definition()
  local want = vim.fn.fnamemodify(env("CALLEE_FILE"), ":p")
  if not vim.wait(15000, function() return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":p") == want end, 20) then
    error("definition left the cursor in " .. vim.api.nvim_buf_get_name(0))
  end
  local cur = vim.api.nvim_win_get_cursor(0)
  results.line = cur[1] - 1
  results.col = cur[2]
  local clients = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, client in pairs(clients) do
    local id = client.id
    vim.lsp.stop_client(id)
    vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
  end
end)
results.ok = ok
if not ok then results.err = tostring(err) end
vim.fn.writefile({vim.fn.json_encode(results)}, env("OUT_FILE"))
vim.cmd("qa!")
`

// TestNeovimCallDefinition is go to definition across files in a real
// editor: headless Neovim, set up as docs/editors.md says, starts the
// server (this test binary, as flowserve on the PATH), shows the
// diagnostic a call has against the flow it calls, and jumps from the
// call's flow name to that flow's name in its file. Without Neovim the
// test fails, as cli's TestLspNeovim does: CI installs it.
func TestNeovimCallDefinition(t *testing.T) {
	nvim, major, minor := nvimtest.Find(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	flows := writeFlows(t, filepath.Join(dir, "flows"), calleeFiles)
	writeFlows(t, flows, map[string]string{"delete.yaml": callerFlow})
	bin := filepath.Join(dir, "bin")
	writeFlows(t, dir, map[string]string{
		"bin/flowserve": fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", serverEnv, self),
		"drive.lua":     nvimCallScript,
		"setup.lua":     nvimtest.Setup(t, "../docs/editors.md", major, minor),
	})
	if err := os.Chmod(filepath.Join(bin, "flowserve"), 0o755); err != nil {
		t.Fatal(err)
	}
	at := posOf(t, callerFlow, "confirm_action\n", 0, 4) // ASCII: characters are bytes
	out := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+filepath.Join(dir, "drive.lua"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SETUP_LUA="+filepath.Join(dir, "setup.lua"), "CALLER_FILE="+filepath.Join(flows, "delete.yaml"),
		"CALLEE_FILE="+filepath.Join(flows, "confirm.yaml"), "OUT_FILE="+out,
		fmt.Sprintf("DEFINITION_AT=%d:%d", at.Line, at.Character),
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
		OK          bool
		Err, Nvim   string
		Diagnostics []string
		Line, Col   int
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("results %s: %v", raw, err)
	}
	if !res.OK {
		t.Fatalf("the script failed in Neovim %s: %s\n%s", res.Nvim, res.Err, output)
	}
	t.Logf("Neovim %s, set up as docs/editors.md says: %q", res.Nvim, res.Diagnostics)
	if !strings.Contains(strings.Join(res.Diagnostics, "\n"), `with-unknown: with.tims is not allowed by flow confirm_action`) {
		t.Errorf("diagnostics %q, want the call's with-unknown", res.Diagnostics)
	}
	name := posOf(t, calleeFiles["confirm.yaml"], "confirm_action", 0, 0)
	if res.Line != name.Line || res.Col != name.Character {
		t.Fatalf("definition put the cursor at %d:%d of confirm.yaml, want %d:%d (its name)", res.Line, res.Col, name.Line, name.Character)
	}
}
